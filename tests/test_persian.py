"""Persian Rummy (rules/persian.md): partnerships, joker sets, meld scoring for the side, two deals and the bonus."""

import rigging

from protocol.messages import Discard, Draw, LayOff, Meld
from referee.rules.melds import new_meld
from referee.rules.variants.persian import Persian


def rig(hands=("7H 8C", "2D 3D", "4S 5S", "6H 6D"), table=(), stock=("2C",) * 20, discard=("9D",), turn=0, **options):
    """A Persian game in a chosen position (start of seat `turn`'s turn); table entries are (owner, "cards")."""
    return rigging.rig(Persian, list(hands), table=table, stock=stock, discard=discard, turn=turn, **options)


def finish(g, seat, *ops):
    """Seat `seat` plays `ops` (a whole turn)."""
    g.apply(seat, list(ops))


# --- the team interface ---------------------------------------------------------------------------------------------
def test_partners_sit_opposite_and_share_a_team():
    g = Persian(4, {}, seed=3)
    assert g.teams == ((0, 2), (1, 3))
    assert [g.team_of(s) for s in range(4)] == [0, 1, 0, 1]
    assert [g.partner(s) for s in range(4)] == [2, 3, 0, 1]


def test_a_deal_scores_each_side_and_every_seat_carries_its_sides_score():
    # derived check: A melded QS KS AS (35) and 7C 7D 7H 7S (56) and went out; B melded three jokers (60)
    g = rig(["7S", "2D 3D", "4S 5S", "6H 6D"], table=[(0, "QS KS AS"), (2, "7C 7D 7H"), (1, "JK JK JK")])
    finish(g, 0, Draw("stock"), LayOff(1, ["7S"]), Discard("2C"))
    deal = g.deal_results[0]
    assert deal["winner"] == 0
    assert deal["teams"] == [116, 60]
    assert deal["scores"] == [116, 60, 116, 60] and deal["totals"] == [116, 60, 116, 60]


def place(g, hands, table=(), stock=("2C",) * 20, discard=("9D",), turn=0):
    """Put the current deal of `g` in a chosen position (start of seat `turn`'s turn)."""
    g.hands = [h.split() for h in hands]
    g.table = [new_meld(cards.split(), g.meld_rules, owner=owner) for owner, cards in table]
    g.stock, g.piles = list(stock), [list(discard)]
    g.turn, g.phase = turn, "draw"


def two_deals():
    """The derived two-deal match: A (seats 0, 2) 116 then 40, B (seats 1, 3) 60 then 90."""
    g = rig(["7S", "2D 3D", "4S 5S", "6H 6D"], table=[(0, "QS KS AS"), (2, "7C 7D 7H"), (1, "JK JK JK")])
    finish(g, 0, Draw("stock"), LayOff(1, ["7S"]), Discard("2C"))
    # deal 2: A melded four fives (20 x 2 = 40); B melded four sevens (56) and 2H 3H 4H (9), and went out (25)
    place(g, ["8C", "2H 3H 4H", "9C", "TC"], table=[(2, "5C 5D 5H 5S"), (3, "7C 7D 7H 7S")], turn=1)
    finish(g, 1, Draw("stock"), Meld(["2H", "3H", "4H"]), Discard("2C"))
    return g


def test_the_match_is_two_deals_and_the_side_ahead_gets_50():
    g = two_deals()
    assert g.is_over()
    assert [d["teams"] for d in g.deal_results] == [[116, 60], [40, 90]]
    r = g.result()
    assert r["teams"] == [{"seats": [0, 2], "total": 206, "rank": 1}, {"seats": [1, 3], "total": 150, "rank": 2}]
    assert r["totals"] == [206, 150, 206, 150] and r["ranks"] == [1, 2, 1, 2]
    assert g.deal_results[-1]["match_bonus"] == [50, 0] and g.deal_results[-1]["scores"] == [90, 90, 90, 90]
    assert g.log[-1].data == {"type": "match_over", "totals": [206, 150, 206, 150], "ranks": [1, 2, 1, 2]}


def test_equal_totals_draw_the_match_without_the_bonus():
    g = rig(["JS", "2D 3D", "4S 5S", "6H 6D"], table=[(0, "QS KS AS"), (1, "8C 8D 8H")])
    finish(g, 0, Draw("stock"), LayOff(0, ["JS"]), Discard("2C"))  # a four-card run is not doubled
    place(g, ["8C", "2H 3H 4H", "9C", "TC"], table=[(2, "2S 3S 4S"), (3, "7C 7D 7H")], turn=1)
    finish(g, 1, Draw("stock"), Meld(["2H", "3H", "4H"]), Discard("2C"))
    r = g.result()
    assert [d["teams"] for d in r["deals"]] == [[45 + 25, 24], [9, 21 + 9 + 25]]
    assert r["teams"][0]["total"] == r["teams"][1]["total"] == 79 and r["ranks"] == [1, 1, 1, 1]
    assert r["deals"][-1]["match_bonus"] == [0, 0]


def test_the_view_shows_the_partner_and_the_teams_but_not_the_partners_hand():
    g = Persian(4, {}, seed=5)
    for seat in range(4):
        v = g.view(seat)
        assert v["partner"] == (seat + 2) % 4 and v["teams"] == [[0, 2], [1, 3]]
        assert v["hand"] == sorted(g.hands[seat])
        assert v["hand_sizes"] == [7, 7, 7, 7]
        partner_hand = g.hands[(seat + 2) % 4]
        assert not any(partner_hand == list(x) for x in v.values() if isinstance(x, list) and x != v["hand"])
    assert g.hidden_zones(0)[:3] == [g.hands[1], g.hands[2], g.hands[3]]


def test_a_game_without_partnerships_keeps_per_seat_results():
    from referee.rules.variants.classic import Classic

    g = Classic(3, {}, seed=1)
    assert g.teams == () and [g.team_of(s) for s in range(3)] == [0, 1, 2] and g.partner(1) is None
    assert g.ranks([10, 5, 10]) == [2, 1, 2]
    assert "teams" not in g.result()
