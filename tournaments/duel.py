"""`romis duel`: is the new version of a bot better than the old one? A CI gate.

New and old play duplicate deal sets (tournaments.schedule: every seat rotation on the same decks), fillers
taking the other seats of a larger table; with fillers the table is played in both orders of new and old too
(the same decks: a game's seed depends on who sits at the table, not in which order), so neither always sits
just after the other. A deal set scores new against old (tournaments.sprt); deal sets enter the SPRT in
schedule order, so the verdict does not depend on which games happen to finish first, and the run stops (its
games in play are abandoned) as soon as the SPRT decides.
"""

import dataclasses
import sys
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from referee.rules.errors import ConfigError
from referee.rules.variants import find_variant
from tournaments.config import Config, load
from tournaments.run import LocalExecutor, game_specs
from tournaments.spec import GameResult, GameSpec
from tournaments.sprt import Sprt, score_to_elo

NEW, OLD = "new", "old"
EXIT = {"H1": 0, "H0": 1, None: 3}  # better, not better, inconclusive at the game limit


class DuelConfig(Config):
    """A tournament configuration whose tables are the duel's: new and old in both orders when fillers sit."""

    def tables(self) -> list[tuple[str, ...]]:
        """(new, old, fillers...) and, with fillers, (old, new, fillers...)."""
        fillers = tuple(name for name in self.entrants if name not in (NEW, OLD))
        first = (NEW, OLD, *fillers)
        return [first, (OLD, NEW, *fillers)] if fillers else [first]


@dataclass
class Duel:
    """A duel as it runs: results come in any order, deal sets are counted in order."""

    sprt: Sprt
    games_per_set: int
    pending: dict[int, list[GameResult]] = field(default_factory=dict)
    failed: set[int] = field(default_factory=set)  # deal sets with a failed game: left out of the test
    next_set: int = 0
    games: int = 0
    faults: dict[str, int] = field(default_factory=dict)

    def add(self, result: GameResult) -> None:
        """Take one finished game; count every deal set now complete and in order."""
        self.games += 1
        for seat in result.seats:
            if seat.fault:
                self.faults[seat.entrant] = self.faults.get(seat.entrant, 0) + 1
        self.pending.setdefault(result.deal_set, []).append(result)
        self._advance()

    def fail(self, deal_set: int) -> None:
        """A game of `deal_set` failed (the referee could not finish it): the set is not counted."""
        self.failed.add(deal_set)
        self.pending.pop(deal_set, None)
        self._advance()

    def _advance(self) -> None:
        while self.sprt.verdict() is None:
            if self.next_set in self.failed:
                self.next_set += 1
            elif len(self.pending.get(self.next_set, [])) == self.games_per_set:
                self.sprt.add(set_score(self.pending.pop(self.next_set)))
                self.next_set += 1
            else:
                return


def pair_score(result: GameResult) -> float:
    """New's result against old's in one game: 1 if new ranked ahead, 1/2 if level, 0 if behind."""
    rank = {s.entrant: s.rank for s in result.seats}
    return 0.5 + 0.5 * ((rank[NEW] < rank[OLD]) - (rank[NEW] > rank[OLD]))


def set_score(results: list[GameResult]) -> float:
    """A deal set's score: the mean pair score of its games."""
    return sum(map(pair_score, results)) / len(results)


class _Decided(Exception):
    """Raised from the result callback to stop the executor: the SPRT has decided."""


def configure(variant: str, new: str, old: str, fillers: list[str], max_games: int, **settings: object) -> Config:
    """The duel's tournament configuration (checked like a tournament's); ConfigError on bad input."""
    entrants = {NEW: new, OLD: old, **{f"filler{i}": cmd for i, cmd in enumerate(fillers, 1)}}
    cls = find_variant(variant)
    if cls.teams:
        raise ConfigError(f"romis duel does not play partnership variants yet ({cls.slug} is one)")
    per_set = games_per_set(len(entrants))
    if max_games < per_set:
        raise ConfigError(f"--max-games must be at least {per_set} (one deal set at a table of {len(entrants)})")
    overrides = {"variant": variant, "seats": len(entrants), "deal_sets": max_games // per_set, **settings}
    cfg = load(None, {"entrants": entrants, **overrides})
    if cfg.records:
        try:
            Path(cfg.records).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise ConfigError(f"cannot create the records directory {cfg.records}: {e.strerror}") from None
    return DuelConfig(**{f.name: getattr(cfg, f.name) for f in dataclasses.fields(Config)})


def games_per_set(seats: int) -> int:
    """Games in one deal set: every rotation of the table, in both orders of new and old when fillers sit."""
    return seats if seats == 2 else 2 * seats


def run_duel(cfg: Config, sprt: Sprt, progress: Callable[[Duel], None] | None = None) -> Duel:
    """Play deal sets until the SPRT decides or the games run out; the duel with its evidence."""
    per_set = games_per_set(len(cfg.entrants))
    duel = Duel(sprt, per_set)
    specs = sorted(game_specs(cfg), key=lambda s: (s.deal_set, s.table, s.rotation))

    def on_result(result: GameResult) -> None:
        counted = duel.sprt.sets
        duel.add(result)
        if progress and duel.sprt.sets != counted:
            progress(duel)
        if duel.sprt.verdict() is not None:
            raise _Decided

    def on_failure(spec: GameSpec, reason: str, detail: str) -> None:
        sys.stderr.write(f"{spec.key} FAILED: {reason} (its deal set is left out)\n")
        duel.fail(spec.deal_set)

    with suppress(_Decided):
        LocalExecutor(cfg.concurrency).run(specs, on_result, on_failure)
    return duel


def evidence(duel: Duel) -> list[str]:
    """What the verdict rests on, a line each: games, deal-set scores, the LLR against its bounds."""
    s = duel.sprt
    mean, se = s.score()
    elo, lo, hi = (score_to_elo(x) for x in (mean, mean - 1.96 * se, mean + 1.96 * se))
    spread = " ".join(f"{x:g}:{s.counts[x]}" for x in sorted(s.counts))
    failed = f", {len(duel.failed)} left out (a game failed)" if duel.failed else ""
    faults = ", ".join(f"{who} {n}" for who, n in sorted(duel.faults.items()))
    verdict = {"H1": "new is better", "H0": "new is not better", None: "inconclusive"}[s.verdict()]
    return [
        f"games: {duel.games}; deal sets counted: {s.sets} of {duel.games_per_set} games each{failed}",
        f"score of new against old: {mean:.3f} +- {1.96 * se:.3f} (95%), Elo {elo:+.0f} [{lo:+.0f}, {hi:+.0f}]",
        f"deal-set scores (score:count): {spread or '-'}",
        f"LLR {s.llr():.3f}, bounds [{s.lower:.3f}, {s.upper:.3f}] "
        f"(elo0 {s.elo0:g}, elo1 {s.elo1:g}, alpha {s.alpha:g}, beta {s.beta:g})",
        *([f"faults: {faults}"] if faults else []),
        f"verdict: {verdict}",
    ]
