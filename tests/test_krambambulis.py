"""Krambambuli (rules/krambambulis.md): every worked example, rearranging own melds, the opening and the scoring."""

from collections import Counter

import pytest
import rigging
from rigging import illegal

from protocol.messages import Discard, Draw, LayOff, Meld, Rearrange, Take
from referee.rules.errors import IllegalAction
from referee.rules.variants.krambambulis import Krambambulis


def rig(hands, table=(), stock=("2C",) * 20, discard=("9D",), opened=None, turn=0, cls=Krambambulis, **options):
    """A game with one seat per hand in a chosen position (start of seat `turn`'s turn); `table` holds
    (owner, "cards") pairs."""
    return rigging.rig(cls, hands, table=table, stock=stock, discard=discard, opened=opened, turn=turn, **options)


def cards(g, i):
    return " ".join(g.table[i].cards)


# --- Worked examples (derived) --------------------------------------------------------------------------
def test_worked_example_1_taking_the_seven_out_of_a_four_card_run():
    g = rig(["7H 7D 9S KC", "3C 4C 5C"], table=[(0, "4C 5C 6C 7C")], opened=(True, False))
    g.apply(0, [Rearrange([0], [Meld(["4C", "5C", "6C"]), Meld(["7C", "7H", "7D"])])])
    assert cards(g, 0) == "4C 5C 6C" and sorted(g.table[1].cards) == ["7C", "7D", "7H"]
    assert g.table[1].owner == 0 and g.hands[0] == ["9S", "KC"]


def test_worked_example_2_a_three_card_meld_cannot_give_a_card():
    g = rig(["6H 6D 9S KC", "3C 4C 5C"], table=[(0, "4C 5C 6C")], opened=(True, False))
    assert illegal(g, 0, [Rearrange([0], [Meld(["4C", "5C"]), Meld(["6C", "6H", "6D"])])]) == "rearrange.remainder"


def test_worked_example_3_no_middle_card_out_of_a_run():
    g = rig(["6H 6D 9S KC", "3C 4C 5C"], table=[(0, "4C 5C 6C 7C 8C")], opened=(True, False))
    ops = [Rearrange([0], [Meld(["4C", "5C", "7C", "8C"]), Meld(["6C", "6H", "6D"])])]
    assert illegal(g, 0, ops) == "rearrange.remainder"
    assert cards(g, 0) == "4C 5C 6C 7C 8C" and len(g.table) == 1 and g.hands[0] == ["6H", "6D", "9S", "KC"]


def test_worked_example_4_loser_penalty():
    g = rig(["2H 3H 4H", "AS KH 3D"], table=[(0, "5C 5D 5S")], stock=("9S",), opened=(True, True))
    g.placed_before = [True, True]
    g.apply(0, [Draw("stock"), Meld(["2H", "3H", "4H"]), Discard("9S")])
    assert g.deal_results[0]["winner"] == 0 and g.deal_results[0]["scores"] == [0, 24]


# --- rearranging: Special rules 2 ------------------------------------------------------------------------
def test_rearranging_needs_a_hand_card_in_each_new_meld():
    g = rig(["9S KC", "3C"], table=[(0, "4C 5C 6C 7C"), (0, "4H 5H 6H 7H"), (0, "4D 5D 6D 7D")], opened=(True, False))
    ops = [
        Rearrange(
            [0, 1, 2],
            [Meld(["4C", "5C", "6C"]), Meld(["4H", "5H", "6H"]), Meld(["4D", "5D", "6D"]), Meld(["7C", "7H", "7D"])],
        )
    ]
    assert illegal(g, 0, ops) == "rearrange.hand-card"


def test_two_cards_from_two_melds_and_one_hand_card_make_a_new_meld():
    g = rig(["7D 9S KC", "3C"], table=[(0, "4C 5C 6C 7C"), (0, "4H 5H 6H 7H")], opened=(True, False))
    g.apply(0, [Rearrange([0, 1], [Meld(["4C", "5C", "6C"]), Meld(["4H", "5H", "6H"]), Meld(["7C", "7H", "7D"])])])
    assert [len(m.cards) for m in g.table] == [3, 3, 3] and g.hands[0] == ["9S", "KC"]


def test_removed_cards_may_not_go_back_to_hand():
    g = rig(["7H 7D 9S KC", "3C"], table=[(0, "4C 5C 6C 7C 8C")], opened=(True, False))
    ops = [Rearrange([0], [Meld(["4C", "5C", "6C"]), Meld(["7C", "7H", "7D"])])]  # the 8C would be left over
    assert illegal(g, 0, ops) == "rearrange.unused"


def test_a_kept_meld_may_not_gain_cards():
    g = rig(["7H 7D 3C KC", "3C"], table=[(0, "4C 5C 6C 7C")], opened=(True, False))
    ops = [Rearrange([0], [Meld(["3C", "4C", "5C", "6C"]), Meld(["7C", "7H", "7D"])])]
    assert illegal(g, 0, ops) == "rearrange.not-subset"


def test_other_players_melds_may_not_be_rearranged():
    g = rig(["7H 7D 9S KC", "3C"], table=[(1, "4C 5C 6C 7C")], opened=(True, True))
    assert illegal(g, 0, [Rearrange([0], [Meld(["4C", "5C", "6C"]), Meld(["7C", "7H", "7D"])])]) == "rearrange.not-own"


def test_new_meld_of_a_rearrangement_must_be_valid():
    g = rig(["8H 7D 9S KC", "3C"], table=[(0, "4C 5C 6C 7C")], opened=(True, False))
    assert illegal(g, 0, [Rearrange([0], [Meld(["4C", "5C", "6C"]), Meld(["7C", "8H", "7D"])])]) == "rearrange.invalid"


def test_a_rearrangement_must_make_a_new_meld():
    g = rig(["8H 7D 9S KC", "3C"], table=[(0, "4C 5C 6C 7C")], opened=(True, False))
    assert illegal(g, 0, [Rearrange([0], [Meld(["4C", "5C", "6C", "7C"])])]) == "rearrange.shape"


def test_an_unopened_player_may_not_rearrange():
    g = rig(["7H 7D 9S KC", "3C"], table=[(0, "4C 5C 6C 7C")], opened=(False, False))
    assert (
        illegal(g, 0, [Rearrange([0], [Meld(["4C", "5C", "6C"]), Meld(["7C", "7H", "7D"])])]) == "rearrange.not-opened"
    )


def test_a_meld_made_in_the_same_play_may_be_rearranged_and_going_out_by_rearranging_wins():
    # Ambiguity 8: "later" includes the same turn; Turn structure: a rearrangement may empty the hand
    g = rig(["4C 5C 6C 7C 7H 7D", "3C 9H"], opened=(False, False))
    g.apply(0, [Meld(["4C", "5C", "6C", "7C"]), Rearrange([0], [Meld(["4C", "5C", "6C"]), Meld(["7C", "7H", "7D"])])])
    result = g.deal_results[0]
    assert result["winner"] == 0 and result["scores"] == [0, 12 * 2 * 2]  # all at once, and seat 1 never melded


def test_robbing_is_not_an_operation_of_krambambulis():
    g = rig(["7H 7D 9S KC", "3C"], table=[(1, "7C 7S 7H 7D")], opened=(True, True))
    assert illegal(g, 0, [Take(0, ["7C"])]) == "op.unsupported"


def test_a_rejected_rearrangement_changes_nothing():
    g = rig(["7H 7D 9S KC", "3C"], table=[(0, "4C 5C 6C 7C")], opened=(True, False))
    with pytest.raises(IllegalAction):
        g.apply(0, [Rearrange([0], [Meld(["4C", "5C", "6C"]), Meld(["7C", "7H", "7D"])]), Discard("KC")])
    assert cards(g, 0) == "4C 5C 6C 7C" and len(g.table) == 1 and g.hands[0] == ["7H", "7D", "9S", "KC"]


# --- opening, lay-offs, deck, scoring, options -------------------------------------------------------------
def test_any_first_meld_opens_and_lay_offs_follow_in_the_same_play():
    g = rig(["2H 3H 4H 8C 9D", "3C"], table=[(1, "5C 6C 7C")], opened=(False, True))
    assert illegal(g, 0, [LayOff(0, ["8C"])]) == "initial-meld.first"  # Special rules 1: not before a meld
    g.apply(0, [Meld(["2H", "3H", "4H"]), LayOff(0, ["8C"])])
    assert g.opened[0] and cards(g, 0) == "5C 6C 7C 8C"


def test_deck_deal_and_options():
    g = Krambambulis(6, {}, seed=3)
    assert len(g.cards_in_play()) == 104 and "JK" not in g.cards_in_play()
    assert all(len(h) == 11 for h in g.hands) and len(g.stock) == 37
    opts = Krambambulis.all_options()
    assert opts["target"].default == 500 and opts["target"].choices == (500, 1000)
    assert opts["max_stock_rebuilds"].default == 3
    assert opts["hand_out_double"].default is True and opts["unopened_double"].default is True
    assert not {"jokers", "hand_out_needs_40", "layoff_before_opening"} & set(opts)


def test_the_match_ends_at_500():
    g = rig(["2H 3H 4H", "KS KH KD KC QS QH QD QC JS JH"], table=[(0, "5C 5D 5S")], stock=("9S",), opened=(True, True))
    g.placed_before = [True, True]
    g.totals = [0, 400]
    g.apply(0, [Draw("stock"), Meld(["2H", "3H", "4H"]), Discard("9S")])
    assert g.is_over() and g.totals == [0, 500] and g.result()["ranks"] == [1, 2]


def test_rearrangement_view_and_event():
    g = rig(["7H 7D 9S KC", "3C"], table=[(0, "4C 5C 6C 7C")], opened=(True, False))
    g.apply(0, [Rearrange([0], [Meld(["4C", "5C", "6C"]), Meld(["7C", "7H", "7D"])])])
    events, _ = g.events_since(1, 0)
    assert events[-1]["type"] == "rearrange" and events[-1]["new"] == [1] and events[-1]["from_hand"] == ["7D", "7H"]
    assert [Counter(m["cards"]) for m in g.view(1)["table"]] == [
        Counter(["4C", "5C", "6C"]),
        Counter(["7C", "7H", "7D"]),
    ]
    assert g.decision(0).constraints["rearrange"] is True
