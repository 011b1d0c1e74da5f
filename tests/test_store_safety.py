"""The results store and the game records under hostile conditions: two runs at once, full and read-only disks."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from procs import leftovers, wait_until

from referee.records import RecordWriter, read_record

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
RANDOM = "python -m sample_bots.random"
GAMES_PER_DEAL_SET = 2  # two entrants at one two-seat table: two rotations
# Pairs of runs started together on one database. Without the lock the first pair already plays the games
# twice (checked by taking the flock out of tournaments/store.py), so a handful of pairs shows the lock works.
RACES = 5


def config(tmp_path: Path, deal_sets: int) -> Path:
    """A quick tournament: two random bots, one deal per game, one game at a time."""
    path = tmp_path / f"t{deal_sets}.toml"
    path.write_text(
        f'variant = "classic"\ndeal_sets = {deal_sets}\nconcurrency = 1\nseed = 3\n'
        "[options]\nmax_deals = 1\n"
        f'[[entrants]]\nname = "a"\ncommand = "{RANDOM}"\n[[entrants]]\nname = "b"\ncommand = "{RANDOM}"\n'
    )
    return path


def romis(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PY, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True, timeout=600)


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [PY, "-m", "referee", *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def romis_lines(stderr: str) -> list[str]:
    """The lines romis itself says (the progress lines of a run are the others)."""
    return [line for line in stderr.splitlines() if line.startswith("romis:")]


def counts(db: Path) -> tuple[int, int]:
    """(games, seats) stored."""
    with sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True) as con:
        return con.execute("SELECT count(*) FROM games").fetchone()[0], con.execute(
            "SELECT count(*) FROM seats"
        ).fetchone()[0]


def whole_records(directory: Path) -> list[str]:
    """The names of the records in `directory`, each checked whole (its hash chain and its result line);
    no temporary file may be left beside them."""
    assert [p.name for p in directory.glob(".*.part")] == []
    names = []
    for path in sorted(directory.glob("*.jsonl")):
        assert read_record(path)[-1]["type"] == "result", path
        names.append(path.stem)
    return names


@contextmanager
def tmpfs(size: str) -> Iterator[Path]:
    """A small RAM disk of `size` (skip where mounting is not permitted); unmounted afterwards, whatever happens."""
    where = Path(tempfile.mkdtemp(prefix="romis-tmpfs-"))
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    if mounted.returncode:
        where.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)
        where.rmdir()


def remount(where: Path, options: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{options}", str(where)], check=True)


def fill(where: Path, leave: int) -> None:
    """Fill the disk `where` but for about `leave` bytes."""
    with open(where / "filler", "wb", buffering=0) as f, suppress(OSError):
        while f.write(b"\0" * 4096):
            pass
    size = (where / "filler").stat().st_size
    with open(where / "filler", "r+b") as f:
        f.truncate(max(0, size - leave))


# --- a full disk --------------------------------------------------------------------------------------


def test_play_record_on_a_full_disk_is_one_line_exit_3_and_leaves_the_old_record(tmp_path):
    with tmpfs("200k") as disk:
        record = disk / "game.jsonl"
        record.write_text("the record of an earlier match\n")
        fill(disk, 30_000)  # the header fits; the match's lines do not
        r = romis("play", "classic", "--bot", RANDOM, "--bot", RANDOM, "--seed", "1", "--record", str(record))
        assert r.returncode == 3, r.stderr
        assert r.stderr.strip().splitlines() == [
            f"romis: cannot write record {record}: No space left on device; the match was stopped"
        ]
        assert record.read_text() == "the record of an earlier match\n"  # never half-overwritten
        assert sorted(p.name for p in disk.iterdir()) == ["filler", "game.jsonl"]  # no temporary file left
    assert leftovers() == []  # the bots are gone


def test_a_tournament_whose_database_fills_the_disk_stops_keeps_its_games_and_resumes(tmp_path):
    deal_sets = 5  # the disk fills after about 5 of these 10 games: the resume has a few left to play
    total = GAMES_PER_DEAL_SET * deal_sets
    toml = config(tmp_path, deal_sets)
    with tmpfs("200k") as disk:
        db = disk / "r.db"
        r = romis("tournament", "run", str(toml), "--db", str(db))
        assert r.returncode == 3, r.stderr
        assert "Traceback" not in r.stderr
        [line] = romis_lines(r.stderr)
        assert f"cannot store results in {db}: the disk is full" in line and "run the same command" in line
        games, seats = counts(db)
        assert 1 <= games < total and seats == 2 * games
        remount(disk, "size=20m")
        again = romis("tournament", "run", str(toml), "--db", str(db))
        assert again.returncode == 0, again.stderr
        assert f"resuming: {games} of {total} games already stored" in again.stderr
        assert counts(db) == (total, 2 * total)
    assert leftovers() == []


def test_a_tournament_whose_records_fill_the_disk_stops_keeps_whole_records_and_resumes(tmp_path):
    toml, db = config(tmp_path, deal_sets=5), tmp_path / "r.db"
    with tmpfs("200k") as disk:  # room for three or four records of these games
        records = disk / "records"
        r = romis("tournament", "run", str(toml), "--db", str(db), "--records", str(records))
        assert r.returncode == 3, r.stderr
        assert "Traceback" not in r.stderr
        [line] = romis_lines(r.stderr)
        assert "cannot write record" in line and "No space left on device" in line, line
        games, _ = counts(db)
        assert games >= 1
        assert len(whole_records(records)) == games  # every stored game has its whole record, and only those
        remount(disk, "size=20m")
        again = romis("tournament", "run", str(toml), "--db", str(db), "--records", str(records))
        assert again.returncode == 0, again.stderr
        assert counts(db) == (10, 20)
        assert len(whole_records(records)) == 10
    assert leftovers() == []


def test_a_killed_run_leaves_no_half_record_under_its_name_and_the_resume_cleans_up(tmp_path):
    toml, db, records = config(tmp_path, deal_sets=5), tmp_path / "r.db", tmp_path / "records"
    proc = subprocess.Popen(
        [PY, "-m", "referee", "tournament", "run", str(toml), "--db", str(db), "--records", str(records)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        assert wait_until(lambda: records.is_dir() and counts_or_zero(db) >= 1 and any(records.glob(".*.part")), 120)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    assert leftovers() == []
    assert any(records.glob(".*.part"))  # the game being played when the run was killed
    assert all(read_record(p)[-1]["type"] == "result" for p in records.glob("*.jsonl"))
    assert romis("tournament", "run", str(toml), "--db", str(db), "--records", str(records)).returncode == 0
    assert len(whole_records(records)) == 10  # and no temporary file is left


def counts_or_zero(db: Path) -> int:
    """Games stored, 0 while the database is still being created."""
    try:
        return counts(db)[0]
    except sqlite3.Error:
        return 0


# --- two runs at once -----------------------------------------------------------------------------------


def test_two_runs_started_together_on_one_database_never_play_a_game_twice(tmp_path):
    toml, refused = config(tmp_path, deal_sets=1), 0
    for i in range(RACES):
        db = tmp_path / f"r{i}.db"
        procs = [start("tournament", "run", str(toml), "--db", str(db)) for _ in range(2)]
        outs = [(p.wait(timeout=600), *p.communicate()) for p in procs]
        assert all("Traceback" not in err for _, _, err in outs), outs
        played = [err for code, _, err in outs if code == 0 and "resuming" not in err]
        assert len(played) == 1, outs  # one run played the games; the other was refused, or found them stored
        for code, _, err in outs:
            if code == 2:
                refused += 1
                assert romis_lines(err) == [line for line in err.splitlines() if line.strip()]
                [line] = romis_lines(err)
                assert f"the results database {db} is in use by another `romis tournament run` (PID " in line
                assert "on host " in line
            else:
                assert code == 0, err
        assert counts(db) == (2, 4)
    assert refused >= RACES // 2  # started together, the second is nearly always refused rather than late
    assert leftovers() == []


def test_two_runs_sharing_a_records_directory_leave_every_record_whole(tmp_path):
    toml, records = config(tmp_path, deal_sets=2), tmp_path / "records"
    for i in range(3):
        dbs = [tmp_path / f"r{i}-{k}.db" for k in range(2)]
        procs = [start("tournament", "run", str(toml), "--db", str(db), "--records", str(records)) for db in dbs]
        outs = [(p.wait(timeout=600), *p.communicate()) for p in procs]
        for code, _, err in outs:
            assert "Traceback" not in err and code in (0, 2), err
            if code == 2:
                [line] = romis_lines(err)
                assert f"the records directory {records} is in use by another `romis tournament run` (PID " in line
        assert any(code == 0 for code, _, _ in outs)
        assert whole_records(records) == ["t0-d0-r0", "t0-d0-r1", "t0-d1-r0", "t0-d1-r1"]
    assert leftovers() == []


def test_two_writers_of_one_record_path_leave_one_whole_record(tmp_path):
    path = tmp_path / "game.jsonl"
    first, second = RecordWriter(path, {"variant": "classic", "n": 1}), RecordWriter(path, {"variant": "gin", "n": 2})
    for i in range(50):  # interleaved, as two runs sharing a records directory write
        first.write({"type": "action", "i": i})
        second.write({"type": "action", "i": i, "pad": "x" * 40})
    first.close()
    second.write({"type": "result"})
    assert read_record(path)[0]["variant"] == "classic"  # the first record is whole while the second is written
    second.close()
    lines = read_record(path)
    assert lines[0]["variant"] == "gin" and len(lines) == 52 and lines[-1]["type"] == "result"
    assert [p.name for p in tmp_path.iterdir()] == ["game.jsonl"]


# --- a read-only directory -----------------------------------------------------------------------------


def test_a_finished_database_in_a_read_only_directory_reports(tmp_path):
    toml = config(tmp_path, deal_sets=1)
    with tmpfs("20m") as disk:
        db = disk / "r.db"
        assert romis("tournament", "run", str(toml), "--db", str(db)).returncode == 0
        remount(disk, "ro")
        with pytest.raises(OSError):  # the directory really is read-only (root ignores permission bits)
            (disk / "probe").write_text("")
        r = romis("tournament", "report", str(db), "--format", "json")
        assert r.returncode == 0, r.stderr
        report = json.loads(r.stdout)
        assert report["games"] == 2 and sorted(e["name"] for e in report["entrants"]) == ["a", "b"]
        run = romis("tournament", "run", str(toml), "--db", str(db))  # a run cannot write there: one line
        assert run.returncode == 3 and "Traceback" not in run.stderr, run.stderr
        assert len(romis_lines(run.stderr)) == 1 and "read-only" in run.stderr.lower(), run.stderr


def test_play_record_on_a_read_only_disk_is_one_line_exit_3_before_any_bot_starts(tmp_path):
    with tmpfs("1m") as disk:
        remount(disk, "ro")
        record = disk / "game.jsonl"
        r = romis("play", "classic", "--bot", RANDOM, "--bot", RANDOM, "--record", str(record))
        assert r.returncode == 3, r.stderr
        assert r.stderr.splitlines() == [
            f"romis: cannot write record {record}: Read-only file system; nothing was played"
        ]
    assert leftovers() == []
