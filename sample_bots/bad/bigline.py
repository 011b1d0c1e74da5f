"""Answers the first request with a 10 MB line (one newline, at the very end)."""

import sys

from sample_bots.bad._base import serve


def answer(request, n):
    chunk = "x" * (1 << 20)
    for _ in range(10):
        sys.stdout.write(chunk)
    return "\n"


serve("bigline", answer)
