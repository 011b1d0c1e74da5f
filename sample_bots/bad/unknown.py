"""Answers a request with a message type that does not exist."""

from sample_bots.bad._base import serve

serve("unknown", lambda request, n: {"type": "banana"})
