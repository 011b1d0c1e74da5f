"""Game records and `romis replay`: a bad record is one line and exit 1, an interrupted one says where it stopped."""

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from contextlib import suppress
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from procs import record_so_far
from profiles import examples

from referee.play import play_match
from referee.records import RecordInterrupted, ReplayError, _link, replay

ROOT = Path(__file__).resolve().parent.parent
RANDOM = "python -m sample_bots.random"
DEEP = 100_000


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> Path:
    """A real record: gin between two random bots, two deals."""
    path = tmp_path_factory.mktemp("records") / "gin.jsonl"
    cwd = os.getcwd()
    os.chdir(ROOT)  # the bots run as `python -m sample_bots.random`
    try:
        play_match("gin", [RANDOM, RANDOM], 3, {"max_deals": 2}, path)
    finally:
        os.chdir(cwd)
    return path


def lines_of(path: Path) -> list[dict]:
    """The record's lines without their checksums."""
    out = [json.loads(raw) for raw in path.read_text().splitlines()]
    for line in out:
        del line["chain"]
    return out


def rewrite(lines: list[dict], path: Path) -> Path:
    """Write `lines` as a record with a valid hash chain (what someone editing a record carefully would do)."""
    chain, out = "", []
    for line in lines:
        chain = _link(chain, line)
        out.append(json.dumps({**line, "chain": chain}))
    path.write_text("".join(x + "\n" for x in out))
    return path


def first(lines: list[dict], kind: str) -> dict:
    return next(line for line in lines if line.get("type") == kind)


def romis_replay(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "referee", "replay", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_a_real_record_replays(record):
    assert replay(record)["variant"] == "gin"
    assert [line["type"] for line in lines_of(record)].count("deal_over") == 2


def _raw(record: Path, change) -> bytes:
    raws = record.read_bytes().split(b"\n")
    change(raws)
    return b"\n".join(raws)


def _edit(lines: list[dict], kind: str, key: str, value=None) -> list[dict]:
    line = first(lines, kind)
    if value is None:
        del line[key]
    else:
        line[key] = value
    return lines


RAW_DAMAGE = {
    "bytes that are not UTF-8": (lambda raws: raws.insert(3, b"\xff\xfe\xfd"), "line 4: not UTF-8"),
    "a stray Latin-1 byte": (lambda raws: raws.__setitem__(1, raws[1].replace(b"random", b"caf\xe9")), "not UTF-8"),
    "a deeply nested line": (lambda raws: raws.insert(2, b'{"a":' * DEEP + b"1" + b"}" * DEEP), "nested too deeply"),
    "a deeply nested array": (lambda raws: raws.insert(2, b"[" * DEEP + b"]" * DEEP), "nested too deeply"),
    "a line cut short": (lambda raws: raws.__setitem__(5, raws[5][:20]), "line 6: not JSON"),
    "a NUL byte": (lambda raws: raws.__setitem__(4, raws[4] + b"\x00"), "line 5: not JSON"),
    "an empty line": (lambda raws: raws.insert(3, b""), "line 4: not JSON"),
    "a 5000-digit number": (lambda raws: raws.insert(3, b'{"n":1' + b"0" * 5000 + b"}"), "line 4: not JSON"),
    "a line that is an array": (lambda raws: raws.insert(3, b"[1]"), "line 4: not a JSON object"),
    "an altered line": (lambda raws: raws.__setitem__(3, raws[3].replace(b'"ok"', b'"illegal:x"')), "checksum"),
    "no header": (lambda raws: raws.__setitem__(slice(None), []), "no header"),
}
FIELD_DAMAGE = {
    "a header without variant": (lambda ls: _edit(ls, "header", "variant"), "missing required field `variant`"),
    "a header without seed": (lambda ls: _edit(ls, "header", "seed"), "missing required field `seed`"),
    "a header with seats as a number": (
        lambda ls: _edit(ls, "header", "seats", 2),
        "`array`, got `int` - at `$.seats`",
    ),
    "an unknown variant": (lambda ls: _edit(ls, "header", "variant", "snap"), "unknown variant"),
    "a player count the variant refuses": (
        lambda ls: _edit(ls, "header", "seats", [{}] * 9),
        "gin needs 2 players, got 9",
    ),
    "an option that is not a number": (
        lambda ls: _edit(ls, "header", "options", {"max_deals": "lots"}),
        "option max_deals",
    ),
    "an infinite option": (lambda ls: _edit(ls, "header", "options", {"max_deals": float("inf")}), "option max_deals"),
    "an action without seat": (lambda ls: _edit(ls, "action", "seat"), "missing required field `seat`"),
    "an action without verdict": (lambda ls: _edit(ls, "action", "verdict"), "missing required field `verdict`"),
    "an action with ops as a string": (lambda ls: _edit(ls, "action", "ops", "draw"), "at `$.ops`"),
    "an action with an unknown op": (lambda ls: _edit(ls, "action", "ops", [{"op": "fly"}]), "unreadable ops"),
    "an action with a deep op": (lambda ls: _edit(ls, "action", "ops", [[[[[[[[[[[[]]]]]]]]]]]]), "unreadable ops"),
    "a deal_over without totals": (lambda ls: _edit(ls, "deal_over", "totals"), "missing required field `totals`"),
    "a deal_over with other totals": (lambda ls: _edit(ls, "deal_over", "totals", [7, 7]), "deal 0 result differs"),
    "a result without totals": (lambda ls: _edit(ls, "result", "totals"), "missing required field `totals`"),
    "a line whose type is a list": (lambda ls: _edit(ls, "action", "type", []), "the line type is not a string"),
    "an interrupted line without deal": (lambda ls: [*ls[:5], {"type": "interrupted"}], "`deal`"),
}


def _damaged(record: Path, tmp_path: Path, case: str) -> tuple[Path, str]:
    if case in RAW_DAMAGE:
        change, words = RAW_DAMAGE[case]
        path = tmp_path / "bad.jsonl"
        path.write_bytes(_raw(record, change))
        return path, words
    change, words = FIELD_DAMAGE[case]
    return rewrite(change(lines_of(record)), tmp_path / "bad.jsonl"), words


@pytest.mark.parametrize("case", [*RAW_DAMAGE, *FIELD_DAMAGE])
def test_a_damaged_record_is_a_replay_error_naming_the_problem(record, tmp_path, case):
    path, words = _damaged(record, tmp_path, case)
    with pytest.raises(ReplayError, match=re.escape(words)):
        replay(path)


@pytest.mark.e2e
@pytest.mark.parametrize(
    "case",
    ["bytes that are not UTF-8", "a deeply nested line", "a header without variant", "a deal_over without totals"],
)
def test_romis_replay_of_a_damaged_record_says_one_line_and_exits_1(record, tmp_path, case):
    path, words = _damaged(record, tmp_path, case)
    r = romis_replay(path)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1 and "does not replay" in r.stderr and words in r.stderr


# --- Ctrl-C ----------------------------------------------------------------------------------------
@pytest.mark.e2e
def test_ctrl_c_ends_the_record_with_a_mark_and_replay_names_the_deal(tmp_path):
    rec = tmp_path / "r.jsonl"
    bots = ["--bot", f"{sys.executable} -m sample_bots.bad.hang", "--bot", RANDOM]
    # hang answers 3 requests, then sleeps: move time 30 s leaves time to interrupt mid-deal
    args = [sys.executable, "-m", "referee", "play", "gin", *bots, "--move-time", "30", "--record", str(rec)]
    with subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and record_so_far(rec).count('"action"') < 3:
            time.sleep(0.05)
        time.sleep(0.3)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130 and "Traceback" not in err
    last = json.loads(rec.read_text().splitlines()[-1])
    assert (last["type"], last["deal"], last["reason"]) == ("interrupted", 0, "ctrl-c")
    with pytest.raises(RecordInterrupted):
        replay(rec)
    r = romis_replay(rec)
    assert r.returncode == 1 and r.stderr == f"romis: {rec}: interrupted at deal 1\n"


def test_an_interrupted_mark_must_match_the_replay(record, tmp_path):
    lines = lines_of(record)
    cut = [line["type"] for line in lines].index("deal_over") + 1  # after the first deal
    kept = lines[:cut]
    with pytest.raises(RecordInterrupted, match="interrupted at deal 2"):
        replay(rewrite([*kept, {"type": "interrupted", "deal": 1, "reason": "ctrl-c"}], tmp_path / "a.jsonl"))
    with pytest.raises(ReplayError, match="but the replay is at deal 2"):
        replay(rewrite([*kept, {"type": "interrupted", "deal": 0, "reason": "ctrl-c"}], tmp_path / "b.jsonl"))


# --- fuzzing the reader ------------------------------------------------------------------------------
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=10,
)
KEYS = ["type", "seat", "ops", "verdict", "totals", "deal", "variant", "seats", "options", "seed", "op", "card"]


def _mutate_line(line: dict, data) -> None:
    """Delete, set or add a field, possibly inside an op."""
    target = line
    if isinstance(line.get("ops"), list) and line["ops"] and data.draw(st.booleans()):
        target = line["ops"][data.draw(st.integers(0, len(line["ops"]) - 1))]
        if not isinstance(target, dict):
            return
    key = data.draw(st.sampled_from(sorted(target) + KEYS))
    if key in target and data.draw(st.booleans()):
        del target[key]
    else:
        target[key] = data.draw(json_values)


@settings(max_examples=examples(150, 40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_mutated_record_replays_or_is_a_replay_error(record, tmp_path, data):
    lines = lines_of(record)
    for _ in range(data.draw(st.integers(1, 3))):
        n = data.draw(st.integers(0, len(lines) - 1))
        what = data.draw(st.sampled_from(["field", "field", "drop", "copy", "swap"]))
        if what == "field":
            _mutate_line(lines[n], data)
        elif what == "drop":
            del lines[n]
        elif what == "copy":
            lines.insert(data.draw(st.integers(0, len(lines))), json.loads(json.dumps(lines[n])))
        else:
            m = data.draw(st.integers(0, len(lines) - 1))
            lines[n], lines[m] = lines[m], lines[n]
    if not lines:
        return
    with suppress(ReplayError):
        replay(rewrite(lines, tmp_path / "mutated.jsonl"))


@settings(max_examples=examples(150, 40), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_record_with_bytes_changed_replays_or_is_a_replay_error(record, tmp_path, data):
    raw = bytearray(record.read_bytes())
    junk = st.binary(min_size=1, max_size=8) | st.sampled_from([b"\xe9", b"\xff", b"\x00", b"\n", b"[" * 5000, b"{"])
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw)))
        raw[at : at + data.draw(st.integers(0, 3))] = data.draw(junk)
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(bytes(raw))
    with suppress(ReplayError):  # bytes changed outside any token (a space) may still replay
        replay(path)


def test_a_record_keeps_the_64_kib_of_stderr_the_referee_kept_and_counts_the_rest(tmp_path):
    # docs/protocol.md, Limits: the last 64 KiB of a bot's stderr are kept; the record holds all of them
    chatty = (
        "import runpy, sys; sys.stderr.write('x' * 100_000 + 'END'); sys.stderr.flush(); "
        "runpy.run_module('sample_bots.random', run_name='__main__')"
    )
    record = tmp_path / "r.jsonl"
    play_match("classic", [f"python -c {shlex.quote(chatty)}", RANDOM], 3, {"max_deals": 1}, record)
    (line,) = [x for x in map(json.loads, record.read_text().splitlines()) if x["type"] == "stderr"]
    assert line["seat"] == 0 and len(line["tail"]) == 64 * 1024 and line["tail"].endswith("END")
    assert line["dropped"] == 100_003 - 64 * 1024


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
@pytest.mark.parametrize("command", ["replay", "view"])
def test_an_endless_file_is_one_line_at_once(tmp_path, device, command):
    # issue 30, item 18: /dev/zero ran out of memory, /dev/urandom read for ever
    argv = [
        sys.executable,
        "-m",
        "referee",
        command,
        device,
        *(["-o", str(tmp_path / "x.html")] if command == "view" else []),
    ]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert r.returncode in (1, 2) and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith(f"romis: {device}: does not replay: line 1: not ") and r.stderr.count("\n") == 1


def test_a_record_with_a_line_beyond_the_bound_is_refused_by_its_size(tmp_path, monkeypatch):
    from referee import records

    monkeypatch.setattr(records, "MAX_RECORD_LINE", 1000)
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"type": "header"}\n' + b"x" * 5000)
    with pytest.raises(ReplayError, match="a line longer than"):
        records.read_record(path)
