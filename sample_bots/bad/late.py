"""Answers every request legally but `move_time + 0.5` seconds late, so a small bank runs out."""

import json
import sys
import time

from sample_bots.bad._base import play, send

move_time = 2.0
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        move_time = msg.get("limits", {}).get("move_time", move_time)
        send({"type": "ready", "name": "late"})
    elif msg.get("type") == "request":
        time.sleep(move_time + 0.5)
        send(play(msg))
    elif msg.get("type") == "shutdown":
        break
