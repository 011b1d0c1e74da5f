"""Tournaments end to end: real bots, a real SQLite database, interruption by SIGKILL and resume."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing, suppress
from pathlib import Path

import pytest
from procs import Tree, is_alive, kill, leftovers, snapshot, wait_until

from tournaments.config import load
from tournaments.run import LocalExecutor, game_specs, run_tournament
from tournaments.spec import GameResult, SeatResult

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
SAMPLES = [
    "greedy=python -m sample_bots.greedy",
    "random=python -m sample_bots.random",
    f"js=node {ROOT}/sample_bots/js/random.js",
]


def tournament(*args, timeout=600, env=None):
    return subprocess.run(
        [PY, "-m", "referee", "tournament", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout, env=env
    )


def kill_and_resume(proc, run_args, cut, games, stored=1):
    """SIGKILL the tournament `proc` once `cut` holds `stored` games, check that the kill landed part-way through
    its `games`, and resume it (`romis tournament run RUN_ARGS --db CUT`), which must say how far it had got."""
    assert wait_until(lambda: cut.exists() and stored_games(cut)[0] >= stored, 120)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    part = stored_games(cut)[0]
    assert stored <= part < games, "the kill must land part-way"
    r = tournament("run", *run_args, "--db", str(cut))
    assert r.returncode == 0, r.stderr
    assert f"resuming: {part} of {games}" in r.stderr


def start_tournament(*args, **kw):
    """`romis tournament run ARGS` in the background, in its own session (as a terminal would start it)."""
    return subprocess.Popen([PY, "-m", "referee", "tournament", "run", *args], cwd=ROOT, start_new_session=True, **kw)


def entrants(*specs):
    return [a for s in specs for a in ("--entrant", s)]


def report(db, fmt="json"):
    r = tournament("report", str(db), "--format", fmt)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout) if fmt == "json" else r.stdout


def stored_games(db):
    """(games, seats) stored so far; (0, 0) while the database is still being created."""
    try:
        with closing(sqlite3.connect(db)) as con:  # closed here: the last connection's close removes the -wal file
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
    kill_and_resume(proc, args, cut, 18, stored=4)
    assert stored_games(cut) == stored_games(whole) == (18, 36)
    assert untimed(report(cut)) == untimed(report(whole))


def untimed(rep):
    """A JSON report without the wall-clock figures and run times, which differ from run to run."""
    for e in rep["entrants"]:
        e.pop("decision_time")
    for key in ("started", "runs", "games_finished"):
        rep["about"].pop(key)
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
            "4",
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
    assert 3 <= kept < 24
    assert leftovers() == []
    r = tournament("run", *entrants(*SAMPLES), "--deal-sets", "4", "--seed", "4", "--db", str(db))
    assert r.returncode == 0 and f"resuming: {kept} of 24" in r.stderr


# --- failed games: a game that raises, or whose worker dies, fails alone --------------------------
def fake_play(spec):
    """A game without bots: the entrant in seat 0 wins. Module-level, so that a worker can unpickle it."""
    seats = [SeatResult(e, i, 10.0 * i, i + 1) for i, e in enumerate(spec.entrants)]
    return GameResult(spec.key, spec.table, spec.deal_set, spec.rotation, spec.seed, 1, seats)


def raising_play(spec):
    """Raises as trio does when the referee's own code fails inside a match's nursery."""
    if spec.rotation == 1:
        raise ExceptionGroup("unhandled errors in a TaskGroup", [RuntimeError("the referee tripped\non a reply")])
    return fake_play(spec)


def dying_play(spec):
    """Kills its own worker in one game."""
    if spec.key == "t0-d0-r1":
        os.kill(os.getpid(), signal.SIGKILL)
    return fake_play(spec)


class Injected(LocalExecutor):
    """The local executor with another function in the workers."""

    def __init__(self, play, workers=2):
        super().__init__(workers)
        self.play = play


def small_config(tmp_path):
    cmd = "python -m sample_bots.random"
    return load(None, {"entrants": {"a": cmd, "b": cmd}, "deal_sets": 2, "db": str(tmp_path / "r.db")})


def test_a_game_that_raises_is_stored_as_failed_and_the_others_finish(tmp_path, capsys):
    cfg = small_config(tmp_path)
    store = run_tournament(cfg, live=False, executor=Injected(raising_play))
    bad = [s for s in game_specs(cfg) if s.rotation == 1]
    failed = store.failures()
    assert [(f.key, f.entrants) for f in failed] == [(s.key, list(s.entrants)) for s in bad]
    assert all(f.reason == "RuntimeError: the referee tripped on a reply" and f.attempts == 1 for f in failed)
    assert all("Traceback" in f.detail and "raising_play" in f.detail for f in failed)
    assert sorted(r.key for r in store.results()) == sorted(s.key for s in game_specs(cfg) if s.rotation == 0)
    err = capsys.readouterr().err
    assert f"{bad[0].key} FAILED (b, a): RuntimeError: the referee tripped on a reply" in err
    assert "[4/4]" in err and "| 2 failed" in err
    assert leftovers() == []  # no worker, no watchdog


def test_resume_plays_failed_games_again_without_counting_any_twice(tmp_path, capsys):
    cfg = small_config(tmp_path)
    run_tournament(cfg, live=False, executor=Injected(raising_play)).close()
    again = run_tournament(cfg, live=False, executor=Injected(raising_play))
    assert [f.attempts for f in again.failures()] == [2, 2] and len(again.results()) == 2
    assert "resuming: 2 of 4 games already stored; 2 failed game(s) are played again" in capsys.readouterr().err
    again.close()
    fixed = run_tournament(cfg, live=False, executor=Injected(fake_play))
    assert fixed.failures() == [] and sorted(r.key for r in fixed.results()) == sorted(s.key for s in game_specs(cfg))
    assert all(len(r.seats) == 2 for r in fixed.results())


def test_a_worker_that_dies_fails_its_game_and_a_new_worker_plays_on(tmp_path):
    cfg = small_config(tmp_path)
    store = run_tournament(cfg, live=False, executor=Injected(dying_play, workers=1))
    assert [(f.key, f.reason) for f in store.failures()] == [("t0-d0-r1", "the worker process was killed by SIGKILL")]
    assert len(store.results()) == 3
    assert leftovers() == []


HOOK = """
import sys
if not any("sample_bots" in a for a in sys.orig_argv):  # not in the bots: the referee raises mid-match
    import referee.match
    play = referee.match.Match._play
    async def _play(self):
        if any("hostile" in seat.command for seat in self.seats):
            raise ValueError("a reply the referee could not handle")
        await play(self)
    referee.match.Match._play = _play
"""


def test_a_game_whose_referee_raises_fails_alone_and_the_run_says_so(tmp_path):
    (tmp_path / "hook").mkdir()
    (tmp_path / "hook" / "sitecustomize.py").write_text(HOOK)
    broken = {**os.environ, "PYTHONPATH": str(tmp_path / "hook")}
    db = tmp_path / "r.db"
    people = entrants(SAMPLES[0], SAMPLES[1], "hostile=python -m sample_bots.random hostile")
    args = ["run", *people, "--deal-sets", "1", "--concurrency", "2", "--db", str(db), "--records", str(tmp_path)]
    r = tournament(*args, env=broken)
    reason = "ValueError: a reply the referee could not handle"
    assert r.returncode == 1 and "4 of 6 games failed" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("FAILED") == 4 and r.stderr.count(reason) == 4  # in the progress lines
    assert "failed games: 4" in r.stdout and r.stdout.count(reason) == 4 and "greedy" in r.stdout
    assert stored_games(db) == (2, 4)  # greedy against random, both rotations
    assert leftovers() == []  # the bots of the failed games are gone
    listed = tournament("report", str(db), "--format", "json")
    assert "failed games: 4" in listed.stderr and len(json.loads(listed.stdout)["entrants"]) == 3
    r = tournament(*args, env=broken)
    assert r.returncode == 1 and "resuming: 2 of 6 games already stored; 4 failed game(s) are played again" in r.stderr
    assert stored_games(db) == (2, 4) and r.stdout.count("[2 attempts]") == 4
    r = tournament(*args)  # the referee fixed: the failed games are played, and only they
    assert r.returncode == 0 and "failed" not in r.stdout and stored_games(db) == (6, 12), r.stderr


# --- nothing of a tournament outlives it ----------------------------------------------------------
def playing(tree, db, bots=2):
    """True once a game is stored and at least `bots` bots of the tree are running."""
    alive = tree.poll()
    return stored_games(db)[0] >= 1 and sum("sample_bots." in p.cmd or "random.js" in p.cmd for p in alive) >= bots


def written(paths):
    """(size, mtime) of every file in `paths` (a directory's files included)."""
    out = {}
    for f in (f for p in paths for f in ([*p.iterdir()] if p.is_dir() else [p])):
        with suppress(FileNotFoundError):  # one stat a file: a file that is gone between listing and stat is gone
            st = f.stat()
            out[f] = (st.st_size, st.st_mtime)
    return out


def test_sigkill_of_the_tournament_takes_every_process_of_it_along(tmp_path):
    db, rec = tmp_path / "r.db", tmp_path / "records"
    forker = "forker=python -m sample_bots.bad.forker"  # its child `sleep 1000` stays in the bot's group
    proc = start_tournament(
        *entrants(forker, *SAMPLES),
        "--deal-sets",
        "10",
        "--concurrency",
        "2",
        "--db",
        str(db),
        "--records",
        str(rec),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    tree = Tree(proc.pid)
    try:
        # a game stored, bots playing, and a forker's child alive: the kill must take a bot's child along too
        assert wait_until(lambda: playing(tree, db) and any("sleep 1000" in p.cmd for p in tree.alive()), 120)
        tree.poll()
        os.kill(proc.pid, signal.SIGKILL)
        killed = time.time()
        proc.wait()
        cmds = " | ".join(p.cmd for p in tree.members.values())
        assert "sample_bots." in cmds and "sleep 1000" in cmds, cmds  # bots, and a bot's child, were running
        assert wait_until(lambda: tree.poll() == [], 5), tree.alive()
    finally:
        tree.kill()
    games, files = stored_games(db), written([tmp_path / "r.db", tmp_path / "r.db-wal", rec])
    time.sleep(2)
    assert stored_games(db) == games and written([tmp_path / "r.db", tmp_path / "r.db-wal", rec]) == files
    late = [f for f, (_, mtime) in files.items() if mtime > killed + 0.5]
    assert late == [], "written after the kill"
    assert leftovers() == []


def test_a_worker_killed_by_sigkill_takes_its_bots_along_and_fails_only_its_game(tmp_path):
    db = tmp_path / "r.db"
    forker = "forker=python -m sample_bots.bad.forker"
    proc = start_tournament(
        *entrants(forker, SAMPLES[1]),
        "--deal-sets",
        "4",
        "--concurrency",
        "2",
        "--db",
        str(db),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    tree = Tree(proc.pid)

    def busy_worker():
        """A worker (the tournament's child above a bot) whose forker bot has started its child, and its subtree.

        The worker is found by walking up from the bot, not as the bot's parent: that may be the PID-namespace
        helper (or the bot itself, seen between fork and exec, with the helper's command line).
        """
        tree.poll()
        for bot in tree.alive():
            if "sample_bots.bad.forker" not in bot.cmd:
                continue
            worker = bot
            while worker.ppid != tree.root.pid and worker.ppid in tree.members:
                worker = tree.members[worker.ppid]
            if worker is not bot and worker.ppid == tree.root.pid:
                sub = tree.subtree(worker)
                if any("sleep 1000" in p.cmd for p in sub):
                    return worker, sub
        return None

    try:
        found = wait_until(busy_worker, 120)  # the worker as found: asked again, its game may have ended already
        assert found
        worker, sub = found
        os.kill(worker.pid, signal.SIGKILL)
        assert wait_until(lambda: not any(is_alive(p) for p in sub), 5), [p for p in sub if is_alive(p)]
        out, err = proc.communicate(timeout=300)
    finally:
        tree.kill()
    assert proc.returncode == 1, err
    assert "1 of 8 games failed" in err and "the worker process was killed by SIGKILL" in out
    assert stored_games(db) == (7, 14)
    assert leftovers() == []


def test_the_watchdog_kills_what_carries_its_token_and_the_sessions_they_lead_but_nothing_else():
    from referee.process.reaper import VAR, guard

    outsider = subprocess.Popen(["sleep", "60"])  # started before the guard: no token
    child = "import subprocess, sys; print(subprocess.Popen(['sleep', '60'], env={}).pid, flush=True); sys.stdin.read()"
    started = [snapshot(outsider.pid)]
    try:
        with guard() as g:
            plain = subprocess.Popen(["sleep", "60"])  # in the test's own session, which must be spared
            leader = subprocess.Popen(
                [PY, "-c", child], stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
            )
            started += [snapshot(plain.pid), snapshot(leader.pid)]
            scrubbed = snapshot(int(leader.stdout.readline()))  # no environment at all, in the leader's session
            started.append(scrubbed)
            assert f"{VAR}={g.token}".encode() not in Path(f"/proc/{scrubbed.pid}/environ").read_bytes()
        assert plain.wait(5) == leader.wait(5) == -signal.SIGKILL
        assert wait_until(lambda: not is_alive(scrubbed)) and is_alive(started[0])
        assert VAR not in os.environ and g.watchdog.returncode == 0
    finally:
        kill(started)
        outsider.wait()


@pytest.mark.parametrize("variant", ["may-i", "contract"])
def test_a_contract_tournament_with_claims_resumes_after_sigkill(tmp_path, variant):
    """Issue 10: the claim windows' simultaneous decisions survive a SIGKILL of the tournament and its resume."""
    config = tmp_path / "t.toml"
    names = "".join(f'[[entrants]]\nname = "{n}"\ncommand = "{c}"\n' for n, c in (s.split("=", 1) for s in SAMPLES))
    config.write_text(
        f'variant = "{variant}"\nseats = 3\ndeal_sets = 1\nseed = 4\nconcurrency = 2\n'
        f"{names}[options]\nmax_deals = 1\nmax_turns_per_deal = 40\n"
    )
    whole = tmp_path / "whole.db"
    r = tournament("run", str(config), "--db", str(whole), "--records", str(tmp_path / "rec"))
    assert r.returncode == 0, r.stderr
    claims = [
        x for p in (tmp_path / "rec").glob("*.jsonl") for x in p.read_text().splitlines() if '"kind":"claim"' in x
    ]
    assert claims, "the records hold claim answers"
    cut = tmp_path / "cut.db"
    proc = start_tournament(str(config), "--db", str(cut), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_and_resume(proc, [str(config)], cut, 3)
    assert untimed(report(cut)) == untimed(report(whole))


def test_after_a_resume_the_progress_line_names_the_whole_tournaments_leader(tmp_path, capsys):
    # issue 30, item 13: the leader was counted over the games of this run alone
    from tournaments.run import _play_all
    from tournaments.store import Store

    bot = "python -m sample_bots.random"
    cfg = load(None, {"entrants": {"a": bot, "b": bot}, "variant": "gin", "deal_sets": 2, "seed": 3})
    specs = game_specs(cfg)
    store = Store(str(tmp_path / "r.db"))
    store.bind(cfg.fingerprint())

    def won_by(spec, winner: str) -> GameResult:
        seats = [
            SeatResult(e, i, 0.0 if e == winner else 50.0, 1 if e == winner else 2) for i, e in enumerate(spec.entrants)
        ]
        return GameResult(spec.key, spec.table, spec.deal_set, spec.rotation, spec.seed, 1, seats)

    for spec in specs[:3]:  # an earlier run: a won all three
        store.add(won_by(spec, "a"))

    class OneWinForB:
        def run(self, todo, on_result, on_failure):
            on_result(won_by(todo[0], "b"))

    _play_all(cfg, store, specs, live=False, executor=OneWinForB())
    store.close()
    line = capsys.readouterr().err.splitlines()[-1]
    assert "leader a (3 pts)" in line, line
