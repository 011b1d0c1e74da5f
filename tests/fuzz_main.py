"""`make fuzz`: every fuzz target, at least 100,000 cases each, with the counts; exit 1 on any failure.

    python tests/fuzz_main.py [--cases N] [--seed S] [--only TARGET ...] [--no-atheris]
    python tests/fuzz_main.py --replay CASE      (a validator case as a failure printed it)

Targets: `decoder` (the generator of tests/fuzz_lines.py), `decoder-atheris` (coverage-guided, in a child
process, when atheris is installed) and one per registered variant (tests/fuzzing.py).
"""

import argparse
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from fuzz_lines import check_line, random_line
from fuzzing import Case, Stats, fuzz_variant, run_case

from referee.rules.variants import VARIANTS

HERE = Path(__file__).resolve().parent


def fuzz_decoder(cases: int, seed: int) -> Stats:
    """`cases` hostile lines through both decoders; each line's seed is printed with a failure."""
    stats, outcomes = Stats(), Counter[str]()
    rng = random.Random(seed)
    for _ in range(cases):
        line_seed = rng.getrandbits(32)
        stats.cases += 1
        try:
            check_line(random_line(random.Random(line_seed)), outcomes)
        except AssertionError as e:
            stats.failures.append(f"decoder line seed {line_seed}: {e}")
    stats.applied = outcomes["ready"] + outcomes["play"]
    stats.rejected = Counter({k: v for k, v in outcomes.items() if k.startswith("fault:")})
    return stats


def fuzz_atheris(cases: int) -> int:
    """Run the atheris target for `cases` inputs in a child process (libFuzzer ends the process it runs in)."""
    with tempfile.TemporaryDirectory(prefix="romis-fuzz-") as corpus:
        cmd = [sys.executable, str(HERE / "fuzz_atheris.py"), str(cases), corpus]
        done = subprocess.run(cmd, capture_output=True, text=True, cwd=corpus)
    summary = [line for line in done.stdout.splitlines() if line.startswith("decoder (atheris)")]
    if done.returncode == 0 and summary:
        print(summary[-1])
        return 0
    print(f"decoder (atheris): FAILED (exit {done.returncode})")
    print("\n".join(line for line in done.stderr.splitlines() if not line.startswith("INFO: Instrumenting"))[-3000:])
    return 1


def report(name: str, stats: Stats, seconds: float) -> None:
    """One target's line: cases, applied, the top rejections by rule, failures (and the first few of them)."""
    top = ", ".join(f"{rule} {count}" for rule, count in stats.rejected.most_common(4))
    rejected = sum(stats.rejected.values())
    print(
        f"{name}: {stats.cases} cases, {stats.applied} applied, {rejected} rejected ({top}); "
        f"failures {len(stats.failures)} [{seconds:.0f} s]",
        flush=True,
    )
    for failure in stats.failures[:5]:
        print(f"  FAILURE {failure}")
        if name in VARIANTS:  # a validator failure starts with its case
            print(f"  replay: python tests/fuzz_main.py --replay {':'.join(failure.split(':')[:5])}")


def main() -> int:
    """Run the targets asked for; 0 when no case failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000, help="cases per target (default 100,000)")
    parser.add_argument("--seed", type=int, default=0, help="master seed of the run")
    parser.add_argument("--only", nargs="*", help="targets to run: decoder, decoder-atheris, variant slugs")
    parser.add_argument("--no-atheris", action="store_true", help="skip the atheris target")
    parser.add_argument("--replay", help="run one validator case (as printed by a failure) and show the result")
    args = parser.parse_args()
    if args.replay:
        case = Case.parse(args.replay)
        stats = Stats()
        applied = run_case(case, stats=stats)  # a failure raises, with its traceback
        print(f"{case}: {'applied' if applied else 'rejected: ' + next(iter(stats.rejected))}")
        return 0
    names = args.only or ["decoder", "decoder-atheris", *sorted(VARIANTS)]
    unknown = sorted(set(names) - {"decoder", "decoder-atheris", *VARIANTS})
    if unknown:
        parser.error(f"unknown target {unknown[0]!r}")
    failed = 0
    for name in names:
        start = time.monotonic()
        if name == "decoder-atheris":
            if not args.no_atheris:
                failed += _atheris_or_skip(args.cases)
            continue
        stats = fuzz_decoder(args.cases, args.seed) if name == "decoder" else fuzz_variant(name, args.cases, args.seed)
        report(name, stats, time.monotonic() - start)
        failed += len(stats.failures)
    print("fuzz: all targets passed" if not failed else f"fuzz: {failed} failures")
    return 1 if failed else 0


def _atheris_or_skip(cases: int) -> int:
    try:
        import atheris  # noqa: F401  (only to know whether it is installed)
    except ImportError:
        print("decoder (atheris): skipped: atheris is not installed (pip install atheris)")
        return 0
    return fuzz_atheris(cases)


if __name__ == "__main__":
    sys.exit(main())
