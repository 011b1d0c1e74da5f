"""Persian Rummy (rules/persian.md): partnerships, joker sets, meld scoring for the side, two deals and the bonus."""

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import rigging
from procs import leftovers
from rigging import illegal

from protocol.messages import Discard, Draw, Exchange, LayOff, Meld
from referee.rules.melds import new_meld
from referee.rules.variants.persian import Persian
from sample_bots.brain import Brain

ROOT = Path(__file__).resolve().parent.parent


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


# --- worked example 1 and Special rules 2: meld values, four-card sets doubled however formed -------------------
@pytest.mark.parametrize(
    "cards,value",
    [
        ("KS KH KD", 30),
        ("KS KH KD KC", 80),
        ("JK JK JK", 60),
        ("JK JK JK JK", 160),
        ("QS KS AS", 35),
        ("JS QS KS AS", 45),
    ],
)
def test_worked_example_meld_values(cards, value):
    g = Persian(4, {}, seed=1)
    assert g.meld_points(new_meld(cards.split(), g.meld_rules)) == value


def stalemate(g):
    """End the current deal with no winner: the stock is empty and the discard pile cannot be rebuilt."""
    g.stock, g.piles, g.rebuilds = [], [[]], g.opts["max_stock_rebuilds"]
    g.end_turn()


def test_four_kings_built_by_a_lay_off_count_80_like_four_melded_at_once():
    g = rig(["KC 2S", "2D 3D", "4S 5S", "6H 6D"], table=[(2, "KS KH KD")])
    finish(g, 0, Draw("stock"), LayOff(0, ["KC"]), Discard("2S"))
    stalemate(g)
    assert g.deal_results[0]["teams"] == [80, 0]


def test_a_fourth_joker_laid_off_on_three_makes_160():
    g = rig(["JK 2S", "2D 3D", "4S 5S", "6H 6D"], table=[(0, "JK JK JK")])
    finish(g, 0, Draw("stock"), LayOff(0, ["JK"]), Discard("2S"))
    assert g.table[0].cards == ("JK",) * 4
    stalemate(g)
    assert g.deal_results[0]["teams"] == [160, 0]


def test_three_jokers_meld_as_a_joker_set():
    g = rig(["JK JK JK 5C 9S", "2D 3D", "4S 5S", "6H 6D"])
    finish(g, 0, Draw("stock"), Meld(["JK", "JK", "JK"]), Discard("9S"))
    assert g.table[0].kind == "set" and g.table[0].owner == 0


# --- the variant's own illegal plays, each with its rule id -------------------------------------------------------
@pytest.mark.parametrize(
    "hand,ops,rule",
    [
        ("7H 8H JK", [Meld(["7H", "8H", "JK"])], "joker.not-wild"),  # a joker standing in a run
        ("7H 8H JK", [Meld(["7H", "8H", "JK"], ["9H"])], "joker.not-wild"),  # even with its identity named
        ("7H 7D JK", [Meld(["7H", "7D", "JK"])], "joker.not-wild"),  # a joker standing in a set
        ("JK JK 7C", [Meld(["JK", "JK", "7C"])], "joker.not-wild"),
        ("AH 2H 3H", [Meld(["AH", "2H", "3H"])], "run.ace-high-only"),  # A-2-3
        ("KH AH 2H", [Meld(["KH", "AH", "2H"])], "run.ace-high-only"),  # round the corner
    ],
)
def test_illegal_melds_name_their_rule(hand, ops, rule):
    g = rig([hand, "2D 3D", "4S 5S", "6H 6D"])
    assert illegal(g, 0, [Draw("stock"), *ops]) == rule


@pytest.mark.parametrize(
    "meld,card,rule",
    [
        ("7H 8H 9H", "JK", "joker.not-wild"),  # a joker laid off on a run
        ("7H 7D 7C", "JK", "joker.not-wild"),  # or on a set
        ("JK JK JK", "7S", "joker.not-wild"),  # a natural card on a joker set
        ("2H 3H 4H", "AH", "run.ace-high-only"),  # the ace below the 2
    ],
)
def test_illegal_lay_offs_name_their_rule(meld, card, rule):
    g = rig([f"{card} 9S", "2D 3D", "4S 5S", "6H 6D"], table=[(0, meld)])
    assert illegal(g, 0, [Draw("stock"), LayOff(0, [card])]) == rule


def test_the_ace_goes_high_next_to_the_king():
    g = rig(["AS QS KS 9C AH", "2D 3D", "4S 5S", "6H 6D"], table=[(2, "QH KH JH")])
    finish(g, 0, Draw("stock"), Meld(["QS", "KS", "AS"]), LayOff(0, ["AH"]), Discard("9C"))
    assert g.table[1].ids == ("QS", "KS", "AS") and g.table[0].ids == ("JH", "QH", "KH", "AH")


def test_lay_offs_only_on_ones_own_or_partners_melds():
    g = rig(["7S 8D 9C", "2D 3D", "4S 5S", "6H 6D"], table=[(1, "7C 7D 7H"), (2, "8S 8H 8C"), (3, "9S 9H 9D")])
    assert g.decision(0).constraints["layoff_melds"] == [1]
    assert g.decision(1).constraints["layoff_melds"] == [0, 2]
    assert illegal(g, 0, [Draw("stock"), LayOff(0, ["7S"])]) == "layoff.not-allowed"  # an opponent's
    assert illegal(g, 0, [Draw("stock"), LayOff(2, ["9C"])]) == "layoff.not-allowed"
    # the partner's meld, with no meld of one's own (Ambiguity 2)
    finish(g, 0, Draw("stock"), LayOff(1, ["8D"]), Discard("7S"))
    assert len(g.table[1].cards) == 4 and g.table[1].owner == 2


def test_every_turn_starts_with_the_draw_so_nobody_goes_out_before_it():
    g = rig(["7S 7H 7D", "2D 3D", "4S 5S", "6H 6D"])
    assert illegal(g, 0, [Meld(["7S", "7H", "7D"])]) == "play.before-draw"


def test_a_card_taken_from_the_pile_is_not_discarded_unless_nothing_else_is_left():
    g = rig(["7S 2H", "2D 3D", "4S 5S", "6H 6D"], discard=("9D",))
    assert illegal(g, 0, [Draw("discard"), Discard("9D")]) == "discard.rediscard"
    g = rig(["7S 7H 7D", "2D 3D", "4S 5S", "6H 6D"], discard=("9D",))
    finish(g, 0, Draw("discard"), Meld(["7S", "7H", "7D"]), Discard("9D"))  # the only card left: the ban lapses
    assert g.deal_results[0]["winner"] == 0


def test_only_the_top_discard_may_be_drawn_and_no_joker_is_exchanged():
    g = rig(["7S 2H", "2D 3D", "4S 5S", "6H 6D"], discard=("9D", "8D"))
    assert illegal(g, 0, [Draw("discard", depth=2)]) == "draw.one-card"
    g = rig(["JK 2H", "2D 3D", "4S 5S", "6H 6D"], table=[(0, "JK JK JK")])
    assert illegal(g, 0, [Draw("stock"), Exchange(0, "JK")]) == "exchange.no-wild"


# --- the deal, going out, stalemates -----------------------------------------------------------------------------
def test_the_deal_56_cards_7_each_pirmasis_first_and_the_second_deal_dealt_by_the_next_player():
    g = Persian(4, {}, seed=11)
    assert Counter(g.cards_in_play()) == Counter(g.make_deck()) and len(g.make_deck()) == 56
    assert [len(h) for h in g.hands] == [7] * 4 and len(g.stock) == 27 and len(g.piles[0]) == 1
    dealer = g.dealer
    assert g.to_act() == [(dealer + 1) % 4]
    stalemate(g)
    assert g.deal_no == 1 and g.dealer == (dealer + 1) % 4 and g.to_act() == [(dealer + 2) % 4]


def test_going_out_ends_the_deal_even_if_the_partner_holds_cards():
    g = rig(["7S 7H", "2D 3D", "4S 5S 6S 8S", "6H 6D"], stock=("2C",) * 5 + ("7D",))
    finish(g, 0, Draw("stock"), Meld(["7S", "7H", "7D"]))  # the meld empties the hand: no discard needed
    deal = g.deal_results[0]
    assert deal["winner"] == 0 and deal["teams"] == [21 + 25, 0] and len(deal["hands"][2]) == 4


def test_a_stalemate_scores_the_melds_without_the_25_and_counts_as_one_of_the_two_deals():
    table = [(0, "KS KH KD"), (1, "QS QH QD"), (3, "JK JK JK")]
    g = rig(["7S 2H", "2D 3D", "4S 5S", "6H 6D"], table=table, stock=("9C",), max_stock_rebuilds=0)
    finish(g, 0, Draw("stock"), Discard("9C"))  # the stock is out and may not be rebuilt
    assert g.deal_results[0]["winner"] is None and g.deal_results[0]["teams"] == [30, 90]
    assert g.deal_no == 1 and not g.is_over()


def test_the_turn_cap_ends_a_deal_as_a_stalemate():
    g = rig(["7S 2H", "2D 3D", "4S 5S", "6H 6D"], table=[(2, "KS KH KD KC")], max_turns_per_deal=2)
    finish(g, 0, Draw("stock"), Discard("7S"))
    finish(g, 1, Draw("stock"), Discard("2D"))
    assert g.deal_results[0]["winner"] is None and g.deal_results[0]["teams"] == [80, 0]


def test_deduct_hand_cards_subtracts_each_players_hand_from_his_side():
    hands = ["7S 7H", "AD 3D", "4S JK", "6H 6D"]
    for deduct, expected in ((False, [46, 0]), (True, [46 - 4 - 20, -(15 + 3) - (6 + 6)])):
        g = rig(hands, stock=("2C",) * 5 + ("7D",), deduct_hand_cards=deduct)
        finish(g, 0, Draw("stock"), Meld(["7S", "7H", "7D"]))
        assert g.deal_results[0]["teams"] == expected


# --- romis eval ------------------------------------------------------------------------------------------------------
def test_eval_gives_the_melds_worth_most_with_their_values():
    res = Persian.evaluate(["7S", "7H", "7D", "7C", "8S", "9S"])  # four sevens (56) beat 7-8-9 and three sevens (45)
    assert res["melds"] == [["7C", "7D", "7H", "7S"]] and res["meld_values"] == [56] and res["value"] == 56
    assert res["deadwood"] == ["8S", "9S"]
    res = Persian.evaluate(["JK", "JK", "JK", "QH", "KH", "AH", "2C"])
    assert sorted(res["meld_values"]) == [35, 60] and res["value"] == 95 and res["deadwood"] == ["2C"]


# --- the sample bots ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("greedy", [True, False])
def test_the_sample_bots_never_lay_off_on_an_opponents_meld(greedy):
    for seed in range(6):  # the random bot melds half the time: several seeds
        g = rig(["7S 3H", "2D 3D", "4S 5S", "6H 6D"], table=[(1, "7C 7D 7H"), (3, "8S 9S TS")], stock=("9H",))
        g.phase = "play"
        g.hands[0] = ["2S", "3S", "4S", "7S", "JS"]  # 7S fits only an opponent's meld
        ops = Brain("persian", 4, g.opts, greedy=greedy, seed=seed).choose(g.decision(0), g.view(0))
        assert not any(isinstance(op, LayOff) for op in ops), ops
        g.apply(0, ops)


def test_greedy_lays_off_on_its_partners_meld():
    g = rig(["7S 3H", "2D 3D", "4S 5S", "6H 6D"], table=[(2, "7C 7D 7H")])
    g.phase = "play"
    ops = Brain("persian", 4, g.opts, greedy=True, seed=1).choose(g.decision(0), g.view(0))
    assert LayOff(0, ["7S"]) in ops


def test_greedy_partnership_beats_random_partnership():
    wins = 0
    for seed in range(8):
        g = Persian(4, {}, seed)
        side = seed % 2
        bots = [Brain("persian", 4, g.opts, greedy=g.team_of(s) == side, seed=seed * 10 + s) for s in range(4)]
        while not g.is_over():
            (seat,) = g.to_act()
            g.apply(seat, bots[seat].choose(g.decision(seat), g.view(seat)))
        teams = g.result()["teams"]
        wins += teams[side]["rank"] == 1 and teams[1 - side]["rank"] == 2
    assert wins >= 6


# --- romis play with real bots ---------------------------------------------------------------------------------------
def romis(*args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


BOTS = [
    "python -m sample_bots.greedy",
    "python -m sample_bots.random",
    "node sample_bots/js/random.js",
    "python -m sample_bots.greedy",
]


@pytest.mark.e2e
def test_romis_play_persian_prints_the_partnerships_and_replays(tmp_path):
    rec = tmp_path / "p.jsonl"
    r = romis("play", "persian", "--seed", "5", *[x for b in BOTS for x in ("--bot", b)], "--record", str(rec))
    assert r.returncode == 0, r.stderr
    assert "partnerships:" in r.stdout and "seats 0, 2" in r.stdout and "seats 1, 3" in r.stdout
    result = json.loads(rec.read_text().splitlines()[-1])
    totals = result["totals"]
    assert totals[0] == totals[2] and totals[1] == totals[3] and result["faults"] == [None] * 4
    for seats in ("0, 2", "1, 3"):
        line = next(x for x in r.stdout.splitlines() if f"seats {seats}" in x)
        assert f"total {totals[int(seats[0])]}" in line
    ok = romis("replay", str(rec))
    assert ok.returncode == 0 and f"totals {totals}" in ok.stdout, ok.stderr
    as_json = json.loads(
        romis("play", "persian", "--seed", "5", "--json", *[x for b in BOTS for x in ("--bot", b)]).stdout
    )
    assert [t["seats"] for t in as_json["teams"]] == [[0, 2], [1, 3]]
    assert [t["total"] for t in as_json["teams"]] == [totals[0], totals[1]]
    assert not leftovers()


@pytest.mark.parametrize("count", [2, 3, 5])
def test_romis_play_persian_with_other_than_four_bots_is_one_clear_error(count):
    r = romis("play", "persian", *[x for _ in range(count) for x in ("--bot", "python -m sample_bots.random")])
    assert r.returncode == 2 and r.stderr == f"romis: persian needs 4 bots, got {count} (--bot once per seat)\n"


def test_romis_eval_persian_says_the_melds_values(capsys):
    from referee.cli import run

    assert run(["eval", "persian", "--hand", "7S 7H 7D 7C 8S 9S JK"]) == 0
    out = capsys.readouterr().out
    assert "melds: 7C 7D 7H 7S\n" in out and "meld values: 56\nvalue: 56\n" in out


def test_a_match_cut_short_by_the_safety_cap_still_gives_the_side_ahead_its_50():
    g = rig(["7S", "2D 3D", "4S 5S", "6H 6D"], table=[(0, "QS KS AS"), (2, "7C 7D 7H")], max_deals=1)
    finish(g, 0, Draw("stock"), LayOff(1, ["7S"]), Discard("2C"))
    assert g.is_over() and g.deal_results[0]["match_bonus"] == [50, 0] and g.result()["teams"][0]["total"] == 166


@pytest.mark.e2e
def test_a_partner_who_crashes_forfeits_the_match_for_his_side(tmp_path):
    """The greedy side would win on points, but its seat 2 crashes: both its seats rank below the side that finished,
    in the result and in the record (which replays)."""
    rec = tmp_path / "p.jsonl"
    bots = [BOTS[0], "python -m sample_bots.random", "python -m sample_bots.bad.crash", "python -m sample_bots.random"]
    args = [x for b in bots for x in ("--bot", b)]
    r = romis("play", "persian", "--seed", "5", *args, "--record", str(rec), "--json")
    assert r.returncode == 0, r.stderr
    seats = json.loads(r.stdout)["seats"]
    assert seats[2]["fault"] is not None and seats[0]["fault"] is None
    assert [s["rank"] for s in seats] == [2, 1, 2, 1]
    assert json.loads(rec.read_text().splitlines()[-1])["ranks"] == [2, 1, 2, 1]
    assert romis("replay", str(rec)).returncode == 0
