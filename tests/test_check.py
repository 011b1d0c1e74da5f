"""`romis check`: a well-behaved bot passes every variant's decision kinds, each misbehaving bot fails and is named."""

import json
import sys
import xml.etree.ElementTree as ET

import pytest

from referee.cli import run

pytestmark = pytest.mark.e2e
GREEDY = "python -m sample_bots.greedy"
BAD = {
    "crash": "crash",
    "hang": "timeout",
    "garbage": "malformed",
    "bigline": "line_too_long",
    "exit_now": "crash",
    "late": "timeout",
    "illegal": "illegal",
    "unknown": "unknown_message",
}


def romis(capsys, *args):
    """(exit code, stdout, stderr) of one in-process command line."""
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_greedy_passes_with_the_rare_kinds_crafted_and_junit_that_parses(capsys, tmp_path):
    junit = tmp_path / "check.xml"
    args = ["check", GREEDY, "--variant", "may-i", "--variant", "tariff-bridge", "--junit", str(junit), "--json"]
    code, out, err = romis(capsys, *args)
    assert code == 0, err
    report = json.loads(out)
    assert report["passed"] and [v["variant"] for v in report["variants"]] == ["may-i", "tariff-bridge"]
    kinds = {v["variant"]: {k["kind"]: k for k in v["kinds"]} for v in report["variants"]}
    assert kinds["may-i"]["claim/claim"]["decisions"] > 0  # a claim window
    assert kinds["tariff-bridge"]["reenter/between-deals"]["source"] == "crafted"  # a between-deals decision
    assert kinds["tariff-bridge"]["turn/play/final"]["passed"]  # a final round
    assert all(k["wall_p50"] <= k["wall_p95"] <= k["wall_max"] for v in kinds.values() for k in v.values())
    root = ET.parse(junit).getroot()
    assert root.tag == "testsuites" and root.get("failures") == "0"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["may-i", "tariff-bridge"]
    names = [c.get("name") for c in suites[1].findall("testcase")]
    assert names[0] == "handshake" and "reenter/between-deals" in names
    assert int(root.get("tests")) == sum(len(s.findall("testcase")) for s in suites)


@pytest.mark.parametrize("slug,kind", [("elimination", "show/"), ("orija", "bid/"), ("mississippi", "buyback/")])
def test_the_sealed_reveal_bid_and_buyback_decisions_are_reached(capsys, slug, kind):
    code, out, err = romis(capsys, "check", GREEDY, "--variant", slug, "--json")
    assert code == 0, err
    (variant,) = json.loads(out)["variants"]
    assert any(k["kind"].startswith(kind) and k["passed"] and k["decisions"] for k in variant["kinds"])


@pytest.mark.parametrize("bot,fault", sorted(BAD.items()))
def test_a_misbehaving_bot_fails_and_its_fault_is_named(capsys, tmp_path, bot, fault):
    junit = tmp_path / "check.xml"
    bad = f"{sys.executable} -m sample_bots.bad.{bot}"
    code, out, err = romis(capsys, "check", bad, "--move-time", "0.5", "--junit", str(junit))
    assert code == 1, err
    named = ("crash", "broken_pipe") if bot == "exit_now" else (fault,)
    assert "FAILED" in out and any(n in out for n in named)
    if bot == "exit_now":  # it dies before ready: the handshake fails and nothing else is asked
        assert "handshake: FAILED" in out and "turn/" not in out
    if bot == "illegal":
        assert "illegal play (rule hand.missing-card)" in out
    failures = [f.get("message") for f in ET.parse(junit).getroot().iter("failure")]
    assert failures and any(n in m for m in failures for n in named)


def test_an_illegal_play_comes_with_a_replayable_position(capsys):
    code, out, _ = romis(capsys, "check", f"{sys.executable} -m sample_bots.bad.illegal", "--json")
    assert code == 1
    (variant,) = json.loads(out)["variants"]
    (play,) = [x for k in variant["kinds"] for x in k["illegal"]]
    pos = play["position"]
    assert play["rule"] == "hand.missing-card" and pos["variant"] == "classic" and pos["seed"] == 1
    assert pos["ops"][0]["card"] not in pos["view"]["hand"]  # the very play, against the hand it was made from


@pytest.mark.parametrize(
    "args,line",
    [
        (["check", "no-such-bot-program"], "not found"),
        (["check", GREEDY, "--variant", "rumy"], "unknown variant"),
        (["check", GREEDY, "--all", "--variant", "gin"], "not both"),
        (["check", GREEDY, "--junit", "/no/such/dir/x.xml"], "no such directory"),
        (["check", GREEDY, "--move-time", "0"], "--move-time"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, args, line):
    code, out, err = romis(capsys, *args)
    assert code == 2 and line in err and len(err.strip().splitlines()) == 1 and out == ""
