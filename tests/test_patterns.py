"""Victoria's rummy patterns (referee/rules/patterns.py): the worked examples of rules/victoria.md as vectors, the
choice of the best pattern, and the card values as a parameter (trump values the ace at 11)."""

from functools import partial

import pytest

from referee.rules.patterns import VICTORIA_MELDS as RULES
from referee.rules.patterns import can_declare, card_value, victoria_pattern

pips = card_value
trump_pips = partial(card_value, ace=11)


def best(hand: str, value=pips):
    return victoria_pattern(hand.split(), RULES, value)


# rules/victoria.md, Worked examples 1-8: (hand, pattern, name, penalty, bonus)
EXAMPLES = [
    ("2H 3H 4H 5H 6H 7H 8H 9H TH JH", 7, "River", 0, 100),
    ("KS KS KH KH KD KD KC KC JK JK", 7, "River", 0, 100),
    ("3S 4S 5S 6S 7S 8S 9S TS JS KD", 6, "Victoria", 0, 50),
    ("AC 2C 3C 4C 5C 6C 7C 8C 2D 3H", 5, "Grand", 0, 25),
    ("AC 2C 3C 4C 5C 6C 7C 9D TD JD", 4, "Minus", 0, 10),
    ("KH KH KD KD KS KC 4C 5C 6C QD", 3, "Zero", 0, 0),
    ("KS KH KD 5C 6C 7C 9H TH JH QS", 2, "", 10, 0),
    ("KS KH KD 5C 6C 7C 8C 9C AH 4D", 1, "", 5, 0),
]


@pytest.mark.parametrize(("hand", "number", "name", "penalty", "bonus"), EXAMPLES)
def test_worked_examples(hand, number, name, penalty, bonus):
    p = best(hand)
    assert p is not None
    assert (p.number, p.name, p.penalty, p.bonus, p.change) == (number, name, penalty, bonus, penalty - bonus)


def test_a_great_set_with_more_than_5_pips_left_is_not_grand():
    p = best("7S 7S 7H 7H 7D 7C 7C 2D AS QH")  # 2 + 1 + 10 left over
    assert p is None


def test_six_pips_left_over_cannot_declare():
    assert best("KS KH KD 5C 6C 7C 8C 9C AH 5D") is None  # Worked example 8, with 5D: 1 + 5 = 6


def test_the_arrangement_is_shown():
    p = best("KS KH KD 5C 6C 7C 8C 9C AH 4D")
    assert p is not None and sorted(p.rest) == ["4D", "AH"]
    assert sorted(len(m.cards) for m in p.melds) == [3, 5]


@pytest.mark.parametrize(
    ("hand", "number", "alternative"),
    [
        ("2H 5H 7H 9H JH KH QH 3H 8D 4C", 3, "8 cards of one suit"),  # not a sequence: one suit is enough
        ("2H 5H 7H 9H JH KH QH 3H JK 4C", 4, "9 cards of one suit"),  # the joker stands in for a heart
        ("2H 5H 7H 9H JH KH QH 3H AH 6H", 5, "10 cards of one suit"),
        ("7S 7S 7H 7H 7D 7C 7C 2D 3D 4D", 5, "7-card set, the rest at most 5 pips"),  # the rest a run: 0
        ("7S 7S 7H 7H 7D 7D 7C 7C 2D KH", 6, "8-card set"),
        ("9S 9H 9D 3C 4C 5C 6C 7C 8C QD", 3, "6-card and 3-card combinations"),
        ("9S 9H 9D 3C 4C 5C 6C JD QD KD", 3, "all 10 cards in combinations"),
    ],
)
def test_alternatives(hand, number, alternative):
    p = best(hand)
    assert p is not None and (p.number, p.alternative) == (number, alternative)


def test_the_lower_penalty_of_patterns_1_and_2():
    # 4C-8C and JH-QH-KH-AH with AD left (pattern 2: 1), or 4C-8C and JH-QH-KH with AH + AD left (pattern 1: 2)
    p = best("4C 5C 6C 7C 8C AD AH JH KH QH")
    assert p is not None and (p.number, p.penalty, p.rest) == (2, 1, ("AD",))


def test_card_values_are_a_parameter():
    hand = "KS KH KD 5C 6C 7C 8C 9C AH 4D"  # 1 + 4 under victoria, 11 + 4 with trump's ace
    assert best(hand, trump_pips) is None
    assert best(hand, pips) is not None


def test_card_values():
    assert [card_value(c) for c in ("KS", "QH", "JD", "TC", "7S", "AS", "JK")] == [10, 10, 10, 10, 7, 1, 20]
    assert card_value("JK", joker=15) == 15 and trump_pips("AH") == 11


def test_only_ten_card_hands_declare_and_the_cheap_bound():
    assert best("2H 3H 4H") is None
    assert not can_declare(["KS", "2H", "5D", "7C", "9C", "JH", "QS", "3D", "4S", "8H", "6C"], RULES)
    assert can_declare(["2H", "5H", "7H", "9H", "JH", "KH", "QH", "3H", "8D", "4C", "6S"], RULES)
