"""Tournament throughput: games/s at concurrency 1 and 2 in the same run, their ratio (target >= 1.7 on
2 cores), the referee's peak memory per concurrent game (peak RSS of a worker process, which runs one game at a
time; the bots' own memory is not counted), and the share of all CPU time spent in the referee rather than the
bots (each worker's own CPU against that of the processes it reaped: the bots, their sandbox wrappers, their
children), and the cores the whole machine kept busy meanwhile (/proc/stat: on a quiet machine, the ceiling of the
speed-up is the cores over the busy cores at concurrency 1; a game is not one core's work: its bots think while
the referee works, and they start up side by side). Under the pid-namespace sandbox the bots are reaped inside their
namespace, so their CPU partly escapes the worker's count: the referee's share reads high there, and
`ROMIS_SANDBOX=subreaper` gives the whole count.

Usage: python bench/tournament.py [DEAL_SETS]        classic, 2 seats, greedy/random/greedy (default 8 deal sets)
       python bench/tournament.py --all-variants     the sample bots (greedy, random, the JavaScript bot, a second
                                                      random) over every registered variant at its smallest table,
                                                      one deal set, one deal a match (options max_deals = 1)
"""

import os
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# A script's own directory comes first on sys.path: bench/referee.py there would shadow the referee package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the workers unpickle `measured_game` by its module name, bench.tournament

from tournaments.config import _all_variants, load
from tournaments.run import LocalExecutor, game_specs, play_game

CLASSIC = {
    "greedy": "python -m sample_bots.greedy",
    "random": "python -m sample_bots.random",
    "greedy-2": "python -m sample_bots.greedy",
}
ALL = {
    "greedy": "python -m sample_bots.greedy",
    "random": "python -m sample_bots.random",
    "js": f"node {ROOT / 'sample_bots/js/random.js'}",
    "random-2": "python -m sample_bots.random",
}


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def measured_game(spec):
    """play_game, plus this worker's peak RSS in MiB and the CPU seconds of the game: (referee, bots)."""
    referee, bots = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    result = play_game(spec)
    cpu = (_cpu(resource.RUSAGE_SELF) - referee, _cpu(resource.RUSAGE_CHILDREN) - bots)
    return result, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, cpu


def settings(all_variants: bool, deal_sets: int) -> dict[str, Any]:
    if all_variants:
        parts = [{"variant": slug, "options": {"max_deals": 1}} for slug in _all_variants(len(ALL))]
        return {"entrants": ALL, "variants": parts, "deal_sets": 1, "seed": 14}
    return {"entrants": CLASSIC, "variant": "classic", "seats": 2, "deal_sets": deal_sets, "seed": 11}


def machine_busy() -> float:
    """CPU seconds the whole machine has spent busy (every process, every core: /proc/stat's first line)."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def run(concurrency: int, config: dict[str, Any]) -> dict[str, Any]:
    """One tournament at `concurrency`: seconds, games, failures, peak worker RSS MiB, referee and bot CPU s, and
    the cores the machine kept busy meanwhile."""
    with tempfile.TemporaryDirectory() as tmp:
        cfg = load(None, {**config, "db": os.path.join(tmp, "r.db"), "concurrency": concurrency})
        specs = game_specs(cfg)
        outs, failures = [], []
        executor = LocalExecutor(concurrency)
        from bench.tournament import measured_game  # this file, imported under a name the workers can import

        executor.play = measured_game
        t0, busy0 = time.perf_counter(), machine_busy()
        executor.run(specs, outs.append, lambda spec, reason, detail: failures.append(f"{spec.key}: {reason}"))
        secs, busy = time.perf_counter() - t0, machine_busy() - busy0
    for line in failures[:5]:
        print(f"    a game failed: {line}")
    return {
        "secs": secs,
        "games": len(outs),
        "failed": len(failures),
        "peak": max((o[1] for o in outs), default=0.0),
        "referee": sum(o[2][0] for o in outs),
        "bots": sum(o[2][1] for o in outs),
        "cores": busy / secs,
    }


def main() -> None:
    all_variants = "--all-variants" in sys.argv[1:]
    rest = [a for a in sys.argv[1:] if a != "--all-variants"]
    deal_sets = int(rest[0]) if rest else 8
    config = settings(all_variants, deal_sets)
    if all_variants:
        slugs = [p["variant"] for p in config["variants"]]
        print(f"{len(slugs)} variants, each at its smallest table, 1 deal set, max_deals 1; entrants {', '.join(ALL)}")
        run(1, {**config, "variants": config["variants"][:1]})  # warm-up: imports, page cache
    else:
        print(f"classic, 2 seats, entrants {', '.join(CLASSIC)}, {deal_sets} deal sets per table")
        run(1, {**config, "deal_sets": 1})
    print(f"  {os.cpu_count()} cores")
    rates, cores = {}, {}
    for c in (1, 2):
        r = run(c, config)
        rates[c], cores[c] = r["games"] / r["secs"], r["cores"]
        share = r["referee"] / ((r["referee"] + r["bots"]) or 1)
        print(
            f"  concurrency {c}: {r['games']} games ({r['failed']} failed) in {r['secs']:6.2f} s = {rates[c]:5.2f} "
            f"games/s; referee peak RSS per concurrent game {r['peak']:5.1f} MiB; CPU {r['referee']:.1f} s referee, "
            f"{r['bots']:.1f} s bots: {share:.0%} in the referee; the machine busy {r['cores']:.2f} cores"
        )
    ratio = rates[2] / rates[1]
    print(
        f"  speed-up at concurrency 2: {ratio:.2f}x (target >= 1.7 on 2 cores): {'met' if ratio >= 1.7 else 'MISSED'}"
        f"; at most {(os.cpu_count() or 1) / cores[1]:.2f}x here, as one game already kept {cores[1]:.2f} cores busy"
    )


if __name__ == "__main__":
    main()
