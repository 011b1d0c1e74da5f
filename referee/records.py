"""Game records: one JSONL file per match, and replay that re-validates a record without the bots.

Every line carries `chain`, a SHA-256 over the previous line's chain and this line's content, so
altering, inserting or dropping any line is detected; the actions are then re-applied to a fresh
engine, which must accept every accepted play, reject every rejected one, and reach the same
deal results and final totals.
"""

import hashlib
import json
from pathlib import Path
from typing import IO, Any

from protocol.messages import op_from_builtins
from referee.rules.errors import ConfigError, IllegalAction

RECORD_VERSION = 1


def _canonical(data: dict) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


def _link(prev: str, data: dict) -> str:
    return hashlib.sha256(prev.encode() + _canonical(data)).hexdigest()[:32]


class RecordWriter:
    """Appends chained JSON lines to a record file, flushing each one (a crash keeps what was written)."""

    def __init__(self, path: str | Path, header: dict[str, Any]):
        self.file: IO[str] = open(path, "w", encoding="utf-8")
        self.chain = ""
        self.write({"type": "header", "record_version": RECORD_VERSION, **header})

    def write(self, data: dict) -> None:
        """Write one line."""
        self.chain = _link(self.chain, data)
        self.file.write(json.dumps({**data, "chain": self.chain}, separators=(",", ":")) + "\n")
        self.file.flush()

    def close(self) -> None:
        """Close the file (idempotent)."""
        if not self.file.closed:
            self.file.close()


class ReplayError(Exception):
    """A record that does not replay."""


def read_record(path: str | Path) -> list[dict]:
    """The lines of a record, with the hash chain checked."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot read record {path}: {e.strerror}") from None
    lines, chain = [], ""
    for n, raw in enumerate(text.splitlines(), 1):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            raise ReplayError(f"line {n}: not JSON") from None
        if not isinstance(data, dict):
            raise ReplayError(f"line {n}: not a JSON object")
        given = data.pop("chain", None)
        chain = _link(chain, data)
        if given != chain:
            raise ReplayError(f"line {n}: checksum mismatch (the record was altered)")
        lines.append(data)
    if not lines or lines[0].get("type") != "header":
        raise ReplayError("the record has no header line")
    return lines


def replay(path: str | Path) -> dict[str, Any]:
    """Re-validate a record; return the replayed result or raise ReplayError."""
    from referee.rules.variants import find_variant

    lines = read_record(path)
    head = lines[0]
    game = find_variant(head["variant"])(len(head["seats"]), head["options"], head["seed"])
    deals = 0
    for n, line in enumerate(lines[1:], 2):
        kind = line.get("type")
        if kind == "action":
            _replay_action(game, line, n)
        elif kind == "deal_over":
            if deals >= len(game.deal_results) or game.deal_results[deals]["totals"] != line["totals"]:
                raise ReplayError(f"line {n}: deal {line.get('deal')} result differs on replay")
            deals += 1
        elif kind == "result":
            if not game.is_over() or game.totals != line["totals"]:
                raise ReplayError(f"line {n}: final totals differ on replay ({game.totals} vs {line['totals']})")
            return {"variant": head["variant"], "seed": head["seed"], "totals": game.totals, "lines": len(lines)}
    raise ReplayError("the record ends before the match result")


def _replay_action(game, line: dict, n: int) -> None:
    try:
        ops = [op_from_builtins(o) for o in line["ops"]]
    except Exception as e:
        raise ReplayError(f"line {n}: unreadable ops ({e})") from None
    try:
        game.apply(line["seat"], ops)
        accepted = True
    except IllegalAction as e:
        accepted = False
        rule = e.rule
    expected = "accepted" if line["verdict"] in ("ok", "fallback") else line["verdict"]
    if (accepted and expected != "accepted") or (not accepted and expected != f"illegal:{rule}"):
        what = "accepted" if accepted else f"rejected ({rule})"
        raise ReplayError(f"line {n}: the play of seat {line['seat']} is {what} on replay but was {line['verdict']}")
