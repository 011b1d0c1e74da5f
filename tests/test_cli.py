"""`romis` as a user meets it: one-line errors with suggestions, exit codes, progress on a terminal, Ctrl-C.

Bad input runs in-process through `referee.cli.run` (the console entry point minus `sys.exit`); a terminal
or a signal needs a real process, run under a pseudo-terminal from the `pty` module.
"""

import json
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from procs import record_so_far
from typer.testing import CliRunner

from referee.cli import app, run

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
GREEDY, RANDOM = "python -m sample_bots.greedy", "python -m sample_bots.random"
CLASSIC = ["play", "classic", "--seed", "7", "--bot", GREEDY, "--bot", RANDOM, "--option", "max_deals=3"]


def romis(capsys, *args):
    """(exit code, stdout, stderr) of one in-process command line."""
    code = run(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# --- bad input: one line, exit 2, and a suggestion where one is close --------------------------------------
@pytest.mark.parametrize(
    "args,line",
    [
        (["play", "gni", "--bot", RANDOM], "unknown variant 'gni' (did you mean 'gin'?)"),
        (["play", "nosuchgame", "--bot", RANDOM], "unknown variant 'nosuchgame'; known: american, boathouse"),
        (["rules", "mayi"], "unknown variant 'mayi' (did you mean 'may-i'?)"),  # issue 30, item 15
        (
            ["play", "classic", "--bot", RANDOM, "--bot", RANDOM, "--option", "targt=100"],
            "unknown option 'targt' for classic (did you mean 'target'?)",
        ),
        (["play", "classic", "--bot", RANDOM, "--bot", RANDOM, "--option", "target=-1"], "must not be negative"),
        (["play", "classic", "--bot", RANDOM, "--bot", RANDOM, "--option", "target=x"], "'x' is not a whole number"),
        (["play", "gin", "--bot", RANDOM], "gin needs 2 bots, got 1"),
        (["play", "classic", "--bot", RANDOM], "classic needs 2 to 6 bots, got 1"),
        (["play", "gin", "--bot", RANDOM, "--bot", RANDOM, "--move-time", "0"], "--move-time must be"),
        (["play", "gin", "--bot", RANDOM, "--bot", RANDOM, "--move-time", "nan"], "--move-time must be"),
        (["play", "gin", "--bot", RANDOM, "--bot", RANDOM, "--bank", "-1"], "--bank must be a number of seconds"),
        (["play", "gin", "--bot", RANDOM, "--bot", RANDOM, "--startup-time", "-1"], "--startup-time must be"),
        (["play", "gin", "--bot", RANDOM, "--bot", RANDOM, "--retries", "-1"], "--retries must be 0 or more"),
        (["play", "gin", "--sed", "7", "--bot", RANDOM], "No such option: --sed (did you mean --seed?)"),
        (["play", "gin"], "Missing option '--bot'"),
        (["paly"], "Did you mean 'play'"),
        (["eval", "gin", "--hand", "AS AS 2S"], "AS is in the hand 2 times, but the gin deck has 1"),
        (["eval", "gin", "--hand", "JK 2S 3S"], "JK is not in the gin deck"),
        (["eval", "classic", "--hand", "7H 8H XX"], "not a card: 'XX'"),
        (["eval", "gin", "--hand", " "], "the hand is empty"),
        (["eval", "gin", "--hand", "AS 2S 3S 4S 5S 6S 7S 8S 9S TS JS QS"], "gin hands hold at most 11 cards"),
        (["eval", "gin"], "give exactly one of --hand and --hands-file"),
    ],
)
def test_bad_input_is_one_clear_line_and_exit_2(capsys, args, line):
    code, out, err = romis(capsys, *args)
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and err.startswith("romis: ") and line in err, err


def test_a_hand_is_checked_against_the_largest_deck_the_variant_deals(capsys):
    assert romis(capsys, "eval", "tonk", "--hand", "AS AS 2S")[0] == 0  # tonk deals two packs to 4-5 players
    assert romis(capsys, "eval", "classic", "--hand", "JK JK JK JK JK JK")[0] == 0  # classic has 6 jokers
    code, _, err = romis(capsys, "eval", "classic", "--hand", "JK JK JK JK JK JK JK")
    assert code == 2 and "the classic deck has 6" in err


def test_a_file_of_hands_names_the_line_of_a_bad_hand(capsys, tmp_path):
    hands = tmp_path / "hands.txt"
    hands.write_text("AS 2S 3S\n\nKD KD 5C\n")
    code, out, err = romis(capsys, "eval", "gin", "--hands-file", str(hands))
    assert code == 2 and err.strip() == f"romis: {hands}:3: KD is in the hand 2 times, but the gin deck has 1"
    assert len(out.splitlines()) == 1  # the good hand before it was valued
    hands.write_bytes(b"\xff\xfe\x00binary")
    code, _, err = romis(capsys, "eval", "gin", "--hands-file", str(hands))
    assert code == 2 and "not a text file" in err and err.count("\n") == 1


def test_no_record_file_is_left_behind_by_a_bad_bot_command(capsys, tmp_path):
    rec = tmp_path / "r.jsonl"
    code, _, err = romis(capsys, "play", "gin", "--bot", RANDOM, "--bot", "no-such-program-xyz", "--record", str(rec))
    assert code == 2 and "not found" in err and not rec.exists()


@pytest.mark.parametrize(
    "setting,line",
    [
        ('variant = "gni"', "unknown variant 'gni' (did you mean 'gin'?)"),
        ('variant = "classic"\n[options]\ntargt = 100', "unknown option 'targt' for classic (did you mean 'target'?)"),
        ('variant = "gin"\nseats = 3', "gin needs 2 seats per table, got 3"),
        ('variant = "gin"\n[limits]\nmove_time = 0', "limits.move_time must be a number of seconds more than 0"),
        ('variant = "gin"\n[limits]\nmove_tim = 1', "unknown key 'move_tim' (did you mean 'move_time'?)"),
        ('varient = "gin"', "unknown setting 'varient' (did you mean 'variant'?)"),
    ],
)
def test_a_tournament_config_gets_the_same_messages(capsys, tmp_path, setting, line):
    config = tmp_path / "t.toml"
    entrants = "".join(f'\n[[entrants]]\nname = "{n}"\ncommand = "{RANDOM}"\n' for n in ("a", "b", "c"))
    config.write_text(setting + "\n" + entrants)  # the entrants last: keys after a [table] would fall into it
    code, _, err = romis(capsys, "tournament", "run", str(config), "--db", str(tmp_path / "r.db"))
    assert code == 2 and line in err and err.count("\n") == 1, err


# --- exit codes -----------------------------------------------------------------------------------------------
def test_help_documents_the_exit_codes():
    text = " ".join(CliRunner().invoke(app, ["play", "--help"], terminal_width=200).output.split())
    assert "--strict" in text and "Exit codes: 0" in text and "2 bad input" in text and "130 interrupted" in text


def test_strict_makes_a_fault_exit_1(capsys):
    crash = ["play", "gin", "--seed", "3", "--bot", f"{PY} -m sample_bots.bad.crash", "--bot", RANDOM, "--json"]
    code, out, err = romis(capsys, *crash)
    assert code == 0 and json.loads(out)["seats"][0]["fault"] == "crash", err
    code, out, err = romis(capsys, *crash, "--strict")
    assert code == 1 and json.loads(out)["seats"][0]["fault"] == "crash"
    assert err == "romis: --strict: seat 0 (crash) faulted\n"
    code, _, err = romis(capsys, "play", "gin", "--seed", "3", "--bot", GREEDY, "--bot", RANDOM, "--strict")
    assert code == 0 and err == ""


# --- a terminal and signals -----------------------------------------------------------------------------------
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def spawn_in_terminal(*args: str) -> tuple[int, int]:
    """Start `romis ARGS` on a new pseudo-terminal (its controlling terminal); (pid, master fd)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: Ctrl-C must reach it as on a terminal, whatever the test runner ignores
        try:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.chdir(ROOT)
            os.execv(PY, [PY, "-m", "referee", *args])
        finally:
            os._exit(127)  # never go on running the tests in the child
    return pid, fd


def read_until_exit(pid: int, fd: int, timeout: float = 120) -> tuple[int, str]:
    """Everything the terminal showed until the process ended, and its exit code."""
    chunks, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        if select.select([fd], [], [], 0.5)[0]:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the child has closed the terminal
                break
            if not data:
                break
            chunks.append(data)
    else:
        os.kill(pid, signal.SIGKILL)
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    text = ANSI.sub("", b"".join(chunks).decode("utf-8", "replace")).replace("\r\n", "\n")
    return os.waitstatus_to_exitcode(status), text


def test_a_terminal_sees_a_line_per_deal_as_the_match_goes():
    code, text = read_until_exit(*spawn_in_terminal(*CLASSIC))
    assert code == 0, text
    lines = text.splitlines()
    header = next(i for i, s in enumerate(lines) if s.startswith("classic, seed 7: "))
    deals = int(lines[header].split(": ")[1].split()[0])
    progress = [s for s in lines if re.match(r"\s*deal \d+: ", s)]
    assert [s.split(":")[0].strip() for s in progress] == [f"deal {k}" for k in range(1, deals + 1)], text
    assert all(lines.index(s) < header for s in progress)  # shown while playing, not only in the final report


def test_a_deal_line_reaches_the_terminal_in_one_write(monkeypatch):
    # Written in two parts, a Ctrl-C between them left "deal 26:^Cromis: interrupted ..." on one line.
    from referee.cli import _deal_printer

    class Terminal:
        def __init__(self):
            self.writes = []

        def write(self, text):
            self.writes.append(text)

        def flush(self):
            pass

        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stderr", Terminal())
    show = _deal_printer()
    show({"deal": 25, "winner": 0, "scores": [75, -59], "totals": [75, -59]})
    text = [ANSI.sub("", w) for w in sys.stderr.writes]
    assert text == ["deal 26: seat 0 won; scores [75, -59] -> totals [75, -59]\n"], sys.stderr.writes


def test_json_or_no_progress_on_a_terminal_and_any_output_off_one_have_no_progress():
    code, text = read_until_exit(*spawn_in_terminal(*CLASSIC, "--json"))
    assert code == 0 and "deal 1:" not in text and json.loads(text)["seed"] == 7, text
    code, text = read_until_exit(*spawn_in_terminal(*CLASSIC, "--no-progress"))
    assert code == 0 and text.startswith("classic, seed 7: ") and "\n  deal 1: " in text, text
    r = subprocess.run([PY, "-m", "referee", *CLASSIC], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stderr == ""
    out = r.stdout.splitlines()
    assert out[0].startswith("classic, seed 7: ") and out[1].startswith("  deal 1: ")  # all deals in the report


def descendants(pid: int) -> set[int]:
    """The live processes below `pid`."""
    children: dict[int, list[int]] = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if stat[0] != "Z":
            children.setdefault(int(stat[1]), []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pids: set[int]) -> set[int]:
    """Those of `pids` still running (not zombies)."""
    out = set()
    for p in pids:
        try:
            if Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                out.add(p)
        except OSError:
            pass
    return out


def wait_for_play(record: Path, pid: int) -> set[int]:
    """Wait until the match is under way (a play is recorded); the bot processes."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and '"action"' not in record_so_far(record):
        time.sleep(0.1)
    time.sleep(0.3)
    return descendants(pid)


def hanging_match(record: Path) -> list[str]:
    return ["play", "classic", "--bot", GREEDY, "--bot", f"{PY} -m sample_bots.bad.hang", "--move-time", "60",
            "--record", str(record)]  # fmt: skip


def test_ctrl_c_exits_130_with_one_line_and_no_bot_left(tmp_path):
    rec = tmp_path / "r.jsonl"
    pid, fd = spawn_in_terminal(*hanging_match(rec))
    bots = wait_for_play(rec, pid)
    assert len(bots) >= 2
    os.write(fd, b"\x03")  # Ctrl-C typed at the terminal: SIGINT to the foreground process group
    code, text = read_until_exit(pid, fd, timeout=30)
    said = [s for s in text.replace("^C", "").splitlines() if s.strip()]
    assert code == 130 and said == [f"romis: interrupted; the record so far is in {rec}"], text
    assert alive(bots) == set()


def test_sigterm_stops_the_match_cleanly_too(tmp_path):
    rec = tmp_path / "r.jsonl"
    proc = subprocess.Popen(
        [PY, "-m", "referee", *hanging_match(rec)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    bots = wait_for_play(rec, proc.pid)
    proc.terminate()
    out, err = proc.communicate(timeout=30)
    said = (err, out, rec.read_text()[-2000:])  # a failure under load once exited 0: what the match said
    assert proc.returncode == 143 and err == f"romis: stopped by SIGTERM; the record so far is in {rec}\n", said
    assert out == "" and alive(bots) == set()


def fast_match(record: Path) -> list[str]:
    """A match of bots that answer within the referee's blocking wait (~200 deals, seconds long)."""
    return ["play", "gin", "--seed", "7", "--bot", RANDOM, "--bot", RANDOM, "--option", "target=100000",
            "--record", str(record)]  # fmt: skip


def test_ctrl_c_stops_a_match_of_bots_that_answer_at_once(tmp_path):
    # Ctrl-C may land while the referee blocks in poll() for a reply: it stops the match as anywhere else.
    rec = tmp_path / "r.jsonl"
    pid, fd = spawn_in_terminal(*fast_match(rec))
    bots = wait_for_play(rec, pid)
    os.write(fd, b"\x03")
    code, text = read_until_exit(pid, fd, timeout=30)
    said = [s for s in text.replace("^C", "").splitlines() if s.strip() and not s.startswith("deal ")]  # progress
    assert code == 130 and said == [f"romis: interrupted; the record so far is in {rec}"], text
    assert json.loads(rec.read_text().splitlines()[-1])["type"] == "interrupted"
    assert alive(bots) == set()


def test_sigterm_stops_a_match_of_bots_that_answer_at_once(tmp_path):
    """Bots that answer within the referee's blocking wait never send it through trio's scheduler for a reply: the
    loop still passes through it often enough for the signal to stop the match."""
    rec = tmp_path / "r.jsonl"
    proc = subprocess.Popen(
        [PY, "-m", "referee", *fast_match(rec)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    bots = wait_for_play(rec, proc.pid)
    proc.terminate()
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and err == f"romis: stopped by SIGTERM; the record so far is in {rec}\n", err
    assert json.loads(rec.read_text().splitlines()[-1])["type"] == "interrupted"
    assert out == "" and alive(bots) == set()


def test_an_unknown_key_of_an_entrant_is_refused_not_ignored(capsys, tmp_path):
    # a per-entrant move_time was accepted and never used (issue 30, item 12)
    config = tmp_path / "t.toml"
    entrants = [f'name = "a"\ncommand = "{RANDOM}"\nmove_time = 5', f'name = "b"\ncommand = "{RANDOM}"']
    config.write_text("".join(f"[[entrants]]\n{e}\n" for e in entrants))
    code, _, err = romis(capsys, "tournament", "run", str(config), "--db", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1, err
    assert "entrant 'a': unknown setting 'move_time'; known: command, name, network, paths, writable" in err


@pytest.mark.parametrize(
    "setting,line",
    [
        ('deal_sets = "two"', "deal_sets must be a whole number, got 'two'"),
        ("seed = 1.5", "seed must be a whole number, got 1.5"),
        ("concurrency = true", "concurrency must be a whole number, got True"),
        ("partnerships = 2", "partnerships must be a string, got 2"),
        ("records = [1]", "records must be a string, got [1]"),
        ("retries = 0.5", "retries must be a whole number, got 0.5"),
        ('schedule = ["round-robin"]', "schedule must be a string, got ['round-robin']"),
        ('no_network = "no"', "no_network must be true or false, got 'no'"),
        ("executor = 1", "executor must be a string, got 1"),
        ("deal_sets = 100000000000", "deal_sets must be at most 100,000, got 100,000,000,000"),
    ],
)
def test_a_wrong_type_in_a_tournament_file_is_one_line(capsys, tmp_path, setting, line):
    # issue 30, item 16: each gave a traceback or was accepted
    config = tmp_path / "t.toml"
    entrants = "".join(f'\n[[entrants]]\nname = "{n}"\ncommand = "{RANDOM}"\n' for n in ("a", "b"))
    config.write_text(setting + "\n" + entrants)
    code, _, err = romis(capsys, "tournament", "run", str(config), "--db", str(tmp_path / "r.db"))
    assert code == 2 and err == f"romis: {line}\n", err


def test_a_tournament_without_entrants_says_what_to_give(capsys, tmp_path):
    code, _, err = romis(capsys, "tournament", "run", "--db", str(tmp_path / "r.db"))
    assert code == 2 and err.count("\n") == 1, err
    assert "no entrants: give a configuration file with [[entrants]]" in err and "--entrant NAME=COMMAND" in err


def test_a_bot_that_never_flushes_is_told_to_flush(capsys):
    silent = f"{PY} -c \"import sys, time; sys.stdout.write('{{}}'); time.sleep(30)\""
    _, out, _ = romis(capsys, "play", "gin", "--bot", silent, "--bot", RANDOM, "--startup-time", "2", "--json")
    seat = json.loads(out)["seats"][0]
    assert seat["fault"] == "startup" and "a bot must end each line with \\n and flush it" in seat["fault_detail"]


@pytest.mark.parametrize(
    "option,line",
    [
        ("max_deals=0", "option max_deals: 0 must be at least 1"),
        ("max_turns_per_deal=0", "option max_turns_per_deal: 0 must be at least 1"),
        ("target=99999999999999999999", "option target: 99999999999999999999 is more than 9,007,199,254,740,992"),
    ],
)
def test_an_option_out_of_range_is_one_line(capsys, option, line):
    # issue 30, item 19: a match of no deals, or a target no bot can read exactly, was accepted
    code, _, err = romis(capsys, "play", "classic", "--bot", RANDOM, "--bot", RANDOM, "--option", option)
    assert code == 2 and err == f"romis: {line}\n", err
