"""Answers the first request twice: first with the previous request's id (stale), then correctly."""

from sample_bots.bad._base import play, send, serve


def answer(request, n):
    if n == 1:
        send(dict(play(request), id=request["id"] - 1))
    return play(request)


serve("stale", answer)
