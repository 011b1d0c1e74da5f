"""Clocks of the bots: the CPU time of a bot's session from /proc, and a CPU deadline for one decision.

`--clock cpu` judges the move time and the bank by the CPU time of the bot's process tree, so a bot is not
charged for the machine being busy with other games; a wall-time cap (`Limits.wall_cap`) still stops a bot
that sleeps.
"""

import os
from contextlib import suppress
from typing import TYPE_CHECKING

import trio

from referee.spawn import proc_stat

if TYPE_CHECKING:
    from referee.runner import BotProcess

_CPU_POLL = 0.015  # how often a CPU deadline is checked; /proc counts in ticks of 10 ms anyway


def session_ticks(pids: list[int], sid: int) -> dict[int, int]:
    """pid -> utime+stime+cutime+cstime (clock ticks) of those of `pids` that are live members of session `sid`."""
    found = {}
    for pid in pids:
        fields = proc_stat(pid)  # None: the process exited while we looked
        with suppress(ValueError, IndexError):
            if fields is not None and int(fields[3]) == sid:  # field 6 of proc(5); a reused pid is in another session
                found[pid] = sum(map(int, fields[11:15]))  # fields 14-17: utime stime cutime cstime
    return found


async def watch_cpu(
    bot: "BotProcess", start: float, seconds: float, target: trio.CancelScope, stop: trio.CancelScope
) -> None:
    """Cancel `target` once `bot` has used `seconds` of CPU since its `cpu_time()` read `start`; cancel `stop`
    to end the watch. Polls every 15 ms, less often while the deadline is far, so a decision shorter than a
    poll costs no /proc read here."""
    cores = os.cpu_count() or 1
    with stop:
        left = seconds
        while left > 0:
            # A bot cannot use more than one CPU second per core per second, so sleeping left/cores is safe.
            await trio.sleep(min(max(left / cores, _CPU_POLL), 0.25))
            left = start + seconds - bot.cpu_time()
        target.cancel()
