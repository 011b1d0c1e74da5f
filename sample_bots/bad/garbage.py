"""Plays legally for three requests, then writes a line that is not JSON."""

from sample_bots.bad._base import play, serve

serve("garbage", lambda request, n: play(request) if n <= 3 else "this is not json {\n")
