"""Running a tournament: game specs from the schedule, a local executor, results stored as they finish."""

import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Protocol

from referee.play import play_match, timing_summary
from referee.process.sandbox import Box
from referee.records import RecordError
from tournaments import schedule
from tournaments.config import LIMIT_DEFAULTS, Config
from tournaments.schedule import Teams
from tournaments.spec import PART_SEP, GameResult, GameSpec, SeatResult, part_of
from tournaments.store import Lock, Store, StoreError, disk_or_path
from tournaments.teams import game_points
from tournaments.workers import Worker

OnResult = Callable[[GameResult], None]
OnFailure = Callable[[GameSpec, str, str], None]  # spec, reason (one line), detail (a traceback, or "")


class Executor(Protocol):
    """Plays game specs somewhere (worker processes, a cluster) and reports each game as it ends."""

    def run(self, specs: Iterable[GameSpec], on_result: OnResult, on_failure: OnFailure) -> None:
        """Run every spec; call `on_result` or `on_failure` in the caller's process as each game ends."""


def game_specs(cfg: Config) -> list[GameSpec]:
    """Every game of the tournament, in schedule order; an event's part after part, each key prefixed with
    its part's slug (`gin.t0-d0-r0`)."""
    if cfg.variants is None:
        return _specs(cfg, "")
    return [spec for part in cfg.parts() for spec in _specs(part, f"{part.variant}{PART_SEP}")]


def _specs(cfg: Config, prefix: str) -> list[GameSpec]:
    """Every game of one variant's schedule, its keys starting with `prefix`."""
    specs = []
    for t, d, r, seed, seating in schedule.games(cfg.tables(), cfg.deal_sets, cfg.seed, cfg.teams()):
        key = f"{prefix}t{t}-d{d}-r{r}"
        record = str(Path(cfg.records) / f"{key}.jsonl") if cfg.records else None
        specs.append(
            GameSpec(
                key,
                t,
                d,
                r,
                seed,
                cfg.variant,
                seating,
                tuple(cfg.entrants[e] for e in seating),
                cfg.options,
                cfg.limits,
                cfg.retries,
                record,
                cfg.sign_key,
                cfg.sandbox,
                tuple(cfg.boxes.get(e, Box()) for e in seating) if cfg.boxes else (),
            )
        )
    return specs


def play_game(
    spec: GameSpec, stop_on: tuple[int, ...] = (signal.SIGTERM,), cwds: list[str | None] | None = None
) -> GameResult | None:
    """Play one game: a pure function of its spec, so any executor (a process pool, a cluster) can run it.
    None if the game was stopped (by a signal of `stop_on`: only a main thread can watch them) before it finished;
    `cwds`: the directory each seat's bot runs in (None: this one)."""
    limits = {**LIMIT_DEFAULTS, **spec.limits}  # the time limits, and the clock settings where they are set
    try:
        out = play_match(
            spec.variant,
            list(spec.commands),
            spec.seed,
            spec.options,
            Path(spec.record) if spec.record else None,
            retries=spec.retries,
            stop_on=stop_on,
            sign_key=Path(spec.sign_key) if spec.sign_key else None,
            sandbox=spec.sandbox,
            boxes=list(spec.boxes) or None,
            cwds=cwds,
            **limits,
        )
    except KeyboardInterrupt:
        return None
    seats = []
    for i, s in enumerate(out.result["seats"]):
        t = timing_summary(s.walls, s.cpus)
        seats.append(
            SeatResult(
                spec.entrants[i],
                i,
                out.result["totals"][i],
                out.result["ranks"][i],
                s.fault,
                s.fault_detail,
                t["decisions"],
                t.get("wall_mean", 0.0),
                t.get("wall_p95", 0.0),
                t.get("wall_max", 0.0),
                t.get("cpu_total", 0.0),
            )
        )
    return GameResult(spec.key, spec.table, spec.deal_set, spec.rotation, spec.seed, len(out.result["deals"]), seats)


class LocalExecutor:
    """Runs games in worker processes (the referee's own Python work would saturate one core otherwise)."""

    play = staticmethod(play_game)  # what each worker runs: a picklable function of a GameSpec

    def __init__(self, workers: int):
        self.workers = workers

    def run(self, specs: Iterable[GameSpec], on_result: OnResult, on_failure: OnFailure) -> None:
        """Run every spec; in this process, call `on_result` as each game finishes and
        `on_failure(spec, reason, detail)` as one fails (it raised, or its worker died)."""
        pending = iter(specs)
        idle: list[Worker] = []
        busy: dict[Connection, Worker] = {}
        abandon = True  # unless every game was played: stop running games (their bots are killed)
        try:
            while self._fill(pending, idle, busy, on_failure):
                ready = wait(list(busy))
                for conn in [c for c in busy if c in ready]:
                    self._collect(busy.pop(conn), idle, on_result, on_failure)
            abandon = False
        finally:
            workers = [*idle, *busy.values()]
            for worker in workers:
                worker.stop(abandon)
            for worker in workers:
                worker.join()

    @staticmethod
    def _collect(worker: Worker, idle: list[Worker], on_result: OnResult, on_failure: OnFailure) -> None:
        """Take a worker's answer for its game; the worker goes back to `idle` unless it died."""
        spec, reply = worker.spec, worker.reply()
        worker.spec = None
        if worker.alive:
            idle.append(worker)
        else:
            worker.join()
        if reply[0] == "done":
            on_result(reply[1])
        elif spec is not None:
            on_failure(spec, reply[1], reply[2])

    def _fill(self, pending: Iterator[GameSpec], idle: list[Worker], busy: dict, on_failure: OnFailure) -> bool:
        """Give games to idle workers (starting workers as needed); False once nothing is left to wait for."""
        while len(busy) < self.workers and (spec := next(pending, None)) is not None:
            worker = idle.pop() if idle else Worker(self.play)
            if worker.assign(spec):
                busy[worker.results] = worker
            else:  # it died while idle
                _, reason, detail = worker.death()
                worker.join()
                on_failure(spec, reason, detail)
        return bool(busy)


class Progress:
    """Games done, rate, ETA and the current leader: a live line on a terminal, plain lines otherwise.
    A failed game always gets a line of its own, with its reason."""

    def __init__(self, total: int, done: int, live: bool, teams: dict[str, Teams]):
        self.total, self.done, self.start_done = total, done, done
        self.live, self.teams = live, teams  # the partnerships of each part's variant (Config.part_teams)
        self.points: dict[str, float] = {}
        self.failed = 0
        self.t0 = time.monotonic()

    def count(self, result: GameResult) -> None:
        """Count a game's match points toward the leader (a game stored by an earlier run too)."""
        teams = self.teams[part_of(result.key)]
        for name, points in game_points(result, teams).items():  # an entrant in two seats counts once
            self.points[name] = self.points.get(name, 0) + points

    def update(self, result: GameResult) -> None:
        """Count a finished game and show where the tournament stands."""
        self.count(result)
        faults = ", ".join(f"{s.entrant}: {s.fault}" for s in result.seats if s.fault)
        self._show(f"{result.key} done" + (f" | fault {faults}" if faults else ""))

    def fail(self, spec: GameSpec, reason: str) -> None:
        """Count a failed game and say why it failed."""
        self.failed += 1
        self._show(f"{spec.key} FAILED ({', '.join(spec.entrants)}): {reason}", keep=True)

    def _show(self, what: str, keep: bool = False) -> None:
        self.done += 1
        rate = (self.done - self.start_done) / max(1e-9, time.monotonic() - self.t0)
        eta = (self.total - self.done) / rate if rate else 0
        line = f"[{self.done}/{self.total}] {what} | {rate:.2f} games/s | ETA {eta:.0f} s"
        if self.points:
            leader = max(self.points, key=lambda e: self.points[e])
            line += f" | leader {leader} ({self.points[leader]:g} pts)"
        if self.failed:
            line += f" | {self.failed} failed"
        if not self.live:
            sys.stderr.write(line + "\n")
        else:  # a failure stays on the screen; the live line is redrawn below it
            sys.stderr.write("\r\033[K" + line + ("\n" if keep or self.done == self.total else ""))
        sys.stderr.flush()


def run_tournament(cfg: Config, live: bool | None = None, executor: Executor | None = None) -> Store:
    """Play every game not yet in the results database; return the store (resuming where a run stopped).
    Failed games of an earlier run are played again."""
    store = Store(cfg.db)  # refused here while another run holds the database
    records = None
    try:
        store.bind(cfg.fingerprint())
        records = _lock_records(cfg.records)
        specs = game_specs(cfg)
        store.begin_run(cfg.variant if cfg.variants is None else [p.variant for p in cfg.parts()], specs)
        _play_all(cfg, store, specs, live, executor)
    except BaseException:
        store.close()
        raise
    finally:
        if records:
            records.release()
    return store


def _lock_records(directory: str | None) -> Lock | None:
    """Create the records directory and hold it for this run: two runs writing records of the same game keys
    into one directory would replace each other's records."""
    if not directory:
        return None
    try:
        Path(directory).mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise disk_or_path(f"cannot create the records directory {directory}", e) from None
    return Lock(Path(directory) / ".romis.lock", f"the records directory {directory}")


def _play_all(cfg: Config, store: Store, specs: list[GameSpec], live: bool | None, executor: Executor | None) -> None:
    """Play the games not stored yet, storing each as it ends; StoreError (the run stops) if a disk refuses."""
    finished = store.finished_keys()
    retried = len(store.failures())
    todo = [s for s in specs if s.key not in finished]
    _drop_partial_records(todo)
    live = sys.stderr.isatty() if live is None else live
    progress = Progress(len(specs), len(specs) - len(todo), live, cfg.part_teams())
    for result in store.results() if finished else []:  # the leader is the whole tournament's, resumed or not
        progress.count(result)
    if finished or retried:
        again = f"; {retried} failed game(s) are played again" if retried else ""
        sys.stderr.write(f"resuming: {len(finished)} of {len(specs)} games already stored{again}\n")

    def store_result(result: GameResult) -> None:
        store.add(result)
        progress.update(result)

    def store_failure(spec: GameSpec, reason: str, detail: str) -> None:
        if reason.startswith(RECORD_ERROR):  # the records' disk, not the game: stop; the next run plays it
            raise StoreError(reason.removeprefix(RECORD_ERROR))
        store.add_failure(spec, reason, detail)
        progress.fail(spec, reason)

    (executor or make_executor(cfg)).run(todo, store_result, store_failure)


def make_executor(cfg: Config) -> Executor:
    """The executor the configuration names: worker processes here, or a Dask cluster (imported only then)."""
    if cfg.executor == "dask":
        from tournaments.cluster import DaskExecutor

        return DaskExecutor(cfg.concurrency, cfg.scheduler, cfg.scheduler_tls())
    return LocalExecutor(cfg.concurrency)


def _drop_partial_records(todo: list[GameSpec]) -> None:
    """Remove what a killed run left of the records of games to be played again (their temporary files); the
    records directory is this run's (locked), so no other run is writing them."""
    for spec in todo:
        if spec.record:
            record = Path(spec.record)
            for part in record.parent.glob(f".{record.name}.*.part"):
                part.unlink(missing_ok=True)


# How a worker reports a game whose record the disk refused (tournaments.workers.describe_error).
RECORD_ERROR = f"{RecordError.__name__}: "
