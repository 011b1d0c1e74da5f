"""Staircase Rummy (rules/stairs.md): the worked examples, the deep draw, scoring at the moment of melding."""

import random

import pytest
import rigging
from rigging import illegal

from protocol.messages import Discard, Draw, LayOff, Meld
from referee.rules.melds import new_meld
from referee.rules.variants.stairs import Stairs


def rig(hands, table=(), stock=("2C",) * 20, discard=("9D",), turn=0, placed=None, **options):
    """A Stairs game with one hand per string, in a chosen position (start of seat `turn`'s turn)."""
    return rigging.rig(
        Stairs, hands, table=table, stock=stock, discard=discard, turn=turn, placed=placed, owner=1, **options
    )


# Worked example 1: the third card from the top, taken with the two above it
PILE = ("4C", "8H", "KS", "2D")  # bottom to top: 8H is third from the top


def test_deep_draw_takes_the_cards_above_and_melds_the_target():
    g = rig(["8S 8D 5C 6C", "3C 4C 5C"], discard=PILE)
    g.apply(0, [Draw("discard", depth=3), Meld(["8H", "8S", "8D"])])
    assert g.piles[0] == ["4C"]
    assert sorted(g.hands[0]) == sorted(["5C", "6C", "KS", "2D"])
    assert g.table[-1].ids == ("8H", "8S", "8D")


def test_deep_draw_may_meld_the_target_with_cards_taken_above_it():
    g = rig(["9H TH 5C", "3C 4C 5C"], discard=("4C", "8H", "JH", "2D"))
    g.apply(0, [Draw("discard", depth=3), Meld(["8H", "9H", "TH", "JH"])])
    assert g.deal_points[0] == 8 + 9 + 10 + 10


def test_deep_draw_target_not_melded_is_rejected_whole():
    g = rig(["8S 8D 5C 6C 7C", "3C 4C 5C"], discard=PILE)
    hand, pile = list(g.hands[0]), list(g.piles[0])
    assert illegal(g, 0, [Draw("discard", depth=3)]) == "draw.deep-unused"
    assert illegal(g, 0, [Draw("discard", depth=3), Meld(["5C", "6C", "7C"])]) == "draw.deep-unused"
    assert g.hands[0] == hand and g.piles[0] == pile and g.phase == "draw"


def test_deep_draw_target_laid_off_only_with_the_option():
    for ok in (False, True):
        g = rig(["5C 6C", "3C 4C 5C"], table=["8S 8D 8C"], discard=PILE, deep_draw_layoff_ok=ok)
        ops = [Draw("discard", depth=3), LayOff(0, ["8H"])]
        if ok:
            g.apply(0, ops)
            assert len(g.table[0].cards) == 4
        else:
            assert illegal(g, 0, ops) == "draw.deep-unused"


def test_single_top_card_draw_is_unconditional():
    g = rig(["5C 6C", "3C 4C 5C"], discard=PILE)
    g.apply(0, [Draw("discard")])
    assert g.phase == "play" and "2D" in g.hands[0]


def test_deep_draw_deeper_than_the_pile_is_rejected():
    g = rig(["5C 6C", "3C 4C 5C"], discard=PILE)
    assert illegal(g, 0, [Draw("discard", depth=5)]) == "draw.depth"


def test_cards_taken_in_a_deep_draw_may_not_be_discarded_unless_nothing_else_is_left():
    g = rig(["8S 8D 5C", "3C 4C 5C"], discard=PILE)
    g.apply(0, [Draw("discard", depth=3), Meld(["8H", "8S", "8D"])])
    assert illegal(g, 0, [Discard("KS")]) == "discard.rediscard"
    assert [o.card for o in g.decision(0).options] == ["5C"]
    g = rig(["8S 8D", "3C 4C 5C"], discard=PILE)  # Ambiguity 14: only taken cards left
    g.apply(0, [Draw("discard", depth=3), Meld(["8H", "8S", "8D"])])
    assert [o.card for o in g.decision(0).options] == ["2D", "KS"]


# Worked example 2: melds 6-6-6 and Q-K-A-2-3, lay-offs J, 10, 7: 18 + 30 + 27 = 75
def test_immediate_scoring_of_melds_and_layoffs():
    g = rig(
        ["6H 6D 6C QD KD AD 2D 3D JH TC 7S 8S", "3C 4C 5C"],
        table=["8H 9H TH", "JC QC KC", "4S 5S 6S"],
        stock=("9S", "3H", "4H"),
    )
    g.totals = [120, 0]
    g.apply(
        0,
        [
            Draw("stock"),
            Meld(["6H", "6D", "6C"]),
            Meld(["QD", "KD", "AD", "2D", "3D"]),
            LayOff(0, ["JH"]),
            LayOff(1, ["TC"]),
            LayOff(2, ["7S"]),
            Discard("4H"),
        ],
    )
    assert g.view(1)["deal_points"] == [75, 0]
    g.apply(1, [Draw("stock"), Discard("3C")])
    g.apply(0, [Draw("stock"), LayOff(2, ["8S", "9S"])])  # Worked example 3: the last cards laid off, no discard
    assert g.deal_results[0]["winner"] == 0
    assert g.totals[0] == 120 + 75 + 17 + (4 + 5 + 3)  # plus the bonus: the cards left in the opponent's hand


@pytest.mark.parametrize(
    "cards,points",
    [
        ("AS AH AD", 45),
        ("QH KH AH", 30),
        ("AH 2H 3H", 6),
        ("KH AH 2H", 17),
        ("JC QC KC AC 2C 3C", 10 + 10 + 10 + 5 + 2 + 3),
    ],
)
def test_meld_values_with_the_ace_by_position(cards, points):
    g = rig(["3C", "4C"])
    assert g.meld_points(new_meld(cards.split(), g.meld_rules)) == points


# Ambiguity 15: an ace closing a 12-card run 2..K scores by the end it is laid off at
@pytest.mark.parametrize("end,points,layout", [("high", 10, ("2H", "AH")), ("low", 1, ("AH", "KH"))])
def test_ace_closing_the_cycle_scores_by_the_end_named(end, points, layout):
    run = " ".join(r + "H" for r in "23456789TJQK")
    g = rig(["AH 5C", "3C 4C 5C"], table=[run])
    g.apply(0, [LayOff(0, ["AH"], end=end)])
    assert g.deal_points[0] == points
    assert (g.table[0].ids[0], g.table[0].ids[-1]) == layout


def test_ace_closing_the_cycle_needs_an_end():
    run = " ".join(r + "H" for r in "23456789TJQK")
    g = rig(["AH 5C", "3C 4C 5C"], table=[run])
    assert illegal(g, 0, [LayOff(0, ["AH"])]) == "layoff.end"


# Special rules 1, Ambiguity 4: a meld of all 13 ranks is a closed cycle, so its ace lies between K and 2 and is
# worth 5 (connecting) whichever card the bot lists first; it is laid out from the king, K-A-2-...-Q
CYCLE = [r + "H" for r in "A23456789TJQK"]


@pytest.mark.parametrize("first", ["AH", "KH", "2H", "7H", "QH"])
def test_a_thirteen_card_meld_scores_the_same_whatever_card_comes_first(first):
    i = CYCLE.index(first)
    cards = CYCLE[i:] + CYCLE[:i]
    g = rig([" ".join(cards) + " 5C", "3C 4C 5C"])
    g.apply(0, [Meld(cards)])
    assert g.deal_points[0] == 10 + 5 + (2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10) + 10 + 10
    assert g.table[0].ids == tuple(CYCLE[12:] + CYCLE[:12])


def test_a_thirteen_card_meld_in_any_order_is_one_meld():
    first = None
    for seed in range(5):
        cards = list(CYCLE)
        random.Random(seed).shuffle(cards)
        g = rig([" ".join(cards) + " 5C", "3C 4C 5C"])
        g.apply(0, [Meld(cards)])
        first = first or (g.table[0], g.deal_points[0])
        assert (g.table[0], g.deal_points[0]) == first


@pytest.mark.parametrize("n", range(3, 13))
def test_shorter_runs_with_the_ace_score_the_same_in_any_order(n):
    """Below 13 cards a round-the-corner run has ends, so its layout and the ace's value follow from its cards."""
    for start in range(13):
        run = [CYCLE[(start + k) % 13] for k in range(n)]
        if "AH" not in run:
            continue
        scores = set()
        for seed in range(3):
            cards = list(run)
            random.Random(seed).shuffle(cards)
            g = rig([" ".join(cards) + " 5C", "3C 4C 5C"])
            g.apply(0, [Meld(cards)])
            scores.add((g.table[0].ids, g.deal_points[0]))
        assert len(scores) == 1, run


@pytest.mark.parametrize("end,ace", [("high", 10), ("low", 5)])
def test_king_and_ace_closing_the_cycle_score_by_the_end_not_by_their_order(end, ace):
    """Ambiguity 15: K and A laid off on 2..Q go at the end named: Q-K-A (the ace next to K only) or K-A-2 (between)."""
    run = " ".join(CYCLE[1:12])
    for cards in (["KH", "AH"], ["AH", "KH"]):
        g = rig(["AH KH 5C", "3C 4C 5C"], table=[run])
        g.apply(0, [LayOff(0, cards, end=end)])
        assert g.deal_points[0] == 10 + ace


def test_layoff_needs_no_meld_of_ones_own():
    g = rig(["9H 5C", "3C 4C 5C"], table=["6H 7H 8H"])
    g.apply(0, [Draw("stock"), LayOff(0, ["9H"])])
    assert g.deal_points[0] == 9


def test_initial_meld_min_option():
    g = rig(["2H 3H 4H 9S 5C", "3C 4C 5C"], table=["6S 7S 8S"], initial_meld_min=30)
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["2H", "3H", "4H"])]) == "initial-meld.minimum"
    assert illegal(g, 0, [LayOff(0, ["9S"])]) == "initial-meld.first"


def test_predraw_actions_option():
    g = rig(["2H 3H 4H 5C", "3C 4C 5C"], predraw_actions=False)
    assert illegal(g, 0, [Meld(["2H", "3H", "4H"])]) == "play.before-draw"
    g = rig(["2H 3H 4H 5C", "3C 4C 5C"])
    g.apply(0, [Meld(["2H", "3H", "4H"])])
    assert g.deal_points[0] == 9


# Derived check: the going-out bonus, doubled when the winner put his whole hand down at once
@pytest.mark.parametrize("placed,bonus", [(True, 54), (False, 108)])
def test_going_out_bonus(placed, bonus):
    g = rig(["2H 3H 4H", "AS 9D", "KC QC JC"], placed=(placed, True, True))
    g.apply(0, [Meld(["2H", "3H", "4H"])])
    assert g.deal_results[0]["scores"] == [9 + bonus, 0, 0]


def test_deduct_hand_cards_option():
    g = rig(["2H 3H 4H", "AS 9D", "KC QC JC"], placed=(True, True, True), deduct_hand_cards=True)
    g.deal_points = [0, 20, 0]
    g.apply(0, [Meld(["2H", "3H", "4H"])])
    assert g.deal_results[0]["scores"] == [9 + 54, 20 - 24, -30]


def test_stalemate_keeps_meld_points_without_a_bonus():
    for deduct, expect in ((False, [12, 0]), (True, [12 - 14, -3])):
        g = rig(["5C 8S", "3C"], stock=("9S",), discard=("KD",), max_stock_rebuilds=0, deduct_hand_cards=deduct)
        g.deal_points = [12, 0]
        g.apply(0, [Draw("stock"), Discard("8S")])
        assert g.deal_results[0]["winner"] is None and g.deal_results[0]["scores"] == expect


def test_match_to_target_highest_total_wins():
    g = rig(["2H 3H 4H", "AS 9D"], placed=(True, True))
    g.totals = [480, 490]
    g.apply(0, [Meld(["2H", "3H", "4H"])])
    assert g.is_over() and g.result()["ranks"] == [1, 2] and g.totals == [480 + 9 + 24, 490]
