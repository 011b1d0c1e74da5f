"""Soak test: many short matches of every registered variant with misbehaving bots at random seats and moments.

Each match is a `romis play` subprocess (so a referee traceback or a non-zero exit is caught, and counted as
a referee crash) with its record written; every record is then replayed in-process. Every process a match
starts carries a token of its own in its environment (tests/procs.py's TOKEN_VAR): once `romis play` has
exited, any process still carrying it is a leftover; it is counted, then killed by PID.

    python bench/soak.py [--matches 1000] [--seed 0] [--jobs 2] [--kinds crash,hang,...]

Prints progress, the figures (matches, injected misbehaviours and faults by kind, referee crashes, leftover
processes, records that fail replay) and the total time; exits 1 if any of the last three is not 0.
"""

import argparse
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Running bench/soak.py puts bench/ first on sys.path, where bench/referee.py would shadow the referee package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.append(str(ROOT / "tests"))  # procs.py: the process-token helper the tests use

import procs

from referee.records import replay
from referee.rules.variants import VARIANTS
from sample_bots.bad.chaos import EXPECTED, KINDS

MATCH_TIMEOUT = 300.0  # seconds: a `romis play` still running by then is a hung referee (counted as a crash)
LEFTOVER_WAIT = 1.0  # seconds a match's processes get to vanish after `romis play` exits
MAX_AFTER = 30  # a misbehaving bot plays legally for 0..MAX_AFTER requests first


@dataclass
class Plan:
    """One match to play: variant, master seed, one command per seat, and the misbehaviours injected."""

    index: int
    variant: str
    seed: int
    bots: list[str]
    injected: dict[int, tuple[str, int]]  # seat -> (kind, after)


@dataclass
class Report:
    """What happened in one match."""

    plan: Plan
    faults: dict[int, str] = field(default_factory=dict)  # seat -> fault kind
    crash: str | None = None  # why this counts as a referee crash
    leftovers: list[str] = field(default_factory=list)  # command lines of the processes left behind
    replay_error: str | None = None
    seconds: float = 0.0


def plan_match(index: int, seed: int, kinds: list[str]) -> Plan:
    """The `index`-th match of a soak seeded `seed`: variants in registry order, the rest drawn at random."""
    rng = random.Random(f"soak/{seed}/{index}")
    slugs = list(VARIANTS)
    cls = VARIANTS[slugs[index % len(slugs)]]
    players = rng.randint(cls.min_players, min(cls.max_players, 4))  # tables above 4 only slow the soak down
    chaos_seats = rng.sample(range(players), 2 if players > 2 and rng.random() < 0.25 else 1)
    injected = {seat: (rng.choice(kinds), rng.randint(0, MAX_AFTER)) for seat in chaos_seats}
    bots = []
    for seat in range(players):
        if seat in injected:
            kind, after = injected[seat]
            bots.append(f"{sys.executable} -m sample_bots.bad.chaos --kind {kind} --after {after} --seed {seat}")
        else:
            bots.append(f"{sys.executable} -m sample_bots.random")
    return Plan(index, cls.slug, rng.randrange(2**31), bots, injected)


def play_command(plan: Plan, record: Path, args: argparse.Namespace) -> list[str]:
    """The `romis play` command line of one match, with short limits and a cap on deals."""
    argv = [sys.executable, "-m", "referee", "play", plan.variant, "--seed", str(plan.seed), "--json"]
    argv += ["--record", str(record), "--move-time", str(args.move_time), "--bank", str(args.bank)]
    argv += ["--startup-time", str(args.startup_time), "--option", f"max_deals={args.max_deals}"]
    for bot in plan.bots:
        argv += ["--bot", bot]
    return argv


def run_match(plan: Plan, records: Path, args: argparse.Namespace) -> Report:
    """Play one match, then look for its leftover processes (killing them) and replay its record."""
    report, token = Report(plan), uuid.uuid4().hex
    record = records / f"{plan.index:05d}-{plan.variant}.jsonl"
    env = {**os.environ, procs.TOKEN_VAR: token}
    start = time.monotonic()
    try:
        done = subprocess.run(
            play_command(plan, record, args), cwd=ROOT, env=env, capture_output=True, timeout=MATCH_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        report.crash = f"romis play still running after {MATCH_TIMEOUT:g} s"
    else:
        report.crash, report.faults = _read_outcome(done)
    report.seconds = time.monotonic() - start
    left = _leftovers(token)
    report.leftovers = [p.cmd for p in left]
    procs.kill(left)
    if report.crash is None:
        report.replay_error = _replay(record)
    return report


def _leftovers(token: str) -> list[procs.Proc]:
    """The processes carrying `token` still alive after LEFTOVER_WAIT seconds."""
    procs.wait_until(lambda: not procs.marked(token), LEFTOVER_WAIT)
    return procs.marked(token)


def _read_outcome(done: subprocess.CompletedProcess) -> tuple[str | None, dict[int, str]]:
    """(why the referee counts as crashed or None, the faults by seat) from a finished `romis play --json`."""
    stderr = done.stderr.decode(errors="replace")
    if done.returncode != 0 or "Traceback" in stderr:
        last = stderr.strip().splitlines()[-1:] or ["(no stderr)"]
        return f"exit code {done.returncode}: {last[0][:300]}", {}
    try:
        seats = json.loads(done.stdout)["seats"]
    except (ValueError, KeyError, TypeError) as e:
        return f"unreadable --json output ({e})", {}
    return None, {s["seat"]: s["fault"] for s in seats if s["fault"]}


def _replay(record: Path) -> str | None:
    """None if the record replays, else why not (anything replay raises counts: it is a failed replay)."""
    try:
        replay(record)
    except Exception as e:
        return f"{type(e).__name__}: {e}"
    return None


@dataclass
class Totals:
    """The soak's figures so far."""

    matches: int = 0
    injected: Counter = field(default_factory=Counter)
    faults: Counter = field(default_factory=Counter)
    surprises: Counter = field(default_factory=Counter)  # injected kind -> matches where its seat got another fault
    crashes: list[str] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)
    replay_failures: list[str] = field(default_factory=list)
    by_variant: Counter = field(default_factory=Counter)
    left_by: Counter = field(default_factory=Counter)  # the misbehaviour (or "other") whose process was left
    interrupted: bool = False  # by Ctrl-C: the figures cover the matches finished until then

    def add(self, r: Report) -> None:
        """Count one match."""
        self.matches += 1
        self.by_variant[r.plan.variant] += 1
        self.faults.update(r.faults.values())
        for seat, (kind, _) in r.plan.injected.items():
            self.injected[kind] += 1
            got = r.faults.get(seat)
            if got is not None and got != EXPECTED[kind]:
                self.surprises[f"{kind} -> {got}"] += 1
        who = _describe(r.plan)
        if r.crash:
            self.crashes.append(f"{who}: {r.crash}")
        self.leftovers += [f"{who}: {cmd}" for cmd in r.leftovers]
        self.left_by.update(_kind_of(cmd) for cmd in r.leftovers)
        if r.replay_error:
            self.replay_failures.append(f"{who}: {r.replay_error}")

    def failed(self) -> bool:
        """True if any must-be-0 figure is not 0."""
        return bool(self.crashes or self.leftovers or self.replay_failures)


def _describe(plan: Plan) -> str:
    """A match as a failure line names it: enough to play it again."""
    chaos = ", ".join(f"seat {s} {k} after {a}" for s, (k, a) in sorted(plan.injected.items()))
    return f"match {plan.index} ({plan.variant}, seed {plan.seed}, {len(plan.bots)} seats; {chaos})"


def _kind_of(cmd: str) -> str:
    """The chaos kind in a leftover's command line (a forked child keeps its parent's), or "other"."""
    found = re.search(r"sample_bots\.bad\.chaos --kind (\w+)", cmd)
    return found.group(1) if found else "other"


def _counts(counter: Counter) -> str:
    return ", ".join(f"{k} {n}" for k, n in sorted(counter.items())) or "none"


def summary(t: Totals, seconds: float) -> list[str]:
    """The closing figures, one per line; the must-be-0 ones followed by the matches they happened in."""
    lines = [
        f"matches: {t.matches}{' (interrupted)' if t.interrupted else ''}"
        f" over {len(t.by_variant)} variants ({_counts(t.by_variant)})",
        f"injected misbehaviours: {sum(t.injected.values())} ({_counts(t.injected)})",
        f"faults by kind: {sum(t.faults.values())} ({_counts(t.faults)})",
        f"injected seats with another fault than expected: {sum(t.surprises.values())} ({_counts(t.surprises)})",
    ]
    for name, items in (
        ("referee crashes", t.crashes),
        ("leftover processes", t.leftovers),
        ("records that fail replay", t.replay_failures),
    ):
        lines.append(f"{name}: {len(items)} (must be 0)")
        if items and name == "leftover processes":
            lines.append(f"  by the bot that left them: {_counts(t.left_by)}")
        lines += [f"  {item}" for item in items[:20]] + (
            [f"  ... and {len(items) - 20} more"] if len(items) > 20 else []
        )
    lines.append(f"total time: {seconds:.1f} s ({t.matches / max(seconds, 1e-9) * 60:.1f} matches a minute)")
    return lines


def progress(t: Totals, planned: int, seconds: float) -> str:
    """One progress line."""
    return (
        f"[{t.matches}/{planned}] {seconds:.0f} s; faults {sum(t.faults.values())}, crashes {len(t.crashes)}, "
        f"leftovers {len(t.leftovers)}, replay failures {len(t.replay_failures)}"
    )


def soak(args: argparse.Namespace, say: Callable[[str], None] = print) -> Totals:
    """Play the soak's matches, `args.jobs` at a time, printing progress with `say`; the figures."""
    totals, start = Totals(), time.monotonic()
    kinds = args.kinds or list(KINDS)
    plans = [plan_match(i, args.seed, kinds) for i in range(args.matches)]
    step = max(1, args.matches // 20)
    with tempfile.TemporaryDirectory(prefix="romis-soak-") as tmp:
        records = Path(args.records or tmp)
        records.mkdir(parents=True, exist_ok=True)
        pool = ThreadPoolExecutor(args.jobs)
        try:
            for report in pool.map(lambda p: run_match(p, records, args), plans):
                totals.add(report)
                if totals.matches % step == 0 or totals.matches == args.matches:
                    say(progress(totals, args.matches, time.monotonic() - start))
        except KeyboardInterrupt:  # the matches under way finish (and are cleaned up); no new one starts
            totals.interrupted = True
            say("interrupted: waiting for the matches under way")
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    for line in summary(totals, time.monotonic() - start):
        say(line)
    return totals


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The soak's command line."""
    p = argparse.ArgumentParser(prog="soak", description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=_positive, default=1000, help="matches to play (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="seeds the variants, seats, bots and moments (default 0)")
    p.add_argument("--jobs", type=_positive, default=2, help="matches at a time (default 2)")
    p.add_argument(
        "--kinds", type=_kinds, default=None, help=f"comma-separated misbehaviours (default all: {','.join(KINDS)})"
    )
    p.add_argument("--move-time", type=float, default=0.5, help="seconds per decision (default 0.5)")
    p.add_argument("--bank", type=float, default=1.0, help="time bank per match, seconds (default 1)")
    p.add_argument("--startup-time", type=float, default=5.0, help="seconds to answer hello (default 5)")
    p.add_argument("--max-deals", type=_positive, default=3, help="deals per match at most (default 3)")
    p.add_argument(
        "--records", type=Path, default=None, help="keep the records in this folder (default: a temporary one)"
    )
    return p.parse_args(argv)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


def _kinds(text: str) -> list[str]:
    kinds = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise argparse.ArgumentTypeError(f"unknown kind {', '.join(unknown) or '(none)'}; known: {', '.join(KINDS)}")
    return kinds


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(signum)


def main(argv: list[str] | None = None) -> int:
    """Run the soak; 0 if every must-be-0 figure is 0, else 1 (130 after Ctrl-C or SIGTERM: figures so far)."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    # SIGTERM (a CI timeout, `kill`) stops like Ctrl-C; so does SIGINT even where a shell started us ignoring it
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    totals = soak(args, lambda line: print(line, flush=True))
    return 130 if totals.interrupted else 1 if totals.failed() else 0


if __name__ == "__main__":
    sys.exit(main())
