"""The referee's own CPU time per decision with sample bots over pipes, against a raw pipe round trip.

Raw round trip: a trivial Python echo bot, driven through referee.runner.BotProcess, gets a real
request line (the median-sized Classic request) and sends it back; wall and referee CPU per round trip.
Referee CPU per decision: Classic matches, 3 seats (python random, python greedy, node random),
options {"max_deals": 2}; time.process_time() of this process (bots are children, not counted)
divided by the decisions the bots answered. "whole match" includes spawning, handshake and shutdown;
"match loop" is Match._play only. Target: referee CPU per decision <= 2x the raw round trip (wall).
The matches run once per row of CONFIGS (the same seeds; extra runner.Limits flags per row): plain wall clock,
`--clock cpu` (the CPU of each bot's session read from /proc around every decision and polled while it
thinks), and `--clock cpu --pause-idle` (two more signals per decision); the target applies to the plain row.
`--profile` prints cProfile hot spots of the matches (they are also printed when the target is missed).
"""

import cProfile
import io
import pstats
import statistics
import sys
import time
from pathlib import Path
from typing import Any

# Running bench/referee.py puts bench/ first on sys.path, where that file would shadow the referee package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import trio

from protocol import messages as m
from referee.match import Match
from referee.rules.variants import find_variant
from referee.runner import BotProcess, Limits
from sample_bots.brain import Brain

ROOT = Path(__file__).resolve().parent.parent
VARIANT = "classic"
OPTIONS = {"max_deals": 2}
SEEDS = (1, 2, 3, 4, 5, 6)
COMMANDS = [
    f"{sys.executable} -m sample_bots.random",
    f"{sys.executable} -m sample_bots.greedy",
    f"node {ROOT / 'sample_bots/js/random.js'}",
]
ROUND_TRIPS = 5000
WARMUP = 200
ECHO = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line)\n    sys.stdout.buffer.flush()\n"
TARGET = 2.0
# label -> extra runner.Limits fields (the `romis play` flags). A sandbox row goes here too, e.g.
# ("sandbox", {"sandbox": True}), once Limits has the field.
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("plain", {}),
    ("--clock cpu", {"clock": "cpu"}),
    ("--clock cpu --pause-idle", {"clock": "cpu", "pause_idle": True}),
]


def sample_requests(seed: int = 1) -> list[bytes]:
    """Every request line the referee would send in one in-process Classic match of sample brains."""
    g = find_variant(VARIANT)(len(COMMANDS), OPTIONS, seed)
    brains = [Brain(VARIANT, g.n, g.opts, greedy=i == 1, seed=i) for i in range(g.n)]
    cursors, lines = [0] * g.n, list[bytes]()
    while not g.is_over():
        s = g.to_act()[0]
        decision, view = g.decision(s), g.view(s)
        events, cursors[s] = g.events_since(s, cursors[s])
        lines.append(m.encode(m.Request(len(lines) + 1, decision, view, events, m.Clock(2.0, 30.0))))
        g.apply(s, brains[s].choose(decision, view))
    return lines


async def echo_round_trips(line: bytes, count: int) -> tuple[float, float]:
    """(wall s, referee CPU s) per send + receive_line of `line` to an echo bot."""
    async with trio.open_nursery() as nursery:
        bot = await BotProcess.start(nursery, [sys.executable, "-c", ECHO], Limits())
        try:
            for _ in range(WARMUP):
                await bot.send(line)
                await bot.receive_line()
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(count):
                await bot.send(line)
                assert len(await bot.receive_line()) == len(line) - 1
            return (time.perf_counter() - wall) / count, (time.process_time() - cpu) / count
        finally:
            await bot.aclose()


class TimedMatch(Match):
    """A Match that also records the referee CPU time spent in its decision loop."""

    loop_cpu = 0.0

    async def _play(self) -> None:
        start = time.process_time()
        try:
            await super()._play()
        finally:
            self.loop_cpu = time.process_time() - start


def run_matches(flags: dict[str, Any] | None = None) -> tuple[int, float, float, float, float]:
    """(decisions, whole-match CPU s, loop CPU s, wall s, sum of per-decision walls s) over SEEDS, with the
    extra Limits fields `flags` (e.g. {"clock": "cpu"})."""
    decisions, whole, loop, wall, waited = 0, 0.0, 0.0, 0.0, 0.0
    for seed in SEEDS:
        game = find_variant(VARIANT)(len(COMMANDS), OPTIONS, seed)
        match = TimedMatch(game, COMMANDS, Limits(**(flags or {})))
        cpu, start = time.process_time(), time.perf_counter()
        result = trio.run(match.run)
        whole += time.process_time() - cpu
        wall += time.perf_counter() - start
        loop += match.loop_cpu
        faults = [s.fault for s in result["seats"] if s.fault]
        if faults:
            raise SystemExit(f"seed {seed}: a sample bot faulted: {faults}")
        decisions += sum(len(s.walls) for s in result["seats"])
        waited += sum(sum(s.walls) for s in result["seats"])
    return decisions, whole, loop, wall, waited


def profile_matches() -> None:
    """cProfile of the matches (main thread): top functions by own and by cumulative time."""
    prof = cProfile.Profile()
    prof.enable()
    run_matches()
    prof.disable()
    for key in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).strip_dirs().sort_stats(key).print_stats(18)
        text = out.getvalue()
        print(f"\n--- profile of the matches, by {key} ---")
        print(text[text.index("   ncalls") :].rstrip())


def report_matches(label: str, flags: dict[str, Any], rtt_wall: float, rtt_cpu: float) -> bool:
    """Run the matches with `flags` and print their referee CPU per decision; True if within TARGET."""
    decisions, whole, loop, wall, waited = run_matches(flags)
    print(
        f"  [{label}] {decisions} decisions, {wall:.2f} s wall; mean Seat.walls {waited / decisions * 1e6:.0f} µs "
        f"per decision (the time charged to the bots' clocks)"
    )
    met = True
    for name, cpu in (("whole match", whole), ("match loop", loop)):
        per = cpu / decisions
        ratio = per / rtt_wall
        met = met and ratio <= TARGET
        print(
            f"    referee CPU per decision, {name:11s}: {per * 1e6:7.1f} µs = {ratio:5.2f}x echo round trip wall "
            f"({per / rtt_cpu:5.2f}x its referee CPU); "
            f"target <= {TARGET:.0f}x: {'met' if ratio <= TARGET else 'MISSED'}"
        )
    return met


def main() -> None:
    lines = sample_requests()
    line = sorted(lines, key=len)[len(lines) // 2]
    print(
        f"request lines of a {VARIANT} match: {len(lines)}, median {len(line)} B, "
        f"mean {statistics.fmean(map(len, lines)):.0f} B, max {max(map(len, lines))} B"
    )
    rtt_wall, rtt_cpu = trio.run(echo_round_trips, line, ROUND_TRIPS)
    print(
        f"echo bot ({ROUND_TRIPS} round trips of {len(line)} B via BotProcess): "
        f"{rtt_wall * 1e6:7.1f} µs wall, {rtt_cpu * 1e6:7.1f} µs referee CPU per round trip"
    )

    print(
        f"{VARIANT} matches, seeds {', '.join(map(str, SEEDS))}, options {OPTIONS}, bots: "
        f"{', '.join(c.replace(sys.executable, 'python').replace(str(ROOT) + '/', '') for c in COMMANDS)}"
    )
    verdicts = []
    for label, flags in CONFIGS:
        met = report_matches(label, flags, rtt_wall, rtt_cpu)
        if not flags:
            verdicts.append(met)
    if "--profile" in sys.argv or not all(verdicts):
        profile_matches()


if __name__ == "__main__":
    main()
