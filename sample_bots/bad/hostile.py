"""Answers with a hostile line: `python -m sample_bots.bad.hostile PAYLOAD [AT]`.

AT 0 sends the line instead of `ready`; AT n >= 1 (the default is 1) plays legally until the n-th
request and answers that one with it. Every payload must end as a fault recorded against the seat
(`malformed`; `crash` for `no-newline`), never as an exception in the referee. `stale-flood` is the
exception that proves the rule: it floods stale replies, then answers correctly, and is no fault.
"""

import json
import os
import sys
import time

from sample_bots.bad._base import play, send

DEEP = 100_000
ARRAY = b"[" * DEEP + b"]" * DEEP
OBJECT = b'{"a":' * DEEP + b"1" + b"}" * DEEP
HUGE = b"1" + b"0" * 400

# The handshake's version of each payload, then the play's (with %d for the request id).
HANDSHAKE = {
    "deep-array": b'{"type":"ready","name":' + ARRAY + b"}",
    "deep-object": b'{"type":"ready","name":"hostile","extra":' + OBJECT + b"}",
    "deep-value": b'{"type":"ready","name":"hostile","protocol":' + ARRAY + b"}",
    "not-utf8": b'{"type":"ready","name":"caf\xe9"}',  # a stray Latin-1 byte
    "nul": b'{"type":"ready","name":"hostile\x00"}',
    "huge-number": b'{"type":"ready","name":"hostile","protocol":' + HUGE + b"}",
    "wrong-type": b'{"type":"ready","name":["hostile"]}',
}
PLAY = {
    "deep-array": b'{"type":"play","id":%d,"ops":' + ARRAY + b"}",
    "deep-object": b'{"type":"play","id":%d,"ops":[{"op":"draw"}],"extra":' + OBJECT + b"}",
    "deep-value": b'{"type":"play","id":%d,"ops":[{"op":"discard","card":' + ARRAY + b"}]}",
    "not-utf8": b'{"type":"play","id":%d,"ops":[{"op":"discard","card":"7\xff"}]}',
    "nul": b'{"type":"play","id":%d,"ops":[{"op":"discard","card":"7H\x00"}]}',
    "huge-number": b'{"type":"play","id":%d,"ops":[{"op":"draw","depth":' + HUGE + b"}]}",
    "wrong-type": b'{"type":"play","id":%d,"ops":{"op":"draw"}}',
}
PAYLOADS = sorted(HANDSHAKE) + ["close-stdin", "no-newline", "stale-flood"]


def write(data: bytes) -> None:
    """Write raw bytes to stdout at once."""
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def attack(payload: str, request: dict | None) -> None:
    """Send the payload in answer to `request` (None: to hello); exit if the payload ends the conversation."""
    if payload == "close-stdin":  # a bad line, then no way for the referee to write to us: we stay, deaf
        os.close(0)
        write(b"garbage after closing stdin\n")
        time.sleep(60)
        sys.exit(0)
    if payload == "no-newline":  # a complete reply, but the line never ends: the referee sees EOF
        write(b'{"type":"ready"}' if request is None else b'{"type":"play","id":%d,"ops":[]}' % request["id"])
        sys.exit(0)
    if payload == "stale-flood":
        write(b'{"type":"play","id":0,"ops":[{"op":"pass"}]}\n' * 1000)
        send({"type": "ready", "name": "hostile"} if request is None else play(request))
        return
    write((HANDSHAKE[payload] if request is None else PLAY[payload] % request["id"]) + b"\n")


def main(payload: str, at: int) -> None:
    """Play legally except at request `at` (0: the handshake)."""
    count = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("type") == "hello":
            if at == 0:
                attack(payload, None)
            else:
                send({"type": "ready", "name": "hostile"})
        elif msg.get("type") == "request":
            count += 1
            if count == at:
                attack(payload, msg)
            else:
                send(play(msg))
        elif msg.get("type") == "shutdown":
            return


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1)
