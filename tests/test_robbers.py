"""Robbers' Rummy (rules/robbers.md): every worked example, the tied discard take, the 40-point opening with
lay-offs and robbed cards, robbing, joker exchange and the scoring."""

from collections import Counter

import pytest
from test_krambambulis import cards, illegal
from test_krambambulis import rig as krig

from protocol.messages import Discard, Draw, Exchange, LayOff, Meld, Rearrange, Take
from referee.rules.errors import IllegalAction
from referee.rules.melds import new_meld
from referee.rules.variants.robbers import Robbers


def rig(hands, table=(), opened=None, **kw):
    """A Robbers game in a chosen position; `table` holds (owner, "cards") pairs or TableMelds."""
    g = krig(hands, opened=opened, cls=Robbers, **kw)
    g.table = [new_meld(t[1].split(), g.meld_rules, owner=t[0]) if isinstance(t, tuple) else t for t in table]
    return g


# --- Worked examples (derived) --------------------------------------------------------------------------
def test_worked_example_1_a_lay_off_on_another_players_meld_counts_towards_40():
    g = rig(["TS JS QS KH 3C 8D", "2C"], table=[(1, "TH JH QH")], opened=(False, True))
    g.apply(0, [Draw("stock"), Meld(["TS", "JS", "QS"]), LayOff(0, ["KH"])])
    assert g.opened[0] and cards(g, 0) == "TH JH QH KH"


def test_worked_example_2_a_robbed_meld_under_three_cards_goes_back_to_its_owner():
    g = rig(["5D 6D QS KS AS 9C", "2C"], table=[(1, "7D 7C 7H")], opened=(False, True))
    g.apply(0, [Draw("stock")])
    rob = [Take(0, ["7D"]), Meld(["5D", "6D", "7D"])]
    with pytest.raises(IllegalAction) as e:
        g.apply(0, rob)
    assert e.value.rule == "initial-meld.minimum" and "make 18" in str(e.value)  # at least 22 more needed
    g.apply(0, rob + [Meld(["QS", "KS", "AS"])])  # 18 + 31 = 49
    assert g.opened[0] and sorted(g.hands[1]) == ["2C", "7C", "7H"]
    assert g.view(1)["table"][0] == {"id": 0, "owner": 1, "kind": "empty", "cards": [], "identities": []}


def test_worked_example_3_the_remainder_must_stay_one_meld():
    g = rig(["8S 9S QS KS AS 4C", "2C"], table=[(1, "4S 5S 6S 7S")], opened=(False, True))
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Take(0, ["5S"]), Meld(["5S", "QS", "KS"])]) == "rob.remainder"
    g.apply(0, [Take(0, ["7S"]), Meld(["7S", "8S", "9S"]), Meld(["QS", "KS", "AS"])])  # 24 + 31
    assert cards(g, 0) == "4S 5S 6S" and g.table[0].owner == 1


def test_worked_example_4_loser_penalty_doubles_when_the_winner_goes_out_all_at_once():
    g = rig(["2H 3H 4H 5C 5D 5S", "JK AC"], stock=("9S",), opened=(False, True))
    g.placed_before = [False, True]
    g.apply(0, [Draw("stock"), Meld(["2H", "3H", "4H"]), Meld(["5C", "5D", "5S"]), Discard("9S")])
    assert g.deal_results[0]["scores"] == [0, 62]
    g = rig(["2H 3H 4H", "JK AC"], table=[(0, "5C 5D 5S")], stock=("9S",), opened=(True, True))
    g.placed_before = [True, True]
    g.apply(0, [Draw("stock"), Meld(["2H", "3H", "4H"]), Discard("9S")])
    assert g.deal_results[0]["scores"] == [0, 31]


# --- the discard pile: Special rules 2, Ambiguity 14 ------------------------------------------------------
def test_the_pile_card_is_taken_only_with_the_play_that_places_it():
    g = rig(["8D TD 3C 4S", "2C"], table=[(1, "5H 6H 7H")], discard=("9D",), opened=(True, True))
    assert g.decision(0).options == [Draw("stock")] and g.decision(0).constraints["discard_needs_placing"]
    assert illegal(g, 0, [Draw("discard")]) == "draw.discard-unplaced"
    assert illegal(g, 0, [Draw("discard"), Discard("3C")]) == "draw.discard-unplaced"
    g.apply(0, [Draw("discard"), Meld(["8D", "9D", "TD"]), Discard("3C")])
    assert g.turn == 1


def test_a_lay_off_places_the_pile_card():
    g = rig(["3C 4S", "2C"], table=[(1, "5H 6H 7H")], discard=("8H",), opened=(True, True))
    g.apply(0, [Draw("discard"), LayOff(0, ["8H"]), Discard("3C")])
    assert cards(g, 0) == "5H 6H 7H 8H"


def test_a_robbed_copy_does_not_place_the_pile_card():
    # both 7D must reach the table: the one robbed and the one taken from the pile
    g = rig(["5D 6D QS KS AS 9C", "2C"], table=[(1, "7D 7C 7H")], discard=("7D",), opened=(False, True))
    ops = [Draw("discard"), Take(0, ["7D"]), Meld(["5D", "6D", "7D"]), Meld(["QS", "KS", "AS"]), Discard("9C")]
    assert illegal(g, 0, ops) == "draw.discard-unplaced"


# --- the opening: Special rules 3, Ambiguities 1, 15, 16 ----------------------------------------------------
def test_an_opening_of_lay_offs_alone_is_legal_and_one_below_40_is_not():
    g = rig(["TH JH QH KH 3C 4S", "2C"], table=[(1, "7H 8H 9H")], opened=(False, True))
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [LayOff(0, ["TH", "JH", "QH"])]) == "initial-meld.minimum"  # 30
    g.apply(0, [LayOff(0, ["TH", "JH", "QH", "KH"])])  # 40
    assert g.opened[0] and cards(g, 0) == "7H 8H 9H TH JH QH KH"


def test_new_melds_alone_below_40_are_rejected():
    g = rig(["TS JS QS KH 3C 8D", "2C"], table=[(1, "TH JH QH")], opened=(False, True))
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["TS", "JS", "QS"])]) == "initial-meld.minimum"


def test_a_card_laid_off_and_robbed_back_counts_once():
    g = rig(["KH KD KS 9S 3C 4C 5C 8D", "2C"], table=[(1, "TH JH QH")], opened=(False, True))
    g.apply(0, [Draw("stock")])
    ops = [LayOff(0, ["KH"]), Take(0, ["KH"]), Meld(["KH", "KD", "KS"])]
    assert illegal(g, 0, ops) == "initial-meld.minimum"  # 30, not 40
    g.apply(0, ops + [Meld(["3C", "4C", "5C"])])  # 30 + 12
    assert g.opened[0] and cards(g, 0) == "TH JH QH"


def test_a_card_returned_to_the_owner_counts_nothing():
    g = rig(["KH 9H AS 2S 3S 4S 5S 8D", "2C"], table=[(1, "TH JH QH")], opened=(False, True))
    g.apply(0, [Draw("stock")])
    ops = [LayOff(0, ["KH"]), Take(0, ["TH", "JH"]), Meld(["9H", "TH", "JH"])]  # QH KH go back to seat 1
    assert illegal(g, 0, ops + [Meld(["AS", "2S", "3S", "4S"])]) == "initial-meld.minimum"  # 29 + 10
    g.apply(0, ops + [Meld(["AS", "2S", "3S", "4S", "5S"])])  # 29 + 15
    assert sorted(g.hands[1]) == ["2C", "KH", "QH"] and g.table[0].kind == "empty"


def test_going_out_below_40_may_lay_off_and_rob():
    # Ambiguity 16: the exempt go-out may also lay off and rob
    g = rig(["2D 3D 4H", "2C"], table=[(1, "4D 5D 6D 7D"), (1, "5H 6H 7H")], opened=(False, True))
    g.apply(0, [Take(0, ["4D"]), Meld(["2D", "3D", "4D"]), LayOff(1, ["4H"])])
    assert g.deal_results[0]["winner"] == 0 and g.deal_results[0]["scores"] == [0, 2 * 2]


def test_hand_out_needs_40_option():
    g = rig(["2H 3H 4H 5C 5D 5S", "JK AC"], stock=("9S",), opened=(False, True), hand_out_needs_40=True)
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["2H", "3H", "4H"]), Meld(["5C", "5D", "5S"]), Discard("9S")]) == "initial-meld.minimum"


# --- robbing: Special rules 4, Ambiguities 3-5, 17 ------------------------------------------------------------
def test_robbing_is_allowed_only_in_the_opening_play():
    g = rig(["5D 6D 9C", "2C"], table=[(1, "7D 7C 7H 7S")], opened=(True, True))
    assert illegal(g, 0, [Take(0, ["7D"]), Meld(["5D", "6D", "7D"])]) == "rob.outside-opening"
    g = rig(["QS KS AS 2H 3H 4H 8C", "2C"], opened=(False, True))
    g.apply(0, [Meld(["QS", "KS", "AS"]), Meld(["2H", "3H", "4H"])])  # opened in an earlier play of the turn
    assert illegal(g, 0, [Take(0, ["QS"])]) == "rob.outside-opening"


def test_own_melds_are_not_robbed():
    g = rig(["QS KS AS JS 2H 3H 4H 8C", "2C"], opened=(False, True))
    assert illegal(g, 0, [Meld(["JS", "QS", "KS", "AS"]), Take(0, ["JS"])]) == "rob.own-meld"


def test_robbed_cards_must_go_into_new_melds():
    g = rig(["QS KS AS 2H 3H 4H 8C", "2C"], table=[(1, "7D 7C 7H 7S"), (1, "4D 5D 6D")], opened=(False, True))
    assert illegal(g, 0, [Take(0, ["7D"]), Meld(["QS", "KS", "AS"]), Meld(["2H", "3H", "4H"])]) == "rob.unplaced"
    assert (
        illegal(g, 0, [Take(0, ["7D"]), Meld(["QS", "KS", "AS"]), Meld(["2H", "3H", "4H"]), LayOff(1, ["7D"])])
        == "rob.unplaced"
    )


def test_a_meld_of_robbed_cards_alone_is_illegal():
    g = rig(
        ["QS KS AS 8C", "2C"], table=[(1, "7D 8D 9D TD"), (1, "7C 8C 9C TC"), (1, "7H 8H 9H TH")], opened=(False, True)
    )
    ops = [Take(0, ["7D"]), Take(1, ["7C"]), Take(2, ["7H"]), Meld(["7D", "7C", "7H"]), Meld(["QS", "KS", "AS"])]
    assert illegal(g, 0, ops) == "rob.hand-card"


def test_a_remainder_of_jokers_alone_is_illegal():
    meld = new_meld(["5H", "6H", "JK", "JK", "JK"], Robbers.meld_rules, owner=1)
    g = rig(["7H QS KS AS 8C", "2C"], table=[meld], opened=(False, True))
    assert illegal(g, 0, [Take(0, ["5H", "6H"]), Meld(["5H", "6H", "7H"]), Meld(["QS", "KS", "AS"])]) == "rob.remainder"


def test_a_robbed_joker_gets_a_new_identity():
    meld = new_meld(["5H", "6H", "7H", "JK"], Robbers.meld_rules, owner=1)  # the joker stands for 8H
    g = rig(["QS QD KS KD KC 8C", "2C"], table=[meld], opened=(False, True))
    g.apply(0, [Take(0, ["JK"]), Meld(["QS", "QD", "JK"], ["QC"]), Meld(["KS", "KD", "KC"])])  # 30 + 30
    assert cards(g, 0) == "5H 6H 7H" and g.table[1].ids[g.table[1].cards.index("JK")] == "QC"


def test_a_rob_that_leaves_two_cards_of_a_joker_meld_returns_the_joker():
    meld = new_meld(["5H", "6H", "JK"], Robbers.meld_rules, owner=1)
    g = rig(["3H 4H QS KS AS 8C", "2C"], table=[meld], opened=(False, True))
    g.apply(0, [Take(0, ["5H"]), Meld(["3H", "4H", "5H"]), Meld(["QS", "KS", "AS"])])  # 12 + 31
    assert sorted(g.hands[1]) == ["2C", "6H", "JK"] and g.table[0].kind == "empty"


def test_emptied_melds_cannot_be_laid_off_on():
    g = rig(["5D 6D QS KS AS 9C 8C", "2C"], table=[(1, "7D 7C 7H")], opened=(False, True))
    g.apply(0, [Take(0, ["7D"]), Meld(["5D", "6D", "7D"]), Meld(["QS", "KS", "AS"])])
    assert illegal(g, 0, [LayOff(0, ["8C"])]) == "layoff.no-such-meld"
    assert illegal(g, 0, [Take(0, ["7C"])]) == "rob.outside-opening"


# --- joker exchange and rearranging after opening: Special rules 3, 5 -----------------------------------------
def test_joker_exchange_needs_the_40_reached():
    meld = new_meld(["KS", "QS", "JK", "TS", "9S"], Robbers.meld_rules, owner=1, identities=["JS"])
    g = rig(["JS QH KH AH 2C 3C 4C 8D", "2C"], table=[meld], opened=(False, True))
    assert illegal(g, 0, [Exchange(0, "JS")]) == "initial-meld.first"
    g.apply(0, [Meld(["QH", "KH", "AH"]), Meld(["2C", "3C", "4C"]), Exchange(0, "JS")])  # 31 + 9
    assert "JK" in g.hands[0] and cards(g, 0) == "9S TS JS QS KS"


def test_rearranging_own_melds_after_opening():
    g = rig(["7H 7D 9S KC", "3C"], table=[(0, "4C 5C 6C 7C")], opened=(True, True))
    g.apply(0, [Rearrange([0], [Meld(["4C", "5C", "6C"]), Meld(["7C", "7H", "7D"])])])
    assert cards(g, 0) == "4C 5C 6C" and len(g.table) == 2


# --- deck, options, scoring ----------------------------------------------------------------------------------
def test_deck_deal_and_options():
    g = Robbers(2, {}, seed=3)
    assert len(g.cards_in_play()) == 108 and Counter(g.cards_in_play())["JK"] == 4
    assert all(len(h) == 11 for h in g.hands) and len(g.stock) == 85
    opts = Robbers.all_options()
    assert opts["target"].default == 500 and opts["max_stock_rebuilds"].default == 20
    assert opts["unopened_double"].default is True and opts["hand_out_needs_40"].default is False
    assert not {"jokers", "layoff_before_opening", "hand_out_double"} & set(opts)


def test_unopened_loser_pays_double():
    g = rig(["2H 3H 4H", "JK AC"], table=[(0, "5C 5D 5S")], stock=("9S",), opened=(True, False))
    g.placed_before = [True, False]
    g.apply(0, [Draw("stock"), Meld(["2H", "3H", "4H"]), Discard("9S")])
    assert g.deal_results[0]["scores"] == [0, 62]


def test_a_rejected_rob_gives_nothing_back_and_takes_nothing():
    g = rig(["5D 6D 9C", "2C"], table=[(1, "7D 7C 7H")], opened=(False, True))
    with pytest.raises(IllegalAction):
        g.apply(0, [Take(0, ["7D"]), Meld(["5D", "6D", "7D"])])  # 18: below 40
    assert g.hands == [["5D", "6D", "9C"], ["2C"]] and cards(g, 0) == "7D 7C 7H"


def test_a_rearranged_meld_keeps_the_joker_that_still_fits():
    meld = new_meld(["5H", "6H", "7H", "JK", "JK"], Robbers.meld_rules, owner=0)  # the jokers stand for 8H and 9H
    g = rig(["QS QD 3C", "2C"], table=[meld], opened=(True, True))
    g.apply(0, [Rearrange([0], [Meld(["5H", "6H", "7H", "JK"]), Meld(["JK", "QS", "QD"], ["QC"])])])
    assert g.table[0].ids == ("5H", "6H", "7H", "8H") and "QC" in g.table[1].ids
