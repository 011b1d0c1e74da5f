"""Leaves a daemon behind: forks, the child calls setsid() and forks again, and the grandchild sleeps
for a long time holding none of the bot's pipes. The bot itself then plays three legal moves (`--moves N`: N) and exits
(`--illegal`: answers its first request with an illegal play instead). `--pidfile PATH`: the grandchild
writes its PID (as its namespace sees it) there once it has detached, so a test knows it ran.

The grandchild also drops the watchdog's token from its environment (ROMIS_GUARD, referee/process/reaper.py),
as a daemon that clears its environment would (`--keep-env`: it keeps it). Only a PID namespace or a
subreaper catches it then: it has left the bot's session and group, and carries no token of ours.
"""

import os
import sys

from sample_bots.bad._base import play, serve


def daemonize() -> None:
    """The classic double fork; the grandchild detaches from every pipe and sleeps. The bot goes on only once the
    grandchild has written its pidfile, so a match that ends at once still had a daemon to catch."""
    ready, detached = os.pipe()
    if os.fork():
        os.close(detached)
        os.wait()  # the child exits at once, after its own fork: the grandchild is an orphan
        os.read(ready, 1)  # a byte once the grandchild is detached (end of file if it died first)
        os.close(ready)
        return
    os.close(ready)
    os.setsid()
    if os.fork():
        os._exit(0)
    if "--pidfile" in sys.argv:
        with open(sys.argv[sys.argv.index("--pidfile") + 1], "w") as f:
            f.write(f"{os.getpid()}\n")
    os.write(detached, b".")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.closerange(3, 256)  # `detached` too: the daemon holds none of the bot's pipes
    env = dict(os.environ)
    if "--keep-env" not in sys.argv:
        env.pop("ROMIS_GUARD", None)
    os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(3600)", "escapee-daemon"], env)


def answer(request, n):
    if "--illegal" in sys.argv:
        return {"type": "play", "id": request["id"], "ops": [{"op": "discard", "card": "XX"}]}
    if n > (int(sys.argv[sys.argv.index("--moves") + 1]) if "--moves" in sys.argv else 3):
        sys.exit(0)
    return play(request)


daemonize()
serve("escapee", answer)
