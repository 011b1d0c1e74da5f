"""Out-of-turn claims end to end: real subprocess bots race for a discard, one times out (rules/may-i.md,
Special rules, "May I?"; the referee protocol of Ambiguities 2 and 18)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from procs import leftovers

from protocol.messages import op_from_builtins
from referee.rules.variants import find_variant

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parent.parent
CLAIMER = "python -m sample_bots.bad.claimer"
SHORT = ["--option", "max_turns_per_deal=12"]  # a few claim windows per deal are enough


def romis(*args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def apply(game, action):
    game.apply(action["seat"], [op_from_builtins(o) for o in action["ops"]])


def lines(path):
    return [json.loads(x) for x in Path(path).read_text().splitlines()]


def first_window(record):
    """The action lines of the first claim window in which somebody claimed, and the game just before it."""
    header = record[0]
    game = find_variant(header["variant"])(len(header["seats"]), header["options"], header["seed"])
    acts = [x for x in record if x["type"] == "action"]
    for i, a in enumerate(acts):
        if a["kind"] == "claim" and a["phase"] == "claim" and a["ops"][0]["op"] == "claim":
            start = i
            while acts[start - 1]["kind"] == "claim" and acts[start - 1]["phase"] == "claim":
                start -= 1
            break
        apply(game, a)
    else:
        pytest.fail("no claim in the record")
    return game, acts[start:]


def test_claim_race_goes_to_the_nearest_claimant_with_its_penalty_card(tmp_path):
    rec = tmp_path / "race.jsonl"
    r = romis("play", "may-i", *(["--bot", CLAIMER] * 4), "--seed", "3", "--record", str(rec), *SHORT, "--json")
    assert r.returncode == 0, r.stderr
    record = lines(rec)
    game, acts = first_window(record)
    # the window is asked of every seat but the discarder and the next player
    claimers = [a["seat"] for a in acts[:2]]
    assert acts[2]["phase"] != "claim"
    assert len(claimers) == 2 and sorted(claimers) == sorted(game.to_act())
    nearest = min(claimers, key=lambda s: (s - game.turn) % 4)
    before = [len(h) for h in game.hands]
    top = game.piles[0][-1]
    for a in acts[:2]:
        apply(game, a)
    assert acts[2]["seat"] == game.turn and acts[2]["phase"] == "priority" and acts[2]["ops"] == [{"op": "pass"}]
    apply(game, acts[2])
    # the nearest claimant took the card and one stock card, and is asked to discard; the other got nothing
    assert top in game.hands[nearest] and len(game.hands[nearest]) == before[nearest] + 2
    other = next(s for s in claimers if s != nearest)
    assert len(game.hands[other]) == before[other]
    assert acts[3]["seat"] == nearest and (acts[3]["kind"], acts[3]["phase"]) == ("claim", "discard")
    assert all(a["verdict"] == "ok" for a in acts[:4])
    assert romis("replay", str(rec)).returncode == 0


def test_claimant_that_times_out_is_faulted_and_the_claim_resolves_without_it(tmp_path):
    rec = tmp_path / "slow.jsonl"
    bots = ["--bot", CLAIMER, "--bot", CLAIMER, "--bot", f"{CLAIMER} 30", "--bot", CLAIMER]
    r = romis("play", "may-i", *bots, "--seed", "3", "--record", str(rec), "--move-time", "0.5", "--bank", "0", *SHORT)
    assert r.returncode == 0, r.stderr
    record = lines(rec)
    faults = [x for x in record if x["type"] == "fault"]
    assert [(f["seat"], f["kind"]) for f in faults] == [(2, "timeout")]
    acts = [x for x in record if x["type"] == "action"]
    at = next(i for i, a in enumerate(acts) if a["seat"] == 2 and a["verdict"] == "fallback")
    assert acts[at]["kind"] == "claim" and acts[at]["ops"] == [{"op": "pass"}]  # its claim lapses
    assert record[-1]["type"] == "result" and record[-1]["faults"][2] == "timeout"
    assert romis("replay", str(rec)).returncode == 0
    assert not leftovers()


BOTS = ["python -m sample_bots.greedy", "python -m sample_bots.random", "node sample_bots/js/random.js"]
CONTRACT_GAMES = [("may-i", 3, 5), ("may-i", 5, 2), ("contract", 3, 2), ("contract", 8, 1), ("liverpool", 8, 1)]


@pytest.mark.parametrize("variant,players,deals", CONTRACT_GAMES)
def test_contract_games_with_the_sample_bots_finish_and_replay(tmp_path, variant, players, deals):
    """Issue 10, acceptance: the three sample bots play whole deals at the smallest and largest tables without a
    fault, the record holds claims, and `romis replay` accepts it."""
    rec = tmp_path / "r.jsonl"
    bots = [a for i in range(players) for a in ("--bot", BOTS[i % 3])]
    r = romis("play", variant, *bots, "--seed", "5", "--record", str(rec), "--option", f"max_deals={deals}", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert all(s["fault"] is None for s in out["seats"]), out["seats"]
    record = lines(rec)
    assert sum(1 for x in record if x["type"] == "deal_over") == deals
    assert any(x["type"] == "action" and x["kind"] == "claim" for x in record)
    ok = romis("replay", str(rec))
    assert ok.returncode == 0, ok.stderr
