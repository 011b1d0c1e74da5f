"""New Oklahoma (rules/new-oklahoma.md): the derived worked examples, taking the discard pile, the pile lock, own
sets only, the compulsory final discard, scoring with its bonuses, the match, `romis eval`, and greedy against
random."""

import pytest
import rigging
from rigging import illegal

from protocol.messages import Discard, Draw, Exchange, LayOff, Meld
from referee.cli import run
from referee.rules.errors import ConfigError
from referee.rules.melds import TableMeld, new_meld
from referee.rules.variants import find_variant
from referee.rules.variants.new_oklahoma import OKLAHOMA_MELDS, NewOklahoma
from sample_bots.brain import Brain


def H(text: str) -> list[str]:
    return text.split()


def rig(hands, table=(), stock=("5C",) * 20, discard=("9D",), turn=0, placed=None, **options):
    """A New Oklahoma game at the start of seat `turn`'s turn; table entries are (owner, "cards") or TableMelds."""
    return rigging.rig(NewOklahoma, hands, table=table, stock=stock, discard=discard, turn=turn, placed=placed)


def placed(cards: str, ids: str, owner: int = 0) -> TableMeld:
    """A set on the table whose wild cards stand for the cards named in `ids` (in the same order)."""
    return TableMeld("set", tuple(H(cards)), tuple(H(ids)), owner)


def state(g):
    return ([list(h) for h in g.hands], [list(p) for p in g.piles], list(g.table), g.phase, g.locked, g.log[-1])


def last(g):
    return g.deal_results[-1]


# --- the worked examples (derived checks of the stated values) -------------------------------------------------------
def test_worked_example_1_the_melds_score_240():
    g = NewOklahoma(2)
    queens = new_meld(H("QS QH QD"), OKLAHOMA_MELDS, owner=0)
    aces = new_meld(H("AS 2C AD"), OKLAHOMA_MELDS, owner=0, identities=["AC"])
    kings = new_meld(H("KH KS JK"), OKLAHOMA_MELDS, owner=0, identities=["KD"])
    assert [g.meld_points(m) for m in (queens, aces, kings)] == [70, 50, 120]
    # the same melds on the table at the end of a deal, with cards left in hand that score nothing
    g = rig(["5S 3H", "3C 4S"], table=[queens, aces, kings])
    g.end_deal(None)
    assert last(g)["scores"][0] == 240 and last(g)["melds"] == [240, 0]


def test_worked_example_2_a_hand_left_costs_320():
    g = rig(["QS 5D 2H JK", "9C 9S"])
    g.end_deal(None)
    assert last(g)["scores"] == [-320, -20] and last(g)["in_hand"] == [320, 20]


def test_worked_example_3_a_wild_2_as_a_six_scores_5_and_natural_sixes_nothing():
    sixes = new_meld(H("6S 6D 2C"), OKLAHOMA_MELDS, identities=["6H"])
    assert NewOklahoma(2).meld_points(sixes) == 5


def test_worked_example_4_going_out_concealed_earns_250_on_top_of_the_melds():
    g = rig(["9S 9H 9D KS KH KD 3C", "4C 4D"], stock=["KC"])
    g.apply(0, [Draw("stock"), Meld(H("9S 9H 9D")), Meld(H("KS KH KD KC")), Discard("3C")])
    assert last(g)["winner"] == 0 and last(g)["concealed"] is True
    assert last(g)["scores"] == [30 + 40 + 250, 0]


def test_going_out_after_melding_in_an_earlier_turn_gets_no_250():
    g = rig(["KS KH KD 3C", "4C 4D"], table=[(0, "9S 9H 9D")], placed=[True, False], stock=["KC"])
    g.apply(0, [Draw("stock"), Meld(H("KS KH KD KC")), Discard("3C")])
    assert last(g)["concealed"] is False and last(g)["scores"][0] == 30 + 40


# --- deck, deal, options ------------------------------------------------------------------------------------------
def test_deck_deal_and_registry():
    g = find_variant("new-oklahoma")(5, {}, 3)
    deck = g.make_deck()
    assert len(deck) == 105 and deck.count("JK") == 1 and deck.count("QS") == 2
    assert all(len(h) == 13 for h in g.hands) and len(g.piles[0]) == 1 and len(g.stock) == 105 - 65 - 1
    assert g.turn == (g.dealer + 1) % 5
    with pytest.raises(ConfigError):
        NewOklahoma(6)
    with pytest.raises(ConfigError):
        NewOklahoma(2, {"max_stock_rebuilds": "lots"})


def test_sets_only_and_the_2s_always_wild():
    g = rig(["2S 2H 2D 5C 6C 7C 9C", "4C 4D"], discard=("8C",))
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(H("5C 6C 7C"))]) == "meld.no-runs"
    assert illegal(g, 0, [Meld(H("2S 2H 2D"))]) == "set.no-deuces"
    g.apply(0, [Meld(H("9C 2S 2H"), identities=["9D", "9S"])])  # a set may hold any number of wild cards
    assert g.table[0].ids == ("9C", "9D", "9S")


def test_the_suit_rule_counts_announced_wild_cards():
    g = rig(["9S 9H 2C 9D 9C 9S 3C", "4C 4D"])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(H("9S 9H 2C"), identities=["9S"])]) == "set.distinct-suits"
    assert illegal(g, 0, [Meld(H("9S 9H 9S 9D"))]) == "set.distinct-suits"
    assert illegal(g, 0, [Meld(H("9S 9H 9S 9D 2C"), identities=["9H"])]) == "set.four-suits-first"
    g.apply(0, [Meld(H("9S 9H 9S 9D 2C"), identities=["9C"])])
    assert len(g.table[0].cards) == 5


def test_a_second_set_of_a_rank_already_melded_is_allowed():
    g = rig(["KS KH KD 3C", "4C 4D"], table=[(0, "KS KH KD")], discard=("4D", "KC"))
    g.apply(0, [Draw("discard", depth=2), Meld(H("KC KS KH")), Discard("KD")])
    assert [m.ids for m in g.table] == [("KS", "KH", "KD"), ("KC", "KS", "KH")]


# --- taking the discard pile (Turn structure 1; Ambiguities 1, 3, 15) -------------------------------------------------
PILE = ("JK", "AS", "7H", "9D")  # bottom to top: 9D is the top discard


def test_the_top_discard_comes_with_the_whole_pile_and_is_melded_at_once():
    g = rig(["9S 9H 3C 4C", "4S 4D"], discard=PILE)
    assert g.decision(0).options == [Draw("stock")] and g.decision(0).constraints["top_needs_set"] is True
    g.apply(0, [Draw("discard", depth=4), Meld(H("9D 9S 9H"))])
    assert g.piles[0] == [] and sorted(g.hands[0]) == sorted(H("3C 4C 7H AS JK"))
    assert g.table[0].owner == 0 and g.log[-2].data["cards"] == ["9D", "7H", "AS", "JK"]
    assert sorted(g.decision(0).constraints["locked"]) == ["7H", "AS", "JK"]


def test_the_take_must_name_the_whole_pile():
    g = rig(["9S 9H 3C 4C", "4S 4D"], discard=PILE)
    before = state(g)
    assert illegal(g, 0, [Draw("discard"), Meld(H("9D 9S 9H"))]) == "draw.whole-pile"
    assert illegal(g, 0, [Draw("discard", depth=5), Meld(H("9D 9S 9H"))]) == "draw.whole-pile"
    assert state(g) == before


def test_the_top_discard_must_go_into_the_next_operation_a_new_set():
    g = rig(["9S 9H 3C 4C 5S 5H 5D", "4S 4D"], table=[(0, "9C 9H 9S")], discard=PILE)
    before = state(g)
    assert illegal(g, 0, [Draw("discard", depth=4)]) == "draw.top-into-set"
    assert illegal(g, 0, [Draw("discard", depth=4), Discard("3C")]) == "draw.top-into-set"
    assert illegal(g, 0, [Draw("discard", depth=4), LayOff(0, ["9D"])]) == "draw.top-into-set"  # Ambiguity 1
    assert illegal(g, 0, [Draw("discard", depth=4), Meld(H("5S 5H 5D")), Meld(H("9D 9S 9H"))]) == "draw.top-into-set"
    assert state(g) == before


def test_the_top_discard_needs_two_cards_held_before_the_draw():
    g = rig(["AH 3C 4C", "4S 4D"], discard=PILE[:2] + ("AD",))  # pile JK AS AD: AS and JK came with the pile
    before = state(g)
    assert illegal(g, 0, [Draw("discard", depth=3), Meld(H("AD AH AS"))]) == "pile.locked"
    assert illegal(g, 0, [Draw("discard", depth=3), Meld(H("AD AH JK"), identities=["AC"])]) == "pile.locked"
    assert state(g) == before


def test_pile_cards_are_locked_for_the_turn_but_may_be_discarded():
    g = rig(["9S 9H 3C 4C KS KH", "4S 4D"], table=[(0, "7S 7D 7C")], discard=("KD", "JK", "7H", "9D"))
    ops = [Draw("discard", depth=4), Meld(H("9D 9S 9H"))]
    assert illegal(g, 0, [*ops, Meld(H("KS KH KD"))]) == "pile.locked"
    assert illegal(g, 0, [*ops, LayOff(0, ["7H"])]) == "pile.locked"
    assert illegal(g, 0, [*ops, LayOff(0, ["JK"], identities=["7H"])]) == "pile.locked"
    g.apply(0, [*ops, Discard("JK")])  # Ambiguity 3: a pile card may be discarded in the same turn
    assert g.piles[0] == ["JK"] and g.turn == 1
    g.apply(1, [Draw("stock"), Discard("5C")])
    g.apply(0, [Draw("stock"), Meld(H("KS KH KD")), LayOff(0, ["7H"]), Discard("5C")])  # his next turn: free again
    assert [len(m.cards) for m in g.table] == [4, 3, 3]


def test_the_lock_is_by_count_for_identical_copies():
    # Ambiguity 15: he held one 9H and the pile brought the other; one 9H may be melded, not both
    g = rig(["9H 9S 9D 9C 3C 4C KS KD", "4S 4D"], discard=("9H", "KH"))
    take = [Draw("discard", depth=2), Meld(H("KH KS KD"))]
    assert illegal(g, 0, [*take, Meld(H("9H 9S 9D 9C 9H"))]) == "pile.locked"
    g.apply(0, [*take, Meld(H("9H 9S 9D 9C"))])  # his own 9H
    assert g.hands[0].count("9H") == 1
    assert illegal(g, 0, [LayOff(1, ["9H"])]) == "pile.locked"


def test_a_copy_of_the_melded_top_card_is_not_discarded_the_same_turn():
    g = rig(["9S 9H 9D 3C", "4S 4D"], discard=("4H", "9D"))
    g.apply(0, [Draw("discard", depth=2), Meld(H("9D 9S 9H"))])
    assert "9D" not in [o.card for o in g.decision(0).options]
    assert illegal(g, 0, [Discard("9D")]) == "discard.rediscard"


# --- own sets only, replacement (Turn structure 3-4; Ambiguity 2) -----------------------------------------------------
def test_lay_offs_and_replacements_on_own_sets_only():
    theirs = placed("9S 9H 2C", "9S 9H 9D", owner=1)
    g = rig(["9C 9D 3C 4C", "4S 4D"], table=[theirs, (0, "KS KH KD")])
    g.apply(0, [Draw("stock")])
    assert g.decision(0).constraints["layoff_melds"] == [1]
    assert illegal(g, 0, [LayOff(0, ["9C"])]) == "layoff.own-sets-only"
    assert illegal(g, 0, [Exchange(0, "9D")]) == "exchange.own-sets-only"


def test_the_owner_replaces_a_wild_card_by_exactly_the_announced_card():
    g = rig(["9C 9D 3C 4C", "4S 4D"], table=[placed("9S 9H 2C", "9S 9H 9D", owner=0)])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Exchange(0, "9C")]) == "exchange.no-wild"
    g.apply(0, [Exchange(0, "9D")])
    assert g.table[0].cards == ("9S", "9H", "9D") and "2C" in g.hands[0]


# --- the final discard (Special rules: Final discard) -----------------------------------------------------------------
def test_the_hand_may_not_be_emptied_on_the_table():
    g = rig(["9S 9H 9D", "4S 4D"], table=[(0, "KS KH KD")], stock=["KC"])
    before = state(g)
    assert illegal(g, 0, [Draw("stock"), Meld(H("9S 9H 9D")), LayOff(0, ["KC"])]) == "out.final-discard"
    assert illegal(g, 0, [Draw("stock"), LayOff(0, ["KC"]), Meld(H("9S 9H 9D"))]) == "out.final-discard"
    assert state(g) == before
    g.apply(0, [Draw("stock"), Meld(H("9S 9H 9D")), Discard("KC")])
    assert last(g)["winner"] == 0


# --- scoring, the 1000 bonus, the match (Scoring; End of the match; Ambiguities 7, 9, 11) -----------------------------
def out_deal(totals, hand1="QS QH QD KC", dealer=1, placed_before=True, bonus=None):
    """Seat 0 goes out with three aces (+60) while seat 1 holds `hand1`; `totals` before the deal, `bonus` the
    seat that has had the 1000 bonus."""
    g = rig(["AS AH AD", hand1], stock=["3D"], placed=[placed_before, False])
    g.totals, g.dealer, g.bonus_seat = list(totals), dealer, bonus
    g.apply(0, [Draw("stock"), Meld(H("AS AH AD")), Discard("3D")])
    return g


def test_the_first_to_1000_gets_200_without_counting_the_250():
    g = out_deal([950, 0])
    assert last(g)["scores"] == [60 + 200, -130] and last(g)["bonus_1000"] == 0
    assert g.view(1)["bonus_1000"] == 0
    g = out_deal([700, 0], placed_before=False)  # 700 + 60 + 250 passes 1000 only with the 250
    assert last(g)["scores"][0] == 310 and "bonus_1000" not in last(g) and g.bonus_seat is None


def test_the_1000_bonus_is_paid_once_a_match():
    g = out_deal([950, 0])
    g.totals = [1500, 1100]
    g.hands = [H("KS KH KD 3C"), H("4S 4D")]
    g.end_deal(None)
    assert "bonus_1000" not in last(g) and g.bonus_seat == 0


def test_several_reaching_1000_the_highest_total_gets_it_then_the_one_out():
    g = out_deal([960, 1200], hand1="3S 4S")  # seat 1 already at 1200 (the bonus had not been paid: a rigged start)
    assert last(g)["bonus_1000"] == 1
    g = out_deal([960, 1020], hand1="3S 4S")  # 1020 each: the player who went out
    assert last(g)["bonus_1000"] == 0


def test_tied_at_1000_without_the_player_out_it_goes_first_in_playing_order():
    for dealer, first in ((0, 1), (1, 0)):
        g = rig(["KS 3C", "KH 3D", "4S 4D"])
        g.totals, g.dealer = [1010, 1010, 0], dealer
        g.end_deal(None)
        assert last(g)["bonus_1000"] == first


def test_2000_ends_the_match_and_the_highest_total_wins():
    g = out_deal([1950, 1990], hand1="3S 4S", bonus=1)
    assert g.is_over() and g.result()["totals"] == [2010, 1990] and g.result()["ranks"] == [1, 2]
    g = out_deal([1940, 2000], hand1="3S 4S", bonus=1)
    assert g.is_over() and g.result()["ranks"] == [1, 1]  # an exact tie shares the win


def test_the_winner_deals_next_and_a_deal_without_winner_passes_left():
    g = out_deal([0, 0], dealer=1)
    assert g.dealer == 0 and g.turn == 1
    g = rig(["KS 3C", "KH 3D", "4S 4D"])
    g.dealer = 2
    g.end_deal(None)
    assert g.dealer == 0 and g.turn == 1


def test_a_stalemate_is_scored_normally_without_the_250():
    g = rig(["KS KH KD 3C", "4S 4D"], stock=["5D"], discard=("7C",), placed=[False, False])
    g.rebuilds = g.opts["max_stock_rebuilds"]
    g.apply(0, [Draw("stock"), Meld(H("KS KH KD")), Discard("3C")])
    assert last(g)["winner"] is None and last(g)["scores"] == [30, 0] and last(g)["concealed"] is False


# --- eval and the bots ------------------------------------------------------------------------------------------------
def test_eval_gives_the_sets_their_value_and_the_hand_left_its_cost(capsys):
    res = NewOklahoma.evaluate(H("QS QH QD AS 2C AD 5C 6D 7H 3S JK 9S 9H"))
    assert res["points"] == -(100 + 10 + 10 + 20 + 20 + 20 + 200 + 10 + 10)
    assert sorted(res["deadwood"]) == sorted(H("3S 5C 6D 7H")) and res["deadwood_points"] == 0
    assert sum(res["meld_values"]) == res["value"] == 240  # the joker and the 2 are worth 100 + 10 in any set
    assert run(["eval", "new-oklahoma", "--hand", "QS QH QD 3C"]) == 0
    assert "points: -120" in capsys.readouterr().out


def test_greedy_beats_random():
    for n, matches, need in ((2, 10, 8), (5, 6, 4)):
        wins = 0
        for seed in range(matches):
            g = NewOklahoma(n, {}, seed)
            greedy = seed % n
            bots = [Brain("new-oklahoma", n, {}, greedy=s == greedy, seed=seed * 10 + s) for s in range(n)]
            while not g.is_over():
                s = g.to_act()[0]
                g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
            wins += g.result()["ranks"][greedy] == 1
        assert wins >= need, (n, wins)
