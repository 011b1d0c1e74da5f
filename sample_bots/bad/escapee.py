"""Leaves a daemon behind: forks, the child calls setsid() and forks again, and the grandchild sleeps
for a long time holding none of the bot's pipes. The bot itself then plays three legal moves and exits
(`--illegal`: answers its first request with an illegal play instead).

Only a PID namespace or a subreaper catches the grandchild: it has left the bot's session and group.
"""

import os
import sys
import time

from sample_bots.bad._base import play, serve


def daemonize() -> None:
    """The classic double fork; the grandchild detaches from every pipe and sleeps."""
    if os.fork():
        os.wait()  # the child exits at once, after its own fork: the grandchild is an orphan
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, 256)
    time.sleep(3600)
    os._exit(0)


def answer(request, n):
    if "--illegal" in sys.argv:
        return {"type": "play", "id": request["id"], "ops": [{"op": "discard", "card": "XX"}]}
    if n > 3:
        sys.exit(0)
    return play(request)


daemonize()
serve("escapee", answer)
