"""Fair clocks: `--clock cpu` judges a bot by the CPU time of its process tree (with a wall cap), and
`--pause-idle` stops a bot while it is not its decision."""

import json
import os
import shlex
import sys
import time
from contextlib import suppress
from pathlib import Path
from unittest.mock import Mock

import pytest
import trio
from procs import marked

from referee import match as match_module
from referee.match import Match
from referee.play import new_match, play_match, run_match
from referee.process import runner
from referee.process.runner import Limits
from referee.rules.errors import ConfigError
from referee.rules.variants import find_variant
from tournaments.config import load
from tournaments.run import game_specs, play_game

ROOT = Path(__file__).resolve().parent.parent
BAD = f"{sys.executable} -m sample_bots.bad."
RANDOM = f"{sys.executable} -m sample_bots.random"
SHORT = {"max_deals": "1", "max_turns_per_deal": "40"}  # a deal of 40 turns: the bad bots always take the first option


def play(bots: list[str], **kw):
    """Seat 0's fault and detail, and the outcome, of a short classic match."""
    out = play_match("classic", bots, 1, dict(SHORT), None, bank=0.0, **kw)
    seat = out.result["seats"][0]
    return seat.fault, seat.fault_detail, out


def test_a_bot_that_burns_cpu_times_out_under_the_cpu_clock():
    fault, detail, out = play([BAD + "burn", RANDOM], move_time=0.3, clock="cpu")
    assert fault == "timeout" and detail.startswith("used more than 0.30 s of CPU"), detail
    assert out.result["seats"][1].fault is None


def test_the_cpu_clock_counts_the_children_of_a_bot():
    # A bot behind a wrapper: the shell waits while its child (the real bot) burns the CPU.
    fault, detail, _ = play([f"sh -c '{BAD}burn; true'", RANDOM], move_time=0.3, clock="cpu")
    assert fault == "timeout" and detail.startswith("used more than 0.30 s of CPU"), detail


def open_stat_files() -> list[str]:
    """The /proc/PID/stat files this process holds open (the CPU readings keep them open while a bot runs)."""
    found = []
    for fd in os.listdir("/proc/self/fd"):
        with suppress(OSError):
            target = os.readlink(f"/proc/self/fd/{fd}")
            if target.startswith("/proc/") and target.endswith("/stat"):
                found.append(target)
    return found


# A legal bot that spins 20 ms of CPU per decision: several clock ticks each, so its readings cannot all be 0
# (a random bot's decision is well under one 10 ms tick: most of its readings are 0 by rights).
THINKER = (
    f"{sys.executable} -c 'import time; from sample_bots.bad._base import play, serve\n"
    "def think(request, n):\n"
    "    end = time.process_time() + 0.02\n"
    "    while time.process_time() < end: pass\n"
    "    return play(request)\n"
    'serve("thinker", think)\''
)


@pytest.mark.parametrize("clock", ["wall", "cpu"])
def test_the_bots_cpu_is_recorded_and_no_stat_file_is_left_open(clock):
    fault, _, out = play([f"sh -c {shlex.quote(THINKER)}", THINKER], clock=clock)
    assert fault is None
    for seat in out.result["seats"]:  # a CPU reading for every decision, on either clock
        assert len(seat.cpus) == len(seat.walls) > 10 and sum(seat.cpus) > 0, seat.cpus
    assert open_stat_files() == []


def test_a_sleeping_bot_uses_no_cpu_and_does_not_time_out_under_the_cpu_clock():
    bots = [BAD + "sleepy 1 2", RANDOM]  # sleeps 1 s on each of its first two decisions
    assert play(bots, move_time=0.5, clock="cpu")[0] is None
    assert play(bots, move_time=0.5)[0] == "timeout"  # the wall clock (the default) judges it late


def test_a_bot_that_sleeps_forever_hits_the_wall_cap_of_the_cpu_clock():
    fault, detail, _ = play([BAD + "sleepy inf 1", RANDOM], move_time=0.2, clock="cpu")
    assert fault == "timeout"
    assert "7.00 s" in detail and "wall-time cap" in detail  # 10 x 0.2 s + bank 0 + 5 s


def spinner_cpu() -> float | None:
    """CPU seconds (from /proc) of this test's background spinner, the child of sample_bots.bad.background."""
    for proc in marked():
        if "romis-spinner" in proc.cmd:
            stat = Path(f"/proc/{proc.pid}/stat").read_bytes()
            fields = stat[stat.rindex(b")") + 2 :].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime
    return None


def background_match(tmp_path: Path, pause_idle: bool) -> tuple[float | None, list[dict], dict]:
    """A match of the background spinner against a bot that thinks 0.5 s on each of its first 6 decisions:
    (the spinner's CPU at the end of the deal, the record's lines, the header)."""
    record = tmp_path / f"pause-{pause_idle}.jsonl"
    bots = [BAD + "background", BAD + "sleepy 0.5 6"]
    match = new_match("classic", bots, 7, dict(SHORT), record, pause_idle=pause_idle)
    seen: list[float | None] = []
    match.on_deal = lambda deal: seen.append(spinner_cpu())  # the bots are still alive when the deal ends
    run_match(match)
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    return seen[0], lines, lines[0]


def moves(lines: list[dict]) -> list[tuple]:
    """What was played and the result, without the timings."""
    keep = ("action", "deal_over", "result")
    return [(d["type"], d.get("seat"), json.dumps(d.get("ops")), d.get("totals")) for d in lines if d["type"] in keep]


def test_pause_idle_stops_a_bot_that_ponders_on_the_other_seats_time(tmp_path):
    paused, paused_lines, paused_header = background_match(tmp_path, True)
    free, free_lines, free_header = background_match(tmp_path, False)
    assert paused is not None and free is not None
    # 3 s of the other seat's thinking: without --pause-idle the spinner spins through it (as far as a loaded
    # machine lets it); with it, the spinner runs only while its own bot decides (and before it was ready).
    assert paused < 0.25, paused
    assert free > max(0.4, 4 * paused), (free, paused)
    assert moves(paused_lines) == moves(free_lines)
    assert paused_header["limits"]["pause_idle"] is True and free_header["limits"]["pause_idle"] is False
    assert paused_header["limits"]["clock"] == "wall"


def test_paused_bots_are_continued_before_they_are_killed(tmp_path, monkeypatch):
    # A stopped process handles no signal but SIGKILL: a graceful shutdown or SIGTERM would never reach it.
    states: list[str] = []
    kill = runner._kill_sessions

    def look_then_kill(bots):
        states.extend(Path(f"/proc/{bot.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] for bot in bots)
        kill(bots)

    monkeypatch.setattr(runner, "_kill_sessions", look_then_kill)
    record = tmp_path / "r.jsonl"
    out = play_match("classic", [RANDOM, RANDOM], 3, dict(SHORT), record, clock="cpu", pause_idle=True)
    assert [s.fault for s in out.result["seats"]] == [None, None]
    header = json.loads(record.read_text().splitlines()[0])
    assert header["limits"]["clock"] == "cpu" and header["limits"]["pause_idle"] is True
    assert states and "T" not in states, states
    assert not marked()


def test_the_cli_takes_the_clock_flags_and_rejects_a_bad_clock_in_one_line(tmp_path):
    import subprocess

    args = [sys.executable, "-m", "referee", "play", "classic", "--bot", RANDOM, "--bot", RANDOM, "--seed", "2"]
    args += ["--option", "max_deals=1", "--option", "max_turns_per_deal=40", "--record", str(tmp_path / "r.jsonl")]
    ok = subprocess.run([*args, "--clock", "cpu", "--pause-idle"], capture_output=True, text=True, cwd=ROOT)
    assert ok.returncode == 0, ok.stderr
    assert json.loads((tmp_path / "r.jsonl").read_text().splitlines()[0])["limits"]["clock"] == "cpu"
    bad = subprocess.run([*args, "--clock", "sundial"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2
    assert bad.stderr.strip() == "romis: --clock must be wall or cpu, got 'sundial'"


def write_config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "t.toml"
    entrants = f'[[entrants]]\nname = "a"\ncommand = "{RANDOM}"\n[[entrants]]\nname = "b"\ncommand = "{RANDOM}"\n'
    options = "[options]\nmax_deals = 1\nmax_turns_per_deal = 40\n"
    path.write_text(f'variant = "classic"\ndeal_sets = 1\nrecords = "{tmp_path}/records"\n{body}\n{options}{entrants}')
    return path


def test_tournament_configs_carry_the_clock_to_every_game(tmp_path):
    path = write_config(tmp_path, 'pause_idle = true\n[limits]\nclock = "cpu"\n')
    (tmp_path / "records").mkdir()
    spec = game_specs(load(path, {}))[0]
    assert spec.limits["clock"] == "cpu" and spec.limits["pause_idle"] is True
    assert play_game(spec) is not None
    header = json.loads(Path(spec.record or "").read_text().splitlines()[0])
    assert header["limits"]["clock"] == "cpu" and header["limits"]["pause_idle"] is True


def test_default_clock_settings_leave_the_fingerprint_as_it_was(tmp_path):
    plain = load(write_config(tmp_path, ""), {"seed": 5}).fingerprint()
    assert load(write_config(tmp_path, 'clock = "wall"\npause_idle = false\n'), {"seed": 5}).fingerprint() == plain


@pytest.mark.parametrize(
    "body, message",
    [
        ('[limits]\nclock = "sundial"\n', "limits.clock must be wall or cpu, got 'sundial'"),
        ('pause_idle = "yes"\n', "limits.pause_idle must be true or false, got 'yes'"),
    ],
)
def test_bad_clock_settings_in_a_config_are_one_clear_error(tmp_path, body, message):
    with pytest.raises(ConfigError, match=message):
        load(write_config(tmp_path, body), {})


@pytest.mark.parametrize("recorded", [False, True])
def test_without_a_record_the_cpu_is_read_a_clock_tick_apart(monkeypatch, tmp_path, recorded):
    readings: list[float] = []
    read = runner.BotProcess.cpu_time
    monkeypatch.setattr(runner.BotProcess, "cpu_time", lambda bot: readings.append(0) or read(bot))
    start = time.perf_counter()
    out = play_match("classic", [RANDOM, RANDOM], 1, dict(SHORT), tmp_path / "r.jsonl" if recorded else None)
    ticks = (time.perf_counter() - start) / 0.01  # clock ticks the match took, bots' start-up included
    seats = out.result["seats"]
    decisions = sum(len(s.walls) for s in seats)
    assert all(len(s.cpus) == len(s.walls) for s in seats)
    if recorded:  # the record writes each decision's CPU: a reading for each
        assert len(readings) >= decisions
    else:  # at most one reading a tick after a decision (on a busy machine the decisions may be that far apart)
        assert len(readings) <= min(decisions, 2 * ticks) + 4 * len(seats)


class _Reads:
    """A stand-in bot process whose CPU reads `used` seconds."""

    def __init__(self, used: float):
        self.used = used

    def cpu_time(self) -> float:
        return self.used


@pytest.mark.parametrize("recorded", [False, True])
def test_the_cpu_left_unread_at_the_end_goes_to_the_last_decision_of_each_seat(recorded):
    match = Match(find_variant("classic")(2, {}, 1), [RANDOM, RANDOM], Limits())
    match.record = Mock() if recorded else None
    for seat in match.seats:
        seat.proc, seat.cpus, seat.cpu_mark = _Reads(0.5), [0.1, 0.0], 0.1  # type: ignore[assignment]
    match._read_cpu_left()
    for seat in match.seats:  # with a record every decision was read already, and written
        assert seat.cpus == ([0.1, 0.0] if recorded else [0.1, pytest.approx(0.4)])
        assert seat.cpu_mark == (0.1 if recorded else 0.5)


SPINNER = (  # spins 0.1 s of CPU, then plays legally, on every request
    f"{sys.executable} -c 'import time; from sample_bots.bad._base import play, serve\n"
    "def think(request, n):\n"
    "    end = time.process_time() + 0.1\n"
    "    while time.process_time() < end: pass\n"
    "    return play(request)\n"
    'serve("spinner", think)\''
)


def test_a_reply_over_the_cpu_budget_times_out_even_if_no_watch_caught_it(monkeypatch):
    # The watch polls every 15 ms or more, and a reply within the blocking wait has none: the CPU read with the
    # reply decides too. With the watch made blind, only that check can find the overrun.
    async def blind(cpu_time, start, seconds, target, stop):
        with stop:
            await trio.sleep_forever()

    monkeypatch.setattr(match_module, "watch_cpu", blind)
    fault, detail, out = play([SPINNER, RANDOM], move_time=0.03, clock="cpu")
    assert fault == "timeout" and detail == "used more than 0.03 s of CPU without replying", detail
    assert out.result["seats"][1].fault is None


def test_a_deadline_that_passed_before_the_wait_is_a_timeout_not_a_crash(monkeypatch):
    # The referee may lose its CPU between writing a request and waiting for the play: the wait then begins past
    # the deadline, and must time the bot out at once (trio refuses a negative timeout).
    def late(self, i, proc, rid, deadline):
        time.sleep(max(0.0, deadline - time.perf_counter()) + 0.01)
        return None  # not there yet: the wait under trio takes over

    monkeypatch.setattr(Match, "_quick_play", late)
    fault, detail, _ = play([RANDOM, RANDOM], move_time=0.05)
    assert fault == "timeout" and detail == "no reply within 0.05 s", detail
