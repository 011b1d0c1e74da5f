"""Plays legally for five requests, then exits with code 3 in the middle of the match."""

import sys

from sample_bots.bad._base import play, serve


def answer(request, n):
    if n > 5:
        print("crash: bye", file=sys.stderr, flush=True)
        sys.exit(3)
    return play(request)


serve("crash", answer)
