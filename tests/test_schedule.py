"""Schedules: fair seats, duplicate decks under every rotation, order-independent unique seeds."""

import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.schedule import game_seed, games, gauntlet, round_robin

names = st.lists(st.text("abcdefgh", min_size=1, max_size=4), min_size=2, max_size=7, unique=True)


@settings(max_examples=60, deadline=None)
@given(names, st.integers(2, 4), st.integers(1, 3), st.integers(0, 2**40))
def test_every_entrant_sits_in_every_seat_equally_often(entrants, seats, deal_sets, master):
    seats = min(seats, len(entrants))
    plan = games(round_robin(entrants, seats), deal_sets, master)
    counts = Counter((seating[s], s) for *_, seating in plan for s in range(seats))
    per_seat = {counts[(e, s)] for e in entrants for s in range(seats)}
    assert len(per_seat) == 1 and per_seat.pop() > 0


@settings(max_examples=60, deadline=None)
@given(names, st.integers(2, 4), st.integers(1, 3), st.integers(0, 2**40))
def test_every_table_plays_every_deck_under_every_rotation(entrants, seats, deal_sets, master):
    seats = min(seats, len(entrants))
    plan = games(round_robin(entrants, seats), deal_sets, master)
    by_unit = {}
    for table, deal_set, rotation, seed, seating in plan:
        by_unit.setdefault((table, deal_set), []).append((rotation, seed, seating))
    for unit in by_unit.values():
        assert sorted(r for r, _, _ in unit) == list(range(seats))
        assert len({seed for _, seed, _ in unit}) == 1, "one deck per (table, deal set)"
        assert {frozenset(s) for _, _, s in unit} == {frozenset(unit[0][2])}
        for s in range(seats):  # each entrant holds each seat's cards once
            assert len({seating[s] for _, _, seating in unit}) == seats


@settings(max_examples=60, deadline=None)
@given(names, st.integers(2, 3), st.integers(1, 3), st.integers(0, 2**40))
def test_seeds_are_unique_per_unit_and_independent_of_order(entrants, seats, deal_sets, master):
    seats = min(seats, len(entrants))
    plan = games(round_robin(entrants, seats), deal_sets, master)
    units = {(t, d): seed for t, d, _, seed, _ in plan}
    assert len(set(units.values())) == len(units)
    shuffled = list(entrants)
    random.Random(master).shuffle(shuffled)
    again = games(round_robin(shuffled, seats), deal_sets, master)
    assert {frozenset(s): seed for *_, seed, s in plan} == {frozenset(s): seed for *_, seed, s in again}


def test_seed_depends_on_master_and_deal_set():
    assert game_seed(1, ("a", "b"), 0) != game_seed(2, ("a", "b"), 0) != game_seed(1, ("a", "b"), 1)


def test_two_entrants_two_seats_is_the_pair():
    assert round_robin(["x", "y"], 2) == [("x", "y")]
    assert len(games(round_robin(["x", "y"], 2), 3, 0)) == 6


def test_gauntlet_puts_the_candidate_at_every_table():
    tables = gauntlet("c", ["a", "b", "d", "c"], 3)
    assert sorted(tables) == [("c", "a", "b"), ("c", "a", "d"), ("c", "b", "d")]
