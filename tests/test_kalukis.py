"""Kaluki (rules/kalukis.md): every worked example, the restricted discard take, freed jokers and the scoring."""

from collections import Counter

import pytest
import rigging
from rigging import illegal

from protocol.messages import Discard, Draw, Exchange, LayOff, Meld
from referee.rules.melds import new_meld
from referee.rules.variants.kalukis import Kalukis


def rig(hands, table=(), stock=("9C",) * 20, discard=("4D",), opened=None, turn=0, **options):
    """A Kaluki game with one seat per hand, in a chosen position (start of seat `turn`'s turn)."""
    return rigging.rig(
        Kalukis, hands, table=table, stock=stock, discard=discard, opened=opened, turn=turn, owner=1, **options
    )


@pytest.mark.parametrize("players,hand,stock", [(2, 15, 77), (3, 15, 62), (4, 15, 47), (5, 13, 42), (6, 11, 41)])
def test_hand_size_and_stock_by_player_count(players, hand, stock):
    g = Kalukis(players, {}, seed=2)
    assert Counter(g.cards_in_play())["JK"] == 4 and len(g.cards_in_play()) == 108
    assert all(len(h) == hand for h in g.hands) and len(g.stock) == stock


def test_options():
    opts = Kalukis.all_options()
    assert opts["target"].default == 500 and opts["per_card_scoring"].default is False
    assert opts["first_discard_literal"].default is False and opts["hand_out_double"].default is True
    assert "jokers" not in opts and "layoff_before_opening" not in opts


# Worked examples from the text: ace placements
@pytest.mark.parametrize("cards,points", [("QH KH AH", 35), ("AH 2H 3H", 6), ("AC AD AS", 45)])
def test_ace_is_high_15_or_low_1(cards, points):
    g = rig(["3C", "4C"])
    assert g.meld_points(new_meld(cards.split(), g.meld_rules)) == points


@pytest.mark.parametrize("cards", ["QH KH AH 2H", "KH AH 2H"])
def test_ace_is_never_a_connecting_card(cards):
    g = rig([cards + " 9D", "3C 4C"], opened=[True, False])
    assert illegal(g, 0, [Draw("stock"), Meld(cards.split())]) == "run.invalid"


# Derived checks: the 51-point initial meld
def test_initial_meld_of_59_is_legal():
    g = rig(["QH KH AH 8C 8D 8S 5S 6D", "3C 4C"])
    g.apply(0, [Draw("stock"), Meld(["QH", "KH", "AH"]), Meld(["8C", "8D", "8S"])])
    assert g.opened[0]


def test_initial_meld_of_36_is_illegal():
    g = rig(["AH 2H 3H QC QD QS 5S 6D", "3C 4C"])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["AH", "2H", "3H"]), Meld(["QC", "QD", "QS"])]) == "initial-meld.minimum"
    assert g.table == [] and not g.opened[0]


def test_going_out_all_at_once_needs_no_51():
    g = rig(["AH 2H 3H QC QD QS", "3C 4C"], stock=("5S",))
    g.apply(0, [Draw("stock"), Meld(["AH", "2H", "3H"]), Meld(["QC", "QD", "QS"]), Discard("5S")])
    assert g.deal_results[0]["winner"] == 0


def test_unopened_player_may_not_lay_off_even_with_51():
    g = rig(["TH JH QH KH 5S", "3C 4C"], table=["7H 8H 9H"])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [LayOff(0, ["TH", "JH", "QH", "KH"])]) == "initial-meld.first"


# Turn structure 3: the discard pile while not opened
def test_unopened_player_is_offered_the_stock_only():
    g = rig(["QH KH 8C 8D 5S 6D", "3C 4C"], discard=("AH",))
    d = g.decision(0)
    assert d.options == [Draw("stock")] and d.constraints["discard_needs_meld"] is True
    assert illegal(g, 0, [Draw("discard")]) == "discard-take.meld-at-once"
    assert illegal(g, 0, [Draw("discard"), Discard("5S")]) == "discard-take.meld-at-once"


def test_unopened_player_takes_the_discard_into_his_opening():
    g = rig(["QH KH 8C 8D 8S 5S 6D", "3C 4C"], discard=("AH",))
    g.apply(0, [Draw("discard"), Meld(["QH", "KH", "AH"]), Meld(["8C", "8D", "8S"])])
    assert g.opened[0] and g.phase == "play"


def test_the_taken_card_must_be_in_the_opening_not_beside_it():
    g = rig(["QH KH AH 8C 8D 8S 5S 6D", "3C 4C"], discard=("7S",))
    assert (
        illegal(g, 0, [Draw("discard"), Meld(["QH", "KH", "AH"]), Meld(["8C", "8D", "8S"])])
        == "discard-take.meld-at-once"
    )


def test_the_taken_card_may_not_be_laid_off():
    g = rig(["QH KH AH 8C 8D 8S 5S 6D", "3C 4C"], discard=("9H",), table=["6H 7H 8H"])
    ops = [Draw("discard"), Meld(["QH", "KH", "AH"]), Meld(["8C", "8D", "8S"]), LayOff(0, ["9H"])]
    assert illegal(g, 0, ops) == "discard-take.meld-at-once"


def test_the_opening_with_the_taken_card_must_still_reach_51():
    g = rig(["QH KH 5S 6D 7C", "3C 4C"], discard=("AH",))
    assert illegal(g, 0, [Draw("discard"), Meld(["QH", "KH", "AH"])]) == "initial-meld.minimum"


def test_unopened_player_may_take_the_discard_to_go_out_below_51():
    g = rig(["2H 3H 5C 5D 5S", "3C 4C"], discard=("4H",))
    g.apply(0, [Draw("discard"), Meld(["2H", "3H", "4H"]), Meld(["5C", "5D", "5S"])])
    assert g.deal_results[0]["winner"] == 0


def test_opened_player_takes_the_discard_freely():
    g = rig(["QH KH 5S 6D", "3C 4C"], discard=("9S",), opened=[True, False])
    assert Draw("discard") in g.decision(0).options
    g.apply(0, [Draw("discard"), Discard("5S")])
    assert "9S" in g.hands[0]


def test_first_discard_literal_restricts_an_opened_players_first_take():
    g = rig(["AS QS KS 5S 6D", "3C 4C 5C 9S"], discard=("JS",), opened=[True, True], first_discard_literal=True)
    assert g.decision(0).options == [Draw("stock")]
    assert illegal(g, 0, [Draw("discard"), Discard("5S")]) == "discard-take.meld-at-once"
    g.apply(0, [Draw("discard"), Meld(["JS", "QS", "KS", "AS"]), Discard("5S")])  # opened: a new meld suffices
    g.apply(1, [Draw("stock"), Discard("9S")])
    assert Draw("discard") in g.decision(0).options  # the second take is free
    g.apply(0, [Draw("discard"), Discard("6D")])


# Special rules 4: a freed joker goes back on the table in the same play
def exchange_position(hand):
    meld = new_meld(["KS", "QS", "JK", "TS", "9S"], Kalukis.meld_rules, owner=1, identities=["JS"])
    return rig([hand, "3C 4C"], table=[meld, "5D 6D 7D"], opened=[True, True])


def test_freed_joker_may_not_be_kept_or_discarded():
    g = exchange_position("JS 3D 8C 8H")
    assert illegal(g, 0, [Exchange(0, "JS")]) == "joker-exchange.replace"
    assert illegal(g, 0, [Draw("stock"), Exchange(0, "JS"), Discard("JK")]) == "joker-exchange.replace"
    assert illegal(g, 0, [Draw("stock"), Exchange(0, "JS"), Discard("3D")]) == "joker-exchange.replace"
    assert g.table[0].cards[2] == "JK"


def test_freed_joker_laid_off_or_melded_in_the_same_play():
    g = exchange_position("JS 3D 8C 8H")
    g.apply(0, [Exchange(0, "JS"), LayOff(1, ["JK"], identities=["8D"])])
    assert "JK" not in g.hands[0] and g.table[1].ids == ("5D", "6D", "7D", "8D")
    g = exchange_position("JS 3D 8C 8H")
    g.apply(0, [Draw("stock"), Exchange(0, "JS"), Meld(["8C", "8H", "JK"], identities=["8S"]), Discard("3D")])
    assert g.table[2].ids == ("8C", "8H", "8S")


# Derived checks: the winner's bonus
@pytest.mark.parametrize(
    "y_opened,options,bonus", [(True, {}, 54), (False, {}, 64), (True, {"per_card_scoring": True}, 5)]
)
def test_winner_bonus(y_opened, options, bonus):
    g = rig(["6H 7H 8H", "JK AS 4D", "KC"], table=["KD KS KH"], stock=("9S",), opened=[True, True, y_opened], **options)
    g.placed_before = [True, True, True]
    g.apply(0, [Draw("stock"), Meld(["6H", "7H", "8H"]), Discard("9S")])
    assert g.deal_results[0]["scores"] == [bonus, 0, 0]


def test_going_out_all_at_once_doubles_the_bonus():
    g = rig(["6H 7H 8H KD KS KH", "JK AS 4D", "KC"], stock=("9S",), opened=[False, True, True])
    g.placed_before = [False, True, True]
    g.apply(0, [Draw("stock"), Meld(["6H", "7H", "8H"]), Meld(["KD", "KS", "KH"]), Discard("9S")])
    assert g.deal_results[0]["scores"] == [2 * 54, 0, 0]


def test_stalemate_scores_nothing():
    g = rig(["9D 3C 8S", "AD JK"], stock=("KC",), discard=("2D",), max_stock_rebuilds=0)
    g.apply(0, [Draw("stock"), Discard("KC")])
    assert g.deal_results[0]["winner"] is None and g.deal_results[0]["scores"] == [0, 0]


def test_match_ends_at_500_and_the_highest_total_wins():
    g = rig(["6H 7H 8H", "KC"], table=["KD KS KH"], stock=("9S",), opened=[True, True])
    g.totals, g.placed_before = [495, 0], [True, True]
    g.apply(0, [Draw("stock"), Meld(["6H", "7H", "8H"]), Discard("9S")])
    assert g.is_over() and g.totals == [505, 0] and g.result()["ranks"] == [1, 2]
