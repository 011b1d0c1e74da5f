"""Fortune (rules/fortuna.md): every worked example, wild twos, the queen of spades and the scoring."""

from collections import Counter

import pytest
import rigging
from rigging import illegal

from protocol.messages import Discard, Draw, Exchange, LayOff, Meld
from referee.rules.melds import new_meld
from referee.rules.variants.fortuna import Fortuna


def rig(hands, table=(), stock=("9C",) * 20, discard=("4D",), opened=None, turn=0, **options):
    """A Fortune game with one seat per hand, in a chosen position (start of seat `turn`'s turn)."""
    return rigging.rig(
        Fortuna, hands, table=table, stock=stock, discard=discard, opened=opened, turn=turn, owner=1, **options
    )


def test_deck_deal_and_options():
    g = Fortuna(3, {}, seed=4)
    cards = Counter(g.cards_in_play())
    assert sum(cards.values()) == 104 and "JK" not in cards and cards["2H"] == 2
    assert [len(h) for h in g.hands] == [11, 11, 11] and len(g.stock) == 104 - 33 - 1
    opts = Fortuna.all_options()
    assert opts["target"].default == 500 and opts["two_in_hand_value"].default == 10
    assert opts["spade_queen_strict"].default is False
    assert opts["hand_out_double"].default is True and opts["unopened_double"].default is True
    assert "jokers" not in opts and "hand_out_needs_40" not in opts


# Derived check 1: ♠Q ♥Q ♦Q is a 70-point opening, and its maker scores +50 at the deal end
def test_spade_queen_opening_is_worth_70_and_earns_50():
    g = rig(["QS QH QD 7C 8C 9C", "3C 4C", "5D 6D"], stock=("4S",))
    assert g.meld_points(new_meld(["QS", "QH", "QD"], g.meld_rules)) == 70
    g.apply(0, [Draw("stock"), Meld(["QS", "QH", "QD"])])
    assert g.opened[0] and g.view(1)["spade_queens"] == [1, 0, 0]
    g.apply(0, [Meld(["7C", "8C", "9C"]), Discard("4S")])  # out all at once: others x2, unopened x2
    assert g.deal_results[0]["scores"] == [80 + 50, -40, -40]


# Derived check 2: ♠Q with wild twos alone is no meld
def test_spade_queen_with_twos_alone_is_illegal():
    g = rig(["QS 2H 2D 7C 8C", "3C 4C", "5D 6D"])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["QS", "2H", "2D"], identities=["QH", "QD"])]) == "spade-queen.wild-only"
    assert illegal(g, 0, [Meld(["QS", "2H", "2D"])]) == "spade-queen.wild-only"


def test_spade_queen_with_another_natural_card_and_a_two():
    g = rig(["QS QH 2D KD KC KH", "3C 4C", "5D 6D"])
    g.apply(0, [Draw("stock"), Meld(["QS", "QH", "2D"], identities=["QD"]), Meld(["KD", "KC", "KH"])])
    assert g.opened[0] and g.queens == [1, 0, 0]


@pytest.mark.parametrize(
    "cards,ok", [("QS QH 2D", False), ("QS QH QD 2C", True), ("QS KS 2H", False), ("JS QS KS 2H", True)]
)
def test_spade_queen_strict_needs_a_meld_valid_without_twos(cards, ok):
    g = rig([cards + " 8C", "3C 4C", "5D 6D"], opened=[True, False, False], spade_queen_strict=True)
    g.apply(0, [Draw("stock")])
    play = [Meld(cards.split())]
    if ok:
        g.apply(0, play)
    else:
        assert illegal(g, 0, play) == "spade-queen.strict"
    assert rig([cards + " 8C", "3C", "5D"], opened=[True, False, False]).apply(0, play) is None  # default: legal


def test_a_meld_of_twos_only_is_illegal():
    g = rig(["2H 2D 2S 7C 8C", "3C 4C", "5D 6D"])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["2H", "2D", "2S"])]) == "meld.natural"
    assert illegal(g, 0, [Meld(["2H", "2D", "2S"], identities=["7H", "7D", "7S"], kind="set")]) == "meld.natural"


# Derived check 3: ♥8 2 ♥10, the two standing for ♥9, counts 30
@pytest.mark.parametrize(
    "cards,ids,points",
    [
        ("8H 2C TH", ["9H"], 30),
        ("AH 2C 3H", ["2H"], 15),  # low ace 5, a two standing for a 2 is 5 (Ambiguity 3), the three 5
        ("AH 2H 3H", None, 15),  # the ♥2 standing for itself: the same
        ("QH KH AH", None, 30),  # high ace 10
        ("AC AD AH", None, 30),  # ace in a set 10
        ("3C 4C 5C", None, 15),
        ("2D JS KS", ["QS"], 30),  # a two standing for ♠Q counts 10 (Ambiguity 4)
        ("QS QC QH", None, 70),
    ],
)
def test_meld_values(cards, ids, points):
    g = rig(["3C", "4C"])
    assert g.meld_points(new_meld(cards.split(), g.meld_rules, identities=ids)) == points


@pytest.mark.parametrize(
    "card,value", [("QS", 50), ("QH", 10), ("KD", 10), ("8C", 10), ("7C", 5), ("3S", 5), ("AH", 10), ("2D", 10)]
)
def test_hand_values(card, value):
    assert rig(["3C", "4C"]).penalty(card) == value


def test_two_in_hand_value_option():
    assert rig(["3C", "4C"], two_in_hand_value=20).penalty("2C") == 20


def test_initial_meld_below_40_is_rejected():
    g = rig(["3H 4H 5H 6H 7H 2C 9D KS", "3C 4C", "5D 6D"])  # 25
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["3H", "4H", "5H", "6H", "7H"])]) == "initial-meld.minimum"
    g.apply(0, [Meld(["3H", "4H", "5H", "6H", "7H"]), Meld(["9C", "9D", "2C"], identities=["9H"])])  # 25 + 30
    assert g.opened[0]


# Derived check 4: the deal score
@pytest.mark.parametrize("a_melded_spade_queen,a_score", [(False, 95), (True, 145)])
def test_deal_scores_bonus_and_penalties(a_melded_spade_queen, a_score):
    g = rig(["6H 7H 8H", "QS 5D", "2C AC"], table=["KD KC KH"], stock=("9S",), opened=[True, True, False])
    g.placed_before = [True, True, False]
    g.queens = [int(a_melded_spade_queen), 0, 0]
    g.apply(0, [Draw("stock"), Meld(["6H", "7H", "8H"]), Discard("9S")])
    assert g.deal_results[0]["winner"] == 0
    assert g.deal_results[0]["scores"] == [a_score, -55, -40]


def test_going_out_all_at_once_doubles_every_penalty():
    g = rig(["6H 7H 8H KD KC KH", "QS 5D", "2C AC"], stock=("9S",), opened=[False, True, False])
    g.placed_before = [False, True, False]
    g.apply(0, [Draw("stock"), Meld(["6H", "7H", "8H"]), Meld(["KD", "KC", "KH"]), Discard("9S")])
    assert g.deal_results[0]["scores"] == [110 + 80, -110, -80]


def test_spade_queen_bonus_goes_to_whoever_puts_it_down_even_a_loser():
    g = rig(["QS 3C 9D", "6H 7H 8H", "4C 5C"], opened=[True, True, False])
    g.placed_before = [True, True, False]
    g.table = [None]
    g.table[0] = new_meld(["JS", "KS", "2D"], g.meld_rules, owner=1, identities=["QS"])
    g.apply(0, [Draw("stock"), Exchange(0, "QS"), LayOff(0, ["2D"], identities=["AS"]), Discard("9C")])
    assert g.queens[0] == 1 and "2D" not in g.hands[0]
    g.apply(1, [Draw("stock"), Meld(["6H", "7H", "8H"]), Discard("9C")])
    assert g.deal_results[0]["scores"] == [-(5 + 10) + 50, 15 + 20, -20]


def test_spade_queen_laid_off_earns_the_bonus():
    g = rig(["QS 3C", "6H 7H", "4C 5C"], table=["QH QD QC"], opened=[True, True, False])
    g.apply(0, [Draw("stock"), LayOff(0, ["QS"])])
    assert g.queens == [1, 0, 0]


def test_a_two_standing_for_a_two_cannot_be_exchanged():
    g = rig(["2H 3C", "6H 7H", "4C 5C"], opened=[True, True, False])
    g.table = [new_meld(["AH", "2D", "3H"], g.meld_rules, owner=1, identities=["2H"])]
    assert illegal(g, 0, [Exchange(0, "2H")]) == "exchange.natural"


def test_wild_two_exchange_by_the_natural_card():
    g = rig(["9H 3C", "6H 7H", "4C 5C"], opened=[True, True, False])
    g.table = [new_meld(["8H", "2C", "TH"], g.meld_rules, owner=1, identities=["9H"])]
    g.apply(0, [Exchange(0, "9H")])
    assert g.table[0].cards == ("8H", "9H", "TH") and "2C" in g.hands[0]


def test_stalemate_scores_minus_plain_hand_and_keeps_queen_bonus():
    g = rig(["QS 3C 8D", "AD 2C"], stock=("KC",), discard=("2D",), max_stock_rebuilds=0)
    g.queens = [0, 1]
    g.apply(0, [Draw("stock"), Discard("KC")])
    assert g.deal_results[0]["winner"] is None
    assert g.deal_results[0]["scores"] == [-(50 + 5 + 10), -(10 + 10) + 50]


def test_match_ends_at_500_and_the_highest_total_wins():
    g = rig(["6H 7H 8H", "QS 5D"], table=["KD KC KH"], stock=("9S",), opened=[True, True])
    g.totals = [450, 0]
    g.placed_before = [True, True]
    g.apply(0, [Draw("stock"), Meld(["6H", "7H", "8H"]), Discard("9S")])
    assert g.is_over() and g.totals == [505, -55] and g.result()["ranks"] == [1, 2]
