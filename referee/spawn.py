"""Starting a bot under its resource limits: the rlimits, the prlimit wrapper, and a check of the program."""

import os
import resource
import shutil
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
