"""A minimal protocol loop for the misbehaving bots: each bot only says how it misbehaves.

Run as `python -m sample_bots.bad._base` it is a well-behaved (if dull) bot.
"""

import json
import sys
from collections.abc import Callable
from typing import Any

Answer = Callable[[dict[str, Any], int], Any]


def send(reply: Any) -> None:
    """Write one reply: a dict as a JSON line, a str as it is (for garbage)."""
    sys.stdout.write(reply if isinstance(reply, str) else json.dumps(reply) + "\n")
    sys.stdout.flush()


def play(request: dict[str, Any], attempt: int = 0) -> dict[str, Any]:
    """A legal play: an offered option (the `attempt`-th on a retry), or a stock draw when none are offered."""
    options = (request.get("decision") or {}).get("options")
    op = options[attempt % len(options)] if options else {"op": "draw", "source": "stock"}
    return {"type": "play", "id": request["id"], "ops": [op]}


def serve(name: str, answer: Answer = lambda request, n: play(request)) -> None:
    """Answer hello with ready and the n-th request (1-based) with `answer(request, n)`; None sends nothing."""
    count, retry = 0, 0
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            send({"type": "ready", "name": name})
        elif kind == "request":
            count += 1
            reply = answer(msg, count) if not retry else play(msg, retry)
            retry = 0
            if reply is not None:
                send(reply)
        elif kind == "rejected":
            retry += 1  # the referee asks again with a new request: offer the next option
        elif kind == "shutdown":
            return


if __name__ == "__main__":
    serve("base")
