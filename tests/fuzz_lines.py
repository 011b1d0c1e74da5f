"""Hostile lines for the decoder targets of the fuzzer (tests/fuzzing.py has the validator targets).

`random_line(rng)` makes one line a bot might write: random bytes, valid replies cut short or with one byte
changed, deep nesting, wrong types, huge numbers, 10,000-op plays, duplicate keys. `check_line(line)` holds
the decoder to its contract: `decode_reply` returns a reply or raises `BotFault`, nothing else, and
`decode_from_bot` returns a reply or raises msgspec's `DecodeError` (its `ValidationError` subclass) or
`RecursionError`, the two that `decode_reply` turns into faults.
"""

import json
import random
from collections import Counter

import msgspec

from protocol import messages as m
from referee.process.runner import BotFault, decode_reply

FAULT_KINDS = ("malformed", "unknown_message")
OP_NAMES = ["draw", "meld", "layoff", "take", "rearrange", "exchange", "discard", "knock", "pass", "claim", "bid"]
FIELDS = ["source", "pile", "depth", "cards", "identities", "kind", "meld", "melds", "into", "end", "card"]
FIELDS += ["discard", "value", "op", "x"]
HUGE = [2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 10**30, 1e308, -1e308]


def json_value(rng: random.Random, depth: int = 0) -> object:
    """A random JSON value of any type, a little nested."""
    roll = rng.random()
    if depth > 3 or roll < 0.5:
        return rng.choice([None, True, False, 0, 1, -1, 7, 1.5, "", "7H", "stock", "x" * 50, *HUGE])
    if roll < 0.75:
        return [json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(FIELDS): json_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}


def random_op(rng: random.Random) -> dict:
    """An op object: a real op name (mostly) with fields of the grammar holding values of any type."""
    op: dict = {"op": rng.choice(OP_NAMES) if rng.random() < 0.9 else json_value(rng)}
    for _ in range(rng.randint(0, 3)):
        op[rng.choice(FIELDS)] = json_value(rng)
    return op


def valid_play(rng: random.Random, ops: int) -> bytes:
    """A well-formed play of `ops` ops."""
    pool: list[m.Op] = [m.Draw(), m.Draw("discard", 0, 2), m.Meld(["7H", "8H", "9H"]), m.LayOff(0, ["TH"])]
    pool += [m.Discard("7H"), m.Knock("2C"), m.Pass(), m.Claim(2), m.Bid(5), m.Exchange(1, "JK")]
    pool += [m.Rearrange([0, 1], [m.Meld(["7S", "7D", "7C"])]), m.Take(0, ["AS"])]
    return m.encode(m.Play(rng.randrange(10), [rng.choice(pool) for _ in range(ops)])).rstrip(b"\n")


# the ops of a valid 10,000-op play, built once (each line only changes one of them)
_LONG_OPS = [json.dumps(op).encode() for op in json.loads(valid_play(random.Random(0), 10_000))["ops"]]


# how often each kind of line comes; the 10,000-op plays (kind 5) cost ~30 ms each, so they are rarer
_WEIGHTS = [3, 2, 2, 2, 3, 0.2, 2, 1, 2]


def random_line(rng: random.Random) -> bytes:
    """One hostile line (without its newline)."""
    kind = rng.choices(range(9), _WEIGHTS)[0]
    if kind == 0:
        return rng.randbytes(rng.randint(0, 200))
    if kind == 1:  # a valid reply cut short
        line = valid_play(rng, rng.randint(1, 5))
        return line[: rng.randrange(len(line))]
    if kind == 2:  # a valid reply with one byte changed
        changed = bytearray(valid_play(rng, rng.randint(1, 5)))
        changed[rng.randrange(len(changed))] = rng.randrange(256)
        return bytes(changed)
    if kind == 3:  # deep nesting, anywhere in the reply
        depth = rng.choice([100, 1000, 3000, 10_000, 100_000])
        opening, closing = rng.choice([(b"[", b"]"), (b'{"a":', b"}")])
        nest = opening * depth + b"1" * (opening != b"[") + closing * depth * (rng.random() < 0.8)
        field = rng.choice([b"ops", b"id", b"x"])
        return b'{"type":"play","id":1,"ops":[],"' + field + b'":' + nest + b"}"
    if kind == 4:  # wrong types and huge numbers in every field
        fields = {"type": rng.choice(["play", "ready", "hello", 1, None]), "id": json_value(rng)}
        fields["ops"] = [random_op(rng) for _ in range(rng.randint(0, 4))] if rng.random() < 0.8 else json_value(rng)
        return json.dumps(fields).encode()
    if kind == 5:  # a 10,000-op play, valid or with one bad op
        ops = _LONG_OPS[:]
        if rng.random() < 0.5:
            ops[rng.randrange(len(ops))] = json.dumps(random_op(rng)).encode()
        return b'{"type":"play","id":1,"ops":[' + b",".join(ops) + b"]}"
    if kind == 6:  # duplicate keys, at the top and inside an op
        key = rng.choice([b"type", b"id", b"ops", b"name", b"protocol"])
        inner = b'{"op":"draw","depth":1,"depth":' + json.dumps(json_value(rng)).encode() + b"}"
        return b'{"type":"play","id":1,"ops":[' + inner + b'],"' + key + b'":' + json.dumps(json_value(rng)).encode()
    if kind == 7:  # huge numbers written out
        digits = b"9" * rng.choice([19, 20, 400, 5000])
        return b'{"type":"play","id":' + rng.choice([b"", b"-"]) + digits + b',"ops":[{"op":"draw","depth":1e999}]}'
    return b'{"type":"ready",' + json.dumps({rng.choice(FIELDS + ["name", "version"]): json_value(rng)}).encode()[1:]


def check_line(line: bytes, outcomes: Counter) -> None:
    """Decode `line` both ways; AssertionError if an exception outside the contract escapes. Counts the
    outcome (`ready`, `play`, or the fault kind) in `outcomes`."""
    try:
        reply = decode_reply(line)
        outcomes[reply.__class__.__name__.lower()] += 1
        decoded = True
    except BotFault as fault:
        if fault.kind not in FAULT_KINDS or len(fault.detail) > 500:
            raise AssertionError(f"unexpected fault {fault.kind}: {fault.detail[:200]}") from None
        outcomes[f"fault:{fault.kind}"] += 1
        decoded = False
    except Exception as e:
        raise AssertionError(f"{type(e).__name__} escaped decode_reply: {e!r}"[:300]) from e
    try:
        m.decode_from_bot(line)
        if not decoded:
            raise AssertionError("decode_from_bot accepted a line that decode_reply refused")
    except (msgspec.DecodeError, RecursionError):
        if decoded:
            raise AssertionError("decode_from_bot refused a line that decode_reply accepted") from None
    except AssertionError:
        raise
    except Exception as e:
        raise AssertionError(f"{type(e).__name__} escaped decode_from_bot: {e!r}"[:300]) from e
