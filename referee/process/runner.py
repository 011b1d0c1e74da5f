"""The bot process runner: spawn a bot without a shell, exchange lines, kill its whole tree.

Timeouts belong to the caller (`trio.fail_after`, or `timed_receive`). Cleanup: every bot
must be `aclose()`d; `bot_group()` does it for every bot it started, whatever happened
(exceptions, cancellation, Ctrl-C). A bot's stderr reader also kills the bot if its
nursery is cancelled, so a forgotten `aclose()` cannot leave a process behind.

Reach of the kill: the bot runs as the leader of its own session, so `killpg` reaches every
descendant that stays in its process group, and a sweep over /proc then reaches those that
moved to another group of the same session. A descendant that calls setsid() itself (a
daemon) escapes both, so the sandbox catches it: bubblewrap makes the bot the init of its own PID
namespace (referee.process.sandbox), which dies with the bot; under `--sandbox none`, a PID namespace
per bot as well (referee.process.spawn), or, where namespaces are refused, this process as child
subreaper, which adopts such orphans and kills them when a bot closes.
PR_SET_PDEATHSIG is not set by the runner: trio spawns from a worker thread, and the signal
fires when that thread exits, not when the referee does. `romis play` and the tournament
workers run under referee.process.reaper's watchdog, which covers a SIGKILLed referee.
"""

import array
import fcntl
import os
import select
import shutil
import signal
import subprocess
import termios
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any

import msgspec
import trio

from protocol.messages import MAX_LINE_BYTES, Play, Ready, decode_from_bot
from referee.process import sandbox
from referee.process.clocks import SessionTicks
from referee.process.sandbox import BWRAP, Box, sandbox_mode
from referee.process.spawn import contained, kill_adopted, missing_interpreter, proc_stat, rlimits, spawn_args

_CHUNK = 65536
_CLK_TCK = os.sysconf("SC_CLK_TCK")
_EXIT_GRACE = 1.0  # after stdout EOF, how long to wait for the exit status and the last stderr
_REAP_GRACE = 5.0  # a SIGKILLed process in uninterruptible sleep may take a while to die
# Reading every /proc/PID/stat costs ~0.5 ms on an idle machine (far more on a busy one): a listing of /proc
# every _RESCAN seconds finds new processes, and only those are read to see whether they are members.
_RESCAN = 0.25
CLOCKS = ("wall", "cpu")


@dataclass
class Limits:
    """Time and resource limits of one bot."""

    move_time: float = 2.0  # seconds per decision
    bank: float = 30.0  # per-match time bank for overruns beyond move_time
    startup_time: float = 10.0  # from spawn to the bot's first line (ready)
    # RLIMIT_DATA, not RLIMIT_AS: V8 and the JVM reserve far more address space than they use.
    memory_mb: int = 2048
    # RLIMIT_NPROC counts every task (thread) of a *user*. In the sandbox as root each bot has a uid of its own,
    # so this caps the bot alone. Otherwise it is set to the user's current task count plus this headroom: a
    # fork-bomb guard that cannot stop a bot from starting (bots started concurrently share the headroom).
    # None disables it. The kernel exempts root, so under `--sandbox none` as root it has no effect.
    processes: int | None = 256
    file_size_mb: int = 64  # RLIMIT_FSIZE (pipes are not files: stdout/stderr are unaffected)
    files: int = 1024  # RLIMIT_NOFILE: open file descriptors
    tmp_mb: int = 64  # the size of the sandbox's private /tmp (and /dev/shm, and a writable folder's copy)
    stderr_cap: int = 64 * 1024  # bytes of stderr kept (the tail); the rest is dropped and counted
    max_line: int = MAX_LINE_BYTES
    sandbox: str | None = None  # sandbox.BWRAP, or spawn.PIDNS or SUBREAPER (none); None: what sandbox_mode() finds
    clock: str = "wall"  # or "cpu": move time and bank are judged by the CPU time of the bot's process tree
    pause_idle: bool = False  # SIGSTOP the bot's process group while it is not its decision
    shutdown_grace: float = 1.0  # after `shutdown`, how long a bot may take to exit by itself before it is killed

    def wall_cap(self, bank: float) -> float:
        """Under the CPU clock, the wall time a request may take at most (bank: as it stands), so that a bot
        that sleeps still times out: 10x the move time plus the bank plus 5 s, never less than the CPU budget."""
        return 10 * self.move_time + bank + 5.0


class BotFault(Exception):
    """A bot misbehaved (a result against its seat). `kind`: timeout, crash, broken_pipe,
    malformed, unknown_message, line_too_long, startup or exec; `detail` says what happened."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


def session_procs(sids: set[int]) -> list[int]:
    """The pids of every live process in the sessions `sids` (one scan of /proc for all of them)."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        fields = proc_stat(int(name))  # None: the process exited while we looked
        with suppress(ValueError, IndexError):
            if fields is not None and int(fields[3]) in sids:  # field 6 of proc(5): the session id
                found.append(int(name))
    return found


def _describe(status: int | None, pipe: str) -> str:
    if status is None:
        return f"closed its {pipe} but is still running"
    if status >= 0:
        return f"exited with code {status}"
    return f"killed by {signal.strsignal(-status) or -status} (signal {-status})"


class BotProcess:
    """One bot subprocess: start, send lines, receive lines, kill its whole process group."""

    def __init__(self, proc: trio.Process, limits: Limits):
        assert proc.stdin and proc.stdout and proc.stderr  # start() opens all three as pipes
        self._proc = proc
        self._stdin, self._stdout, self._stderr_pipe = proc.stdin, proc.stdout, proc.stderr
        self.limits = limits
        self.pid = self.pgid = proc.pid  # start_new_session: the bot leads its session and group
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf known to hold no newline
        self._skipping = False  # inside the rest of an overlong line
        self._drained = False  # the last read of stdout found it empty
        self._unread = array.array("i", [0])  # bytes in the stdout pipe, as FIONREAD tells
        self._poll: Any = None  # a select.poll of stdout, made at the first blocking wait
        self._stderr = bytearray()
        self.stderr_dropped = 0
        self._stderr_done = trio.Event()
        self._status: int | None = None
        self._cpu_ticks = 0
        self._seen_ticks = self._lost_ticks = 0
        self._members: list[int] = [self.pid]
        self._ticks = SessionTicks(self.pgid)
        self._listed: set[int] = set()  # the pids in /proc at the last scan
        self._rescan_at = 0.0
        self.paused = False
        self._closing = False
        self._closed = trio.Event()
        self.uid_lock: int | None = None  # the lock on the sandbox uid this bot runs under (root), given back at close
        self.copy: str | None = None  # a private copy of its folder (root, a folder others may not read), removed then

    @classmethod
    async def start(
        cls,
        nursery: trio.Nursery,
        argv: list[str],
        limits: Limits,
        cwd: str | os.PathLike | None = None,
        env: dict[str, str] | None = None,
        box: Box | None = None,
    ) -> "BotProcess":
        """Spawn `argv` (no shell) in its own session with `limits`, in the sandbox with what `box` allows; its
        stderr is read in `nursery`."""
        name = os.path.join(cwd, argv[0]) if argv and cwd and os.sep in argv[0] else (argv or [""])[0]
        program = shutil.which(name, path=(env or os.environ).get("PATH")) if name else None
        if program is None:
            raise BotFault("exec", f"cannot run {argv[0] if argv else ''!r}: not found or not executable")
        interpreter = missing_interpreter(program)
        if interpreter is not None:
            raise BotFault(
                "exec", f"cannot run {argv[0]!r}: its interpreter {interpreter!r} is not found or not executable"
            )
        box = box or Box()
        mode = box.sandbox or limits.sandbox or sandbox_mode()
        uid, uid_lock = sandbox.take_uid() if mode == BWRAP else (None, None)
        copy = None
        pairs = rlimits(limits.memory_mb, limits.file_size_mb, limits.processes, limits.files, uid is not None)
        argv = [program, *argv[1:]]
        try:
            if mode == BWRAP:
                here = os.fspath(cwd) if cwd is not None else os.getcwd()
                copy = sandbox.private_copy(argv, here, uid) if uid is not None else None
                args, preexec = spawn_args(sandbox.wrap(argv, box, here, uid, limits.tmp_mb, env, copy), pairs)
            else:
                args, preexec = spawn_args(argv, pairs)
                args = contained(args, mode)
            proc = await cls._open(args, preexec, cwd, env, argv[0])
        except BaseException:
            sandbox.give_back(uid_lock, copy)
            raise
        bot = cls(proc, limits)
        bot.uid_lock, bot.copy = uid_lock, copy
        _running.add(bot.pid)
        try:  # no checkpoint since the spawn: a cancellation cannot leak the bot
            nursery.start_soon(bot._drain_stderr)
        except RuntimeError:  # the nursery is closed
            os.killpg(bot.pgid, signal.SIGKILL)
            raise
        return bot

    @staticmethod
    async def _open(
        args: list[str], preexec: Any, cwd: str | os.PathLike | None, env: dict[str, str] | None, name: str
    ) -> trio.Process:
        try:
            return await trio.lowlevel.open_process(
                args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                preexec_fn=preexec,
                cwd=cwd,
                env=env,
            )
        except OSError as e:
            raise BotFault("exec", f"cannot run {name!r}: {e.strerror or e}") from None

    @property
    def returncode(self) -> int | None:
        """Exit status (negative: killed by that signal), or None while running."""
        if self._status is None:
            # WNOWAIT peeks without reaping: the zombie keeps the pgid from being reused
            # until aclose() has killed the group.
            with suppress(ChildProcessError):
                info = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
                if info is not None:
                    exited = info.si_code == os.CLD_EXITED
                    self._status = info.si_status if exited else -info.si_status
        return self._status

    @property
    def stderr_tail(self) -> bytes:
        """The last `limits.stderr_cap` bytes the bot wrote to stderr."""
        return bytes(self._stderr)

    def cpu_time(self) -> float:
        """CPU seconds (user+sys) of the bot's process tree: every live process of its session, plus the children
        they have reaped.

        Precise to a clock tick (10 ms) per process. Only the known members are read; every 0.25 s a listing of
        /proc finds the processes started since, and a new member's CPU is counted in full once found (one that
        reuses a pid seen in the previous listing is missed). A member reaped by a process outside
        the session (an orphan adopted by init) keeps its last reading, so at most one poll of its CPU is missed;
        a member that calls setsid() itself is not counted. Never decreases; frozen once the bot is closed.
        """
        if not self._closing:
            now = time.monotonic()
            if now >= self._rescan_at:
                # Only processes that appeared since the last scan can be new members: read just those.
                self._rescan_at = now + _RESCAN
                listed = {int(p) for p in os.listdir("/proc") if p.isdigit()}
                self._members += self._ticks.members(listed - self._listed)
                self._listed = listed
            ticks = self._ticks.read(self._members)
            self._members = list(ticks)
            total = sum(ticks.values())
            if total < self._seen_ticks:  # a member's CPU left the session with it: keep what was counted
                self._lost_ticks += self._seen_ticks - total
            self._seen_ticks = total
            self._cpu_ticks = max(self._cpu_ticks, total + self._lost_ticks)
        return self._cpu_ticks / _CLK_TCK

    def pause(self) -> None:
        """SIGSTOP the bot's process group (--pause-idle: it may not think on another seat's time)."""
        if not self.paused and not self._closing:
            self._signal_group(signal.SIGSTOP)
            self.paused = True

    def resume(self) -> None:
        """SIGCONT the bot's process group if it was paused; call it before the bot's clock starts."""
        if self.paused:
            self._signal_group(signal.SIGCONT)
            self.paused = False

    def _signal_group(self, signum: int) -> None:
        with suppress(ProcessLookupError, PermissionError):  # the unreaped leader keeps the pgid ours
            os.killpg(self.pgid, signum)

    def send_nowait(self, data: bytes) -> int:
        """Write what of `data` the bot's stdin pipe takes now, without waiting: the bytes written. A request line
        fits the pipe's buffer, so it is usually all of them; 0 also when the bot is gone (`send` then says how)."""
        try:
            return os.write(self._fd(self._stdin), data)
        except OSError:  # a full pipe (BlockingIOError) or EPIPE: `send` waits, or raises the fault
            return 0

    async def send(self, data: bytes) -> None:
        """Write `data` to the bot's stdin; BotFault("broken_pipe") if the bot is gone.

        Blocks while the bot's stdin pipe is full (a bot that stops reading): keep it under a deadline.
        The pipe is written directly, and trio is asked to wait only when it is full: a request line fits the
        pipe's buffer, so a decision costs no trip through trio's scheduler here (a cancelled caller still stops).
        """
        await trio.lowlevel.checkpoint_if_cancelled()
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._fd(self._stdin), view) :]
            except BlockingIOError:
                await trio.lowlevel.wait_writable(self._fd(self._stdin))
            except OSError:  # EPIPE: the bot closed its stdin or is gone
                raise await self._gone_fault("broken_pipe") from None

    @staticmethod
    def _fd(stream: Any) -> int:
        """The descriptor of an open pipe stream (trio's FdStream, non-blocking); ClosedResourceError once closed."""
        fd = stream.fileno()
        if fd < 0:
            raise trio.ClosedResourceError("the bot's pipe is closed")
        return fd

    def _read_now(self) -> bytes | None:
        """What the bot's stdout holds now (b"" at end of file), or None if it holds nothing yet."""
        try:
            return os.read(self._fd(self._stdout), _CHUNK)
        except BlockingIOError:
            self._drained = True
            return None
        except OSError:  # as trio's FdStream: a broken pipe reads as the end of the bot's output
            return b""

    def _readable_now(self) -> bool:
        """Whether the bot's stdout holds bytes now, asked with an ioctl: a read that finds the pipe empty raises an
        exception, which costs more (most requests find no play there yet). False also at end of file."""
        try:
            fcntl.ioctl(self._fd(self._stdout), termios.FIONREAD, self._unread)
        except OSError:  # as a read would: let the read say what it is
            return True
        if self._unread[0]:
            return True
        self._drained = True
        return False

    def receive_line_within(self, seconds: float) -> bytes | None:
        """A line from the bot's stdout, blocking this thread for at most `seconds` (in whole milliseconds, rounded
        up) while none is complete: one poll() of the pipe and one read. None if no line came (also at end of
        file: `receive_line` then says how the bot went); the same checks as `receive_line`. trio's scheduler does
        not run meanwhile: keep `seconds` short."""
        if self._buf and (line := self._buffered_line()) is not None:  # an empty buffer holds no line (most waits)
            return line
        fd = self._fd(self._stdout)  # ClosedResourceError once closed, as for every read: never poll a stale number
        if self._poll is None:
            self._poll = select.poll()
            self._poll.register(fd, select.POLLIN)
        if not self._poll.poll(-(-seconds * 1000 // 1)):
            self._drained = True
            return None
        chunk = self._read_now()
        if not chunk:
            return None
        self._drained = False
        self._buf += chunk
        return self._buffered_line()

    async def _receive_some(self) -> bytes:
        """What the bot's stdout holds now, waiting only while it holds nothing; b"" at end of file.

        It reads before it waits, even right after a request: on a busy machine the bot often runs, and answers,
        while the write wakes it, and a wait on a pipe that is readable already costs a pass of trio's scheduler.
        After a read that found the pipe empty it waits first (a failed read costs an exception)."""
        while True:
            if self._drained:
                self._drained = False
                await trio.lowlevel.wait_readable(self._fd(self._stdout))
            chunk = self._read_now()
            if chunk is not None:
                return chunk

    def receive_line_nowait(self) -> bytes | None:
        """A line from the bot's stdout if one is complete now, without waiting (None if not, also at end of
        file: `receive_line` then says how the bot went); the same checks as `receive_line`."""
        line = self._buffered_line()
        while line is None:
            chunk = self._read_now() if self._readable_now() else None
            if not chunk:
                return None
            self._buf += chunk
            line = self._buffered_line()
        return line

    async def receive_line(self) -> bytes:
        """One line from the bot's stdout, without the newline; memory stays bounded by max_line."""
        while True:
            line = self._buffered_line()
            if line is not None:
                return line
            await trio.lowlevel.checkpoint_if_cancelled()
            chunk = await self._receive_some()
            if not chunk:
                raise await self._gone_fault("crash")
            self._buf += chunk

    def _buffered_line(self) -> bytes | None:
        """The first complete line of what was read (None if there is none yet); BotFault("line_too_long")."""
        limit = self.limits.max_line
        if self._skipping:
            nl = self._buf.find(b"\n")
            del self._buf[: len(self._buf) if nl < 0 else nl + 1]
            self._skipping = nl < 0
        nl = self._buf.find(b"\n", self._scanned)
        if nl >= 0:
            line = bytes(self._buf[:nl])
            del self._buf[: nl + 1]
            self._scanned = 0
            if nl > limit:
                raise BotFault("line_too_long", f"a line of {nl} bytes (limit {limit})")
            return line
        self._scanned = len(self._buf)
        if len(self._buf) > limit:
            self._buf.clear()
            self._scanned, self._skipping = 0, True
            raise BotFault("line_too_long", f"a line longer than {limit} bytes")
        return None

    async def _gone_fault(self, kind: str) -> BotFault:
        """The fault for a bot whose pipe closed: its exit status, its last stderr line, and any unfinished line."""
        # Shielded: a deadline expiring meanwhile must not turn a crash into a timeout.
        with trio.CancelScope(shield=True), trio.move_on_after(_EXIT_GRACE):
            while self.returncode is None:
                await trio.sleep(0.01)
            await self._stderr_done.wait()
        crash = kind == "crash"
        detail = ("" if crash else "bot ") + _describe(self.returncode, "stdout" if crash else "stdin")
        last = self.stderr_tail.strip().rsplit(b"\n", 1)[-1][-200:]
        if last:
            detail += f" (stderr: {last.decode(errors='replace')})"
        if crash and self._buf and not self._skipping:
            detail += f"; its last {len(self._buf)} bytes had no newline and were dropped"
        return BotFault(kind, detail)

    async def _drain_stderr(self) -> None:
        try:
            async for chunk in self._stderr_pipe:
                self._stderr += chunk
                excess = len(self._stderr) - self.limits.stderr_cap
                if excess > 0:
                    del self._stderr[:excess]
                    self.stderr_dropped += excess
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            pass
        except BaseException:  # cancelled (Ctrl-C, a failing sibling): take the bot down too
            self._stderr_done.set()
            await self.aclose()
            raise
        finally:
            self._stderr_done.set()

    async def aclose(self, swept: bool = False) -> None:
        """SIGKILL the bot's process group (and session stragglers, unless `swept` already), then reap it.
        Idempotent, shielded."""
        with trio.CancelScope(shield=True):
            if self._closing:
                await self._closed.wait()
                return
            self.cpu_time()
            self._ticks.close()
            self._closing = True
            # The unreaped leader holds the pgid, so killpg cannot hit a recycled group.
            if not swept:
                _kill_sessions([self])
            await self._stdin.aclose()
            await self._stdout.aclose()
            with trio.move_on_after(_REAP_GRACE):
                self._status = await self._proc.wait()
            _running.discard(self.pid)
            kill_adopted(_running)  # a no-op unless this process is the subreaper
            # A setsid() escapee may still hold stderr open: stop waiting for its EOF.
            with trio.move_on_after(_EXIT_GRACE):
                await self._stderr_done.wait()
            await self._stderr_pipe.aclose()
            sandbox.give_back(self.uid_lock, self.copy)
            self.uid_lock = self.copy = None
            self._closed.set()


_running: set[int] = set()  # bots of this process not yet reaped: children that the subreaper must spare


def _kill_sessions(bots: list[BotProcess]) -> None:
    """SIGKILL the bots' process groups, then every process left in their sessions (members that moved group)."""
    for bot in bots:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(bot.pgid, signal.SIGKILL)
    for pid in session_procs({bot.pgid for bot in bots}):
        with suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


async def timed_receive(bot: BotProcess, seconds: float, fault: str = "timeout") -> tuple[bytes, float, float]:
    """Receive one line within `seconds`: (line, wall s, CPU s); else BotFault(`fault`), e.g. "startup"."""
    cpu = bot.cpu_time()
    start = trio.current_time()  # the clock runs only while the bot has the move
    with trio.move_on_after(seconds) as scope:
        line = await bot.receive_line()
    wall = trio.current_time() - start
    if scope.cancelled_caught:
        # a bot that answers but never flushes looks the same: say what a line needs
        hint = " (a bot must end each line with \\n and flush it)" if fault == "startup" else ""
        raise BotFault(fault, f"no complete line within {seconds:.3f} s{hint}")
    return line, wall, bot.cpu_time() - cpu


def decode_reply(line: bytes) -> Ready | Play:
    """Decode a bot's line; BotFault("malformed") or BotFault("unknown_message") if it is not a reply.

    Whatever the bytes, nothing else is raised: a line nested too deeply for the decoder is malformed too.
    """
    try:
        return decode_from_bot(line)
    except (msgspec.DecodeError, RecursionError) as e:  # DecodeError covers ValidationError (a subclass)
        kind = "unknown_message" if _unknown_type(line) else "malformed"
        # msgspec quotes the offending name or value whole: a bot's 1 MB tag must not become a 1 MB detail
        why = "nested too deeply" if isinstance(e, RecursionError) else _clip(str(e), 200)
        raise BotFault(kind, f"{why}: {line[:80]!r}") from None


def _clip(text: str, most: int) -> str:
    """`text` cut to about `most` characters in the middle, keeping the end where msgspec names the path."""
    half = most // 2
    return text if len(text) <= most else text[:half] + "…" + text[-half:]


def _unknown_type(line: bytes) -> bool:
    """True if `line` is a JSON object whose `type` is a string a bot may not send."""
    try:
        tag = msgspec.json.decode(line, type=dict[str, Any]).get("type")
    except (msgspec.DecodeError, RecursionError):
        return False
    return isinstance(tag, str) and tag not in ("ready", "play")


class BotGroup:
    """The bots of one match, made by `bot_group()`: every bot it started is closed on exit."""

    def __init__(self, nursery: trio.Nursery):
        self.nursery = nursery
        self.bots: list[BotProcess] = []

    async def start(
        self,
        argv: list[str],
        limits: Limits,
        cwd: str | os.PathLike | None = None,
        env: dict[str, str] | None = None,
        box: Box | None = None,
    ) -> BotProcess:
        """Start a bot that is killed when the group ends."""
        bot = await BotProcess.start(self.nursery, argv, limits, cwd=cwd, env=env, box=box)
        self.bots.append(bot)
        return bot


@asynccontextmanager
async def bot_group() -> AsyncIterator[BotGroup]:
    """`async with bot_group() as group:` every bot started by `group.start` is gone on exit."""
    async with trio.open_nursery() as nursery:
        group = BotGroup(nursery)
        try:
            yield group
        finally:
            with trio.CancelScope(shield=True):
                live = [bot for bot in group.bots if not bot._closing]
                _kill_sessions(live)  # one scan of /proc for the whole group
                for bot in group.bots:
                    await bot.aclose(swept=bot in live)
