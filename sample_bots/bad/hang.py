"""Plays legally for three requests, then never answers again."""

import time

from sample_bots.bad._base import play, serve


def answer(request, n):
    while n > 3:
        time.sleep(3600)
    return play(request)


serve("hang", answer)
