"""Game records: one JSONL file per match, and replay that re-validates a record without the bots.

Every line carries `chain`, a SHA-256 over the previous line's chain and this line's content, so
altering, inserting or dropping any line is detected; the actions are then re-applied to a fresh
engine, which must accept every accepted play, reject every rejected one, and reach the same
deal results and final totals. A match that stopped early (Ctrl-C) ends with an `interrupted` line.

A record is written to a hidden temporary file beside its path and renamed into place when the match
ends, so a record at its path is always whole, whoever else writes the same path at the same time.
"""

import errno
import hashlib
import json
import os
import secrets
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

import msgspec
import trio

from protocol.messages import op_from_builtins
from referee.rules.engine import Game
from referee.rules.errors import ConfigError, IllegalAction

RECORD_VERSION = 1


def _canonical(data: dict) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


def _link(prev: str, data: dict) -> str:
    return hashlib.sha256(prev.encode() + _canonical(data)).hexdigest()[:32]


# Errors of the disk rather than of the path the user gave: a record that cannot be created for these is
# a RecordError (exit 3), like one that fills the disk half-way; a missing directory stays a ConfigError.
DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO})


class RecordError(Exception):
    """A record could not be written (a full or read-only disk): the match stops and no partial record is left."""

    def __init__(self, path: str | Path, error: OSError):
        super().__init__(f"cannot write record {path}: {error.strerror or error}")


class RecordWriter:
    """Appends chained JSON lines to a temporary file, flushing each one (a crash keeps what was written there),
    and renames it to `path` on close; RecordError once the disk refuses a write."""

    def __init__(self, path: str | Path, header: dict[str, Any]):
        self.path = Path(path)
        # unique per writer: two writers of one path (two runs sharing a records directory) never mix lines
        self.part = self.path.with_name(f".{self.path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")
        try:
            self.file: IO[str] = open(self.part, "x", encoding="utf-8")  # noqa: SIM115 (closed by close())
        except OSError as e:
            if e.errno in DISK_ERRNOS:
                raise RecordError(self.path, e) from None
            raise
        self.failed: RecordError | None = None
        self.chain = ""
        self.write({"type": "header", "record_version": RECORD_VERSION, **header})

    # Protected from Ctrl-C: a KeyboardInterrupt between writing a line and advancing the chain would
    # break the chain of every later line (the `interrupted` one included).
    @trio.lowlevel.enable_ki_protection
    def write(self, data: dict) -> None:
        """Write one line; after a failed write, nothing more is written (the match is stopping)."""
        if self.failed:
            return
        chain = _link(self.chain, data)
        try:
            self.file.write(json.dumps({**data, "chain": chain}, separators=(",", ":")) + "\n")
            self.file.flush()
        except OSError as e:
            self._fail(e)
        self.chain = chain

    @trio.lowlevel.enable_ki_protection
    def close(self) -> None:
        """Make the record durable and rename it into place (idempotent); RecordError if the disk refuses."""
        if self.file.closed:
            return
        try:
            self.file.flush()
            os.fsync(self.file.fileno())  # the rename must never expose a file whose lines are not on disk yet
            self.file.close()
            os.replace(self.part, self.path)
        except OSError as e:
            self._fail(e)

    def _fail(self, error: OSError) -> None:
        """Drop the temporary file (a record at `path` is always whole) and raise the RecordError."""
        self.failed = RecordError(self.path, error)
        with suppress(OSError):  # closing flushes again, into the same full disk
            self.file.close()
        with suppress(OSError):
            self.part.unlink()
        raise self.failed from None


class ReplayError(Exception):
    """A record that does not replay."""

    @property
    def headline(self) -> str:
        """What `romis replay` says after the file name."""
        return f"does not replay: {self}"


class RecordInterrupted(ReplayError):
    """A record of a match that was stopped before its end (it replays correctly up to there)."""

    def __init__(self, deal: int):
        super().__init__(f"interrupted at deal {deal + 1}")

    @property
    def headline(self) -> str:
        """What `romis replay` says after the file name."""
        return str(self)


# The fields replay relies on, per line type; other fields are ignored.
class _Header(msgspec.Struct):
    variant: str
    seats: list[Any]
    options: dict[str, Any]
    seed: int


class _Action(msgspec.Struct):
    seat: int
    ops: list[Any]
    verdict: str


class _Totals(msgspec.Struct):  # deal_over and result
    totals: list[float]  # float accepts the integers too; records written before scores were integers hold floats
    deal: int | None = None


class _Interrupted(msgspec.Struct):
    deal: int


def _parse_line(raw: bytes, n: int) -> dict:
    """One line of a record as a JSON object; ReplayError for anything else."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ReplayError(f"line {n}: not UTF-8 (byte {e.start + 1} of the line)") from None
    except RecursionError:
        raise ReplayError(f"line {n}: nested too deeply") from None
    except ValueError:  # JSONDecodeError
        raise ReplayError(f"line {n}: not JSON") from None
    if not isinstance(data, dict):
        raise ReplayError(f"line {n}: not a JSON object")
    return data


def read_record(path: str | Path) -> list[dict]:
    """The lines of a record, with the hash chain checked."""
    try:
        text = Path(path).read_bytes()
    except OSError as e:
        raise ConfigError(f"cannot read record {path}: {e.strerror}") from None
    lines, chain = [], ""
    raws = text.split(b"\n")
    if raws[-1] == b"":  # the newline that ends the last line
        raws.pop()
    for n, raw in enumerate(raws, 1):
        data = _parse_line(raw, n)
        given = data.pop("chain", None)
        try:
            chain = _link(chain, data)
        except RecursionError:
            raise ReplayError(f"line {n}: nested too deeply") from None
        if given != chain:
            raise ReplayError(f"line {n}: checksum mismatch (the record was altered)")
        lines.append(data)
    if not lines or lines[0].get("type") != "header":
        raise ReplayError("the record has no header line")
    return lines


def _fields(line: dict, shape: type, n: int) -> Any:
    """The fields replay needs from `line`, checked against `shape`."""
    try:
        return msgspec.convert(line, shape)
    except msgspec.ValidationError as e:
        raise ReplayError(f"line {n}: {line.get('type')} line: {e}") from None


def _new_game(head: dict) -> Game:
    """A fresh engine for the match the header describes."""
    from referee.rules.variants import find_variant

    fields = _fields(head, _Header, 1)
    try:
        return find_variant(fields.variant)(len(fields.seats), fields.options, fields.seed)
    except ConfigError as e:
        raise ReplayError(f"line 1: {e}") from None


def replay(path: str | Path) -> dict[str, Any]:
    """Re-validate a record; return the replayed result or raise ReplayError (RecordInterrupted if it stopped early)."""
    lines = read_record(path)
    head = lines[0]
    game = _new_game(head)
    deals = 0
    for n, line in enumerate(lines[1:], 2):
        kind = line.get("type")
        if kind == "action":
            _replay_action(game, _fields(line, _Action, n), n)
        elif kind == "deal_over":
            totals = _fields(line, _Totals, n).totals
            if deals >= len(game.deal_results) or game.deal_results[deals]["totals"] != totals:
                raise ReplayError(f"line {n}: deal {line.get('deal')} result differs on replay")
            deals += 1
        elif kind == "result":
            totals = _fields(line, _Totals, n).totals
            if not game.is_over() or game.totals != totals:
                raise ReplayError(f"line {n}: final totals differ on replay ({game.totals} vs {totals})")
            return {"variant": head["variant"], "seed": head["seed"], "totals": game.totals, "lines": len(lines)}
        elif kind == "interrupted":
            deal = _fields(line, _Interrupted, n).deal
            if deal != game.deal_no:
                raise ReplayError(
                    f"line {n}: interrupted at deal {deal + 1}, but the replay is at deal {game.deal_no + 1}"
                )
            raise RecordInterrupted(deal)
    raise ReplayError("the record ends before the match result")


def _replay_action(game: Game, line: _Action, n: int) -> None:
    try:
        ops = [op_from_builtins(o) for o in line.ops]
    except (msgspec.ValidationError, RecursionError) as e:
        raise ReplayError(f"line {n}: unreadable ops ({e})") from None
    rule = None
    try:
        game.apply(line.seat, ops)
    except IllegalAction as e:
        rule = e.rule
    expected = None if line.verdict in ("ok", "fallback") else line.verdict
    if (rule is None) != (expected is None) or (rule is not None and expected != f"illegal:{rule}"):
        what = "accepted" if rule is None else f"rejected ({rule})"
        raise ReplayError(f"line {n}: the play of seat {line.seat} is {what} on replay but was {line.verdict}")
