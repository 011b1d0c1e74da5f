"""The processes a test started, found without being fooled by anyone else's processes on the machine.

Every test runs with its own token in the environment variable TOKEN_VAR (tests/conftest.py), and
every process it starts (romis, workers, bots, the bots' children) inherits it; `leftovers()` reads
/proc/PID/environ for it. Other test runs and any other sample bot on the machine carry another
token, or none. `Tree` follows a process's descendants by /proc ppid links instead, keyed by PID
and start time so that a reused PID cannot pass for a survivor.
"""

import os
import signal
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

TOKEN_VAR = "ROMIS_TEST_RUN"


@dataclass(frozen=True)
class Proc:
    """One process: its PID, its start time (clock ticks since boot), its parent and its command line."""

    pid: int
    start: int
    ppid: int = 0
    cmd: str = ""


def _stat(pid: int) -> list[bytes] | None:
    """The fields of /proc/PID/stat after the command name (state first), or None if it is gone."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return None
    return raw[raw.rindex(b")") + 2 :].split()  # the command name may hold spaces and parentheses


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _proc(pid: int, fields: list[bytes]) -> Proc:
    return Proc(pid, int(fields[19]), int(fields[1]), _cmdline(pid))  # fields 22 and 4 of proc(5)


def _pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def state(pid: int) -> tuple[str, int] | None:
    """(state letter, pgid) of a process, or None if it does not exist."""
    fields = _stat(pid)
    return None if fields is None else (fields[0].decode(), int(fields[2]))


def is_alive(proc: int | Proc) -> bool:
    """True while the process runs; a zombie is dead (it only waits to be reaped), and so is a PID reused
    by a process with another start time."""
    pid = proc.pid if isinstance(proc, Proc) else proc
    fields = _stat(pid)
    if fields is None or fields[0] in (b"Z", b"X"):
        return False
    return not isinstance(proc, Proc) or int(fields[19]) == proc.start  # field 22 of proc(5): starttime


def wait_until(condition: Callable[[], Any], timeout: float = 2.0) -> Any:
    """Poll `condition` until it holds, and return what it returned then (so a caller acts on the very state that
    held), or False once `timeout` seconds pass."""
    end = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return value


def record_so_far(path: Path) -> str:
    """The lines of a game record written so far: the record once closed, else its temporary `.part` file
    (referee/records.py writes there and renames it into place on close)."""
    if path.exists():
        return path.read_text()
    parts = sorted(path.parent.glob(f".{path.name}.*.part"))
    return parts[-1].read_text() if parts else ""


def gone(pid: int) -> bool:
    """True once `pid` is dead (within two seconds)."""
    return wait_until(lambda: not is_alive(pid))


def group_size(pgid: int) -> int:
    """Live processes in process group `pgid`."""
    return sum(1 for s in map(state, _pids()) if s and s[0] not in "ZX" and s[1] == pgid)


def group_cmds(pgid: int) -> list[str]:
    """The command lines of the live processes in process group `pgid`."""
    return [_cmdline(p) for p in _pids() if (s := state(p)) and s[0] not in "ZX" and s[1] == pgid]


def group_gone(pgid: int) -> bool:
    """True once no live process is left in process group `pgid` (within two seconds)."""
    return wait_until(lambda: group_size(pgid) == 0)


def marked(token: str | None = None) -> list[Proc]:
    """Live processes, other than this one, whose environment holds TOKEN_VAR=`token` (default: this test's)."""
    entry = f"{TOKEN_VAR}={token or os.environ[TOKEN_VAR]}".encode()
    found = []
    for pid in _pids():
        try:
            environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:  # gone, or not ours to read
            continue
        fields = _stat(pid)
        if entry in environ and fields and fields[0] not in (b"Z", b"X") and pid != os.getpid():
            found.append(_proc(pid, fields))
    return found


def snapshot(pid: int) -> Proc:
    """The live process `pid`, with its start time (so that a later PID reuse is told apart)."""
    fields = _stat(pid)
    assert fields is not None, f"no process {pid}"
    return _proc(pid, fields)


def kill(procs: list[Proc]) -> None:
    """SIGKILL each of `procs` that is still the same live process."""
    for p in procs:
        if is_alive(p):
            with suppress(OSError):
                os.kill(p.pid, signal.SIGKILL)


def leftovers(timeout: float = 3.0) -> list[Proc]:
    """This test's processes still alive after waiting up to `timeout` seconds for them to go."""
    wait_until(lambda: not marked(), timeout)
    return marked()


class Tree:
    """Every process descended from `root`, collected by walking /proc ppid links each time `poll()` runs.

    A process is remembered once seen, so one that is reparented (to init or a subreaper) after its
    parent dies is still followed, and so are the children it forks later.
    """

    def __init__(self, root: int):
        fields = _stat(root)
        self.root = _proc(root, fields) if fields else Proc(root, -1)
        self.members: dict[int, Proc] = {root: self.root}

    def poll(self) -> list[Proc]:
        """Add the descendants alive now (until no new one turns up); return those still alive."""
        grew = True
        while grew:
            grew = False
            for pid in _pids():
                fields = _stat(pid)
                if fields is None or pid in self.members:
                    continue
                parent = self.members.get(int(fields[1]))
                if parent is not None and is_alive(parent):
                    self.members[pid] = _proc(pid, fields)
                    grew = True
        alive = self.alive()
        for p in alive:  # one first seen between fork and exec showed its parent's command line: read it again
            cmd = _cmdline(p.pid)
            if cmd and cmd != p.cmd:
                self.members[p.pid] = replace(p, cmd=cmd)
        return self.alive()

    def alive(self) -> list[Proc]:
        """The members that are still alive (the same PID with the same start time, not a zombie)."""
        return [p for p in self.members.values() if is_alive(p)]

    def kill(self) -> None:
        """SIGKILL every member still alive: a failing test must not leave its processes on a shared machine."""
        kill(self.alive())

    def subtree(self, top: Proc) -> list[Proc]:
        """`top` and every member descended from it, as the ppid links were when each was first seen."""
        found, grew = {top.pid: top}, True
        while grew:
            grew = False
            for p in self.members.values():
                if p.pid not in found and p.ppid in found:
                    found[p.pid] = p
                    grew = True
        return list(found.values())
