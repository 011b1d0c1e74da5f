"""Plays legally at once, but a child in its process group busy-loops all the time (pondering on others' time)."""

import subprocess
import sys

from sample_bots.bad._base import serve

SPIN = "while True: pass"
child = subprocess.Popen([sys.executable, "-c", SPIN, "romis-spinner"], stdin=subprocess.DEVNULL)
print(f"background: spinner pid {child.pid}", file=sys.stderr, flush=True)
serve("background")
