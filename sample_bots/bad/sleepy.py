"""Sleeps SECONDS (argv[1], `inf`: forever) before each of its first COUNT (argv[2], default 2) replies, using
no CPU meanwhile, then plays legally at once."""

import sys
import time

from sample_bots.bad._base import play, serve

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
count = int(sys.argv[2]) if len(sys.argv) > 2 else 2


def answer(request, n):
    if n <= count:
        time.sleep(seconds if seconds != float("inf") else 3600 * 24)
    return play(request)


serve("sleepy", answer)
