"""Tournament throughput: games/s at concurrency 1 and 2 in the same run, their ratio (target >= 1.7 on
2 cores), and the referee's peak memory per concurrent game (peak RSS of a worker process, which runs
one game at a time; the bots' own memory is not counted).

Usage: python bench/tournament.py [DEAL_SETS]
"""

import os
import resource
import sys
import tempfile
import time
from pathlib import Path

# A script's own directory comes first on sys.path: bench/referee.py there would shadow the referee package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from tournaments.config import load
from tournaments.run import LocalExecutor, game_specs, play_game

ENTRANTS = {
    "greedy": "python -m sample_bots.greedy",
    "random": "python -m sample_bots.random",
    "greedy-2": "python -m sample_bots.greedy",
}


def measured_game(spec):
    """play_game, plus this worker's peak RSS in MiB."""
    result = play_game(spec)
    return result, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run(concurrency: int, deal_sets: int) -> tuple[float, int, float]:
    """(seconds, games, peak worker RSS MiB) for one tournament at `concurrency`."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = load(
            None,
            {
                "entrants": ENTRANTS,
                "variant": "classic",
                "seats": 2,
                "deal_sets": deal_sets,
                "seed": 11,
                "db": os.path.join(tmp, "r.db"),
                "concurrency": concurrency,
            },
        )
        specs = game_specs(cfg)
        peaks = []
        executor = LocalExecutor(concurrency)
        executor.play = measured_game
        t0 = time.perf_counter()
        executor.run(specs, lambda out: peaks.append(out[1]))
        return time.perf_counter() - t0, len(specs), max(peaks)


def main() -> None:
    deal_sets = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    print(f"classic, 2 seats, entrants {', '.join(ENTRANTS)}, {deal_sets} deal sets per table, {os.cpu_count()} cores")
    run(1, 1)  # warm-up: imports, page cache
    rates = {}
    for c in (1, 2):
        secs, games, peak = run(c, deal_sets)
        rates[c] = games / secs
        print(
            f"  concurrency {c}: {games} games in {secs:6.2f} s = {rates[c]:5.2f} games/s; "
            f"referee peak RSS per concurrent game {peak:5.1f} MiB"
        )
    ratio = rates[2] / rates[1]
    print(
        f"  speed-up at concurrency 2: {ratio:.2f}x (target >= 1.7 on 2 cores): {'met' if ratio >= 1.7 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
