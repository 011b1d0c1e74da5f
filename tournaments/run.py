"""Running a tournament: game specs from the schedule, a local executor, results stored as they finish."""

import contextlib
import ctypes
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path

from referee.play import play_match, timing_summary
from tournaments import schedule
from tournaments.config import Config
from tournaments.spec import GameResult, GameSpec, SeatResult
from tournaments.standings import match_points
from tournaments.store import Store


def game_specs(cfg: Config) -> list[GameSpec]:
    """Every game of the tournament, in schedule order."""
    specs = []
    for t, d, r, seed, seating in schedule.games(cfg.tables(), cfg.deal_sets, cfg.seed):
        key = f"t{t}-d{d}-r{r}"
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
            )
        )
    return specs


def play_game(spec: GameSpec) -> GameResult | None:
    """Play one game: a pure function of its spec, so any executor (a process pool, a cluster) can run it.
    None if the game was stopped (SIGTERM) before it finished."""
    try:
        out = play_match(
            spec.variant,
            list(spec.commands),
            spec.seed,
            spec.options,
            Path(spec.record) if spec.record else None,
            retries=spec.retries,
            stop_on=(signal.SIGTERM,),
            **spec.limits,
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


def _worker_init() -> None:
    """In each worker: Ctrl-C is the tournament process's to handle; it stops workers with SIGTERM, which
    a running game turns into a clean stop (its bots are killed) and an idle worker simply dies of.
    SIGTERM also comes when the tournament process dies, even by SIGKILL (PR_SET_PDEATHSIG), so no
    worker plays on as an orphan."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() == 1:  # the parent died before prctl took effect
        os.kill(os.getpid(), signal.SIGTERM)


class LocalExecutor:
    """Runs games in worker processes (the referee's own Python work would saturate one core otherwise)."""

    play = staticmethod(play_game)  # what each worker runs: a picklable function of a GameSpec

    def __init__(self, workers: int):
        self.workers = workers

    def run(self, specs: Iterable[GameSpec], on_result: Callable[[GameResult], None]) -> None:
        """Run every spec; call `on_result` in this process as each game finishes."""
        pending = iter(specs)
        ctx = multiprocessing.get_context("forkserver")
        pool = ProcessPoolExecutor(self.workers, mp_context=ctx, initializer=_worker_init)
        running: set[Future] = set()
        try:
            while True:
                while len(running) < self.workers * 2 and (spec := next(pending, None)) is not None:
                    running.add(pool.submit(self.play, spec))
                if not running:
                    break
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    result = future.result()
                    if result is not None:
                        on_result(result)
        except BaseException:
            for future in running:
                future.cancel()
            for pid in list(getattr(pool, "_processes", {}) or {}):  # let the workers' matches clean up their bots
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGTERM)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


class Progress:
    """Games done, rate, ETA and the current leader: a live line on a terminal, plain lines otherwise."""

    def __init__(self, total: int, done: int, live: bool):
        self.total, self.done, self.start_done = total, done, done
        self.live = live
        self.points: dict[str, float] = {}
        self.t0 = time.monotonic()

    def update(self, result: GameResult) -> None:
        """Count a finished game and show where the tournament stands."""
        self.done += 1
        for s in result.seats:
            self.points[s.entrant] = self.points.get(s.entrant, 0) + match_points(s, result.seats)
        rate = (self.done - self.start_done) / max(1e-9, time.monotonic() - self.t0)
        eta = (self.total - self.done) / rate if rate else 0
        leader = max(self.points, key=self.points.get)
        faults = ", ".join(f"{s.entrant}: {s.fault}" for s in result.seats if s.fault)
        line = (
            f"[{self.done}/{self.total}] {result.key} done | {rate:.2f} games/s | ETA {eta:.0f} s | "
            f"leader {leader} ({self.points[leader]:g} pts)" + (f" | fault {faults}" if faults else "")
        )
        if self.live:
            sys.stderr.write("\r\033[K" + line)
            if self.done == self.total:
                sys.stderr.write("\n")
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


def run_tournament(cfg: Config, live: bool | None = None) -> Store:
    """Play every game not yet in the results database; return the store (resuming where a run stopped)."""
    store = Store(cfg.db)
    store.bind(cfg.fingerprint())
    if cfg.records:
        Path(cfg.records).mkdir(parents=True, exist_ok=True)
    specs = game_specs(cfg)
    store.begin_run(cfg.variant, specs)
    finished = store.finished_keys()
    todo = [s for s in specs if s.key not in finished]
    progress = Progress(len(specs), len(specs) - len(todo), sys.stderr.isatty() if live is None else live)
    if finished:
        sys.stderr.write(f"resuming: {len(finished)} of {len(specs)} games already stored\n")

    def store_result(result: GameResult) -> None:
        store.add(result)
        progress.update(result)

    LocalExecutor(cfg.concurrency).run(todo, store_result)
    return store
