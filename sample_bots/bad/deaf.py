"""Plays legally but ignores the shutdown message: it goes on reading its input until the referee closes it."""

import json
import sys

from sample_bots.bad._base import play, send

for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        send({"type": "ready", "name": "deaf"})
    elif msg.get("type") == "request":
        send(play(msg))
