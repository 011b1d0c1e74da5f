"""The read-decide-write loop of a romis bot (protocol v1), for a callback; standard library only.

Copy this one file next to your bot, or import it as `protocol.bot` from a romis checkout:

    from bot import run

    def decide(request):
        return [request["decision"]["options"][0]]  # every listed option is a legal play

    run(decide, name="first-option")

Every message is handed over as the plain dict of its JSON line (docs/protocol.md describes each field).
"""

import json
import sys
from collections.abc import Callable
from typing import IO, Any

Message = dict[str, Any]
Hook = Callable[[Message], None]


def run(
    decide: Callable[[Message], list[Any]],
    name: str = "",
    version: str = "1",
    *,
    on_hello: Hook | None = None,
    on_rejected: Hook | None = None,
    on_deal_over: Hook | None = None,
    on_match_over: Hook | None = None,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
) -> None:
    """Answer the referee until `shutdown` or the end of input: `ready` after `hello`, and for each `request` a
    `play` of the ops `decide(request)` returns (plain dicts such as `{"op": "discard", "card": "7H"}`). The hooks
    see the other messages. A line that is not a JSON object, a message of an unknown type or a request before
    hello ends the bot with one line on stderr and exit code 1."""
    out = stdout if stdout is not None else sys.stdout.buffer
    hooks = {
        "hello": on_hello,
        "request": None,
        "rejected": on_rejected,
        "deal_over": on_deal_over,
        "match_over": on_match_over,
    }
    greeted = False
    for line in stdin if stdin is not None else sys.stdin.buffer:
        msg = _read(line, name)
        kind = msg.get("type")
        if kind == "shutdown":
            return
        if kind not in hooks:
            sys.exit(f"{name or 'bot'}: unknown message type {kind!r} (this helper speaks protocol v1)")
        hook = hooks[kind]
        if hook is not None:
            hook(msg)
        if kind == "hello":
            greeted = True
            _write(out, {"type": "ready", "name": name, "version": version})
        elif kind == "request":
            if not greeted:
                sys.exit(f"{name or 'bot'}: a request came before hello")
            _write(out, {"type": "play", "id": msg["id"], "ops": decide(msg)})


def _read(line: bytes, name: str) -> Message:
    try:
        msg = json.loads(line)
    except ValueError as e:  # json.JSONDecodeError and UnicodeDecodeError are both ValueErrors
        sys.exit(f"{name or 'bot'}: cannot read a line from the referee: {e}")
    if not isinstance(msg, dict):
        sys.exit(f"{name or 'bot'}: the referee sent a line that is not a JSON object")
    return msg


def _write(out: IO[bytes], msg: Message) -> None:
    out.write(json.dumps(msg, separators=(",", ":")).encode() + b"\n")
    out.flush()  # the referee waits for the whole line
