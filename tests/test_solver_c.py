"""The compiled best-split search (referee/rules/_solver.c) against the pure-Python one, on random hands: the same
split (melds, their card order, deadwood, points) and the same best discard, under every variant's meld rules that
the compiled search takes and a few more ace modes. ROMIS_SOLVER_HANDS sets the number of hands over all the rule
sets (`make test-solver`: 100,000); `make test` runs 1,500."""

import os
import random

import pytest

from referee.rules import solver
from referee.rules.cards import deck, rank
from referee.rules.melds import MeldRules
from referee.rules.solver import best_discard, best_split
from referee.rules.variants import VARIANTS

EXTRA = {  # ace modes and set sizes beyond the variants' own
    "ace-high-only": MeldRules(ace_low=False, wilds=frozenset()),
    "no-ace-runs": MeldRules(ace_low=False, ace_high=False, wilds=frozenset()),
    "ace-both-ends": MeldRules(ace_both_ends=True, wilds=frozenset()),
    "wrap-both-ends": MeldRules(wrap=True, ace_both_ends=True, wilds=frozenset()),
    "runs-of-at-most-4": MeldRules(wilds=frozenset(), run_max=4, run_min=3),
    "sets-of-4-to-6": MeldRules(wilds=frozenset(), set_min=4, set_max=6, max_copies=3),
    "sets-only": MeldRules(wilds=frozenset(), allow_runs=False),
    "runs-only": MeldRules(wilds=frozenset(), allow_sets=False),
}
RULES = {
    name: rules
    for name, rules in [(k, getattr(v, "meld_rules", None)) for k, v in VARIANTS.items()] + list(EXTRA.items())
    if isinstance(rules, MeldRules) and solver._spec(rules) is not None
}
HANDS = int(os.environ.get("ROMIS_SOLVER_HANDS", "1500")) // len(RULES) + 1  # per rule set


def value(card: str) -> int:
    return min(rank(card), 10)


TABLE = {c: value(c) for c in deck()}


def hands(rng: random.Random, n: int) -> list[list[str]]:
    """Random 10- and 13-card hands of one pack, 13 of two packs, and 10-12 from a band of ranks (many melds)."""
    single, double = deck(), deck(packs=2)
    out = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            out.append(rng.sample(single, 10))
        elif kind == 1:
            out.append(rng.sample(single, 13))
        elif kind == 2:
            out.append(rng.sample(double, 13))
        else:
            low = rng.randint(1, 9)
            out.append(rng.sample([c for c in double if low <= rank(c) < low + 5], rng.randint(10, 12)))
    return out


def test_the_compiled_search_is_built_and_in_use():
    """A fresh `make .venv/.installed` builds it (pip install -e with gcc); ROMIS_PURE=1 turns it off."""
    assert solver.built is not None, "referee/rules/_solver.c was not built: pip install -e . needs gcc and Python.h"
    assert (solver.core is None) == bool(os.environ.get("ROMIS_PURE"))


@pytest.mark.parametrize("name", sorted(RULES))
def test_compiled_and_pure_search_agree(name, monkeypatch):
    rules, rng = RULES[name], random.Random(name)
    assert solver.built is not None
    taken = 0
    for hand in hands(rng, HANDS):
        values = TABLE.__getitem__ if len(hand) % 2 else value  # both ways of giving the values
        spec = solver._spec(rules)
        wild = any(c in rules.wilds for c in hand)
        found = solver.built.split(hand, spec, values, False)
        assert (found is None) == wild, hand  # it takes every hand without a wild card
        taken += found is not None
        monkeypatch.setattr(solver, "core", solver.built)
        compiled = best_split(hand, rules, values), best_discard(hand, rules, values)
        least = solver.least_after_discard(hand, rules, values)  # the points-only answer of the compiled search
        monkeypatch.setattr(solver, "core", None)
        pure = best_split(hand, rules, values), best_discard(hand, rules, values)
        assert compiled == pure, (name, hand)
        assert least == pure[1][1].points, (name, hand)
    assert taken  # not a comparison of the pure path with itself


def test_hands_the_compiled_search_leaves_to_python():
    """A joker, a wild card, a hand given as a tuple: None, and best_split still answers (on the pure path)."""
    spec = solver._spec(MeldRules())
    assert solver.built is not None
    assert solver.built.split(["JK", "2S", "3S", "4S"], spec, value, False) is None
    assert solver.built.split(("AS", "2S", "3S"), spec, value, False) is None
    assert best_split(["JK", "2S", "3S"], MeldRules(), value).points == 0


def test_a_value_table_without_the_card_raises_as_the_table_does():
    spec = solver._spec(MeldRules(wilds=frozenset()))
    assert solver.built is not None
    with pytest.raises(KeyError):
        solver.built.split(["AS", "2S", "3S"], spec, {"AS": 1}.__getitem__, False)


def test_a_value_table_changed_between_calls_is_read_afresh():
    """The compiled search keeps the values it read from a dict only while that dict is unchanged."""
    table = {c: value(c) for c in deck()}
    hand = ["AS", "2S", "3S", "9H", "KD"]
    assert best_split(hand, MeldRules(wilds=frozenset()), table.__getitem__).points == 19
    table["KD"] = 3
    assert best_split(hand, MeldRules(wilds=frozenset()), table.__getitem__).points == 12
    del table["9H"]
    with pytest.raises(KeyError):
        best_split(hand, MeldRules(wilds=frozenset()), table.__getitem__)


def test_a_value_function_that_asks_for_a_split_itself():
    """The compiled search's state is static: a split asked for inside its own value function goes to solver.py."""
    rules = MeldRules(wilds=frozenset())

    def nested(card: str) -> int:  # two cards never meld: the points are both cards' values
        return best_split([card, "KD" if card != "KD" else "QC"], rules, value).points - 10

    hand = ["AS", "2S", "3S", "4S", "9H", "9D", "9C", "JH", "5D", "KD"]
    assert best_split(hand, rules, nested) == best_split(hand, rules, value)
    assert best_discard(hand, rules, nested) == best_discard(hand, rules, value)
