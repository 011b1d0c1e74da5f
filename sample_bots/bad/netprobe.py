"""Tries to connect out to 127.0.0.1:PORT (the first argument) before it says ready, and names the result
in its ready name (`netprobe:connected` or `netprobe:refused:ERROR`); then plays legally.

In a network namespace of its own (`romis play --no-network`) its loopback is not the host's, so the
connection fails; without it, the bot reaches a listener on the host's loopback.
"""

import socket
import sys

from sample_bots.bad import _base


def probe(port: int) -> str:
    """What happened when connecting to 127.0.0.1:`port`."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(b"hello from a bot\n")
        return "connected"
    except OSError as e:
        return f"refused:{type(e).__name__}"


_base.serve(f"netprobe:{probe(int(sys.argv[1]))}")
