"""Coverage-guided fuzzing of the decoder with atheris (libFuzzer): `python tests/fuzz_atheris.py RUNS CORPUS`.

The corpus folder is seeded with the hostile lines of tests/fuzz_lines.py; libFuzzer mutates them, guided by
the coverage of the decoder's Python code. It prints the same counts as tests/fuzz_main.py; a failure makes
libFuzzer print the input and save it as a `crash-*` file (replay: run this script with that file instead of
the corpus folder).
"""

import random
import sys
from collections import Counter
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["protocol", "referee"]):
    from fuzz_lines import check_line, random_line

outcomes: Counter = Counter()


def one_input(data: bytes) -> None:
    """One libFuzzer input: the first line of `data` (a bot's line never holds a newline)."""
    check_line(data.split(b"\n", 1)[0], outcomes)
    total = outcomes.total()
    if total % 20_000 == 0 or total == RUNS:
        top = ", ".join(f"{k} {v}" for k, v in outcomes.most_common(4))
        print(f"decoder (atheris): {total} cases; {top}; failures 0", flush=True)


def seed_corpus(folder: Path, count: int = 200) -> None:
    """Write `count` hostile lines into `folder` (once) for libFuzzer to start from."""
    folder.mkdir(parents=True, exist_ok=True)
    if not any(folder.iterdir()):
        rng = random.Random(0)
        for i in range(count):
            (folder / f"seed-{i}").write_bytes(random_line(rng)[:100_000])


if __name__ == "__main__":
    RUNS = int(sys.argv[1])
    corpus = Path(sys.argv[2])
    if not corpus.is_file():
        seed_corpus(corpus)
    atheris.Setup([sys.argv[0], f"-runs={RUNS}", "-max_len=120000", "-print_final_stats=1", str(corpus)], one_input)
    atheris.Fuzz()
