"""`romis check`: a well-behaved bot passes every variant's decision kinds, each misbehaving bot fails and is named."""

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_e2e import BAD  # each misbehaving bot and the fault it makes

from protocol.messages import op_from_builtins
from referee.check import HYGIENE, base, check_position, declared, junit, positions, render_text, rig_deal, setup
from referee.cli import run
from referee.process.runner import Limits
from referee.rules.errors import IllegalAction
from referee.rules.variants import VARIANTS, find_variant

pytestmark = pytest.mark.e2e
GREEDY = "python -m sample_bots.greedy"


def romis(capsys, *args):
    """(exit code, stdout, stderr) of one in-process command line."""
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def valid_junit(path) -> ET.Element:
    """The root of a JUnit XML file, checked against the structure CI systems read (the Jenkins/Surefire schema's
    elements and attributes): testsuites > testsuite > testcase, whose only children are failure or skipped with a
    message; every count on a suite and on the root agrees with its testcases."""
    root = ET.parse(path).getroot()
    assert root.tag == "testsuites" and root.get("name")
    for suite in root:
        assert suite.tag == "testsuite" and suite.get("name")
        cases = list(suite)
        assert cases and all(c.tag == "testcase" and c.get("name") and c.get("classname") for c in cases)
        assert all(float(c.get("time", "")) >= 0 for c in cases)
        outcomes = [[x.tag for x in c] for c in cases]
        assert all(o in ([], ["failure"], ["skipped"]) for o in outcomes)
        assert all(x.get("message") for c in cases for x in c)
        counts = {k: int(suite.get(k, "")) for k in ("tests", "failures", "errors", "skipped")}
        assert counts == {
            "tests": len(cases),
            "failures": outcomes.count(["failure"]),
            "errors": 0,
            "skipped": outcomes.count(["skipped"]),
        }
    assert int(root.get("tests", "")) == sum(int(s.get("tests", "")) for s in root)
    assert int(root.get("failures", "")) == sum(int(s.get("failures", "")) for s in root)
    return root


RARE = ["may-i", "elimination", "orija", "mississippi", "boathouse"]


def test_greedy_passes_the_rare_kinds_and_the_junit_parses(capsys, tmp_path):
    junit = tmp_path / "check.xml"
    args = ["check", GREEDY, *(a for v in RARE for a in ("--variant", v)), "--junit", str(junit), "--json"]
    code, out, err = romis(capsys, *args)
    assert code == 0, err
    report = json.loads(out)
    assert report["passed"] and [v["variant"] for v in report["variants"]] == RARE
    kinds = {v["variant"]: {k["kind"]: k for k in v["kinds"]} for v in report["variants"]}
    assert kinds["may-i"]["claim/claim"]["decisions"] > 0  # a claim window
    assert kinds["elimination"]["show/round"]["decisions"] > 0  # a sealed reveal
    assert kinds["orija"]["bid/buy"]["decisions"] > 0  # a bid
    assert kinds["mississippi"]["buyback/between-deals"]["source"] == "crafted"  # a between-deals decision
    assert kinds["boathouse"]["turn/declare/final"]["source"] == "crafted"  # a final turn
    assert all(k["passed"] for v in kinds.values() for k in v.values())
    assert all(k["wall_p50"] <= k["wall_p95"] <= k["wall_max"] for v in kinds.values() for k in v.values())
    root = valid_junit(junit)
    assert root.get("failures") == "0"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == RARE
    names = [c.get("name") for c in suites[3].findall("testcase")]
    assert names[0] == "handshake" and "buyback/between-deals" in names
    assert int(root.get("tests")) == sum(len(s.findall("testcase")) for s in suites)


def test_a_declared_kind_no_playout_reaches_is_a_skipped_testcase():
    kind = {"kind": "turn/draw", "source": "match", "decisions": 3, "illegal": [], "faults": [], "passed": True}
    handshake = {"passed": True, "seconds": 0.1, "name": "x"}
    variant = {"variant": "liverpool", "handshake": handshake, "kinds": [kind], "unreached": ["claim/claim"]}
    suite = ET.fromstring(junit({"variants": [variant]})).find("testsuite")
    assert suite.get("tests") == "4" and suite.get("skipped") == "1" and suite.get("failures") == "0"
    (case,) = [c for c in suite.iter("testcase") if c.find("skipped") is not None]
    assert case.get("name") == "claim/claim"


@pytest.mark.parametrize("slug", sorted(VARIANTS))
def test_the_position_search_reaches_every_declared_kind(slug):
    cls = find_variant(slug)
    found = {base(k) for k in positions(cls, 1, set())}
    assert [k for k in declared(cls) if k not in found] == []


def deck(game) -> list[str]:
    """Every card of a draw-and-discard game's deal: hands, stock and pile."""
    return sorted([*(c for h in game.hands for c in h), *game.stock, *game.piles[0]])


RIGGED = [(slug, t) for slug in sorted(VARIANTS) for t in find_variant(slug).CHECK_TABLES if "rig" in t]


@pytest.mark.parametrize("slug,table", RIGGED, ids=[slug for slug, _ in RIGGED])
def test_a_rigged_deal_gives_seat_0_its_cards_and_keeps_the_deck_whole(slug, table):
    cls, rig = find_variant(slug), table["rig"]
    game = setup(cls, {"players": cls.min_players, **table}, 1)
    dealt = cls(game.n, game.opts, game.seed)  # the same deal, not rigged
    assert deck(game) == deck(dealt) and game.to_act() == [0]
    assert set(rig.get("hand", "").split()) <= set(game.hands[0]) and len(game.hands[0]) == len(dealt.hands[0])
    assert game.piles[0][-1:] == ([rig["discard"]] if "discard" in rig else dealt.piles[0][-1:])  # carousel: none
    assert len(game.stock) == rig.get("stock", len(dealt.stock))
    draws = rig.get("draws", "").split()
    assert game.stock[len(game.stock) - len(draws) :][::-1] == draws  # drawn next, in order
    (deal,) = [e.data for e in game.log if e.data.get("type") == "deal"]
    assert deal["starter"] == game.piles[0][-1:]  # what the bot is told was turned up


# every misbehaving bot (its arguments, the variant it is checked on) and the fault or finding check must name; the
# protocol faults are test_e2e's. netprobe is not here: check has no --no-network, and a bot that only probes
# the network is not otherwise at fault
MISBEHAVING = {
    **{bot: ("", "classic", fault) for bot, fault in BAD.items()},
    "exit_now": ("", "classic", "crash|broken_pipe"),  # it dies before ready: either end of its pipes may show it
    "escapee": ("", "classic", "crash"),  # three moves, then it exits (its detached daemon dies with the sandbox)
    "sleepy": (" inf", "classic", "timeout"),
    "chaos": (" --kind garbage --after 2", "classic", "malformed"),
    "hostile": (" deep-array", "classic", "malformed"),
    "claimer": (" 5", "may-i", "timeout"),  # it sleeps through its first claim window
    "background": ("", "classic", "left_processes"),  # its spinner child outlives it (seen under --sandbox none)
    "forker": ("", "classic", "left_processes"),
    "deaf": ("", "classic", "ignores_shutdown"),
    "burn": ("", "classic", "busy_wait"),
    "stale": ("", "classic", "stale_reply"),
    "stderr_flood": ("", "classic", "stderr_flood"),
}


# in the sandbox a bot's leftovers die with it, so check can judge them only without one
UNSANDBOXED = {"background", "forker"}


def named(report: dict) -> set[str]:
    """Every fault and finding a --json report names: handshake and decision faults, illegal plays, hygiene."""
    out = {f["finding"] for v in report["variants"] for f in v["hygiene"]}
    out |= {v["handshake"]["fault"].split(":")[0] for v in report["variants"] if not v["handshake"]["passed"]}
    for k in (k for v in report["variants"] for k in v["kinds"]):
        out |= {x["fault"].split(":")[0] for x in k["faults"]} | ({"illegal"} if k["illegal"] else set())
    return out


def test_every_misbehaving_bot_is_in_the_table():
    bots = {p.stem for p in (Path(__file__).parent.parent / "sample_bots" / "bad").glob("[a-z]*.py")}
    assert bots - {"netprobe", "spy"} == set(MISBEHAVING)  # the spy is test_security's
    assert set(HYGIENE) <= {fault for _, _, fault in MISBEHAVING.values()}  # each finding has its bot


@pytest.mark.parametrize("bot", sorted(MISBEHAVING))
def test_a_misbehaving_bot_fails_and_its_fault_is_named(capsys, tmp_path, bot):
    args, variant, fault = MISBEHAVING[bot]
    junit = tmp_path / "check.xml"
    bad = f"{sys.executable} -m sample_bots.bad.{bot}{args}"
    flags = ["--sandbox", "none"] if bot in UNSANDBOXED else []
    code, out, err = romis(
        capsys, "check", bad, "--variant", variant, "--move-time", "0.5", "--junit", str(junit), "--json", *flags
    )
    assert code == 1, err
    report = json.loads(out)
    text = render_text(report)  # what check prints without --json
    names = fault.split("|")
    assert not report["passed"] and set(names) & named(report)
    assert "FAILED" in text and any(n in text for n in names)
    if bot == "exit_now":  # it dies before ready: the handshake fails and nothing else is asked
        assert "handshake: FAILED" in text and "turn/" not in text
    if bot == "illegal":
        assert "illegal play (rule hand.missing-card)" in text
    failures = [f.get("message") or "" for f in valid_junit(junit).iter("failure")]
    assert any(n in m for m in failures for n in names)


def test_an_illegal_play_comes_with_a_replayable_position(capsys):
    code, out, _ = romis(capsys, "check", f"{sys.executable} -m sample_bots.bad.illegal", "--json")
    assert code == 1
    (variant,) = json.loads(out)["variants"]
    (play,) = [x for k in variant["kinds"] for x in k["illegal"]]
    pos = play["position"]
    assert play["rule"] == "hand.missing-card" and pos["variant"] == "classic" and pos["seed"] == 1
    assert pos["ops"][0]["card"] not in pos["view"]["hand"]  # the very play, against the hand it was made from
    game = find_variant(pos["variant"])(pos["players"], pos["options"], pos["seed"])
    if pos["rig"]:
        rig_deal(game, pos["rig"])
    for seat, ops in pos["actions"]:  # the plays before it rebuild the position
        game.apply(seat, [op_from_builtins(op) for op in ops])
    assert game.view(0) == pos["view"]
    with pytest.raises(IllegalAction) as illegal:
        game.apply(0, [op_from_builtins(op) for op in pos["ops"]])
    assert illegal.value.rule == "hand.missing-card"


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


def test_a_crafted_position_whose_bot_dies_before_ready_fails_with_the_fault_named():
    game = find_variant("classic")(2, {}, 1)
    bad = f"{sys.executable} -m sample_bots.bad.exit_now"
    row, _ = check_position(
        bad, (game, [], {"players": 2}), "turn/draw", Limits(move_time=2.0, bank=0.0, startup_time=10.0)
    )
    assert not row["passed"] and row["decisions"] == 0
    assert row["faults"][0]["fault"].split(":")[0] in ("crash", "broken_pipe")
