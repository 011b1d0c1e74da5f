"""Whatever a bot writes ends as a fault recorded against its seat, never as an exception in the referee."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.match import STALE_RECORDED
from referee.play import play_match
from referee.process.runner import BotFault, decode_reply
from referee.records import replay
from sample_bots.bad.hostile import PAYLOADS

ROOT = Path(__file__).resolve().parent.parent
DEEP = 100_000
PLAY = b'{"type":"play","id":1,"ops":%s}'
READY = b'{"type":"ready","name":"x"%s}'


def deep(opening: bytes, middle: bytes, closing: bytes, depth: int = DEEP) -> bytes:
    return opening * depth + middle + closing * depth


HOSTILE_LINES = {
    "deep array as the ops": PLAY % deep(b"[", b"", b"]"),
    "deep array inside the ops": PLAY % (b"[" + deep(b"[", b"", b"]") + b"]"),
    "deep object as the ops": PLAY % deep(b'{"a":', b"1", b"}"),
    "deep object in an unknown field": b'{"type":"play","id":1,"ops":[],"x":' + deep(b'{"a":', b"1", b"}") + b"}",
    "deep value inside an op": PLAY % (b'[{"op":"discard","card":' + deep(b"[", b"", b"]") + b"}]"),
    "deep value in an op's unknown field": PLAY % (b'[{"op":"draw","x":' + deep(b"[", b"", b"]") + b"}]"),
    "deep ready": READY % (b',"x":' + deep(b"[", b"", b"]")),
    "deep, then cut off": b'{"type":"play","id":1,"ops":' + b"[" * DEEP,
    "nesting just past the decoder's limit": PLAY % (b'[],"x":' + deep(b"[", b"", b"]", 3000)),
    "not UTF-8": b'{"type":"ready","name":"\xff\xfe"}',
    "a stray Latin-1 byte": b'{"type":"ready","name":"caf\xe9"}',
    "a lone surrogate": b'{"type":"ready","name":"\\ud800"}',
    "a NUL byte in a string": b'{"type":"ready","name":"a\x00"}',
    "a NUL byte after the object": b'{"type":"ready"}\x00',
    "only NUL bytes": b"\x00" * 100,
    "a byte-order mark": b'\xef\xbb\xbf{"type":"ready"}',
    "a huge request id": b'{"type":"play","id":1' + b"0" * 30 + b',"ops":[{"op":"draw"}]}',
    "a 5000-digit number": b'{"type":"play","id":1' + b"0" * 5000 + b',"ops":[{"op":"draw"}]}',
    "a huge depth": PLAY % b'[{"op":"draw","depth":-1' + b"0" * 20 + b"}]",
    "a huge bid": PLAY % b'[{"op":"bid","value":1' + b"0" * 19 + b"}]",
    "an infinite float": PLAY % b'[{"op":"draw","depth":1e999}]',
    "a float id": b'{"type":"play","id":1.5,"ops":[{"op":"draw"}]}',
    "a boolean id": b'{"type":"play","id":true,"ops":[{"op":"draw"}]}',
    "a string id": b'{"type":"play","id":"1","ops":[{"op":"draw"}]}',
    "ops as an object": PLAY % b'{"op":"draw"}',
    "ops as null": PLAY % b"null",
    "an op that is a string": PLAY % b'["draw"]',
    "an unknown op": PLAY % b'[{"op":"teleport"}]',
    "a card that is a number": PLAY % b'[{"op":"discard","card":7}]',
    "cards as a string": PLAY % b'[{"op":"meld","cards":"7H 8H 9H"}]',
    "an empty line": b"",
    "whitespace": b" \t\r",
    "a JSON array": b"[1,2,3]",
    "a JSON string": b'"ready"',
    "two objects on one line": b'{"type":"ready"}{"type":"ready"}',
    "no type": b'{"name":"x"}',
    "a type that is not a string": b'{"type":["play"]}',
    "a duplicate key of another type": b'{"type":"ready","protocol":1,"protocol":"one"}',
    "a duplicate key inside an op": PLAY % b'[{"op":"draw","depth":1,"depth":"deep"}]',
    # the decoder's message quotes the bad name or value: the detail must still stay short (found by the fuzzer)
    "a 10,000-character unknown op": PLAY % b'[{"op":"%s"}]' % (b"y" * 10_000),
    "a 10,000-character unknown field in an op": PLAY % b'[{"op":"draw","%s":1}]' % (b"z" * 10_000),
    "a 10,000-character draw source": PLAY % b'[{"op":"draw","source":"%s"}]' % (b"s" * 10_000),
    "a 10,000-op play with one bad op": PLAY % (b"[" + b'{"op":"pass"},' * 9_999 + b'{"op":"pass","x":1}]'),
}


@pytest.mark.parametrize("line", HOSTILE_LINES.values(), ids=HOSTILE_LINES.keys())
def test_a_hostile_line_is_a_malformed_fault(line):
    with pytest.raises(BotFault) as fault:
        decode_reply(line)
    assert fault.value.kind == "malformed"
    assert len(fault.value.detail) < 500  # the detail quotes the start of the line, not all of it


def test_a_long_unknown_type_is_an_unknown_message_with_a_short_detail():
    with pytest.raises(BotFault) as fault:
        decode_reply(b'{"type":"%s"}' % (b"x" * 10_000))
    assert fault.value.kind == "unknown_message" and len(fault.value.detail) < 500


def test_the_detail_of_a_long_bad_value_still_names_where_it_is():
    with pytest.raises(BotFault) as fault:
        decode_reply(PLAY % b'[{"op":"draw","source":"%s"}]' % (b"s" * 10_000))
    assert "$.ops[0].source" in fault.value.detail


def test_a_moderately_nested_unknown_field_is_still_ignored():
    assert decode_reply(PLAY % (b'[{"op":"draw"}],"note":' + deep(b"[", b"", b"]", 50))).ops


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@given(st.binary(max_size=200) | json_values.map(lambda v: json.dumps(v).encode()))
def test_any_bytes_decode_to_a_reply_or_a_fault(line):
    try:
        decode_reply(line)
    except BotFault as fault:
        assert fault.kind in ("malformed", "unknown_message")


@given(
    st.sampled_from([b"ready", b"play"]),
    st.dictionaries(st.sampled_from(["id", "ops", "name", "protocol", "version", "x"]), json_values, max_size=4),
)
def test_replies_with_any_field_values_decode_or_fault(tag, fields):
    line = b'{"type":"%s",' % tag + json.dumps(fields).encode()[1:]
    try:
        decode_reply(line)
    except BotFault as fault:
        assert fault.kind == "malformed"


# --- in a match, with real subprocess bots ---------------------------------------------------------
HOSTILE = f"{sys.executable} -m sample_bots.bad.hostile"
RANDOM = "python -m sample_bots.random"
EXPECTED = {"no-newline": "crash", "stale-flood": None}  # every other payload: malformed


def hostile_match(payload: str, at: int, record: Path):
    """Seat 0 sends `payload` at request `at` (0: instead of ready); the outcome of the whole match."""
    cwd = os.getcwd()
    os.chdir(ROOT)  # the bots run as `python -m ...`
    try:
        return play_match(
            "gin", [f"{HOSTILE} {payload} {at}", RANDOM], 5, {"max_deals": 1}, record, move_time=1, bank=1
        )
    finally:
        os.chdir(cwd)


@pytest.mark.e2e
@pytest.mark.parametrize("at", [0, 3], ids=["handshake", "play"])
@pytest.mark.parametrize("payload", PAYLOADS)
def test_a_hostile_bot_forfeits_and_the_match_goes_on(payload, at, tmp_path):
    record = tmp_path / "r.jsonl"
    out = hostile_match(payload, at, record)
    hostile, other = out.result["seats"]
    expected = "startup" if (payload, at) == ("stale-flood", 0) else EXPECTED.get(payload, "malformed")
    assert (hostile.fault, other.fault) == (expected, None), hostile.fault_detail
    if expected:
        assert out.result["ranks"] == [2, 1]
    lines = [json.loads(raw) for raw in record.read_text().splitlines()]
    faults = [x for x in lines if x["type"] == "fault"]
    assert [(x["seat"], x["kind"]) for x in faults] == ([(0, expected)] if expected else [])
    assert any(x["type"] == "result" for x in lines) and replay(record)["totals"] == out.result["totals"]
    stale = sum(1 for x in lines if x["type"] == "stale")
    assert stale == (STALE_RECORDED if payload == "stale-flood" and at else 0)


@pytest.mark.e2e
def test_romis_play_survives_the_nested_ops_of_the_report(tmp_path):
    """The line of the issue (ops nested 100,000 deep) once made `romis play` exit 1 with a RecursionError."""
    r = subprocess.run(
        [sys.executable, "-m", "referee", "play", "gin", "--bot", f"{HOSTILE} deep-array 1", "--bot", RANDOM]
        + ["--seed", "1", "--json", "--option", "max_deals=1", "--record", str(tmp_path / "r.jsonl")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    seats = json.loads(r.stdout)["seats"]
    assert [s["fault"] for s in seats] == ["malformed", None] and "$.ops[0]" in seats[0]["fault_detail"]
