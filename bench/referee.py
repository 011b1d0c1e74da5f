"""The referee's own CPU time per decision with sample bots over pipes, against a raw pipe round trip.

Raw round trip: a trivial Python echo bot, driven through referee.process.runner.BotProcess by the match loop's own
cheapest path (write without waiting, one poll() and one read: no trio scheduler pass), gets a real request line
(the median-sized request of the variant) and sends it back; wall and referee CPU per round trip.
Referee CPU per decision: matches of the variant (`--variant SLUG`, default classic), as many seats as it
allows up to 3 (python random, python greedy, node random, repeated in that order where it needs more),
options {"max_deals": 2}; time.process_time() of this process (bots are children, not counted)
divided by the decisions the bots answered. "whole match" includes spawning, handshake and shutdown;
"match loop" is Match._play only. Target (issue 16): referee CPU per decision in the match loop <= 1.25x the raw
round trip (wall), judged on the median of `--rounds` (default 3) plays of the plain row, each with its own echo.
After the plain row, "[machine]" lines give what this machine charges whatever the loop's code: the engine's and
codec's work of a decision replayed in-process back to back and after a sleep as long as the bots' mean think (cold
caches), the CPU of that sleep itself, and the ratio a loop that cost nothing beyond the echo's exchange and that
cold work would reach (where that floor is above the target, no change to the loop's own code can meet it here:
only less engine and codec work can). Each round of the plain row also replays its work in a bare loop, that work
and the exchange with bots that answer as fast as the matches' bots (their work on the referee's CPU cools its
caches more than an idle sleep does): what the match loop's own code costs beyond it is the difference.
The matches run once per row of CONFIGS (the same seeds; extra runner.Limits flags per row): plain wall clock,
`--clock cpu` (the CPU of each bot's session read from /proc around every decision and polled while it
thinks), `--clock cpu --pause-idle` (two more signals per decision), and `--sandbox pid-namespace` (each bot
started through referee/process/pidns.py as the init of its own PID namespace). Every other row, and the echo bot, pin
`--sandbox subreaper`, the mode with no wrapper process that every machine has, so that a row differs from the
plain one by its own flags only; where the machine refuses PID namespaces the sandbox row prints why it was
skipped. The target applies to the plain row.
`--profile` prints cProfile hot spots of the matches (they are also printed when the target is missed), and
`--steps` the referee's own steps in the plain matches' loop, each timed around its calls, and the rest of the loop.
`--only LABEL` (repeatable) runs only those rows and `--seeds N` only the first N seeds: a shortened run,
e.g. under `valgrind --tool=callgrind`, where the difference between two seed counts gives instructions
per decision. `--against SLUG` plays the plain row of that variant too, after the others, and prints the ratio
of the two figures (issue 10: may-i against classic, target <= 1.5x).
"""

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from unittest import mock

# Running bench/referee.py puts bench/ first on sys.path, where that file would shadow the referee package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

import trio

from protocol import messages as m
from referee import match as match_module
from referee.match import BLOCKING_WAIT, Match
from referee.process.runner import BotProcess, Limits
from referee.process.spawn import PIDNS, SUBREAPER, sandbox_mode
from referee.rules.errors import ConfigError
from referee.rules.variants import find_variant
from sample_bots.brain import Brain

ROOT = Path(__file__).resolve().parent.parent
OPTIONS = {"max_deals": 2}
SEEDS = (1, 2, 3, 4, 5, 6)
BOTS = [
    f"{sys.executable} -m sample_bots.random",
    f"{sys.executable} -m sample_bots.greedy",
    f"node {ROOT / 'sample_bots/js/random.js'}",
]
GREEDY = 1  # the index in BOTS of the greedy bot, whose brain the request sampler plays greedily
ROUND_TRIPS = 5000
WARMUP = 200
ECHO = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line)\n    sys.stdout.buffer.flush()\n"
# A bot for the bare loop (`bare_loop`): it parses each request and then works, building Python objects as the
# sample bots do, until `think` s (argv[1]) have passed since it read the line; then it answers with a short line.
THINKER = (
    "import json, sys, time\nthink = float(sys.argv[1])\nfor line in sys.stdin.buffer:\n"
    "    end, request = time.perf_counter() + think, json.loads(line)\n"
    "    while time.perf_counter() < end:\n        json.dumps(request['view'])\n"
    "    sys.stdout.buffer.write(b'{}\\n')\n    sys.stdout.buffer.flush()\n"
)
TARGET = 1.25
# the plain row's rounds: this machine's speed drifts by the minute (one ratio ranged 1.05x-1.46x over eight runs
# of the same code), so the target is judged on the median of rounds rather than on one
ROUNDS = 3
# Pinned in every row but the sandbox one (and for the echo bot): `romis play` picks the PID namespace by
# default where the machine allows it, which would put the wrapper's cost in every row.
PLAIN: dict[str, Any] = {"sandbox": SUBREAPER}
# label -> runner.Limits fields (the `romis play` flags)
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("plain", PLAIN),
    ("--clock cpu", {**PLAIN, "clock": "cpu"}),
    ("--clock cpu --pause-idle", {**PLAIN, "clock": "cpu", "pause_idle": True}),
    (f"--sandbox {PIDNS}", {"sandbox": PIDNS}),
]


def seat_commands(variant: str) -> list[str]:
    """The bots of a match of `variant`: BOTS in order, cut or repeated to a seat count it allows (3 if it can)."""
    cls = find_variant(variant)
    seats = min(max(len(BOTS), cls.min_players), cls.max_players)
    return [BOTS[i % len(BOTS)] for i in range(seats)]


def sample_match(variant: str, seed: int = 1) -> tuple[list[bytes], list[bytes]]:
    """One in-process match of `variant` between sample brains: every request line the referee would send, and
    every play line the bots would answer."""
    g = find_variant(variant)(len(seat_commands(variant)), OPTIONS, seed)
    brains = [Brain(variant, g.n, g.opts, greedy=i % len(BOTS) == GREEDY, seed=i) for i in range(g.n)]
    cursors, lines, plays = [0] * g.n, list[bytes](), list[bytes]()
    while not g.is_over():
        s = g.to_act()[0]
        decision, view = g.decision(s), g.view(s)
        events, cursors[s] = g.events_since(s, cursors[s])
        lines.append(m.encode(m.Request(len(lines) + 1, decision, view, events, m.Clock(2.0, 30.0))))
        ops = brains[s].choose(decision, view)
        plays.append(m.encode(m.Play(len(lines), ops))[:-1])
        g.apply(s, ops)
    return lines, plays


def replay_work(variant: str, plays: list[bytes], exchange: Callable[[int, bytes], object] | None = None) -> float:
    """Referee CPU seconds of the engine's and the codec's work of every decision of the match of `plays`
    (decision, events, request view, encoding the request, decoding the play, applying it); with `exchange`, each
    request is handed to `exchange(seat, line)` between encoding it and decoding the play (a sleep, a round trip to
    the seat's bot), its CPU included."""
    g = find_variant(variant)(len(seat_commands(variant)), OPTIONS, 1)
    cursors = [0] * g.n
    start = time.process_time()
    for rid, play in enumerate(plays, 1):
        s = g.to_act()[0]
        decision = g.decision(s)
        events, cursors[s] = g.events_since(s, cursors[s])
        line = m.encode(m.Request(rid, decision, g.request_view(s), events, m.Clock(2.0, 30.0)))
        if exchange:
            exchange(s, line)
        reply = match_module.decode_reply(play)
        assert isinstance(reply, m.Play)
        g.apply(s, reply.ops)
    return time.process_time() - start


def machine_floor(variant: str, plays: list[bytes], pause: float, rounds: int = 5) -> tuple[float, float, float]:
    """What this machine charges the referee whatever its own code: (warm, cold, sleep) µs of CPU per decision.
    warm: the engine's and the codec's work of a decision back to back (`replay_work`); cold: the same work done
    after a sleep of `pause` (the referee sleeps while a bot thinks: caches, TLB and branch predictors go cold, and
    on a virtual machine much else), without the sleep's own CPU; sleep: the CPU of one such sleep and wake-up.
    Medians of `rounds` interleaved rounds."""
    warm, cold, sleep = [], [], []
    for _ in range(rounds):
        warm.append(replay_work(variant, plays) / len(plays))
        start = time.process_time()
        for _ in plays:
            time.sleep(pause)
        sleep.append((time.process_time() - start) / len(plays))
        cold.append(replay_work(variant, plays, lambda seat, line: time.sleep(pause)) / len(plays) - sleep[-1])
    return tuple(statistics.median(x) * 1e6 for x in (warm, cold, sleep))  # type: ignore[return-value]


async def bare_replays(variant: str, plays: list[bytes], think: float, rounds: int) -> tuple[list[float], list[float]]:
    """(referee CPU, bots' answer) µs per decision, in each of `rounds` replays, of a loop with nothing in it but
    the engine's and codec's work of each decision of the match of `plays` (as `replay_work`) and its exchange
    (`round_trip`) with the seat's own bot, one THINKER per seat that works `think` s before it answers. The bots'
    answer: the wall of a round trip."""
    async with trio.open_nursery() as nursery:
        argv = [sys.executable, "-c", THINKER, str(think)]
        bots = [await BotProcess.start(nursery, argv, Limits(**PLAIN)) for _ in seat_commands(variant)]
        try:
            cpus, walls, waits = [], [], list[float]()

            def exchange(seat: int, line: bytes) -> None:
                asked = time.perf_counter()
                round_trip(bots[seat], line)
                waits.append(time.perf_counter() - asked)

            for _ in range(rounds):
                waits.clear()
                cpus.append(replay_work(variant, plays, exchange) / len(plays) * 1e6)
                walls.append(sum(waits) / len(plays) * 1e6)
            return cpus, walls
        finally:
            for bot in bots:
                await bot.aclose()


def bare_loop(variant: str, plays: list[bytes], answer: float, rtt_wall: float, rounds: int = 3) -> tuple[float, float]:
    """`bare_replays` with bots that answer in about `answer` s, as the matches' bots did (their mean Seat.walls;
    `rtt_wall`, the echo's, is the first guess of what answering costs beyond the think): what a decision costs on
    this machine with bots that think beside the referee (their work cools its caches more than an idle sleep does)
    before the match loop's own bookkeeping (clocks, logs, faults, retries). Two replays set the think (the bots'
    first answers are slow: the second counts); then (referee CPU, bots' answer) µs per decision, medians of
    `rounds` more."""
    think = max(0.0, answer - rtt_wall)
    _, first = trio.run(bare_replays, variant, plays, think, 2)
    cpus, walls = trio.run(bare_replays, variant, plays, max(0.0, think + answer - first[-1] / 1e6), rounds)
    return statistics.median(cpus), statistics.median(walls)


def round_trip(bot: BotProcess, line: bytes) -> bytes:
    """One round trip by the match loop's own path: the write without waiting, then the blocking wait for the line
    (match.BLOCKING_WAIT at a time: the cheapest wait, with no pass through trio's scheduler)."""
    bot.send_nowait(line)
    while (got := bot.receive_line_within(BLOCKING_WAIT)) is None:
        pass
    return got


async def echo_round_trips(line: bytes, count: int) -> tuple[float, float]:
    """(wall s, referee CPU s) per round trip of `line` to an echo bot (`round_trip`)."""
    async with trio.open_nursery() as nursery:
        bot = await BotProcess.start(nursery, [sys.executable, "-c", ECHO], Limits(**PLAIN))
        try:
            for _ in range(WARMUP):
                round_trip(bot, line)
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(count):
                assert len(round_trip(bot, line)) == len(line) - 1
            return (time.perf_counter() - wall) / count, (time.process_time() - cpu) / count
        finally:
            await bot.aclose()


class TimedMatch(Match):
    """A Match that also records the referee CPU time spent in its decision loop."""

    loop_cpu = 0.0
    playing = False  # inside the loop of some match now

    async def _play(self) -> None:
        start = time.process_time()
        TimedMatch.playing = True
        try:
            await super()._play()
        finally:
            TimedMatch.playing = False
            self.loop_cpu = time.process_time() - start


class EchoSlices:
    """Echo round trips of `line` measured in slices between the matches of a row, so that the baseline and the
    matches share the machine's moods (its speed drifts by the second here): the totals, and per round trip."""

    def __init__(self, line: bytes):
        self.line, self.count, self.wall, self.cpu = line, 0, 0.0, 0.0

    def measure(self, count: int) -> None:
        wall, cpu = trio.run(echo_round_trips, self.line, count)
        self.count += count
        self.wall += wall * count
        self.cpu += cpu * count

    def per_trip(self) -> tuple[float, float]:
        return self.wall / self.count, self.cpu / self.count


def run_matches(
    variant: str, seeds: tuple[int, ...], flags: dict[str, Any], echo: EchoSlices | None = None
) -> tuple[int, float, float, float, float]:
    """(decisions, whole-match CPU s, loop CPU s, wall s, sum of per-decision walls s) of `variant` over `seeds`,
    with the Limits fields `flags` (e.g. {"clock": "cpu"}); with `echo`, a slice of echo round trips is measured
    before every match and after the last."""
    decisions, whole, loop, wall, waited = 0, 0.0, 0.0, 0.0, 0.0
    commands = seat_commands(variant)
    for seed in seeds:
        if echo:
            echo.measure(ROUND_TRIPS // (len(seeds) + 1))
        game = find_variant(variant)(len(commands), OPTIONS, seed)
        match = TimedMatch(game, commands, Limits(**flags))
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
    if echo:
        echo.measure(ROUND_TRIPS // (len(seeds) + 1))
    return decisions, whole, loop, wall, waited


def profile_matches(variant: str, seeds: tuple[int, ...]) -> None:
    """cProfile of the plain matches (main thread): top functions by own and by cumulative time."""
    prof = cProfile.Profile()
    prof.enable()
    run_matches(variant, seeds, PLAIN)
    prof.disable()
    for key in ("tottime", "cumulative"):
        out = io.StringIO()
        pstats.Stats(prof, stream=out).strip_dirs().sort_stats(key).print_stats(18)
        text = out.getvalue()
        print(f"\n--- profile of the matches, by {key} ---")
        print(text[text.index("   ncalls") :].rstrip())


def step_times(variant: str, seeds: tuple[int, ...]) -> None:
    """--steps: the plain matches again, the referee's own steps timed around each call (perf_counter: the cold caches
    of a real match count, and the wrapper's call), in µs per decision: the engine's, the codec's, the CPU readings,
    the exchange with the bot (its CPU: writing the request, trio's wait, reading the play), and the rest of the
    loop's CPU (the loop's own code)."""
    spent: dict[str, int] = {}

    def timed(label: str, f: Callable, clock: Callable[[], int] = time.perf_counter_ns) -> Callable:
        spent.setdefault(label, 0)

        def call(*args: Any) -> Any:
            if not TimedMatch.playing:  # the CPU readings of the start and the end of a match
                return f(*args)
            start = clock()
            try:
                return f(*args)
            finally:
                spent[label] += clock() - start

        return call

    wait = Match._exchange_wait

    async def timed_wait(self: Match, *args: Any) -> Any:  # its CPU: it waits for the bot
        start = time.process_time_ns()
        try:
            return await wait(self, *args)
        finally:
            spent["exchange"] += time.process_time_ns() - start

    game = find_variant(variant)
    steps = [(game, name, name) for name in ("decision", "view", "events_since", "apply")]
    steps += [(m, "encode", "encode"), (match_module, "decode_reply", "decode"), (BotProcess, "cpu_time", "cpu_time")]
    # the exchange: the write, the quick wait for the play (one poll() of the pipe, up to BLOCKING_WAIT) and the
    # wait under trio's scheduler for a later play; their CPU, as they may block
    exchange = [(BotProcess, "send_nowait"), (Match, "_quick_play")]
    with ExitStack() as stack:
        for owner, name, label in steps:
            stack.enter_context(mock.patch.object(owner, name, timed(label, getattr(owner, name))))
        for owner, name in exchange:
            stack.enter_context(
                mock.patch.object(owner, name, timed("exchange", getattr(owner, name), time.process_time_ns))
            )
        stack.enter_context(mock.patch.object(Match, "_exchange_wait", timed_wait))
        decisions, _, loop, _, _ = run_matches(variant, seeds, PLAIN)
    spent["exchange"] -= spent["decode"]  # the decoding of the play is timed on its own
    print("\n--- the referee's steps in the loop of the plain matches, µs per decision ---")
    for label, ns in spent.items():
        print(f"  {label:12s} {ns / decisions / 1e3:6.1f}")
    rest = loop / decisions - sum(spent.values()) / decisions / 1e9
    print(f"  {'the rest':12s} {rest * 1e6:6.1f}  (of {loop / decisions * 1e6:.1f} µs of CPU: the loop's own code)")


def unavailable(flags: dict[str, Any]) -> str | None:
    """Why this machine cannot run a row with `flags` (a sandbox mode it refuses), or None if it can."""
    try:
        sandbox_mode(flags.get("sandbox"), "--sandbox")
    except ConfigError as e:
        return str(e)
    return None


def report_matches(
    label: str, flags: dict[str, Any], args: argparse.Namespace, plays: list[bytes] | None = None
) -> tuple[float, ...]:
    """Run the matches with `flags`, echo round trips between them, and print the referee CPU per decision against
    those round trips: the ratios of the whole match and of the match loop, the bots' mean wall per decision, and
    the echo's wall and referee CPU per round trip (s). With `plays` (the plain row), then a bare loop with bots
    that think as long as these did (`bare_loop`), and the ratio it reaches: the match loop's own code is the
    difference; 0.0 without."""
    echo = EchoSlices(args.line)
    decisions, whole, loop, wall, waited = run_matches(args.variant, args.seeds, flags, echo)
    rtt_wall, rtt_cpu = echo.per_trip()
    print(
        f"  [{label}] {decisions} decisions, {wall:.2f} s wall; mean Seat.walls {waited / decisions * 1e6:.0f} µs "
        f"per decision (the time charged to the bots' clocks); echo between the matches {rtt_wall * 1e6:.1f} µs "
        f"wall, {rtt_cpu * 1e6:.1f} µs referee CPU per round trip"
    )
    ratios = []
    for name, cpu in (("whole match", whole), ("match loop", loop)):
        per = cpu / decisions
        ratio = per / rtt_wall
        ratios.append(ratio)
        print(
            f"    referee CPU per decision, {name:11s}: {per * 1e6:7.1f} µs = {ratio:5.2f}x echo round trip wall "
            f"({per / rtt_cpu:5.2f}x its referee CPU); "
            f"target <= {TARGET:.2f}x: {'met' if ratio <= TARGET else 'MISSED'}"
        )
    bare = 0.0
    if plays is not None:
        cpu, answer = bare_loop(args.variant, plays, waited / decisions, rtt_wall)
        bare = cpu / (rtt_wall * 1e6)
        print(
            f"    bare loop (the engine's and codec's work and the exchange with {len(seat_commands(args.variant))} "
            f"bots that think, answering in {answer:.0f} µs): {cpu:7.1f} µs = {bare:5.2f}x echo round trip wall; the "
            f"match loop's own code: {loop / decisions * 1e6 - cpu:.1f} µs = {ratios[1] - bare:.2f}x"
        )
    return ratios[0], ratios[1], waited / decisions, rtt_wall, rtt_cpu, bare


def report_floor(variant: str, plays: list[bytes], think: float, rtt_wall: float, rtt_cpu: float) -> None:
    """What this machine charges the referee whatever its loop's code (`machine_floor`, the sleep as long as the
    bots' mean wall per decision, `think`), and the ratio a referee would reach here whose loop cost nothing but
    the echo's own exchange and the engine's and codec's work done cold."""
    warm, cold, sleep = machine_floor(variant, plays, think)
    floor = (rtt_cpu * 1e6 + cold) / (rtt_wall * 1e6)
    print(
        f"  [machine] the engine's and codec's work of a decision: {warm:.1f} µs of CPU back to back, {cold:.1f} µs "
        f"after a sleep of {think * 1e6:.0f} µs (x{cold / warm:.1f}: cold caches); one such sleep and wake-up costs "
        f"{sleep:.1f} µs of CPU by itself"
    )
    print(
        f"  [machine] a loop that cost nothing beyond the echo's exchange ({rtt_cpu * 1e6:.1f} µs) and that cold "
        f"work: {floor:.2f}x echo round trip wall (the target's {TARGET:.2f}x is "
        f"{'within' if floor <= TARGET else 'beyond'} this machine's reach for this engine)"
    )


def compare(args: argparse.Namespace, rtt_wall: float) -> None:
    """The plain row of `args.variant` against that of `args.against`, played now, one after the other: referee
    CPU per decision in the match loop (the fair figure: matches of different lengths share the start-up cost of
    three bots over different numbers of decisions) and in the whole match."""
    mine = run_matches(args.variant, args.seeds, PLAIN)
    base = run_matches(args.against, args.seeds, PLAIN)
    for name, k in (("match loop", 2), ("whole match", 1)):
        per_mine, per_base = mine[k] / mine[0], base[k] / base[0]
        print(
            f"  [plain, {args.variant} against {args.against}, {name}] {per_mine * 1e6:.1f} µs against "
            f"{per_base * 1e6:.1f} µs referee CPU per decision ({mine[0]} and {base[0]} decisions): "
            f"{per_mine / per_base:.2f}x"
        )


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The bench's command line; a variant it does not know is one line and exit 2."""
    p = argparse.ArgumentParser(prog="bench/referee.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="classic", help="the variant to measure (default classic)")
    p.add_argument(
        "--against",
        metavar="SLUG",
        help="also play the plain row of this variant (e.g. classic) and print the ratio of referee CPU per decision",
    )
    p.add_argument(
        "--rounds",
        type=int,
        default=ROUNDS,
        metavar="R",
        help=f"play the plain row R times, each with its own echo slices; the target on the median (default {ROUNDS})",
    )
    p.add_argument("--profile", action="store_true", help="print cProfile hot spots of the plain matches")
    p.add_argument("--steps", action="store_true", help="print the time of the referee's steps in the plain matches")
    p.add_argument(
        "--only", action="append", choices=[label for label, _ in CONFIGS], help="run only this row (repeatable)"
    )
    p.add_argument(
        "--seeds",
        type=int,
        choices=range(1, len(SEEDS) + 1),
        default=len(SEEDS),
        metavar="N",
        help=f"play only the first N of the seeds {', '.join(map(str, SEEDS))} (default all)",
    )
    args = p.parse_args(argv)
    try:
        for slug in filter(None, (args.variant, args.against)):
            find_variant(slug)(len(seat_commands(slug)), OPTIONS, SEEDS[0])  # an unknown slug, options it refuses
        args.variant = find_variant(args.variant).slug
    except ConfigError as e:
        p.exit(2, f"bench/referee.py: {e}\n")
    if args.rounds < 1:
        p.exit(2, f"bench/referee.py: --rounds must be at least 1, not {args.rounds}\n")
    args.seeds = SEEDS[: args.seeds]
    return args


def interpreter() -> str:
    """Which Python runs the referee (and the Python bots), and whether it calls through a shared libpython: the
    build matters here. In seven of eight interleaved pairs of runs of this script, pyenv's default build (no PGO
    or LTO, a shared libpython: every call inside the interpreter through the PLT) spent 20-68% more referee CPU
    per decision (median 31%) than Debian's /usr/bin/python3.11 (libpython linked into the executable). The
    Makefile makes the venv on such a build where the machine has one (`make PYTHON=... bench` on another)."""
    maps = Path("/proc/self/maps")
    shared = "libpython" in maps.read_text() if maps.exists() else None
    how = {True: "through a shared libpython", False: "libpython linked into the executable", None: "libpython: ?"}
    return f"{sys.implementation.name} {sys.version.split()[0]} at {sys.executable} ({how[shared]})"


def main() -> None:
    args = parse_args(sys.argv[1:])
    print(f"interpreter: {interpreter()}")
    lines, plays = sample_match(args.variant)
    line = sorted(lines, key=len)[len(lines) // 2]
    print(
        f"request lines of a {args.variant} match: {len(lines)}, median {len(line)} B, "
        f"mean {statistics.fmean(map(len, lines)):.0f} B, max {max(map(len, lines))} B"
    )
    args.line = line
    rtt_wall, rtt_cpu = trio.run(echo_round_trips, line, ROUND_TRIPS)
    print(
        f"echo bot ({ROUND_TRIPS} round trips of {len(line)} B via BotProcess, the loop's path): "
        f"{rtt_wall * 1e6:7.1f} µs wall, {rtt_cpu * 1e6:7.1f} µs referee CPU per round trip"
    )

    commands = seat_commands(args.variant)
    print(
        f"{args.variant} matches, seeds {', '.join(map(str, args.seeds))}, options {OPTIONS}, bots: "
        f"{', '.join(c.replace(sys.executable, 'python').replace(str(ROOT) + '/', '') for c in commands)}; "
        f"--sandbox {SUBREAPER} but in the sandbox row (romis play's default here: {sandbox_mode('auto')})"
    )
    verdicts = []
    for label, flags in CONFIGS:
        if args.only and label not in args.only:
            continue
        why = unavailable(flags)
        if why is not None:
            print(f"  [{label}] skipped: {why}")
            continue
        rounds = args.rounds if flags is PLAIN else 1
        bare = plays if flags is PLAIN else None
        runs = [
            report_matches(label if rounds == 1 else f"{label}, round {r + 1}", flags, args, bare)
            for r in range(rounds)
        ]
        if flags is PLAIN:
            whole, loop, think, rtt_wall_plain, rtt_cpu_plain, _ = (statistics.median(x) for x in zip(*runs))
            verdicts.append(whole <= TARGET and loop <= TARGET)
            if rounds > 1:
                print(
                    f"  [{label}] over {rounds} rounds: match loop median {loop:.2f}x echo round trip wall (rounds "
                    f"{', '.join(f'{x:.2f}x' for x in sorted(r[1] for r in runs))}), whole match median "
                    f"{whole:.2f}x; target <= {TARGET:.2f}x: {'met' if loop <= TARGET else 'MISSED'} (match loop)"
                )
            own = sorted(r[1] - r[5] for r in runs)
            print(
                f"  [{label}] bare loop median {statistics.median(r[5] for r in runs):.2f}x echo round trip wall: the "
                f"match loop's own code {statistics.median(own):.2f}x (rounds {', '.join(f'{x:.2f}x' for x in own)})"
            )
            report_floor(args.variant, plays, think, rtt_wall_plain, rtt_cpu_plain)
    if args.against:
        compare(args, rtt_wall)
    if args.profile or not all(verdicts):
        profile_matches(args.variant, args.seeds)
    if args.steps:
        step_times(args.variant, args.seeds)


if __name__ == "__main__":
    main()
