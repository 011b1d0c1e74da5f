"""Starts a child that never exits (it stays in the bot's process group), then plays legally."""

import subprocess
import sys

from sample_bots.bad._base import serve

child = subprocess.Popen(["sleep", "1000"], stdin=subprocess.DEVNULL)
print(f"forker: child pid {child.pid}", file=sys.stderr, flush=True)
serve("forker")
