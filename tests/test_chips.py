"""The chips ledger (referee/rules/chips.py): moves, conservation, stakes, and a chips game's results and events."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.messages import Bid, Pass
from referee.rules.chips import BANK, Ledger, Move
from referee.rules.variants import VARIANTS
from sample_bots.brain import Brain

ROOT = Path(__file__).resolve().parent.parent


def test_moves_conserve_chips_and_track_stakes():
    ledger = Ledger.open(3).apply([Move(0, BANK, 2, "ante"), Move(1, BANK, 2, "ante"), Move(2, 0, 4, "condition")])
    assert ledger.chips == (2, -2, -4) and ledger.bank == 4 and ledger.staked == (2, 2, 0)
    assert ledger.total() == 0
    won = ledger.apply([Move(BANK, 1, 4, "win")])
    assert won.chips == (2, 2, -4) and won.bank == 0 and won.staked == (0, 0, 0)


def test_the_bank_cannot_pay_out_more_than_it_holds_and_amounts_are_not_negative():
    with pytest.raises(ValueError):
        Ledger.open(2).apply([Move(BANK, 0, 1, "win")])
    with pytest.raises(ValueError):
        Ledger.open(2).apply([Move(0, 1, -1, "pay")])


def playout(n, seed, options=None):
    game = VARIANTS["panguingue"](n, options or {}, seed)
    brains = [Brain("panguingue", n, game.opts, greedy=bool(s % 2), seed=seed * 7 + s) for s in range(n)]
    while not game.is_over():
        for seat in game.to_act():
            game.apply(seat, brains[seat].choose(game.decision(seat), game.view(seat)))
            assert game.ledger.total() == 0
            view = game.view(seat)
            assert view["bank"] + sum(view["chips"]) == 0
    return game


def test_a_chips_game_reports_balances_bank_and_unit_and_its_totals_are_the_balances():
    game = playout(4, 3, {"match_deals": 3})
    result = game.result()
    assert result["unit"] == "chips" and result["totals"] == result["chips"]
    assert result["bank"] == 0 and sum(result["chips"]) == 0
    assert game.ranks(result["totals"]) == result["ranks"]
    bank = 0
    for deal in result["deals"]:  # each deal's scores are the net chips moved in it, and say what moved
        assert sum(deal["scores"]) == bank - deal["bank"], "what the seats won together the bank lost"
        bank = deal["bank"]
        moved = deal["moved"]
        assert [sum(col) for col in zip(*moved.values())] == deal["scores"] if moved else not any(deal["scores"])
        assert deal["chips"] == deal["totals"]


def test_every_move_is_one_public_chips_event_with_the_balances_after_it():
    game = playout(3, 5, {"match_deals": 2})
    events = [e for e in game.events_since(0, 0)[0] if e["type"] == "chips"]
    assert events, "a chips game moves chips"
    for e in events:
        assert e["moves"] and all(set(m) == {"from", "to", "amount", "reason"} for m in e["moves"])
        assert e["bank"] + sum(e["chips"]) == 0
    antes = [m for e in events for m in e["moves"] if m["reason"] == "ante"]
    assert antes and all(m["to"] == "bank" and m["amount"] == 2 for m in antes)


def test_a_void_deal_returns_the_antes():
    game = VARIANTS["panguingue"](3, {"match_deals": 2}, 1)
    first = game.to_act()[0]
    game.apply(first, [Bid("join")])
    assert game.ledger.bank == 2 and game.ledger.chips[first] == -2
    for _ in range(2):
        game.apply(game.to_act()[0], [Pass()])
    deal = game.result()["deals"][0]
    assert deal["void"] and deal["winner"] is None and deal["scores"] == [0, 0, 0] and deal["bank"] == 0
    assert game.ledger.chips == (0, 0, 0)


def test_the_bank_left_at_the_end_of_the_match_goes_back_to_who_paid_it():
    # one deal of two turns: nobody can go out, the bank carries over, and the match ends with it in the ledger
    game = playout(3, 2, {"match_deals": 1, "max_turns_per_deal": 2})
    deal = game.result()["deals"][0]
    assert deal["winner"] is None and not deal["void"] and deal["bank"] == 0 and game.result()["bank"] == 0
    refunds = deal["moved"].get("refund", [0, 0, 0])
    assert [-a for a in deal["moved"]["ante"]] == refunds


@pytest.mark.e2e
def test_romis_play_prints_the_chips_and_the_bank_and_the_record_keeps_them(tmp_path):
    root, rec = Path(__file__).resolve().parent.parent, tmp_path / "m.jsonl"
    bots = ["--bot", "python -m sample_bots.greedy", "--bot", "python -m sample_bots.random"]

    def romis(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "referee", *args], cwd=root, capture_output=True, text=True)

    text = romis("play", "panguingue", *bots, "--seed", "3", "--option", "match_deals=2", "--record", str(rec))
    assert text.returncode == 0, text.stderr
    assert "  chips  " in text.stdout.splitlines()[-4] and text.stdout.splitlines()[-1].startswith("bank: ")
    assert "; bank " in text.stdout
    out = json.loads(romis("play", "panguingue", *bots, "--seed", "3", "--option", "match_deals=2", "--json").stdout)
    assert out["unit"] == "chips" and out["bank"] == 0
    lines = [json.loads(x) for x in rec.read_text().splitlines()]
    result = next(x for x in lines if x["type"] == "result")
    assert result["unit"] == "chips" and result["chips"] == result["totals"] and result["bank"] == 0
    assert all({"chips", "bank", "moved"} <= set(x["detail"]) for x in lines if x["type"] == "deal_over")
    assert romis("replay", str(rec)).returncode == 0


@pytest.mark.e2e
def test_a_panguingue_tournament_ranks_by_net_chips_and_every_report_shows_them(tmp_path):
    conf = tmp_path / "t.toml"
    conf.write_text(
        'variant = "panguingue"\nseats = 3\ndeal_sets = 1\nseed = 4\nconcurrency = 2\n'
        "options = { match_deals = 2 }\n"
        + "".join(f'[[entrants]]\nname = "{n}"\ncommand = "python -m sample_bots.{n}"\n' for n in ("random", "greedy"))
        + f'[[entrants]]\nname = "js"\ncommand = "node {ROOT / "sample_bots/js/random.js"}"\n'
    )
    db = tmp_path / "r.db"
    run = subprocess.run(
        [sys.executable, "-m", "referee", "tournament", "run", str(conf), "--db", str(db)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "net chips" in run.stdout and "played for chips" in run.stdout

    def report(fmt):
        r = subprocess.run(
            [sys.executable, "-m", "referee", "tournament", "report", str(db), "--format", fmt],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert r.returncode == 0, r.stderr
        return r.stdout

    rep = json.loads(report("json"))
    assert rep["unit"] == "chips"
    chips = [e["net_chips"] for e in rep["entrants"]]
    assert chips == sorted(chips, reverse=True), "the standings are ordered by net chips"
    assert sum(chips) == 0, "chips only move between the entrants (the bank is refunded at the end)"
    with sqlite3.connect(db) as con:
        stored = dict(con.execute("SELECT entrant, SUM(score) FROM seats GROUP BY entrant"))
    assert {e["name"]: e["net_chips"] for e in rep["entrants"]} == pytest.approx(stored)
    assert "net chips" in report("html") and "net_chips" in report("csv").splitlines()[0]
