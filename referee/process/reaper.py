"""Every process started by a process dies with it, whatever kills it (SIGKILL included).

`guard()` starts a small watchdog and puts a token in this process's environment, so every process
started from then on (bots, their children, their children's children) inherits it. The watchdog
only waits for end-of-file on a pipe whose one write end this process holds: when this process
exits or dies, the kernel closes that end, and the watchdog kills every live process that carries
the token, and every process in a session led by one of them (a bot's child that dropped its
environment but stayed in the bot's session). Nothing needs registering, so there is no window
between a spawn and its registration in which a death could leave a process behind. A process that
both scrubs its environment and calls setsid() itself escapes.

Run as a script (`python -I -S reaper.py TOKEN`) this file is the watchdog: it imports only the
standard library, so it starts in milliseconds and stays small.
"""

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress

VAR = "ROMIS_GUARD"  # colon-separated tokens: guards nest (a guarded process may start guarded ones)
_ROUNDS = 200  # kill rounds; a process in uninterruptible sleep takes a while to die of SIGKILL


def _read(path: str) -> bytes:
    fd = os.open(path, os.O_RDONLY)
    try:
        return os.read(fd, 1 << 20)
    finally:
        os.close(fd)


def carriers(token: str) -> set[int]:
    """Live processes whose environment carries `token`, and the members of the sessions they lead."""
    prefix, want = f"{VAR}=".encode(), token.encode()
    marked, leaders = set(), set()
    sessions: dict[int, list[int]] = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        pid = int(name)
        with suppress(OSError, ValueError):  # gone, or not ours to read
            stat = _read(f"/proc/{pid}/stat")
            fields = stat[stat.rindex(b")") + 2 :].split()  # the command name may hold spaces
            if fields[0] == b"Z" or pid == os.getpid():
                continue
            sid = int(fields[3])
            sessions.setdefault(sid, []).append(pid)
            for entry in _read(f"/proc/{pid}/environ").split(b"\0"):
                if entry.startswith(prefix) and want in entry[len(prefix) :].split(b":"):
                    marked.add(pid)
                    if sid == pid:  # only sessions it leads: never the user's own session
                        leaders.add(sid)
    return marked | {p for sid in leaders for p in sessions[sid]}


def sweep(token: str) -> None:
    """SIGKILL every carrier of `token` until none is left (children forked meanwhile carry it too)."""
    for _ in range(_ROUNDS):
        victims = carriers(token)
        if not victims:
            return
        for pid in victims:
            with suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


class Guard:
    """A running watchdog for this process; `close()` ends it (killing any carrier still alive)."""

    def __init__(self) -> None:
        self.token = secrets.token_hex(8)
        read_end, self._write_end = os.pipe()  # non-inheritable: no child can hold the pipe open
        try:
            self.watchdog = subprocess.Popen(
                [sys.executable, "-I", "-S", os.path.abspath(__file__), self.token],
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                start_new_session=True,  # out of reach of a signal to our process group
            )
        finally:
            os.close(read_end)
        self._previous = os.environ.get(VAR)
        os.environ[VAR] = f"{self._previous}:{self.token}" if self._previous else self.token

    def close(self) -> None:
        """Stop guarding: the watchdog kills what is left and exits."""
        if self._previous is None:
            os.environ.pop(VAR, None)
        else:
            os.environ[VAR] = self._previous
        os.close(self._write_end)
        self.watchdog.wait()


@contextmanager
def guard() -> Iterator[Guard]:
    """`with guard():` every process started inside dies when this process dies or the block ends."""
    g = Guard()
    try:
        yield g
    finally:
        g.close()


def _watch(token: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while os.read(0, 4096):  # nobody writes: this returns b"" once the guarded process is gone
        pass
    sweep(token)


if __name__ == "__main__":
    _watch(sys.argv[1])
