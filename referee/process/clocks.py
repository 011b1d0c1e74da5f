"""Clocks of the bots: the CPU time of a bot's session from /proc, and a CPU deadline for one decision.

`--clock cpu` judges the move time and the bank by the CPU time of the bot's process tree, so a bot is not
charged for the machine being busy with other games; a wall-time cap (`Limits.wall_cap`) still stops a bot
that sleeps.
"""

import os
from collections.abc import Callable

import trio

from referee.process.spawn import split_stat

_CPU_POLL = 0.015  # how often a CPU deadline is checked; /proc counts in ticks of 10 ms anyway


class SessionTicks:
    """The CPU ticks of a bot's processes, each read from a /proc/PID/stat file kept open (one pread a reading,
    not an open, a read and a close: this runs at every decision). An open stat file stays bound to its
    process, so once that process is reaped it reads as gone, even if its pid is reused."""

    def __init__(self, sid: int):
        self.sid = sid
        self._files: dict[int, int] = {}  # pid -> descriptor of its stat file

    def read(self, pids: list[int]) -> dict[int, int]:
        """pid -> utime+stime+cutime+cstime (clock ticks) of those of `pids` that are live members of the
        session; the files of the others are closed."""
        found = {}
        for pid in pids:
            ticks = self._ticks(pid)
            if ticks is not None:
                found[pid] = ticks
        if len(self._files) > len(found):
            for pid in self._files.keys() - found.keys():
                os.close(self._files.pop(pid))
        return found

    def members(self, pids: set[int]) -> list[int]:
        """Those of `pids` in the session now: one getsid() each, so the processes of the rest of the machine cost
        no stat file (a reading checks the session again)."""
        found = []
        for pid in pids:
            try:
                if os.getsid(pid) == self.sid:
                    found.append(pid)
            except OSError:  # gone already
                pass
        return found

    def _ticks(self, pid: int) -> int | None:
        """The CPU ticks of `pid`, or None if it is gone or not a member of the session."""
        try:
            fd = self._files.get(pid)
            if fd is None:
                fd = self._files[pid] = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
            stat = os.pread(fd, 1024, 0)
        except OSError:  # the process is gone (ESRCH once reaped)
            return None
        try:
            fields = split_stat(stat, 15)  # only as far as the CPU fields: this runs at every decision
            if int(fields[3]) != self.sid:  # field 6 of proc(5): the session id
                return None
            return int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])  # fields 14-17
        except (ValueError, IndexError):
            return None

    def close(self) -> None:
        """Close every stat file still open."""
        while self._files:
            os.close(self._files.popitem()[1])


async def watch_cpu(
    cpu_time: Callable[[], float], start: float, seconds: float, target: trio.CancelScope, stop: trio.CancelScope
) -> None:
    """Cancel `target` once a bot has used `seconds` of CPU since its `cpu_time()` read `start`; cancel `stop`
    to end the watch. Polls every 15 ms, less often while the deadline is far, so a decision shorter than a
    poll costs no /proc read here."""
    cores = os.cpu_count() or 1
    with stop:
        left = seconds
        while left > 0:
            # A bot cannot use more than one CPU second per core per second, so sleeping left/cores is safe.
            await trio.sleep(min(max(left / cores, _CPU_POLL), 0.25))
            left = start + seconds - cpu_time()
        target.cancel()
