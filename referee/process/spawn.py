"""Starting a bot under its resource limits: the rlimits, the prlimit wrapper, a check of the program, and the
containment of trusted bots (`--sandbox none`: a PID namespace, or the subreaper fallback) that makes a whole tree
mortal."""

import ctypes
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from contextlib import suppress


def _user_tasks() -> int:
    """Tasks (threads included, as RLIMIT_NPROC counts them) owned by our uid."""
    uid, count = os.getuid(), 0
    for name in filter(str.isdigit, os.listdir("/proc")):
        with suppress(OSError):
            if os.stat(f"/proc/{name}").st_uid == uid:
                count += len(os.listdir(f"/proc/{name}/task"))
    return count


def rlimits(
    memory_mb: int, file_size_mb: int, processes: int | None, files: int, own_uid: bool = False
) -> list[tuple[int, int]]:
    """(resource, value) pairs for a bot (`runner.Limits` explains each), never above the hard limits it inherits.

    `own_uid`: the bot runs under a uid of its own (the sandbox as root), so RLIMIT_NPROC counts its tasks alone."""
    mb = 1 << 20
    pairs = [
        (resource.RLIMIT_CORE, 0),
        (resource.RLIMIT_DATA, memory_mb * mb),
        (resource.RLIMIT_FSIZE, file_size_mb * mb),
        (resource.RLIMIT_NOFILE, files),
    ]
    if processes is not None and own_uid:
        pairs.append((resource.RLIMIT_NPROC, processes))
    elif processes is not None and os.getuid() != 0:  # the kernel does not apply RLIMIT_NPROC to root
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
    resource.RLIMIT_NOFILE: "nofile",
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


# --- containment: how a bot's whole tree is made to die with its match ----------------------------------
# Under bubblewrap (referee.process.sandbox) the bot's PID namespace does it. Under `--sandbox none`, the helper
# pidns.py gives the bot a PID namespace where the machine allows one; else this process becomes the subreaper.

PIDNS, SUBREAPER = "pid-namespace", "subreaper"
_PR_SET_CHILD_SUBREAPER = 36
_probed: dict[tuple[str, ...], bool] = {}

_HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pidns.py")


def containment_works(*flags: str) -> bool:
    """True if the namespace helper can run `true` with FLAGS here (cached: probed once per process)."""
    if flags not in _probed:
        ok = False
        with suppress(OSError, subprocess.SubprocessError):
            probe = [sys.executable, "-I", "-S", _HELPER, *flags, "--", "true"]
            ok = subprocess.run(probe, capture_output=True, timeout=10).returncode == 0
        _probed[flags] = ok
    return _probed[flags]


def contained(argv: list[str], mode: str) -> list[str]:
    """`argv` wrapped for the containment `mode` of trusted bots (PIDNS or SUBREAPER).

    In a PID namespace (referee/process/pidns.py) the bot is the namespace's init: when it dies, the kernel
    kills everything left in the namespace, setsid() escapees included.
    """
    if mode == PIDNS:
        return [sys.executable, "-I", "-S", _HELPER, "--pid", "--", *argv]
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
