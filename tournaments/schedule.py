"""Schedules (pure functions): which entrants meet at which table, in which seats, on which decks.

Every table plays every cyclic seat rotation on the same shuffled decks (duplicate deals), so each
entrant holds each seat's cards once per deal set and card luck cancels. Game seeds derive from the
master seed and the game's identity (its table's entrants and its deal set), never from the order
in which games run or finish.
"""

from itertools import combinations

from referee.rules.engine import derive_seed


def round_robin(entrants: list[str], seats: int) -> list[tuple[str, ...]]:
    """Every combination of `seats` entrants (with two entrants and two seats: the pair)."""
    return list(combinations(entrants, seats))


def gauntlet(candidate: str, others: list[str], seats: int) -> list[tuple[str, ...]]:
    """The candidate against every combination of the others that fills the table."""
    return [(candidate, *rest) for rest in combinations([o for o in others if o != candidate], seats - 1)]


def rotations(table: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every cyclic seat rotation of a table: each entrant sits in each seat once."""
    return [table[r:] + table[:r] for r in range(len(table))]


def game_seed(master: int, table: tuple[str, ...], deal_set: int) -> int:
    """The seed of every game of (table, deal set): the same decks under every rotation."""
    return derive_seed(master, "table", *sorted(table), "deal-set", deal_set) % 2**62


def games(
    tables: list[tuple[str, ...]], deal_sets: int, master: int
) -> list[tuple[int, int, int, int, tuple[str, ...]]]:
    """(table index, deal set, rotation, seed, seating) for every game, in a stable order."""
    out = []
    for t, table in enumerate(tables):
        for d in range(deal_sets):
            seed = game_seed(master, table, d)
            for r, seating in enumerate(rotations(table)):
                out.append((t, d, r, seed, seating))
    return out
