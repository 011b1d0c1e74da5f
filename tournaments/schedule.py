"""Schedules (pure functions): which entrants meet at which table, in which seats, on which decks.

Every table plays every cyclic seat rotation on the same shuffled decks (duplicate deals), so each
entrant holds each seat's cards once per deal set and card luck cancels. Game seeds derive from the
master seed and the game's identity (its table's entrants and its deal set), never from the order
in which games run or finish.

A team variant's table is a seating (entrant names in seat order) in which partners hold their team's
seats: with fixed partnerships one entrant fills every seat of its team, so the table's distinct
rotations are the team swaps; with mixed partnerships the rotations that keep every partnership
together (for partners sitting opposite, all of them).
"""

from itertools import combinations

from referee.rules.engine import derive_seed


def round_robin(entrants: list[str], seats: int) -> list[tuple[str, ...]]:
    """Every combination of `seats` entrants (with two entrants and two seats: the pair)."""
    return list(combinations(entrants, seats))


def gauntlet(candidate: str, others: list[str], seats: int) -> list[tuple[str, ...]]:
    """The candidate against every combination of the others that fills the table."""
    return [(candidate, *rest) for rest in combinations([o for o in others if o != candidate], seats - 1)]


Teams = tuple[tuple[int, ...], ...]  # the seats of each partnership (Game.teams); () without partnerships


def rotations(table: tuple[str, ...], teams: Teams = ()) -> list[tuple[str, ...]]:
    """Every distinct cyclic seat rotation of a table that keeps its partnerships: each entrant sits in each
    seat once (an entrant filling two seats of a fixed partnership, in each of its team's seats)."""
    out = dict.fromkeys(table[r:] + table[:r] for r in range(len(table)))
    return [seating for seating in out if _partners(seating, teams) == _partners(table, teams)]


def _partners(seating: tuple[str, ...], teams: Teams) -> set[frozenset[str]]:
    """The partnerships of a seating, as sets of entrant names."""
    return {frozenset(seating[s] for s in team) for team in teams}


def fixed_partnerships(entrants: list[str], teams: Teams) -> list[tuple[str, ...]]:
    """Every combination of one entrant per team, each entrant filling all of its team's seats."""
    return [
        _seat(tuple((name,) * len(team) for name, team in zip(group, teams)), teams)
        for group in combinations(entrants, len(teams))
    ]


def mixed_partnerships(entrants: list[str], teams: Teams) -> list[tuple[str, ...]]:
    """Every way of splitting every combination of entrants that fills the table into partnerships."""
    sizes = [len(team) for team in teams]
    if len(set(sizes)) > 1:  # then which group holds the bigger team's seats would matter too
        raise ValueError("mixed partnerships need teams of one size")
    return [_seat(split, teams) for group in combinations(entrants, sum(sizes)) for split in _splits(group, sizes)]


def _splits(group: tuple[str, ...], sizes: list[int]) -> list[tuple[tuple[str, ...], ...]]:
    """The partitions of `group` into teams of `sizes` (all one size), each once: the first entrant not placed
    yet always joins the next team, since teams of one size are interchangeable."""
    if not sizes:
        return [()]
    first, rest = group[0], group[1:]
    out = []
    for mates in combinations(rest, sizes[0] - 1):
        team = (first, *mates)
        left = tuple(e for e in rest if e not in mates)
        out += [(team, *more) for more in _splits(left, sizes[1:])]
    return out


def _seat(split: tuple[tuple[str, ...], ...], teams: Teams) -> tuple[str, ...]:
    """The seating that puts the i-th group of entrants in the seats of the i-th team."""
    seating = [""] * sum(len(team) for team in teams)
    for names, team in zip(split, teams):
        for name, seat in zip(names, team):
            seating[seat] = name
    return tuple(seating)


def game_seed(master: int, table: tuple[str, ...], deal_set: int) -> int:
    """The seed of every game of (table, deal set): the same decks under every rotation."""
    return derive_seed(master, "table", *sorted(table), "deal-set", deal_set) % 2**62


def games(
    tables: list[tuple[str, ...]], deal_sets: int, master: int, teams: Teams = ()
) -> list[tuple[int, int, int, int, tuple[str, ...]]]:
    """(table index, deal set, rotation, seed, seating) for every game, in a stable order."""
    out = []
    for t, table in enumerate(tables):
        for d in range(deal_sets):
            seed = game_seed(master, table, d)
            for r, seating in enumerate(rotations(table, teams)):
                out.append((t, d, r, seed, seating))
    return out
