"""Tournaments end to end: real bots, a real SQLite database, interruption by SIGKILL and resume."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from procs import leftovers

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
SAMPLES = [
    "greedy=python -m sample_bots.greedy",
    "random=python -m sample_bots.random",
    f"js=node {ROOT}/sample_bots/js/random.js",
]


def tournament(*args, timeout=600):
    return subprocess.run(
        [PY, "-m", "referee", "tournament", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def entrants(*specs):
    return [a for s in specs for a in ("--entrant", s)]


def report(db, fmt="json"):
    r = tournament("report", str(db), "--format", fmt)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout) if fmt == "json" else r.stdout


def stored_games(db):
    """(games, seats) stored so far; (0, 0) while the database is still being created."""
    try:
        with sqlite3.connect(db) as con:
            return (
                con.execute("SELECT count(*) FROM games").fetchone()[0],
                con.execute("SELECT count(*) FROM seats").fetchone()[0],
            )
    except sqlite3.OperationalError:
        return 0, 0


def test_round_robin_of_sample_bots_prints_standings_and_keeps_results(tmp_path):
    db, rec = tmp_path / "r.db", tmp_path / "records"
    r = tournament(
        "run",
        *entrants(*SAMPLES),
        "--variant",
        "classic",
        "--seats",
        "3",
        "--deal-sets",
        "1",
        "--seed",
        "5",
        "--db",
        str(db),
        "--records",
        str(rec),
        "--concurrency",
        "2",
    )
    assert r.returncode == 0, r.stderr
    for name in ("greedy", "random", "js"):
        assert name in r.stdout
    assert stored_games(db) == (3, 9)  # one table of three, three rotations
    assert len(list(rec.glob("*.jsonl"))) == 3
    rows = {e["name"]: e for e in report(db)["entrants"]}
    assert set(rows) == {"greedy", "random", "js"} and all(e["games"] == 3 for e in rows.values())
    replay = subprocess.run(
        [PY, "-m", "referee", "replay", str(next(rec.glob("*.jsonl")))], capture_output=True, text=True
    )
    assert replay.returncode == 0, replay.stderr


def test_sigkill_then_resume_gives_the_standings_of_an_uninterrupted_run(tmp_path):
    args = [
        *entrants(*SAMPLES),
        "--variant",
        "classic",
        "--seats",
        "2",
        "--deal-sets",
        "3",
        "--seed",
        "9",
        "--concurrency",
        "2",
    ]
    whole = tmp_path / "whole.db"
    assert tournament("run", *args, "--db", str(whole)).returncode == 0
    cut = tmp_path / "cut.db"
    proc = subprocess.Popen(
        [PY, "-m", "referee", "tournament", "run", *args, "--db", str(cut)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.time() + 120
    while time.time() < deadline:
        time.sleep(0.2)
        if cut.exists() and stored_games(cut)[0] >= 4:
            break
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    part = stored_games(cut)[0]
    assert 4 <= part < 18, "the kill must land part-way"
    r = tournament("run", *args, "--db", str(cut))
    assert r.returncode == 0, r.stderr
    assert f"resuming: {part} of 18" in r.stderr
    assert stored_games(cut) == stored_games(whole) == (18, 36)
    assert untimed(report(cut)) == untimed(report(whole))


def untimed(rep):
    """A JSON report without the wall-clock figures, which differ from run to run."""
    for e in rep["entrants"]:
        e.pop("decision_time")
    return rep


def test_a_misbehaving_entrant_is_counted_and_the_others_are_unaffected(tmp_path):
    db, config = tmp_path / "r.db", tmp_path / "t.toml"
    people = [
        ("greedy", "python -m sample_bots.greedy"),
        ("random", "python -m sample_bots.random"),
        ("crash", "python -m sample_bots.bad.crash"),
        ("cheat", "python -m sample_bots.bad.illegal"),
        ("hang", "python -m sample_bots.bad.hang"),
    ]
    config.write_text(
        'variant = "classic"\nseats = 2\ndeal_sets = 1\nseed = 3\nconcurrency = 2\n'
        "[limits]\nmove_time = 0.5\nbank = 0.5\n"
        + "".join(f'[[entrants]]\nname = "{n}"\ncommand = "{c}"\n' for n, c in people)
    )
    r = tournament("run", str(config), "--db", str(db))
    assert r.returncode == 0, r.stderr
    rows = {e["name"]: e for e in report(db)["entrants"]}
    assert rows["crash"]["faults"] == {"crash": rows["crash"]["games"]}
    assert rows["cheat"]["faults"] == {"illegal": rows["cheat"]["games"]}
    assert rows["hang"]["faults"] == {"timeout": rows["hang"]["games"]}
    assert rows["greedy"]["faults"] == {} and rows["random"]["faults"] == {}
    with sqlite3.connect(db) as con:  # greedy against random: no fault in any of their games
        faults = con.execute(
            "SELECT count(*) FROM seats s JOIN seats o ON s.game = o.game AND s.seat != o.seat "
            "WHERE s.entrant = 'greedy' AND o.entrant = 'random' AND (s.fault IS NOT NULL OR o.fault IS NOT NULL)"
        ).fetchone()[0]
    assert faults == 0
    assert "crash" in report(db, "table")


def test_greedy_is_rated_clearly_above_random(tmp_path):
    db = tmp_path / "r.db"
    r = tournament(
        "run",
        *entrants(SAMPLES[0], SAMPLES[1]),
        "--variant",
        "classic",
        "--seats",
        "2",
        "--deal-sets",
        "20",
        "--seed",
        "1",
        "--concurrency",
        "2",
        "--db",
        str(db),
    )
    assert r.returncode == 0, r.stderr
    rows = {e["name"]: e["rating"] for e in report(db)["entrants"]}
    g, rnd = rows["greedy"], rows["random"]
    assert g["mu"] - 2 * g["sigma"] > rnd["mu"] + 2 * rnd["sigma"], rows


@pytest.mark.parametrize(
    "args,words",
    [
        (["run", "/nonexistent.toml"], "cannot read"),
        (["run", "--entrant", "a=python -m sample_bots.random"], "cannot fill a table"),
        (["run", "--entrant", "a=nope-not-a-program", "--entrant", "b=python -m sample_bots.random"], "not found"),
        (["report", "/nonexistent.db"], "no results database"),
        (["report", "/nonexistent.db", "--format", "pdf"], "--format must be one of"),
    ],
)
def test_bad_tournament_input_gives_one_line_and_exit_2(args, words):
    r = tournament(*args)
    assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_a_changed_configuration_is_refused(tmp_path):
    db = tmp_path / "r.db"
    base = [*entrants(SAMPLES[0], SAMPLES[1]), "--deal-sets", "1", "--db", str(db), "--seed", "1"]
    assert tournament("run", *base).returncode == 0
    r = tournament("run", *base[:-1], "2")
    assert r.returncode == 2 and "changed: seed" in r.stderr


def test_a_broken_config_file_gives_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "t.toml"
    bad.write_text("variant = \n")
    r = tournament("run", str(bad))
    assert r.returncode == 2 and "not valid TOML" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    bad.write_text(
        'variant = "classic"\ncolour = "blue"\n[[entrants]]\nname = "a"\ncommand = "python -m sample_bots.random"\n'
    )
    r = tournament("run", str(bad))
    assert r.returncode == 2 and "unknown setting 'colour'" in r.stderr


def test_ctrl_c_stops_cleanly_keeping_every_finished_game(tmp_path):
    db = tmp_path / "r.db"
    proc = subprocess.Popen(
        [
            PY,
            "-m",
            "referee",
            "tournament",
            "run",
            *entrants(*SAMPLES),
            "--deal-sets",
            "10",
            "--seed",
            "4",
            "--concurrency",
            "2",
            "--db",
            str(db),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.time() + 120
    while time.time() < deadline and not (db.exists() and stored_games(db)[0] >= 3):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal does on Ctrl-C: the whole foreground group
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "resume" in err and "Traceback" not in err, err
    kept = stored_games(db)[0]
    assert 3 <= kept < 60
    assert leftovers() == []
    r = tournament("run", *entrants(*SAMPLES), "--deal-sets", "10", "--seed", "4", "--db", str(db))
    assert r.returncode == 0 and f"resuming: {kept} of 60" in r.stderr
