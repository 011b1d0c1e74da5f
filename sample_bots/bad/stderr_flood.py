"""Plays legally but writes 8 MB to stderr before every reply (tens of MB over a match)."""

import sys

from sample_bots.bad._base import play, serve

_BLOCK = ("noise " * 1000 + "\n") * 1398  # about 8 MB


def answer(request, n):
    sys.stderr.write(_BLOCK)
    sys.stderr.flush()
    return play(request)


serve("stderr_flood", answer)
