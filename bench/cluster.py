"""Tournament throughput on Dask against the local executor, in the same run: games/s of the local executor with
2 worker processes and of the Dask executor on a cluster of 2 single-threaded worker processes on loopback
(started here, not timed: a cluster outlives tournaments), and their ratio (target >= 0.9x). Also the client
process's own CPU seconds per game under each (what the executor costs the machine besides the games).

Each executor plays the same tournament ROUNDS times, alternating, after one warm-up each; the best round of each
counts (the machine is shared: the best is the one least disturbed).

With --callgrind, also the client's instructions per game under each executor (valgrind's callgrind, immune to
the noise of a shared machine): a tournament of 1 and of 2 deal sets per table in a child process under callgrind,
against the same cluster (whose scheduler and workers, like the local executor's workers, are not counted); the
difference over the games it adds is what one more game costs the client.

With --records, every game keeps its record (in a temporary directory here): the local executor's workers write
them, the Dask workers send them back and the client writes them.

Usage: python bench/cluster.py [DEAL_SETS] [ROUNDS] [--callgrind] [--records]
"""

import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# A script's own directory comes first on sys.path: bench/referee.py there would shadow the referee package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from distributed import LocalCluster

from tournaments.cluster import DaskExecutor, local_cluster
from tournaments.config import load
from tournaments.run import Executor, LocalExecutor, game_specs

ENTRANTS = {
    "greedy": "python -m sample_bots.greedy",
    "random": "python -m sample_bots.random",
    "greedy-2": "python -m sample_bots.greedy",
}

TLS_VAR = "ROMIS_BENCH_TLS"  # the cluster's certificate for the callgrind child (JSON: CA, certificate, key)
OPTIONS = {"max_deals": 2}  # matches of two deals: many games, each still a whole match


def cpu() -> float:
    """CPU seconds (user + system) of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run(executor: Executor, deal_sets: int, records: bool) -> tuple[float, float, int]:
    """(seconds, client CPU seconds, games) of one tournament on `executor`; every game must end with a result
    (and, with `records`, its record)."""
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
        if records:
            cfg.records = os.path.join(tmp, "records")
            os.mkdir(cfg.records)
        specs = game_specs(cfg)
        results, failures = [], []
        t0, c0 = time.perf_counter(), cpu()
        executor.run(specs, results.append, lambda spec, reason, _: failures.append((spec.key, reason)))
        secs, cpus = time.perf_counter() - t0, cpu() - c0
        kept = len(os.listdir(cfg.records)) if records else len(specs)
    assert not failures and len(results) == len(specs) == kept, failures
    return secs, cpus, len(specs)


def cluster_tls(cluster: LocalCluster) -> tuple[str, str, str]:
    """The PEM text of the local cluster's certificate for a client: CA, certificate and key."""
    security = cluster.security
    return security.tls_ca_file, security.tls_client_cert, security.tls_client_key


def instructions(kind: str, address: str, tls: tuple[str, str, str], deal_sets: int, records: bool) -> tuple[int, int]:
    """(instructions, games) of a child process that plays the tournament on one executor under callgrind."""
    with tempfile.TemporaryDirectory() as tmp:
        child = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out", sys.executable, __file__]
            + ["--one", kind, address, str(deal_sets)]
            + ["--records"] * records,
            capture_output=True,
            text=True,
            env={**os.environ, TLS_VAR: json.dumps(tls)},  # not in its command line, which every user can read
        )
    found = re.search(r"Collected : (\d+)", child.stderr)
    assert child.returncode == 0 and found, child.stderr[-2000:]
    return int(found.group(1)), int(child.stdout.split()[-1])


def callgrind(address: str, tls: tuple[str, str, str], records: bool) -> None:
    """The client's instructions per extra game under each executor."""
    for kind in ("local", "dask"):
        (small, games1), (large, games2) = (instructions(kind, address, tls, d, records) for d in (1, 2))
        per_game = (large - small) / (games2 - games1)
        print(
            f"  callgrind, {kind:5} client: {per_game / 1e6:8.1f} M instructions per game "
            f"({small / 1e9:.2f} G in all for {games1} games)"
        )


def one(kind: str, address: str, deal_sets: int, records: bool) -> None:
    """The child of `instructions`: one tournament, then the number of its games."""
    ca, cert, key = json.loads(os.environ[TLS_VAR])  # the cluster's certificate: it speaks TLS only
    executor = LocalExecutor(2) if kind == "local" else DaskExecutor(2, address, (ca, cert, key))
    print(run(executor, deal_sets, records)[2])


def main() -> None:
    count, records = "--callgrind" in sys.argv, "--records" in sys.argv
    args = [a for a in sys.argv[1:] if a not in ("--callgrind", "--records")]
    if args[:1] == ["--one"]:
        one(args[1], args[2], int(args[3]), records)
        return
    deal_sets = int(args[0]) if args else 2
    rounds = int(args[1]) if len(args) > 1 else 2
    print(
        f"classic (max_deals 2), 2 seats, entrants {', '.join(ENTRANTS)}, {deal_sets} deal sets per table, "
        f"{os.cpu_count()} cores" + (", every game's record kept" if records else "")
    )
    t0 = time.perf_counter()
    with local_cluster(2) as cluster:
        started = time.perf_counter() - t0
        print(f"  Dask cluster of 2 single-threaded workers at {cluster.scheduler_address}: {started:.1f} s to start")
        tls = cluster_tls(cluster)
        executors: dict[str, Executor] = {
            "local (2 processes)": LocalExecutor(2),
            "dask (2 workers x 1 thread)": DaskExecutor(2, cluster.scheduler_address, tls),
        }
        for executor in executors.values():
            run(executor, 1, records)  # warm-up: imports, page cache, the workers' first game
        best: dict[str, tuple[float, float, int]] = {}
        for _ in range(rounds):
            for name, executor in executors.items():
                secs, cpus, games = run(executor, deal_sets, records)
                if name not in best or secs < best[name][0]:
                    best[name] = (secs, cpus, games)
        rates = {}
        for name, (secs, cpus, games) in best.items():
            rates[name] = games / secs
            print(
                f"  {name:28} {games} games in {secs:6.2f} s = {rates[name]:5.2f} games/s; "
                f"client CPU {1000 * cpus / games:6.1f} ms/game"
            )
        if count:
            callgrind(cluster.scheduler_address, tls, records)
    local, dask = rates.values()
    ratio = dask / local
    print(f"  dask / local: {ratio:.2f}x (target >= 0.9x): {'met' if ratio >= 0.9 else 'MISSED'}")


if __name__ == "__main__":
    main()
