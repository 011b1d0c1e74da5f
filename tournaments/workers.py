"""Tournament worker processes: each plays one game at a time, and none outlives the tournament.

A worker is a direct child of the tournament process, forked by the thread that runs the tournament
(the thread matters: PR_SET_PDEATHSIG fires when the *thread* that forked the child exits). Between
fork and exec it asks the kernel for SIGKILL when that parent dies; once running it checks that the
parent has not died already. An idle worker also sees end-of-file on its job pipe. Its bots, and
their children, carry the token of a watchdog (referee.process.reaper) that kills them when the worker
dies, so a SIGKILL of the tournament takes everything with it and no game goes on writing a record.

multiprocessing's pools are not used: with the forkserver context the workers are children of the
forkserver, out of reach of PR_SET_PDEATHSIG, and each holds the write end of the forkserver's alive
pipe, so after a SIGKILL of the tournament they lived on for minutes, playing queued games.

Anything a game raises is caught in the worker and comes back as a failure with its reason; a
worker that dies (a crash, the OOM killer, a kill) fails its game, and a new worker takes its place.
"""

import ctypes
import os
import signal
import subprocess
import sys
import traceback
from collections.abc import Callable
from contextlib import suppress
from multiprocessing.connection import Connection
from typing import Any

from tournaments.spec import GameResult, GameSpec

PR_SET_PDEATHSIG = 1
_EXIT_WAIT = 10.0  # seconds a stopping worker gets to end its game cleanly before it is killed

PlayFn = Callable[[GameSpec], GameResult | None]
# What a worker answers for each game: ("done", result) or ("failed", reason, traceback).
Reply = tuple[Any, ...]


def describe_error(e: BaseException) -> str:
    """One line naming what was raised: the innermost exceptions of a group, type and message each."""
    if isinstance(e, BaseExceptionGroup):
        return "; ".join(describe_error(x) for x in e.exceptions)
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}"[:300] if text else type(e).__name__


def _exit_status(code: int | None) -> str:
    if code is None:
        return "stopped answering"
    if code < 0:
        return f"was killed by {signal.Signals(-code).name}"
    return f"exited with code {code}"


class Worker:
    """One worker process, seen from the tournament process."""

    def __init__(self, play: PlayFn):
        jobs_r, jobs_w = os.pipe()
        results_r, results_w = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tournaments.workers", str(os.getpid()), str(jobs_r), str(results_w)],
                pass_fds=(jobs_r, results_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                preexec_fn=_in_child,
            )
        finally:
            os.close(jobs_r)
            os.close(results_w)
        self.jobs = Connection(jobs_w, readable=False)
        self.results = Connection(results_r, writable=False)
        self.spec: GameSpec | None = None  # the game it is playing
        self.alive = True
        with suppress(OSError):  # if it died already, assign() says so
            self.jobs.send(sys.path)  # first, so that the worker can import whatever `play` needs
            self.jobs.send(play)

    def assign(self, spec: GameSpec) -> bool:
        """Give the worker a game; False if it has died meanwhile."""
        self.spec = spec
        try:
            self.jobs.send(spec)
        except OSError:
            return False
        return True

    def reply(self) -> Reply:
        """The worker's answer for its game (call once `results` is readable); a failure if it died."""
        try:
            return self.results.recv()
        except (EOFError, OSError):
            return self.death()

    def death(self) -> Reply:
        """The failure of the game of a worker that died (reaped here)."""
        self.alive = False
        try:
            code = self.proc.wait(_EXIT_WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = None
        return ("failed", f"the worker process {_exit_status(code)}", "")

    def stop(self, abandon: bool) -> None:
        """Let the worker exit; with `abandon`, stop its game first (its bots are killed, its record closed)."""
        if not self.jobs.closed:
            self.jobs.close()  # an idle worker sees end-of-file and exits
        if abandon and self.spec is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def join(self) -> None:
        """Wait for the worker to exit (killing it if it takes too long), then close its pipes."""
        self.stop(abandon=False)
        try:
            self.proc.wait(_EXIT_WAIT)
        except subprocess.TimeoutExpired:
            self.proc.kill()  # its watchdog then kills its bots
            self.proc.wait()
        self.results.close()


_LIBC = ctypes.CDLL(None, use_errno=True)


def _in_child() -> None:
    """Between fork and exec: SIGKILL when the parent (thread) dies, from the very first instruction of the
    worker on (the setting survives exec); and Ctrl-C is the tournament's, which stops workers with SIGTERM
    (an ignored signal stays ignored across exec, and Python then installs no KeyboardInterrupt handler)."""
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _play(play: PlayFn, spec: GameSpec) -> Reply:
    try:
        result = play(spec)
    except Exception as e:  # whatever a game raises is that game's failure, never the tournament's
        return ("failed", describe_error(e), traceback.format_exc())
    if result is None:  # a SIGTERM stopped it: the tournament's own stop, or someone else's kill
        return ("failed", "the game was stopped by SIGTERM", "")
    return ("done", result)


def _send(results: Connection, reply: Reply) -> None:
    try:
        results.send(reply)
    except OSError:
        raise
    except Exception as e:  # the result could not be pickled
        results.send(("failed", f"the game's result could not be sent: {describe_error(e)}", traceback.format_exc()))


def main() -> None:
    """A worker: play the games sent on the job pipe, one at a time, until it closes."""
    parent, jobs_fd, results_fd = map(int, sys.argv[1:4])
    if os.getppid() != parent:  # the parent died before the PR_SET_PDEATHSIG took effect
        return
    from referee.process.reaper import guard

    jobs, results = Connection(jobs_fd, writable=False), Connection(results_fd, readable=False)
    sys.path[:] = jobs.recv()
    play = jobs.recv()
    with guard():
        while True:
            try:
                spec = jobs.recv()
            except EOFError:
                return
            _send(results, _play(play, spec))


if __name__ == "__main__":
    main()
