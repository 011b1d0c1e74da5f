"""Tournament throughput on Dask against the local executor, in the same run: games/s of the local executor with
2 worker processes and of the Dask executor on a cluster of 2 single-threaded worker processes on loopback
(started here, not timed: a cluster outlives tournaments), and their ratio (target >= 0.9x). Also the client
process's own CPU seconds per game under each (what the executor costs the machine besides the games).

Each executor plays the same tournament ROUNDS times, alternating, after one warm-up each; the best round of each
counts (the machine is shared: the best is the one least disturbed).

Usage: python bench/cluster.py [DEAL_SETS] [ROUNDS]
"""

import logging
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

# A script's own directory comes first on sys.path: bench/referee.py there would shadow the referee package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from distributed import LocalCluster

from tournaments.cluster import DaskExecutor
from tournaments.config import load
from tournaments.run import Executor, LocalExecutor, game_specs

ENTRANTS = {
    "greedy": "python -m sample_bots.greedy",
    "random": "python -m sample_bots.random",
    "greedy-2": "python -m sample_bots.greedy",
}

OPTIONS = {"max_deals": 2}  # matches of two deals: many games, each still a whole match


def cpu() -> float:
    """CPU seconds (user + system) of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(executor: Executor, deal_sets: int) -> tuple[float, float, int]:
    """(seconds, client CPU seconds, games) of one tournament on `executor`; every game must end with a result."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = load(
            None,
            {
                "entrants": ENTRANTS,
                "variant": "classic",
                "seats": 2,
                "deal_sets": deal_sets,
                "seed": 11,
                "options": OPTIONS,
            },
        )
        cfg.db = os.path.join(tmp, "r.db")
        specs = game_specs(cfg)
        results, failures = [], []
        t0, c0 = time.perf_counter(), cpu()
        executor.run(specs, results.append, lambda spec, reason, _: failures.append((spec.key, reason)))
        secs, cpus = time.perf_counter() - t0, cpu() - c0
    assert not failures and len(results) == len(specs), failures
    return secs, cpus, len(specs)


def main() -> None:
    deal_sets = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    print(
        f"classic (max_deals 2), 2 seats, entrants {', '.join(ENTRANTS)}, {deal_sets} deal sets per table, "
        f"{os.cpu_count()} cores"
    )
    t0 = time.perf_counter()
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, silence_logs=logging.ERROR
    ) as cluster:
        started = time.perf_counter() - t0
        print(f"  Dask cluster of 2 single-threaded workers at {cluster.scheduler_address}: {started:.1f} s to start")
        executors: dict[str, Executor] = {
            "local (2 processes)": LocalExecutor(2),
            "dask (2 workers x 1 thread)": DaskExecutor(2, cluster.scheduler_address),
        }
        for executor in executors.values():
            run(executor, 1)  # warm-up: imports, page cache, the workers' first game
        best: dict[str, tuple[float, float, int]] = {}
        for _ in range(rounds):
            for name, executor in executors.items():
                secs, cpus, games = run(executor, deal_sets)
                if name not in best or secs < best[name][0]:
                    best[name] = (secs, cpus, games)
        rates = {}
        for name, (secs, cpus, games) in best.items():
            rates[name] = games / secs
            print(
                f"  {name:28} {games} games in {secs:6.2f} s = {rates[name]:5.2f} games/s; "
                f"client CPU {1000 * cpus / games:6.1f} ms/game"
            )
    local, dask = rates.values()
    ratio = dask / local
    print(f"  dask / local: {ratio:.2f}x (target >= 0.9x): {'met' if ratio >= 0.9 else 'MISSED'}")


if __name__ == "__main__":
    main()
