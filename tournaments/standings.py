"""Standings of a tournament: match points, win rates, ratings, head-to-head and duplicate luck.

`standings(games, entrants)` is pure and deterministic. Games are processed in the order
(table, deal_set, rotation), never in the order they finished, so the same set of results
gives the same standings at any concurrency and after a resume.
"""

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from tournaments.spec import GameResult, SeatResult

WILSON_Z = 1.96  # 95% two-sided


@dataclass
class EntrantRow:
    """One entrant's line in the standings.

    Match points: in each game an entrant earns 1 point per opponent ranked below it and
    0.5 per opponent tied with it (so a 4-seat game hands out 6 points in all).
    A win is rank 1; a shared first place counts as a win for every seat that shares it.
    Per-game figures are None for an entrant that has not played yet.
    """

    name: str
    games: int = 0
    match_points: float = 0.0
    match_points_per_game: float | None = None
    mean_score: float | None = None
    net_chips: float | None = None  # in a game played for chips: the chips won (or lost) over all games
    wins: int = 0
    win_rate: float | None = None
    win_ci: tuple[float, float] = (0.0, 1.0)  # 95% Wilson interval of win_rate
    rating: dict[str, float] = field(default_factory=dict)  # mu, sigma, ordinal
    faults: dict[str, int] = field(default_factory=dict)  # kind -> count
    decision_time: dict[str, float | None] = field(default_factory=dict)  # mean, p95, max (s)
    rating_history: list[tuple[int, float, float]] = field(default_factory=list)


@dataclass
class TeamRow:
    """One partnership's line in a team tournament: the entrants of its seats (with fixed partnerships one
    entrant twice), its games and their outcomes (a draw is a shared first place), match points, mean total."""

    members: list[str]
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    match_points: float = 0.0
    mean_score: float | None = None


@dataclass
class Standings:
    """Everything a report shows: entrants best first, head-to-head counts, duplicate summary; in a team
    tournament also the partnership mode ("fixed" or "mixed") and the partnerships best first."""

    entrants: list[EntrantRow]
    head_to_head: dict[tuple[str, str], dict[str, int]]
    duplicate: dict[str, Any]
    games: int = 0
    partnerships: str | None = None
    teams: list[TeamRow] = field(default_factory=list)
    # what a game's scores count: "points", "chips" where a variant is played for chips, or "mixed" in an event's
    # overall standings (several variants: no mean score, no duplicate summary)
    unit: str = "points"
    # in a variant played for chips: the chips left in the bank at the end of the games, in all and per game
    bank: dict[str, float | None] | None = None

    def row(self, name: str) -> EntrantRow:
        """The row of the entrant called `name`."""
        return next(r for r in self.entrants if r.name == name)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (tuples become lists, head-to-head becomes a list of records)."""
        rows = []
        for r in self.entrants:
            d = asdict(r)
            if self.unit != "chips":
                del d["net_chips"]
            if self.unit == "mixed":  # an event's overall standings: scores of different variants do not add up
                del d["mean_score"]
            d["win_ci"] = list(r.win_ci)
            d["rating_history"] = [list(h) for h in r.rating_history]
            rows.append(d)
        h2h = [{"a": a, "b": b, **c} for (a, b), c in sorted(self.head_to_head.items())]
        teams = {"partnerships": self.partnerships, "teams": [asdict(t) for t in self.teams]}
        return {
            "games": self.games,
            "rating_model": "openskill PlackettLuce" + (" (team ratings)" if self.partnerships else ""),
            **({"unit": self.unit} if self.unit != "points" else {}),
            **(teams if self.partnerships else {}),  # only in a team tournament: other reports stay as they were
            **({"bank": self.bank} if self.bank is not None else {}),  # only where the games are played for chips
            "entrants": rows,
            "head_to_head": h2h,
            **({"duplicate": self.duplicate} if self.duplicate else {}),  # none in an event's overall standings
        }


def match_points(seat: SeatResult, seats: list[SeatResult]) -> float:
    """1 per opponent ranked below `seat`, 0.5 per opponent tied with it."""
    return sum(1.0 if seat.rank < o.rank else 0.5 if seat.rank == o.rank else 0.0 for o in seats if o is not seat)


def wilson_interval(wins: int, n: int, z: float = WILSON_Z) -> tuple[float, float]:
    """Wilson score interval for a proportion; (0, 1) when there is no data."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (max(0.0, centre - half), min(1.0, centre + half))


def standings(games: list[GameResult], entrants: list[str], unit: str = "points") -> Standings:
    """Aggregate finished games into standings for `entrants` (deterministic, order-free). Best first by
    rating; in a variant played for chips (`unit` "chips") by the net chips won over all games, then rating."""
    ordered = in_order(games, entrants)
    rows = {name: EntrantRow(name) for name in entrants}
    _count(ordered, rows)
    _rate(ordered, rows)
    for row in rows.values():
        _finish(row, [s for g in ordered for s in g.seats if s.entrant == row.name])
        if unit == "chips":
            row.net_chips = sum(s.score for g in ordered for s in g.seats if s.entrant == row.name)
    best_first = sorted(
        rows.values(), key=lambda r: (-(r.net_chips or 0), -r.rating["ordinal"], -r.match_points, r.name)
    )
    bank = bank_left(ordered) if unit == "chips" else None
    return Standings(best_first, _head_to_head(ordered), duplicate_summary(ordered), len(ordered), unit=unit, bank=bank)


def bank_left(games: list[GameResult]) -> dict[str, float | None]:
    """The chips left in the bank at the end of `games`, in all and per game: chips are only moved, never made
    (referee/rules/chips.py), so what the seats' net chips do not add up to is in the bank."""
    left = -sum(s.score for g in games for s in g.seats) + 0.0  # + 0.0: no "-0.0" in a report
    return {"left": left, "per_game": left / len(games) if games else None}


def in_order(games: list[GameResult], entrants: list[str]) -> list[GameResult]:
    """The games in the fixed order (table, deal set, rotation); ValueError if one has an unknown entrant."""
    ordered = sorted(games, key=lambda g: (g.table, g.deal_set, g.rotation, g.key))
    known = set(entrants)
    for g in ordered:
        unknown = {s.entrant for s in g.seats} - known
        if unknown:
            raise ValueError(f"game {g.key} has entrants not in the tournament: {sorted(unknown)}")
    return ordered


def _count(games: list[GameResult], rows: dict[str, EntrantRow]) -> None:
    """Totals that are plain sums over games: games, match points, wins, faults."""
    for g in games:
        for s in g.seats:
            row = rows[s.entrant]
            row.games += 1
            row.match_points += match_points(s, g.seats)
            row.wins += s.rank == 1
            if s.fault:
                row.faults[s.fault] = row.faults.get(s.fault, 0) + 1


def _rate(games: list[GameResult], rows: dict[str, EntrantRow]) -> None:
    """Plackett-Luce ratings, one update per game in the fixed order.

    Each history starts with the prior at 0 games, so every plotted line has a common origin.
    """
    model = PlackettLuce()
    ratings = {name: model.rating() for name in rows}
    for name, r in ratings.items():
        rows[name].rating_history.append((0, r.mu, r.sigma))
    for g in games:
        names = [s.entrant for s in g.seats]
        rated = model.rate([[ratings[n]] for n in names], ranks=[s.rank for s in g.seats])
        for n, team in zip(names, rated):
            ratings[n] = team[0]
            rows[n].rating_history.append((len(rows[n].rating_history), team[0].mu, team[0].sigma))
    for name, r in ratings.items():
        rows[name].rating = {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()}


def _finish(row: EntrantRow, seats: list[SeatResult]) -> None:
    """Per-game averages, the win interval and decision times from the entrant's seats."""
    n = row.games
    row.win_ci = wilson_interval(row.wins, n)
    row.decision_time = decision_times(seats)
    if n:
        row.match_points_per_game = row.match_points / n
        row.mean_score = sum(s.score for s in seats) / n
        row.win_rate = row.wins / n


def decision_times(seats: list[SeatResult]) -> dict[str, float | None]:
    """Mean weighted by decisions; p95 is the largest per-game p95, max the largest decision.

    The per-decision times are not kept, so the exact p95 over all decisions is unknown;
    the largest per-game p95 is an upper bound on it (no game has more than 5% of its
    decisions above it), which is the honest side to err on for a time limit.
    """
    timed = [s for s in seats if s.decisions > 0]
    total = sum(s.decisions for s in timed)
    if not total:
        return {"mean": None, "p95": None, "max": None}
    return {
        "mean": sum(s.wall_mean * s.decisions for s in timed) / total,
        "p95": max(s.wall_p95 for s in timed),
        "max": max(s.wall_max for s in timed),
    }


def _head_to_head(games: list[GameResult]) -> dict[tuple[str, str], dict[str, int]]:
    """For every ordered pair that met: how often a ranked above, below or level with b."""
    h2h: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: {"wins": 0, "losses": 0, "ties": 0, "games": 0})
    for g in games:
        for a in g.seats:
            for b in g.seats:
                if a is b:
                    continue
                c = h2h[(a.entrant, b.entrant)]
                c["games"] += 1
                c["wins" if a.rank < b.rank else "losses" if a.rank > b.rank else "ties"] += 1
    return dict(h2h)


def seat_points(game: GameResult) -> dict[str, float]:
    """Each entrant's match points in a game without partnerships (one seat each)."""
    return {s.entrant: match_points(s, game.seats) for s in game.seats}


def duplicate_summary(
    games: list[GameResult], points: Callable[[GameResult], dict[str, float]] = seat_points
) -> dict[str, Any]:
    """What duplicate dealing did to the spread of results, measured on match points per game.

    A duplicate unit (a deal set) is the set of games sharing (table, deal_set): the same decks
    dealt under every seating rotation, so each entrant holds each seat's cards once. Every figure
    compares an entrant with itself at one table (against the same opponents), so that a strong
    or weak opponent mix is not mistaken for card luck.

    - variance_individual: variance of single-game match points, pooled over (entrant, table).
    - variance_duplicate: variance of the per-unit averages (an entrant's mean over the k games
      of a unit) around the same means, pooled.
    - variance_single_deals: what variance_duplicate would be if the k games of a unit were k
      independent single deals: variance_individual / k.
    - luck_removed: 1 - variance_duplicate / variance_single_deals, clamped to [0, 1]: the share
      of the single-deal variance of a unit average that duplicate dealing cancelled. 0 means the
      units behave like independent games; 1 means the unit averages show no spread at all.
      None when no (entrant, table) has two units, or when no game differs from another.
    - spread_duplicate, spread_single_deals: the square roots (standard deviations) of the two
      unit variances; spread_cut = 1 - spread_duplicate / spread_single_deals, clamped to [0, 1].
    - per_unit: for every unit, the match points each entrant summed over its rotations
      and who scored most (all of them on a tie); unit_leads counts those per entrant.

    `points` gives each entrant's match points in a game (a team game counts an entrant once).
    """
    units: dict[tuple[int, int], list[GameResult]] = defaultdict(list)
    for g in games:
        units[(g.table, g.deal_set)].append(g)
    per_game: dict[tuple[str, int], list[float]] = defaultdict(list)
    per_unit: dict[tuple[str, int], list[tuple[int, float]]] = defaultdict(list)  # (k, average)
    unit_rows: list[dict[str, Any]] = []
    leads: dict[str, int] = defaultdict(int)
    for (table, deal_set), unit in sorted(units.items()):
        sums: dict[str, list[float]] = defaultdict(list)
        for g in unit:
            for name, got in points(g).items():
                sums[name].append(got)
        for name, pts in sums.items():
            per_game[(name, table)].extend(pts)
            per_unit[(name, table)].append((len(pts), sum(pts) / len(pts)))
        totals = {name: sum(pts) for name, pts in sorted(sums.items())}
        top = max(totals.values())
        best = [name for name, t in totals.items() if t == top]
        for name in best:
            leads[name] += 1
        unit_rows.append(
            {"table": table, "deal_set": deal_set, "games": len(unit), "match_points": totals, "best": best}
        )
    return {
        "units": len(units),
        "tables": len({t for t, _ in units}),
        "games_per_unit": max((len(u) for u in units.values()), default=0),
        **_luck(per_game, per_unit),
        "unit_leads": dict(sorted(leads.items())),
        "per_unit": unit_rows,
    }


LUCK_FIELDS = (
    "variance_individual",
    "variance_duplicate",
    "variance_single_deals",
    "luck_removed",
    "spread_duplicate",
    "spread_single_deals",
    "spread_cut",
)


def _pool(
    per_game: dict[tuple[str, int], list[float]], per_unit: dict[tuple[str, int], list[tuple[int, float]]]
) -> tuple[float, int, float, int, list[int]]:
    """Sums of squares and degrees of freedom of games and of unit averages, each around its group's mean.

    Only groups with two units or more count towards the unit figures (one unit alone says nothing
    about how units spread); the unit sizes k of those units come last.
    """
    ss_game = ss_unit = 0.0
    dof_game = dof_unit = 0
    sizes: list[int] = []
    for group, pts in per_game.items():
        mean = sum(pts) / len(pts)
        ss_game += sum((x - mean) ** 2 for x in pts)
        dof_game += len(pts) - 1
        if len(per_unit[group]) > 1:
            ss_unit += sum((a - mean) ** 2 for _, a in per_unit[group])
            dof_unit += len(per_unit[group]) - 1
            sizes.extend(k for k, _ in per_unit[group])
    return ss_game, dof_game, ss_unit, dof_unit, sizes


def _luck(
    per_game: dict[tuple[str, int], list[float]], per_unit: dict[tuple[str, int], list[tuple[int, float]]]
) -> dict[str, float | None]:
    """Pooled variances, spreads and the share of variance removed (see duplicate_summary)."""
    ss_game, dof_game, ss_unit, dof_unit, sizes = _pool(per_game, per_unit)
    out: dict[str, float | None] = dict.fromkeys(LUCK_FIELDS)
    if dof_game > 0:
        out["variance_individual"] = var_game = ss_game / dof_game
    if dof_game == 0 or dof_unit == 0:
        return out
    var_unit = ss_unit / dof_unit
    var_single = var_game * sum(1 / k for k in sizes) / len(sizes)  # var_game / k when every unit has k games
    out.update(variance_duplicate=var_unit, variance_single_deals=var_single)
    out.update(spread_duplicate=math.sqrt(var_unit), spread_single_deals=math.sqrt(var_single))
    if var_single > 0:
        ratio = var_unit / var_single
        out["luck_removed"] = min(1.0, max(0.0, 1.0 - ratio))
        out["spread_cut"] = min(1.0, max(0.0, 1.0 - math.sqrt(ratio)))
    return out
