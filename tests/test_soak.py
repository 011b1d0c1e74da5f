"""The chaos bot misbehaves exactly when told, with the fault expected against its seat; a mini soak passes."""

import importlib.util
import json
import re
import sys
from pathlib import Path

import procs
import pytest

from referee.play import play_match
from referee.process.runner import Limits
from sample_bots.bad.chaos import _FLOOD, EXPECTED, FORK_CAP, KINDS

ROOT = Path(__file__).resolve().parent.parent
AFTER = 3  # legal replies before the chaos seat misbehaves
MINI = 6  # matches of the mini soak


def load_soak():
    """bench/soak.py as a module (bench/ is not a package)."""
    spec = importlib.util.spec_from_file_location("soak", ROOT / "bench" / "soak.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def chaos_match(tmp_path: Path, kind: str, after: int = AFTER) -> tuple[dict, list[dict]]:
    """A two-seat classic match, seat 1 the chaos bot; (the result summary, the record's lines)."""
    record = tmp_path / f"{kind}.jsonl"
    bots = [
        f"{sys.executable} -m sample_bots.random",
        f"{sys.executable} -m sample_bots.bad.chaos --kind {kind} --after {after} --seed 5",
    ]
    out = play_match("classic", bots, 11, {"max_deals": 2}, record, move_time=0.5, bank=0.5, startup_time=5.0)
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    return out.summary(), lines


def seat_actions(lines: list[dict], seat: int) -> list[dict]:
    """The plays the bot at `seat` made itself: its actions before a fault (after one, the fallback plays)."""
    end = next((n for n, x in enumerate(lines) if x["type"] == "fault" and x["seat"] == seat), len(lines))
    return [x for x in lines[:end] if x["type"] == "action" and x["seat"] == seat]


def stderr_of(lines: list[dict], seat: int) -> dict:
    return next(x for x in lines if x["type"] == "stderr" and x["seat"] == seat)


def announced_request(lines: list[dict]) -> int:
    """The request id at which the chaos bot said (on stderr) that it misbehaved."""
    found = re.findall(r"chaos: \w+ at request (\d+)", stderr_of(lines, 1)["tail"])
    assert len(found) == 1, stderr_of(lines, 1)["tail"]
    return int(found[0])


@pytest.mark.parametrize("kind", [k for k in KINDS if EXPECTED[k] is not None])
def test_a_faulting_kind_faults_after_exactly_the_legal_replies_it_was_told(tmp_path, kind):
    summary, lines = chaos_match(tmp_path, kind)
    assert [s["fault"] for s in summary["seats"]] == [None, EXPECTED[kind]]
    actions = seat_actions(lines, 1)
    assert [a["verdict"] for a in actions[:AFTER]] == ["ok"] * AFTER
    # an illegal play is recorded (and rejected); the other kinds never answer request AFTER + 1
    assert len(actions) == AFTER + (kind == "illegal")
    assert [x["kind"] for x in lines if x["type"] == "fault"] == [EXPECTED[kind]]
    assert procs.leftovers() == []


def test_stderr_flood_starts_at_the_request_it_was_told_and_the_match_goes_on(tmp_path):
    summary, lines = chaos_match(tmp_path, "stderr_flood")
    assert [s["fault"] for s in summary["seats"]] == [None, None]
    actions = seat_actions(lines, 1)
    assert len(actions) > AFTER + 1 and all(a["verdict"] == "ok" for a in actions)
    err = stderr_of(lines, 1)
    announce = len(f"chaos: stderr_flood at request {actions[AFTER]['id']}\n")
    # one flood before each reply from the (AFTER + 1)-th on, and nothing before it; the referee kept at most
    # stderr_cap bytes of it (a flood is far larger, so the count of floods is pinned exactly)
    written = announce + (len(actions) - AFTER) * len(_FLOOD)
    assert written - Limits().stderr_cap <= err["dropped"] <= written - len(err["tail"])


def test_forkbomb_forks_up_to_its_cap_at_the_request_it_was_told_and_every_child_dies(tmp_path):
    summary, lines = chaos_match(tmp_path, "forkbomb")
    assert [s["fault"] for s in summary["seats"]] == [None, None]
    actions = seat_actions(lines, 1)
    assert announced_request(lines) == actions[AFTER]["id"]
    assert f"chaos: forked {FORK_CAP} children" in stderr_of(lines, 1)["tail"]
    assert procs.leftovers() == []


def test_escapee_leaves_its_session_at_the_request_it_was_told_and_is_found_by_its_token(tmp_path):
    summary, lines = chaos_match(tmp_path, "escapee")
    left = procs.leftovers(1.0)
    procs.kill(left)  # until the referee catches escapees (a PID namespace), the soak counts this one
    assert [s["fault"] for s in summary["seats"]] == [None, None]
    assert announced_request(lines) == seat_actions(lines, 1)[AFTER]["id"]
    assert len(left) <= 1 and all("chaos --kind escapee" in p.cmd for p in left)
    assert procs.wait_until(lambda: procs.marked() == [])


def test_after_zero_misbehaves_on_the_first_request(tmp_path):
    summary, lines = chaos_match(tmp_path, "garbage", after=0)
    assert summary["seats"][1]["fault"] == "malformed"
    assert seat_actions(lines, 1) == []


def test_a_mini_soak_passes_and_prints_its_figures():
    soak = load_soak()
    said: list[str] = []
    # every kind but the escapee, which the referee cannot catch yet (the soak reports it as a leftover)
    kinds = ",".join(k for k in KINDS if k != "escapee")
    # seed 10: six matches of six variants that inject seven of the eight kinds (all but hang, which only waits)
    args = soak.parse_args(["--matches", str(MINI), "--seed", "10", "--kinds", kinds, "--max-deals", "1"])
    totals = soak.soak(args, said.append)
    assert not totals.failed(), "\n".join(said)
    assert totals.matches == MINI and len(totals.by_variant) == MINI
    assert sum(totals.injected.values()) >= MINI
    text = "\n".join(said)
    for figure in ("referee crashes: 0", "leftover processes: 0", "records that fail replay: 0"):
        assert figure in text
    assert re.search(r"faults by kind: \d+ \(", text) and "total time:" in text


def test_the_soak_fails_when_a_match_leaves_a_process_behind():
    soak = load_soak()
    plan = soak.plan_match(0, 0, ["escapee"])
    totals = soak.Totals()
    totals.add(soak.Report(plan, leftovers=["python -m sample_bots.bad.chaos --kind escapee"]))
    assert totals.failed()
    lines = soak.summary(totals, 1.0)
    assert "leftover processes: 1 (must be 0)" in lines
    assert "  by the bot that left them: escapee 1" in lines
