"""Starting a bot under its resource limits and in its sandbox: the rlimits, the prlimit wrapper, a check of
the program, and the PID/network namespaces (or the subreaper fallback) that make its whole tree mortal."""

import ctypes
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from contextlib import suppress

from referee.rules.errors import ConfigError


def _user_tasks() -> int:
    """Tasks (threads included, as RLIMIT_NPROC counts them) owned by our uid."""
    uid, count = os.getuid(), 0
    for name in filter(str.isdigit, os.listdir("/proc")):
        with suppress(OSError):
            if os.stat(f"/proc/{name}").st_uid == uid:
                count += len(os.listdir(f"/proc/{name}/task"))
    return count


def rlimits(memory_mb: int, file_size_mb: int, processes: int | None) -> list[tuple[int, int]]:
    """(resource, value) pairs for a bot (`runner.Limits` explains each), never above the hard limits it inherits."""
    mb = 1 << 20
    pairs = [
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_DATA, memory_mb * mb),
        (resource.RLIMIT_FSIZE, file_size_mb * mb),
    ]
    if processes is not None and os.getuid() != 0:  # the kernel does not apply RLIMIT_NPROC to root
        pairs.append((resource.RLIMIT_NPROC, _user_tasks() + processes))
    out = []
    for res, value in pairs:
        hard = resource.getrlimit(res)[1]
        out.append((res, value if hard == resource.RLIM_INFINITY else min(value, hard)))
    return out


_PRLIMIT = shutil.which("prlimit")
_PRLIMIT_NAMES = {
    resource.RLIMIT_CORE: "core",
    resource.RLIMIT_DATA: "data",
    resource.RLIMIT_FSIZE: "fsize",
    resource.RLIMIT_NPROC: "nproc",
}


def spawn_args(argv: list[str], pairs: list[tuple[int, int]]) -> tuple[list[str], Callable[[], None] | None]:
    """argv and preexec_fn that start `argv` under the limits `pairs`.

    util-linux's prlimit sets the limits and execs the bot in the same process; it lets Python spawn
    with vfork, about 15x cheaper than the fork a preexec_fn forces on a large referee process.
    """
    if _PRLIMIT:
        return [_PRLIMIT, *(f"--{_PRLIMIT_NAMES[r]}={v}" for r, v in pairs), "--", *argv], None

    def preexec() -> None:
        for r, v in pairs:
            resource.setrlimit(r, (v, v))

    return argv, preexec


def missing_interpreter(program: str) -> str | None:
    """The `#!` interpreter of the script `program` if it cannot be run, else None.

    The kernel refuses such a script; Python reports that at spawn, but under prlimit it would surface
    as an exit code 127, so both paths check first and give the same `exec` fault.
    """
    try:
        with open(program, "rb") as f:
            head = f.read(256)
    except OSError:
        return None
    words = head[2:].split(b"\n", 1)[0].split() if head.startswith(b"#!") else []
    if not words:
        return None
    interpreter = os.fsdecode(words[0])
    return None if os.path.isfile(interpreter) and os.access(interpreter, os.X_OK) else interpreter


# --- the sandbox: how a bot's whole tree is made to die with its match -------------------------------

PIDNS, SUBREAPER = "pid-namespace", "subreaper"
SANDBOX_VAR = "ROMIS_SANDBOX"  # pid-namespace, subreaper or auto (the default): what tests and users force
SANDBOX_CHOICES = ("auto", PIDNS, SUBREAPER)
_PR_SET_CHILD_SUBREAPER = 36
_probed: dict[tuple[str, ...], bool] = {}

_HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pidns.py")


def _works(*flags: str) -> bool:
    """True if the namespace helper can run `true` with FLAGS here (cached: probed once per process)."""
    if flags not in _probed:
        ok = False
        with suppress(OSError, subprocess.SubprocessError):
            probe = [sys.executable, "-I", "-S", _HELPER, *flags, "--", "true"]
            ok = subprocess.run(probe, capture_output=True, timeout=10).returncode == 0
        _probed[flags] = ok
    return _probed[flags]


def sandbox_mode(wanted: str | None = None, source: str = SANDBOX_VAR) -> str:
    """The sandbox in force: a PID namespace per bot where the machine allows one, else the subreaper.

    `wanted` (default: $ROMIS_SANDBOX, else auto) may force the fallback, `subreaper` (for tests, or a
    machine where namespaces misbehave), or insist on `pid-namespace` (ConfigError where it is refused);
    `source` names the setting in that error.
    """
    if wanted is None:
        wanted = os.environ.get(SANDBOX_VAR, "auto").strip() or "auto"
    if wanted not in SANDBOX_CHOICES:
        raise ConfigError(f"{source} must be auto, {PIDNS} or {SUBREAPER}, got {wanted!r}")
    if wanted == SUBREAPER:
        return SUBREAPER
    if _works("--pid"):
        return PIDNS
    if wanted == PIDNS:
        raise ConfigError(f"{source} {PIDNS}: this machine refuses new PID namespaces")
    return SUBREAPER


def check_no_network() -> None:
    """ConfigError unless a bot can be given a network namespace of its own on this machine."""
    if not _works("--net"):
        raise ConfigError("--no-network needs a network namespace per bot, which this machine refuses")


def describe_sandbox() -> str:
    """One sentence for `romis play --help`: which sandbox is in force here, and whether --no-network works."""
    try:
        mode = sandbox_mode()
    except ConfigError as e:
        return f"Sandbox: {e}."
    how = (
        "each bot runs in its own PID namespace; everything in it dies with the bot"
        if mode == PIDNS
        else "the referee is a child subreaper and kills every orphan a bot leaves"
    )
    net = "available" if _works("--net") else "not available here"
    return f"Sandbox in force on this machine: {mode} ({how}); --no-network is {net}."


def sandboxed(argv: list[str], mode: str, no_network: bool) -> list[str]:
    """`argv` wrapped for `mode`; with `no_network`, in a network namespace of its own with only `lo`, up.

    In a PID namespace (referee/process/pidns.py) the bot is the namespace's init: when it dies, the kernel
    kills everything left in the namespace, setsid() escapees included.
    """
    if mode == PIDNS or no_network:
        flags = (["--pid"] if mode == PIDNS else []) + (["--net"] if no_network else [])
        if mode != PIDNS:
            become_subreaper()
        return [sys.executable, "-I", "-S", _HELPER, *flags, "--", *argv]
    become_subreaper()
    return argv


def become_subreaper() -> None:
    """Make this process the child subreaper of its descendants (idempotent): orphans of a bot, even
    those that called setsid(), are reparented here rather than to init, so `adopted()` can find them."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def proc_stat(pid: int) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command name (field 3 of proc(5) first), or None if it is gone."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)  # os.read, not open(): this runs on the CPU clock's poll
        try:
            stat = os.read(fd, 1024)
        finally:
            os.close(fd)
    except OSError:
        return None
    return split_stat(stat)


def split_stat(stat: bytes, most: int = -1) -> list[bytes]:
    """The fields of a /proc/PID/stat text after the command name, which may hold spaces and parentheses; with
    `most`, only that many splits (the rest of the line is the last field)."""
    return stat[stat.rindex(b")") + 2 :].split(None, most)


def adopted(known: set[int]) -> list[int]:
    """Processes the subreaper (this process) adopted: its children that it did not start itself.

    A child this process started is in a session it leads or in this process's own session; an orphan
    of a bot is in the bot's session or in the one its setsid() made. `known` are the bots running now:
    an orphan still in the session of one of them is spared (that bot's close sweeps its session).
    """
    me, found = os.getpid(), []
    own_sid = os.getsid(0)
    for task in os.listdir(f"/proc/{me}/task"):
        with suppress(OSError, ValueError):
            with open(f"/proc/{me}/task/{task}/children", "rb") as f:
                pids = [int(p) for p in f.read().split()]
            for pid in pids:
                fields = proc_stat(pid)
                if pid not in known and fields is not None and int(fields[3]) not in {pid, own_sid, *known}:
                    found.append(pid)
    return found


def kill_adopted(known: set[int]) -> None:
    """SIGKILL and reap every orphan this subreaper adopted (nothing when it is not a subreaper)."""
    for _ in range(50):  # an orphan may fork while we look: repeat until none is left
        victims = adopted(known)
        if not victims:
            return
        for pid in victims:
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        for pid in victims:
            with suppress(ChildProcessError):
                os.waitpid(pid, 0)
