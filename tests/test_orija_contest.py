"""Orija's phase-1 search (referee/rules/contest.py) against its straightforward form: the rank DP without its
cached moves, a Counter of ranks, and each joker's identity found by valuing every candidate showing whole. The
referee's search must give the same showings, identities and values on every pool."""

import random
from collections import Counter
from itertools import combinations

import pytest

from protocol.cards import JOKER, RANKS, SUITS
from protocol.messages import Meld
from referee.rules import contest
from referee.rules.contest import COMBOS, SIZES, can_show, card_value, high


def slow_run_cards(counts: tuple[int, ...]) -> int:
    states: dict[tuple[int, ...], int] = {(): 0}
    for c in counts:
        new: dict[tuple[int, ...], int] = {}
        for runs, val in states.items():
            for k in range(min(c, len(runs)) + 1):
                for ext in set(combinations(runs, k)):
                    gain = sum(3 if n == 2 else n >= 3 for n in ext)
                    grown = [min(n + 1, 3) for n in ext]
                    for fresh in range(c - k + 1):
                        key = tuple(sorted(grown + [1] * fresh))
                        new[key] = max(new.get(key, -1), val + gain)
        states = new
    return max(states.values())


def slow_value(cards: list[str], ids: list[str]) -> int:
    counts = Counter(high(x) for x in ids)
    return sum(map(card_value, cards)) + 10 * slow_run_cards(tuple(counts[r] for r in range(2, 15)))


def slow_joker_ids(naturals: list[str], jokers: int, s: str, size: int) -> list[str]:
    ids, cap = list(naturals), 1 if size == 4 else 2
    for _ in range(jokers):
        free = [r + s for r in RANKS if ids.count(r + s) < cap]
        ids.append(max(free, key=lambda x: (slow_value([JOKER], ids + [x]), high(x))))
    return ids[len(naturals) :]


def slow_best_showing(pool: list[str], s: str, size: int) -> Meld | None:
    if not can_show(pool, s, size):
        return None
    jokers = min(pool.count(JOKER), size)
    naturals = sorted(c for c in pool if c != JOKER and suit_of(c) == s)
    if size == 4:
        naturals = sorted(set(naturals))
    best, seen = None, set()
    for chosen in combinations(naturals, size - jokers):
        if chosen in seen:
            continue
        seen.add(chosen)
        ids = slow_joker_ids(list(chosen), jokers, s, size)
        cards = list(chosen) + [JOKER] * jokers
        value = slow_value(cards, list(chosen) + ids)
        if best is None or value > best[0]:
            best = (value, cards, ids)
        if len(seen) >= COMBOS:
            break
    assert best is not None
    return Meld(best[1], best[2] or None)


def suit_of(card: str) -> str:
    return card[1]


DECK = [r + s for r in RANKS for s in SUITS] * 2 + [JOKER] * 4


@pytest.mark.parametrize("seed", range(6))
def test_the_contest_search_gives_what_the_straightforward_one_gives(seed):
    rng = random.Random(seed)
    for _ in range(60):
        pool, s = rng.sample(DECK, rng.randint(4, 22)), rng.choice(SUITS)
        for size in SIZES:
            assert contest.best_showing(pool, s, size) == slow_best_showing(pool, s, size), (pool, s, size)
        naturals = [c for c in pool if c != JOKER]
        ids = [rng.choice(RANKS) + s for _ in range(rng.randint(0, 4))]
        assert contest.showing_value(pool, naturals + ids) == slow_value(pool, naturals + ids)
        chosen = sorted({c for c in naturals if c[1] == s})[:8]
        for jokers in range(5):
            assert contest.joker_ids(chosen, jokers, s, 16) == slow_joker_ids(chosen, jokers, s, 16)
            assert contest.joker_ids(chosen[:3], jokers, s, 4) == slow_joker_ids(chosen[:3], jokers, s, 4)


def test_the_run_count_agrees_on_every_count_of_up_to_two_cards_a_rank_in_a_sample():
    rng = random.Random(7)
    for _ in range(3000):
        counts = tuple(rng.choice((0, 0, 1, 1, 2)) for _ in range(13))
        assert contest.run_cards(counts) == slow_run_cards(counts), counts
