"""The bot process runner, driven with real subprocess bots (sample_bots/bad)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import tracemalloc
from pathlib import Path

import pytest
import trio
from procs import gone, group_cmds, group_gone, wait_until

from protocol import messages as m
from referee.match import Match
from referee.process.runner import BotFault, BotProcess, Limits, bot_group, decode_reply, timed_receive
from referee.process.spawn import PIDNS
from referee.rules.variants import find_variant

pytestmark = [pytest.mark.anyio, pytest.mark.e2e]

ROOT = Path(__file__).resolve().parent.parent
HELLO = {
    "type": "hello",
    "protocol": 1,
    "variant": "classic",
    "rules_version": 1,
    "seat": 0,
    "players": 2,
    "options": {},
    "limits": {"move_time": 0.2, "bank": 1.0, "startup_time": 5},
}


def bad(name: str) -> list[str]:
    return [sys.executable, "-m", f"sample_bots.bad.{name}"]


def line(msg: dict) -> bytes:
    return json.dumps(msg).encode() + b"\n"


def request(n: int) -> bytes:
    options = [{"op": "draw", "source": "stock"}, {"op": "draw", "source": "discard"}]
    return line(
        {
            "type": "request",
            "id": n,
            "decision": {"kind": "draw", "options": options},
            "view": {"hand": ["AS", "2S"]},
            "events": [],
            "clock": {"move_time": 0.2, "bank": 1.0},
        }
    )


async def greet(bot: BotProcess) -> dict:
    await bot.send(line(HELLO))
    ready, _, _ = await timed_receive(bot, 5)
    return json.loads(ready)


async def play_rounds(bot: BotProcess, rounds: int, seconds: float = 5) -> None:
    for n in range(1, rounds + 1):
        await bot.send(request(n))
        reply = decode_reply((await timed_receive(bot, seconds))[0])
        assert reply.id == n


async def asked_after(group, name: str, rounds: int) -> BotProcess:
    """A misbehaving bot that has been greeted, has played `rounds` requests, and has the next one pending."""
    bot = await group.start(bad(name), Limits(), cwd=ROOT)
    await greet(bot)
    await play_rounds(bot, rounds)
    await bot.send(request(rounds + 1))
    return bot


async def test_echo_round_trip():
    echo = "import sys\nfor l in sys.stdin: sys.stdout.write(l.upper()); sys.stdout.flush()"
    async with bot_group() as group:
        bot = await group.start([sys.executable, "-c", echo], Limits())
        for word in (b"hello", b"again"):
            await bot.send(word + b"\n")
            assert await bot.receive_line() == word.upper()
    assert bot.returncode == -signal.SIGKILL


async def test_protocol_round_trip_and_clean_exit():
    async with bot_group() as group:
        bot = await group.start(bad("_base"), Limits(), cwd=ROOT)
        assert (await greet(bot))["type"] == "ready"
        await play_rounds(bot, 3)
        await bot.send(line({"type": "shutdown"}))
        with pytest.raises(BotFault) as fault:
            await bot.receive_line()
        assert fault.value.kind == "crash" and "code 0" in fault.value.detail
    assert bot.returncode == 0


async def test_exec_fault_for_missing_program():
    async with bot_group() as group:
        with pytest.raises(BotFault) as fault:
            await group.start(["/nonexistent/bot"], Limits())
    assert fault.value.kind == "exec"


async def test_exit_before_ready_is_a_crash_with_exit_code_and_stderr():
    async with bot_group() as group:
        bot = await group.start(bad("exit_now"), Limits(), cwd=ROOT)
        with pytest.raises(BotFault) as fault:
            await timed_receive(bot, 5)
    assert fault.value.kind == "crash"
    assert "code 1" in fault.value.detail and "not today" in fault.value.detail


async def test_crash_mid_match():
    async with bot_group() as group:
        bot = await asked_after(group, "crash", 5)
        with pytest.raises(BotFault) as fault:
            await timed_receive(bot, 5)
        assert fault.value.kind == "crash" and "code 3" in fault.value.detail
        with pytest.raises(BotFault) as fault:
            for _ in range(100):  # the pipe buffer may take a write or two before it breaks
                await bot.send(request(7))
        assert fault.value.kind == "broken_pipe"


async def test_hang_times_out():
    async with bot_group() as group:
        bot = await asked_after(group, "hang", 3)
        start = trio.current_time()
        with pytest.raises(BotFault) as fault:
            await timed_receive(bot, 0.3)
        assert fault.value.kind == "timeout"
        assert 0.3 <= trio.current_time() - start < 1.0


async def test_late_bot_reply_is_measured():
    async with bot_group() as group:
        bot = await group.start(bad("late"), Limits(), cwd=ROOT)
        await greet(bot)  # move_time 0.2: every reply comes about 0.7 s late
        await bot.send(request(1))
        with pytest.raises(BotFault):
            await timed_receive(bot, 0.2)
        _, wall, cpu = await timed_receive(bot, 2)  # the late reply still arrives, intact
        assert 0.3 < wall < 1.5 and cpu < 0.3


async def test_line_limit_is_exact():
    script = "import sys; sys.stdout.write('a' * 1000 + '\\n' + 'b' * 1001 + '\\nok\\n')"
    async with bot_group() as group:
        bot = await group.start([sys.executable, "-c", script], Limits(max_line=1000))
        assert await bot.receive_line() == b"a" * 1000
        with pytest.raises(BotFault) as fault:
            await bot.receive_line()
        assert fault.value.kind == "line_too_long"
        assert await bot.receive_line() == b"ok"


async def test_ten_megabyte_line_is_a_fault_in_bounded_memory():
    async with bot_group() as group:
        bot = await asked_after(group, "bigline", 0)
        tracemalloc.start()
        try:
            with pytest.raises(BotFault) as fault:
                await timed_receive(bot, 5)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert fault.value.kind == "line_too_long"
    assert peak < 4 * Limits().max_line


async def test_stderr_flood_does_not_stall_and_is_capped():
    async with bot_group() as group:
        bot = await group.start(bad("stderr_flood"), Limits(stderr_cap=10_000), cwd=ROOT)
        await greet(bot)
        await play_rounds(bot, 4)  # 32 MB of stderr: would block the bot if nobody read it
        assert len(bot.stderr_tail) == 10_000
        assert b"noise noise" in bot.stderr_tail
        assert bot.stderr_dropped > 20_000_000


async def test_forker_child_dies_with_the_bot(monkeypatch):
    monkeypatch.setenv("ROMIS_SANDBOX", "subreaper")  # the group kill alone; the bot reports its child's host PID
    async with bot_group() as group:
        bot = await group.start(bad("forker"), Limits(), cwd=ROOT)
        await greet(bot)
        with trio.fail_after(2):  # stderr is read by another task: wait for the line to arrive
            while b"\n" not in bot.stderr_tail:
                await trio.sleep(0.01)
        child = int(bot.stderr_tail.split(b"child pid ")[1].split()[0])
        assert os.getpgid(child) == bot.pgid
        await bot.aclose()
        await bot.aclose()  # twice is fine
    assert gone(child) and group_gone(bot.pgid)


async def test_child_that_leaves_the_group_is_swept(monkeypatch):
    monkeypatch.setenv("ROMIS_SANDBOX", "subreaper")  # the session sweep alone; the bot reports a host PID
    script = textwrap.dedent("""
        import os, subprocess, sys
        child = subprocess.Popen(["sleep", "1000"], process_group=0)
        print(child.pid, flush=True)
        sys.stdin.read()
    """)
    async with bot_group() as group:
        bot = await group.start([sys.executable, "-c", script], Limits())
        child = int(await bot.receive_line())
        assert os.getpgid(child) == child != bot.pgid
    assert gone(child)


async def test_cancel_leaves_no_process_behind():
    with trio.move_on_after(1):
        async with bot_group() as group:
            bots = [await group.start(bad("forker"), Limits(), cwd=ROOT) for _ in range(2)]
            await trio.sleep_forever()
    assert all(group_gone(bot.pgid) for bot in bots)


async def test_stderr_reader_kills_bot_when_nursery_is_cancelled():
    with trio.move_on_after(0.5):
        async with trio.open_nursery() as nursery:
            bot = await BotProcess.start(nursery, bad("forker"), Limits(), cwd=ROOT)
            await trio.sleep_forever()  # aclose() forgotten on purpose
    assert group_gone(bot.pgid)


def test_ctrl_c_leaves_no_process_behind(tmp_path):
    script = textwrap.dedent(f"""
        import sys, trio
        from referee.process.runner import Limits, bot_group
        async def main():
            async with bot_group() as group:
                for _ in range(3):
                    bot = await group.start([sys.executable, "-m", "sample_bots.bad.forker"],
                                            Limits(), cwd={str(ROOT)!r})
                    print(bot.pgid, flush=True)
                await trio.sleep_forever()
        trio.run(main)
    """)
    with subprocess.Popen(
        [sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    ) as referee:
        try:
            pgids = [int(referee.stdout.readline()) for _ in range(3)]
            # each bot has started its child (the group may also hold the PID-namespace helper above the bot)
            assert all(wait_until(lambda p=p: any("sleep 1000" in c for c in group_cmds(p)), 10) for p in pgids)
            referee.send_signal(signal.SIGINT)
            assert referee.wait(10) != 0
        finally:
            referee.kill()
    assert all(group_gone(pgid) for pgid in pgids)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
async def test_node_runs_under_default_limits():
    async with bot_group() as group:
        bot = await group.start(["node", "-e", "console.log(1)"], Limits())
        line_, _, _ = await timed_receive(bot, 10)
    assert line_ == b"1"


async def test_cpu_time_counts_the_process_tree():
    spin = "import time; t = time.process_time()\nwhile time.process_time() - t < 0.4: pass"
    script = textwrap.dedent(f"""
        import subprocess, sys
        subprocess.run([sys.executable, "-c", {spin!r}])
        exec({spin!r})
        print("done", flush=True)
        sys.stdin.read()
    """)
    async with bot_group() as group:
        bot = await group.start([sys.executable, "-c", script], Limits())
        before = bot.cpu_time()
        line_, _, cpu = await timed_receive(bot, 5)
        assert line_ == b"done"
        assert bot.cpu_time() >= 0.8 > before
        assert cpu >= 0.7


def test_decode_reply_names_the_fault():
    assert decode_reply(b'{"type":"ready","name":"x"}').name == "x"
    for raw, kind in [
        (b"not json", "malformed"),
        (b'{"type":"banana"}', "unknown_message"),
        (b'{"type":"play","id":"x","ops":[]}', "malformed"),
        (b"[1]", "malformed"),
    ]:
        with pytest.raises(BotFault) as fault:
            decode_reply(raw)
        assert fault.value.kind == kind, raw


async def test_silent_bot_fails_startup():
    async with bot_group() as group:
        bot = await group.start([sys.executable, "-c", "import time; time.sleep(60)"], Limits())
        with pytest.raises(BotFault) as fault:
            await timed_receive(bot, 0.3, fault="startup")
    assert fault.value.kind == "startup"


async def test_memory_limit_applies():
    hog = (
        "import resource; print(resource.getrlimit(resource.RLIMIT_DATA)[0] >> 20, flush=True)\n"
        "x = bytearray(300 << 20)"
    )
    async with bot_group() as group:
        bot = await group.start([sys.executable, "-c", hog], Limits(memory_mb=200))
        assert await bot.receive_line() == b"200"
        with pytest.raises(BotFault) as fault:
            await timed_receive(bot, 5)
    assert fault.value.kind == "crash" and "MemoryError" in fault.value.detail


def fault_kind(raw: bytes) -> str:
    """The kind of fault `raw` is as a reply."""
    with pytest.raises(BotFault) as fault:
        decode_reply(raw)
    return fault.value.kind


@pytest.mark.parametrize(
    "name, rounds, check",
    [
        ("garbage", 4, lambda raw: fault_kind(raw) == "malformed"),
        ("unknown", 1, lambda raw: fault_kind(raw) == "unknown_message"),
        ("stale", 1, lambda raw: decode_reply(raw).id == 0),
        ("illegal", 4, lambda raw: decode_reply(raw).ops[0].card not in ("AS", "2S")),
    ],
)
async def test_misbehaving_bots_misbehave_as_documented(name, rounds, check):
    async with bot_group() as group:
        bot = await group.start(bad(name), Limits(), cwd=ROOT)
        await greet(bot)
        for n in range(1, rounds + 1):
            await bot.send(request(n))
            raw, _, _ = await timed_receive(bot, 5)
        assert check(raw)


@pytest.mark.parametrize("prlimit", [True, False], ids=["prlimit", "preexec"])
async def test_a_script_whose_interpreter_is_missing_is_an_exec_fault(tmp_path, monkeypatch, prlimit):
    if not prlimit:
        monkeypatch.setattr("referee.process.spawn._PRLIMIT", None)
    script = tmp_path / "bot"
    script.write_text("#!/nonexistent/python3 -u\nprint('never')\n")
    script.chmod(0o755)
    async with bot_group() as group:
        with pytest.raises(BotFault) as fault:
            await group.start([str(script)], Limits())
    assert fault.value.kind == "exec" and "/nonexistent/python3" in fault.value.detail


async def test_a_last_line_without_newline_is_a_crash_that_says_so():
    async with bot_group() as group:
        bot = await group.start([sys.executable, "-c", "print('{\"type\":\"ready\"}', end='')"], Limits())
        with pytest.raises(BotFault) as fault:
            await timed_receive(bot, 5)
    assert fault.value.kind == "crash"
    assert "code 0" in fault.value.detail and "16 bytes had no newline" in fault.value.detail


async def test_a_bot_that_closes_its_input_is_a_broken_pipe_with_its_last_words():
    # without the sandbox: bubblewrap's own process holds the bot's pipes too, so there a bot that closes its stdin
    # and keeps running is caught by its deadline instead (docs/security.md)
    script = "import os, sys, time; os.close(0); print('deaf now', file=sys.stderr, flush=True); time.sleep(60)"
    async with bot_group() as group:
        bot = await group.start([sys.executable, "-c", script], Limits(sandbox=PIDNS))
        with trio.fail_after(2):
            while b"deaf" not in bot.stderr_tail:
                await trio.sleep(0.01)
        with pytest.raises(BotFault) as fault:
            await bot.send(b"x" * 100_000)
    assert fault.value.kind == "broken_pipe"
    assert "closed its stdin but is still running" in fault.value.detail and "deaf now" in fault.value.detail


def test_decode_reply_never_raises_anything_but_a_fault_for_deep_nesting():
    deep = b"[" * 100_000 + b"]" * 100_000
    for raw in (b'{"type":"play","id":1,"ops":' + deep + b"}", b'{"type":"ready","x":' + deep + b"}", deep):
        with pytest.raises(BotFault) as fault:
            decode_reply(raw)
        assert fault.value.kind == "malformed"


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda p: p.write_text("#!/bin/sh\n"), "is not executable (chmod +x?)"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: None, "not found"),
    ],
    ids=["not executable", "directory", "missing"],
)
def test_a_bot_program_that_cannot_run_is_a_usage_error_naming_why(tmp_path, make, words):
    from referee.match import split_command
    from referee.rules.errors import ConfigError

    program = tmp_path / "bot"
    make(program)
    with pytest.raises(ConfigError) as error:
        split_command(f"{program} --fast")
    assert str(error.value).endswith(f"program {str(program)!r} {words}")


async def _nowait_line(bot: BotProcess) -> bytes:
    """Poll receive_line_nowait until a line is complete (the bot writes it soon)."""
    with trio.fail_after(5):
        while (got := bot.receive_line_nowait()) is None:
            await trio.sleep(0.01)
    return got


async def test_the_nowait_calls_take_what_the_pipes_hold_and_never_wait():
    # each input line is written back without its newline, a "|" in it as a newline
    script = "import sys\nfor l in sys.stdin: sys.stdout.write(l.strip().replace('|', '\\n')); sys.stdout.flush()"
    async with bot_group() as group:
        bot = await group.start([sys.executable, "-c", script], Limits(max_line=10))
        assert bot.receive_line_nowait() is None  # nothing written yet
        assert bot.send_nowait(b"one|two|thr\n") == 12
        assert await _nowait_line(bot) == b"one"
        assert bot.receive_line_nowait() == b"two"  # read with the first line
        assert bot.receive_line_nowait() is None  # "thr" is not a whole line yet
        bot.send_nowait(b"ee|" + b"x" * 11 + b"|ok|\n")
        assert await _nowait_line(bot) == b"three"
        with pytest.raises(BotFault) as fault:
            bot.receive_line_nowait()  # the same check as receive_line: over max_line
        assert fault.value.kind == "line_too_long"
        assert bot.receive_line_nowait() == b"ok"


async def test_send_nowait_stops_at_a_full_pipe_and_a_gone_bot_is_said_by_send():
    async with bot_group() as group:
        bot = await group.start([sys.executable, "-c", "import time; time.sleep(60)"], Limits())
        big = b"x" * (1 << 20)
        assert 0 < bot.send_nowait(big) < len(big)  # what the pipe's buffer holds: the bot does not read
        assert bot.send_nowait(big) == 0
        os.killpg(bot.pgid, signal.SIGKILL)
        with trio.fail_after(5):
            while bot.returncode is None:
                await trio.sleep(0.01)
        assert bot.send_nowait(b"x\n") == 0
        with pytest.raises(BotFault) as fault:
            await bot.send(b"x\n")
        assert fault.value.kind == "broken_pipe"


async def test_after_nowait_finds_the_end_receive_line_says_how_the_bot_went():
    async with bot_group() as group:
        bot = await group.start([sys.executable, "-c", "print('done'); print('last', end='')"], Limits())
        assert await _nowait_line(bot) == b"done"
        with trio.fail_after(5):
            while bot.returncode is None:
                await trio.sleep(0.01)
        assert bot.receive_line_nowait() is None  # the end of the output: no line, and no fault here
        with pytest.raises(BotFault) as fault:
            await bot.receive_line()
    assert fault.value.kind == "crash" and "4 bytes had no newline" in fault.value.detail


async def test_receive_line_within_blocks_briefly_for_a_line_and_leaves_the_rest_to_receive_line():
    # each input line is written back after the delay (ms) it names, a "|" in it as a newline
    script = (
        "import sys, time\nfor l in sys.stdin:\n    ms, text = l.split()\n    time.sleep(int(ms) / 1000)\n"
        "    sys.stdout.write(text.replace('|', '\\n')); sys.stdout.flush()"
    )
    async with bot_group() as group:
        bot = await group.start([sys.executable, "-c", script], Limits(max_line=10))
        bot.send_nowait(b"0 ready|\n")
        assert bot.receive_line_within(5.0) == b"ready"  # waits for the bot to start and answer
        bot.send_nowait(b"0 one|two|\n")
        assert bot.receive_line_within(5.0) == b"one"
        assert bot.receive_line_within(0.0) == b"two"  # read with the first line: no wait
        bot.send_nowait(b"300 late|\n")
        assert bot.receive_line_within(0.002) is None  # not within 2 ms: the caller waits under its own deadline
        with trio.fail_after(5):
            assert await bot.receive_line() == b"late"
        bot.send_nowait(b"0 half\n")
        assert bot.receive_line_within(5.0) is None  # a partial line is not a line
        bot.send_nowait(b"0 " + b"x" * 11 + b"|\n")
        with pytest.raises(BotFault) as fault:
            bot.receive_line_within(5.0)  # the same check as receive_line: over max_line
        assert fault.value.kind == "line_too_long"
        os.killpg(bot.pgid, signal.SIGKILL)
        assert bot.receive_line_within(5.0) is None  # the end of the output: no line, and no fault here
        with pytest.raises(BotFault) as fault:
            await bot.receive_line()
        assert fault.value.kind == "crash"
    with pytest.raises(trio.ClosedResourceError):
        bot.receive_line_within(0.0)  # once closed, the pipe's old descriptor number is not polled


class InstantBot:
    """A stand-in for a BotProcess whose play (the engine's fallback) is in the pipe as soon as it is asked: the
    match loop never waits for it in trio's scheduler."""

    paused, returncode = False, None

    def __init__(self, game):
        self.game, self.lines = game, []

    def send_nowait(self, line: bytes) -> int:
        msg = json.loads(line)
        seat = msg["view"]["seat"]
        self.lines.append(json.dumps({"type": "play", "id": msg["id"], "ops": m.to_builtins(self.game.fallback(seat))}))
        return len(line)

    async def send(self, line: bytes) -> None:
        await trio.lowlevel.checkpoint_if_cancelled()

    def receive_line_nowait(self) -> bytes | None:
        return self.lines.pop(0).encode() if self.lines else None

    def receive_line_within(self, seconds: float) -> bytes | None:
        return self.receive_line_nowait()

    def cpu_time(self) -> float:
        return 0.0

    def resume(self) -> None:
        pass

    def pause(self) -> None:
        pass


async def test_a_match_whose_bots_answer_at_once_still_notices_a_deadline_around_it():
    # Every reply is taken without a wait, so only the loop's own passes through the scheduler (every
    # match.YIELD_EVERY) let trio see that the scope around the match has expired (as Ctrl-C, SIGTERM or a stopping
    # tournament cancel it). Played to its end the match would take seconds.
    game = find_variant("gin")(2, {"target": 10**6, "max_deals": 1000}, 7)
    match = Match(game, [sys.executable] * 2, Limits())
    for seat in match.seats:
        seat.proc = InstantBot(game)
    with trio.move_on_after(0.05) as scope:
        await match._play()
    assert scope.cancelled_caught and not game.is_over()
    assert sum(len(s.walls) for s in match.seats) > 10  # it did play
