"""Plays legally for one request, then busy-loops on the next one (it burns CPU and never answers)."""

from sample_bots.bad._base import play, serve


def answer(request, n):
    while n > 1:
        pass
    return play(request)


serve("burn", answer)
