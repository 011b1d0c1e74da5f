"""Standings of a tournament of a team variant (partnerships): every game counts once per entrant, by the result
of the entrant's partnership.

With fixed partnerships an entrant fills every seat of its team, so its two seats are one result (one game, one
set of match points, one fault at most); the entrant is the partnership and is rated as one. With mixed
partnerships each entrant holds one seat, its partner's result is its own, and openskill rates the partners as
a team: both ratings move by the team's result. Pure and deterministic, like `tournaments.standings`.
"""

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from tournaments.schedule import Teams
from tournaments.spec import GameResult, SeatResult
from tournaments.standings import (
    EntrantRow,
    Standings,
    TeamRow,
    decision_times,
    duplicate_summary,
    in_order,
    seat_points,
    standings,
    wilson_interval,
)

MODES = ("fixed", "mixed")


@dataclass
class Side:
    """One partnership in one game: the entrants of its seats (in seat order), those seats, total and rank."""

    members: tuple[str, ...]
    seats: list[SeatResult]
    score: float
    rank: int


@dataclass
class Entry:
    """One entrant's part in one game: its partnership, that partnership's match points, the entrant's own seats
    and the first fault of one of them."""

    entrant: str
    side: Side
    points: float
    seats: list[SeatResult]
    fault: str | None


def sides(game: GameResult, teams: Teams) -> list[Side]:
    """The game's partnerships, ranked by the worst rank of their seats: a partner's forfeit (the referee ranks a
    faulting seat last) is the partnership's, whatever rank the engine gave the other partner."""
    worst = [max(game.seats[s].rank for s in team) for team in teams]
    out = []
    for team, key in zip(teams, worst):
        seats = [game.seats[s] for s in team]
        # partners carry their team's total (Game.teams), so any seat of the team gives it
        out.append(Side(tuple(s.entrant for s in seats), seats, seats[0].score, 1 + sum(k < key for k in worst)))
    return out


def entries(game: GameResult, teams: Teams) -> list[Entry]:
    """Every entrant of the game once, with its partnership's result (1 match point per partnership ranked
    below it, 0.5 per partnership tied with it)."""
    out = []
    ranked = sides(game, teams)
    for side in ranked:
        points = sum(
            1.0 if side.rank < o.rank else 0.5 if side.rank == o.rank else 0.0 for o in ranked if o is not side
        )
        for name in dict.fromkeys(side.members):
            mine = [s for s in side.seats if s.entrant == name]
            out.append(Entry(name, side, points, mine, next((s.fault for s in mine if s.fault), None)))
    return out


def game_points(game: GameResult, teams: Teams) -> dict[str, float]:
    """Each entrant's match points in a game, counted once per entrant (without partnerships: per seat)."""
    return {e.entrant: e.points for e in entries(game, teams)} if teams else seat_points(game)


def tournament_standings(games: list[GameResult], config: dict[str, Any], unit: str = "points") -> Standings:
    """The standings of a stored tournament (`config` is its fingerprint): by partnerships where it has them;
    by net chips where its variant is played for chips (`unit`, as `About.unit` reads it from the database)."""
    entrants = list(config["entrants"])
    mode = config.get("partnerships")
    if not mode:
        return standings(games, entrants, unit)
    return team_standings(games, entrants, tuple(tuple(t) for t in config["teams"]), mode)


def team_standings(games: list[GameResult], entrants: list[str], teams: Teams, mode: str) -> Standings:
    """Standings of a team tournament: per-entrant rows (counted once per game), team ratings, partnerships."""
    ordered = in_order(games, entrants)
    rows = entrant_rows(ordered, entrants, lambda g: teams)
    best_first = sorted(rows.values(), key=lambda r: (-r.rating["ordinal"], -r.match_points, r.name))
    dup = duplicate_summary(ordered, lambda g: game_points(g, teams))
    h2h = head_to_head(ordered, lambda g: teams)
    return Standings(best_first, h2h, dup, len(ordered), mode, _team_rows(ordered, teams))


TeamsOf = Callable[[GameResult], Teams]  # the partnerships of a game's variant (one seat each: no partnerships)


def entrant_rows(ordered: list[GameResult], entrants: list[str], teams_of: TeamsOf) -> dict[str, EntrantRow]:
    """Each entrant's row over `ordered` games, counted once per game by its partnership's result (with
    `teams_of` one seat each, by its seat's), rated by openskill team ratings."""
    rows = {name: EntrantRow(name) for name in entrants}
    scores: dict[str, list[float]] = defaultdict(list)
    seats: dict[str, list[SeatResult]] = defaultdict(list)
    for g in ordered:
        for e in entries(g, teams_of(g)):
            row = rows[e.entrant]
            row.games += 1
            row.match_points += e.points
            row.wins += e.side.rank == 1  # as without partnerships: a shared first place is a win
            if e.fault:
                row.faults[e.fault] = row.faults.get(e.fault, 0) + 1
            scores[e.entrant].append(e.side.score)
            seats[e.entrant].extend(e.seats)
    _rate(ordered, rows, teams_of)
    for row in rows.values():
        _finish(row, scores[row.name], seats[row.name])
    return rows


def _rate(games: list[GameResult], rows: dict[str, EntrantRow], teams_of: TeamsOf) -> None:
    """openskill team ratings, one update per game in the fixed order: each partnership is a team of its
    distinct entrants (with fixed partnerships, the one entrant), ranked by the partnership's result."""
    model = PlackettLuce()
    ratings = {name: model.rating() for name in rows}
    for name, r in ratings.items():
        rows[name].rating_history.append((0, r.mu, r.sigma))
    for g in games:
        ranked = sides(g, teams_of(g))
        groups = [list(dict.fromkeys(side.members)) for side in ranked]
        rated = model.rate([[ratings[n] for n in group] for group in groups], ranks=[side.rank for side in ranked])
        for group, team in zip(groups, rated):
            for n, r in zip(group, team):
                ratings[n] = r
                rows[n].rating_history.append((len(rows[n].rating_history), r.mu, r.sigma))
    for name, r in ratings.items():
        rows[name].rating = {"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal()}


def _finish(row: EntrantRow, scores: list[float], seats: list[SeatResult]) -> None:
    """Per-game averages (the mean score is the partnership's total), the win interval and decision times."""
    n = row.games
    row.win_ci = wilson_interval(row.wins, n)
    row.decision_time = decision_times(seats)
    if n:
        row.match_points_per_game = row.match_points / n
        row.mean_score = sum(scores) / n
        row.win_rate = row.wins / n


def head_to_head(games: list[GameResult], teams_of: TeamsOf) -> dict[tuple[str, str], dict[str, int]]:
    """For every ordered pair of entrants that met as opponents (partners are not): how often a's partnership
    ranked above, below or level with b's."""
    h2h: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: {"wins": 0, "losses": 0, "ties": 0, "games": 0})
    for g in games:
        es = entries(g, teams_of(g))
        for a in es:
            for b in es:
                if a.side is b.side:
                    continue
                c = h2h[(a.entrant, b.entrant)]
                c["games"] += 1
                c["wins" if a.side.rank < b.side.rank else "losses" if a.side.rank > b.side.rank else "ties"] += 1
    return dict(h2h)


def _team_rows(games: list[GameResult], teams: Teams) -> list[TeamRow]:
    """Every partnership that played, by match points, then wins, then names: a win is a first place of its
    own, a draw a shared first place, anything else a loss."""
    rows: dict[tuple[str, ...], TeamRow] = {}
    totals: dict[tuple[str, ...], float] = defaultdict(float)
    for g in games:
        ranked = sides(g, teams)
        firsts = sum(side.rank == 1 for side in ranked)
        points = {e.side.members: e.points for e in entries(g, teams)}
        for side in ranked:
            key = tuple(sorted(side.members))
            row = rows.setdefault(key, TeamRow(list(key)))
            row.games += 1
            row.wins += side.rank == 1 and firsts == 1
            row.draws += side.rank == 1 and firsts > 1
            row.losses += side.rank > 1
            row.match_points += points[side.members]
            totals[key] += side.score
    for key, row in rows.items():
        row.mean_score = totals[key] / row.games
    return sorted(rows.values(), key=lambda r: (-r.match_points, -r.wins, r.members))


def team_label(row: TeamRow) -> str:
    """A partnership's name in a report: its entrants joined by '&' (with fixed partnerships, 'A & A')."""
    return " & ".join(row.members)
