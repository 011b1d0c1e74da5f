"""The Python sample bots over pipes: input they cannot use ends them with one line, never a traceback."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from protocol import messages as m

ROOT = Path(__file__).resolve().parent.parent


def hello(variant: str) -> bytes:
    limits = m.Limits(move_time=1, bank=1, startup_time=1)
    return m.encode(m.Hello(1, variant, 1, seat=0, players=2, options={}, limits=limits))


REQUEST = m.encode(m.Request(1, m.Decision("turn"), {}, [], m.Clock(1, 1)))


@pytest.mark.parametrize("bot", ["greedy", "random"])
@pytest.mark.parametrize(
    ("lines", "said"),
    [
        ([hello("nope")], "unknown variant 'nope'"),
        ([REQUEST], "a request came before hello"),
        ([b"garbage\n"], "cannot read a line from the referee"),
        ([json.dumps({"type": "what"}).encode() + b"\n"], "unknown message type 'what'"),
    ],
    ids=["unknown-variant", "request-before-hello", "not-json", "unknown-message"],
)
def test_a_bot_stops_with_one_line_on_input_it_cannot_use(bot, lines, said):
    run = subprocess.run(
        [sys.executable, "-m", f"sample_bots.{bot}"], input=b"".join(lines), cwd=ROOT, capture_output=True, timeout=60
    )
    err = run.stderr.decode()
    assert run.returncode == 1 and run.stdout == b""
    assert err.startswith(f"{bot}: ") and said in err and len(err.splitlines()) == 1


def test_a_bot_answers_hello_with_ready():
    run = subprocess.run(
        [sys.executable, "-m", "sample_bots.greedy"], input=hello("gin"), cwd=ROOT, capture_output=True, timeout=60
    )
    assert run.returncode == 0 and m.decode_from_bot(run.stdout) == m.Ready(name="greedy", version="1")
