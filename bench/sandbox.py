"""The sandbox's cost, measured in the same run against romis without it (`--sandbox none`, a PID namespace per bot):

1. a bot's start-up: from spawn to its `ready` line (wall time, median of interleaved starts, and the CPU the start
   cost: the referee's and its reaped children's), for the Python, JavaScript and C sample bots, also against a
   bare start (no wrapper at all, the subreaper's);
2. games/s of bench/tournament.py's classic tournament (greedy, random, greedy at 2 seats) with and without the
   sandbox, in alternating rounds (this machine's speed drifts by the minute), judged on the medians: target at
   most 5% fewer games/s.

Usage: python bench/sandbox.py [--starts N] [--rounds N] [--deal-sets N]   (defaults 30, 3, 4)
"""

import argparse
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import trio

from bench.tournament import CLASSIC, run
from referee.match import split_command
from referee.process.runner import Limits, bot_group, timed_receive
from referee.process.sandbox import BWRAP, sandbox_mode
from referee.process.spawn import SUBREAPER

BOTS = {
    "python": "python -m sample_bots.random",
    "node": f"node {ROOT / 'sample_bots/js/random.js'}",
    "c": str(ROOT / "sample_bots/c/random"),
}
HELLO = (
    b'{"type":"hello","protocol":1,"variant":"classic","rules_version":1,"seat":0,"players":2,"options":{},'
    b'"limits":{"move_time":2.0,"bank":30.0,"startup_time":10.0}}\n'
)


def _cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


async def start_once(command: str, mode: str) -> tuple[float, float]:
    """(wall s, CPU s) from spawning `command` under `mode` to its ready line; the bot is closed after."""
    argv = split_command(command)
    cpu, t0 = _cpu(), time.perf_counter()
    async with bot_group() as group:
        bot = await group.start(argv, Limits(sandbox=mode))
        await bot.send(HELLO)
        await timed_receive(bot, 10.0, fault="startup")
        wall = time.perf_counter() - t0
    return wall, _cpu() - cpu


def starts(n: int, modes: dict[str, str]) -> None:
    print(f"start-up, spawn to ready: median of {n} interleaved starts each (wall ms; CPU ms of the whole start)")
    for name, command in BOTS.items():
        if name == "c" and not Path(command).exists():
            print(f"  {name}: not built (make sample_bots/c/random)")
            continue
        got: dict[str, list[tuple[float, float]]] = {label: [] for label in modes}
        for _ in range(n):
            for label, mode in modes.items():
                got[label].append(trio.run(start_once, command, mode))
        walls = {label: statistics.median(w for w, _ in xs) * 1000 for label, xs in got.items()}
        cpus = {label: statistics.median(c for _, c in xs) * 1000 for label, xs in got.items()}
        figures = ", ".join(f"{label} {walls[label]:6.1f} ms (CPU {cpus[label]:5.1f})" for label in modes)
        extra = walls["bwrap"] - walls["none"]
        bare = walls["bwrap"] - walls["bare"]
        print(f"  {name:6} {figures}: bwrap {extra:+.1f} ms against none, {bare:+.1f} ms against bare")


def games(rounds: int, deal_sets: int, modes: dict[str, str]) -> None:
    config = {"entrants": CLASSIC, "variant": "classic", "seats": 2, "deal_sets": deal_sets, "seed": 11}
    print(f"games/s: classic, 2 seats, {', '.join(CLASSIC)}, {deal_sets} deal sets, concurrency 2, {rounds} rounds")
    run(2, {**config, "deal_sets": 1, "sandbox": modes["bwrap"]})  # warm-up: imports, page cache
    rates: dict[str, list[float]] = {label: [] for label in modes}
    for k in range(rounds):
        for label, mode in modes.items() if k % 2 == 0 else reversed(modes.items()):
            r = run(2, {**config, "sandbox": mode})
            rates[label].append(r["games"] / r["secs"])
            print(
                f"  round {k + 1} {label:5}: {r['games']} games ({r['failed']} failed) {rates[label][-1]:5.2f} games/s"
            )
    med = {label: statistics.median(xs) for label, xs in rates.items()}
    change = med["bwrap"] / med["none"] - 1
    print(
        f"  median games/s: none {med['none']:.2f}, bwrap {med['bwrap']:.2f}: {change:+.1%} in the sandbox "
        f"(target: no worse than -5%): {'met' if change >= -0.05 else 'MISSED'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--starts", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--deal-sets", type=int, default=4)
    args = parser.parse_args()
    modes = {"none": sandbox_mode("none"), "bwrap": sandbox_mode(BWRAP)}
    print(f"{os.cpu_count()} cores; romis as uid {os.getuid()}; none = {modes['none']}; bare = no wrapper at all")
    starts(args.starts, {"bare": SUBREAPER, **modes})
    if args.rounds > 0:
        games(args.rounds, args.deal_sets, modes)


if __name__ == "__main__":
    main()
