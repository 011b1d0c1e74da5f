"""Three-handed Gin (rules/gin-three.md): the worked examples, scoring against the sum of both opponents,
the starter offer to three seats, the lay-off window, defenders in turn, and the 200-point match."""

import pytest

from protocol.messages import Discard, Draw, Knock, LayOff, Meld, Pass
from referee.rules.errors import IllegalAction
from referee.rules.melds import new_meld
from referee.rules.variants.gin_three import GinThree

KNOCKER = "AS 2S 3S 7C 8C 9C QS QH QD 9D KH"  # discarding KH leaves 9D: K = 9 (4S, 6C, TC, QC would lay off)


def rig(knocker, first, second, at=0, totals=(0, 0, 0)):
    """Seat `at` has drawn (11 cards) and is to end its turn; `first` and `second` are the defenders after it
    clockwise; the seat before the knocker deals."""
    g = GinThree(3, {}, seed=3)
    g.hands = [None] * 3
    for i, hand in enumerate((knocker, first, second)):
        g.hands[(at + i) % 3] = hand.split()
    assert [len(h) for h in g.hands] == [11 if s == at else 10 for s in range(3)]
    g.table, g.melded_in = [], []
    g.stock, g.piles = ["2C"] * 20, [["KD"]]
    g.turn, g.phase, g.dealer, g.totals = at, "play", (at - 1) % 3, list(totals)
    return g


def result(g):
    return g.deal_results[-1]


EXAMPLE_1 = (
    KNOCKER,
    "5D 6D 7D 8H 9H TH JS JC JH 7S",  # B: 7S, D = 7
    "AC 2C 3C 4C 5C AH 2H 3H KS 8S",
)  # C: KS 8S, D = 18
EXAMPLE_2 = (
    KNOCKER,
    "5D 6D 7D 8H 9H TH JS JC JH 3D",  # B: 3
    "AC 2C 3C 4C 5C KS KC KD AD 3H",
)  # C: AD 3H, 4


def test_worked_example_1_finisher_scores_against_the_sum():
    g = rig(*EXAMPLE_1)
    g.apply(0, [Knock("KH")])
    assert result(g)["finish"]["deadwood"] == [9, 7, 18]
    assert result(g)["scores"] == [41, -7, -18]  # 7 + 18 - 9 = 16, + 25; B having less than A does not matter
    assert result(g)["winner"] == 0 and g.dealer == 0


def test_worked_example_2_both_opponents_score_when_the_finisher_has_more_than_their_sum():
    g = rig(*EXAMPLE_2)
    g.apply(0, [Knock("KH")])
    assert result(g)["finish"]["deadwood"] == [9, 3, 4]
    assert result(g)["scores"] == [-9, 31, 30]


def test_worked_example_3_match_to_200_with_a_100_bonus():
    g = rig(*EXAMPLE_1, totals=(180, 50, 20))
    g.apply(0, [Knock("KH")])
    assert result(g)["scores"] == [141, -7, -18]
    assert g.is_over() and g.totals == [321, 43, 2] and g.result()["ranks"] == [1, 2, 3]


def test_a_knock_equal_to_the_sum_is_lost_to_both():
    g = rig(KNOCKER, "5D 6D 7D 8H 9H TH JS JC JH 4H", "AC 2C 3C 4C 5C KS KC KD 2H 3H")  # 4 + 5 = 9 = K
    g.apply(0, [Knock("KH")])
    assert result(g)["scores"] == [-9, 30, 29]


def test_gin_scores_both_whole_hands():
    g = rig("AS 2S 3S 7C 8C 9C QS QH QD 4S KH", *EXAMPLE_1[1:])  # 4S joins the run: no deadwood
    g.apply(0, [Knock("KH")])
    assert result(g)["finish"]["kind"] == "gin"
    b, c = 5 + 6 + 7 + 8 + 9 + 10 + 30 + 7, 1 + 2 + 3 + 4 + 5 + 1 + 2 + 3 + 10 + 8
    assert result(g)["scores"] == [25 + b + c, -b, -c]


def test_the_undercutter_with_the_higher_score_deals_next():
    g = rig(*EXAMPLE_2)
    g.apply(0, [Knock("KH")])
    assert g.dealer == 1  # 31 against 30


def test_equal_undercutters_the_first_clockwise_from_the_knocker_deals():
    g = rig(KNOCKER, "5D 6D 7D 8H 9H TH JS JC JH 3D", "AC 2C 3C 4C 5C KS KC KD AD 2H", at=1)
    g.apply(1, [Knock("KH")])
    assert result(g)["scores"] == [31, -9, 31]  # seats 2 and 0 both score 31
    assert result(g)["winner"] == 2 and g.dealer == 2


def test_a_tie_at_the_top_above_200_means_another_deal_without_the_bonus():
    g = rig(*EXAMPLE_2, totals=(0, 170, 171))
    g.apply(0, [Knock("KH")])
    assert result(g)["scores"] == [-9, 31, 30] and g.totals == [-9, 201, 201]
    assert not g.is_over() and g.deal_no == 1


def test_the_highest_total_above_200_wins_even_if_another_also_passed_200():
    g = rig(*EXAMPLE_2, totals=(0, 180, 171))
    g.apply(0, [Knock("KH")])
    assert g.is_over() and g.totals == [-9, 311, 201] and g.result()["ranks"] == [3, 1, 2]


def test_defenders_lay_off_in_turn_the_second_on_the_firsts_melds_not_the_reverse():
    g = rig(
        "AS 2S 3S 7C 8C 9C QS QH QD 2D KH",
        "5D 6D 7D 4H 5H 6H JS JC JH 7S",  # 7S would fit the second's 8S-TS, but he shows after
        "8S 9S TS KC KD KS AC 2C 3C 8D",
    )  # 8D goes on the first's 5D-7D
    g.apply(0, [Knock("KH")])
    assert result(g)["finish"]["deadwood"] == [2, 7, 0]


def test_the_first_defender_shows_the_layout_that_leaves_the_second_least():
    # the first's 3H 4H 5H 4D 4C is a run or a set of fours, 28 deadwood either way; as a run it takes the 6H
    g = rig("AS 2S 3S 7C 8C 9C QS QH QD 2D KH", "3H 4H 5H 4D 4C 9D TD JD KC KD", "6H 8S 9S TS 5C 5D 5S AC 2C 3C")
    g.apply(0, [Knock("KH")])
    assert result(g)["finish"]["deadwood"] == [2, 28, 0]


def test_the_starter_is_offered_to_each_seat_in_turn_then_first_draws_from_the_stock():
    g = GinThree(3, {}, seed=5)
    first, second = (g.dealer + 1) % 3, (g.dealer + 2) % 3
    for seat in (first, second, g.dealer):
        assert g.to_act() == [seat] and g.decision(seat).phase == "offer"
        g.apply(seat, [Pass()])
    assert g.to_act() == [first] and [o.source for o in g.decision(first).options] == ["stock"]


def test_when_second_takes_the_starter_play_continues_clockwise_from_him():
    g = GinThree(3, {}, seed=5)
    first, second = (g.dealer + 1) % 3, (g.dealer + 2) % 3
    g.apply(first, [Pass()])
    starter = g.piles[0][-1]
    g.apply(second, [Draw("discard")])
    assert starter in g.hands[second]
    g.apply(second, [Discard(next(c for c in g.hands[second] if c != starter))])
    assert g.to_act() == [g.dealer]
    g.apply(g.dealer, [Draw("stock")])
    g.apply(g.dealer, [Discard(g.hands[g.dealer][-1])])
    assert g.to_act() == [first]


def rig_play(hands):
    """Seat 0 is to draw; the stock holds kings, queens and jacks drawn and thrown straight back."""
    g = GinThree(3, {}, seed=3)
    g.hands = [h.split() for h in hands]
    g.table, g.melded_in = [], []
    g.stock, g.piles = ["KC", "KD", "KS", "QC", "JC", "JD", "JS", "QS", "QD", "KH", "QH", "JH"], [["2C"]]
    g.turn, g.phase, g.turns = 0, "draw", 0
    return g


def turn(g, seat, *ops):
    """One whole turn of `seat`: draw from the stock, `ops`, throw the drawn card."""
    assert g.to_act() == [seat]
    g.apply(seat, [Draw("stock")])
    drawn = g.hands[seat][-1]
    g.apply(seat, list(ops) + [Discard(drawn)])


def test_opponents_may_add_to_a_meld_only_in_their_first_turn_after_it_was_melded():
    g = rig_play(["5H 6H 7H 9H 2S 3S 4D 5D 6C 7C", "8H TH 2D 3D 4S 6S 8C 9C TD AD", "4H AH 3C 4C 5S 6D 7D 8D 9D 9S"])
    turn(g, 0, Meld(["5H", "6H", "7H"]))
    assert g.view(1)["layoff_open"] == [0] and g.view(2)["layoff_open"] == [0]  # both for their next turn
    turn(g, 1, LayOff(0, ["8H"]))  # seat 1's first turn after the meld
    assert g.view(2)["layoff_open"] == [0]
    turn(g, 2)  # seat 2 lets its window pass
    turn(g, 0, LayOff(0, ["9H"]))  # own meld: always; this does not reopen the window
    g.apply(1, [Draw("stock")])
    with pytest.raises(IllegalAction) as e:
        g.apply(1, [LayOff(0, ["TH"])])
    assert e.value.rule == "layoff.not-allowed" and "TH" in g.hands[1]
    g.apply(1, [Discard(g.hands[1][-1])])
    g.apply(2, [Draw("stock")])
    with pytest.raises(IllegalAction):
        g.apply(2, [LayOff(0, ["4H"])])
    assert g.view(2)["layoff_open"] == []


def rig_window(knocker, first, second, open_):
    """Seat 1 melded 5H-7H in turn 0; seat 0 knocks in turn 2 (its window) or turn 5 (after it)."""
    g = rig(knocker, first, second)
    g.table, g.melded_in = [new_meld(["5H", "6H", "7H"], g.meld_rules, owner=1)], [0]
    g.turns = 2 if open_ else 5
    return g


WINDOW = (
    "AS 2S 3S 4S 7C 8C 9C TC 8H 2D KH",  # discarding KH leaves 8H 2D: 2 if 8H goes on 5H-7H, else 10
    "AC 2C 3C 4C 5C KS KC KD AD 3D",
    "5D 6D 7D 8S 9S TS JS JD JH 9H",
)


def test_the_knocker_counts_lay_offs_only_onto_melds_whose_window_is_open():
    g = rig_window(*WINDOW, open_=True)
    assert g.view(0)["layoff_open"] == [0]
    assert "KH" in [o.discard for o in g.decision(0).options if isinstance(o, Knock)]
    g = rig_window(*WINDOW, open_=False)
    assert g.view(0)["layoff_open"] == []
    assert not [o for o in g.decision(0).options if isinstance(o, Knock)]
    with pytest.raises(IllegalAction) as e:
        g.apply(0, [Knock("KH")])
    assert e.value.rule == "knock.deadwood" and len(g.hands[0]) == 11


def test_after_a_knock_defenders_add_to_every_meld_whatever_the_window():
    g = rig_window(
        "AS 2S 3S 4S 7C 8C 9C TC 2D 3D KH",
        "AC 2C 3C 4C 5C KS KC KD AD 9H",  # 9H: the 8H is not there yet when seat 1 shows
        "5D 6D 7D 8S 9S TS JS JD JH 8H",  # 8H goes on 5H-7H although seat 2's window has closed
        open_=False,
    )
    g.apply(0, [Knock("KH")])
    assert result(g)["finish"]["deadwood"] == [5, 10, 0]
    assert result(g)["scores"] == [30, -10, 0]
