"""Game records: one JSONL file per match, and replay that re-validates a record without the bots.

Every line carries `chain`, a SHA-256 over the previous line's chain and this line's content, so
altering, inserting or dropping a line is detected unless the whole chain is recomputed, which anyone
can do. Replay therefore re-derives everything it can (verdicts, deal results, faults, ranks, the order
of the lines) and an organiser's key signs the rest: the last line of a signed record carries an
HMAC-SHA256 over the final chain, keyed by the bytes of a key file (docs/records.md). A match that
stopped early (Ctrl-C) ends with an `interrupted` line.

A record is written to a hidden temporary file beside its path and renamed into place when the match
ends, so a record at its path is always whole, whoever else writes the same path at the same time.
"""

import errno
import hashlib
import hmac
import json
import os
import secrets
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

import msgspec
import trio

from referee.rules.engine import Game
from referee.rules.errors import ConfigError

RECORD_VERSION = 2  # 2: full-length chain, the result (or interrupted) line last, optionally signed
READABLE = (1, 2)
DETAIL_LENGTH = 500  # characters of a fault's detail kept in the record (Match._fault)


def _canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":")).encode()


def _link(prev: str, data: dict, width: int = 64) -> str:
    """The chain of a line: the public, unkeyed algorithm (version 1 records kept 32 hex digits)."""
    return hashlib.sha256(prev.encode() + _canonical(data)).hexdigest()[:width]


def load_key(path: str | Path, flag: str = "--sign-key") -> bytes:
    """The bytes of a key file; ConfigError if it cannot be read or is empty."""
    try:
        key = Path(path).read_bytes()
    except OSError as e:
        raise ConfigError(f"{flag}: cannot read key file {path}: {e.strerror}") from None
    if not key:
        raise ConfigError(f"{flag}: key file {path} is empty (use e.g. `head -c 32 /dev/urandom > {path}`)")
    return key


def key_id(key: bytes) -> str:
    """A short public name of a key, so that replay can tell a wrong key from a changed record."""
    return hashlib.sha256(b"romis-key-id\0" + key).hexdigest()[:16]


def _mac(key: bytes, label: str, payload: bytes) -> str:
    return hmac.new(key, label.encode() + b"\0" + payload, hashlib.sha256).hexdigest()


def sign(key: bytes, header: dict, chain: str) -> dict[str, Any]:
    """The `signature` of a record: an HMAC over its final chain (that is, over every line), and one per
    header field, so that a changed header names the field."""
    fields = {k: _mac(key, f"header:{k}", _canonical(v)) for k, v in header.items()}
    return {"alg": "hmac-sha256", "key_id": key_id(key), "header": fields, "mac": _mac(key, "record", chain.encode())}


# Errors of the disk rather than of the path the user gave: a record that cannot be created for these is
# a RecordError (exit 3), like one that fills the disk half-way; a missing directory stays a ConfigError.
DISK_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO})


class RecordError(Exception):
    """A record could not be written (a full or read-only disk): the match stops and no partial record is left."""

    def __init__(self, path: str | Path, error: OSError):
        super().__init__(f"cannot write record {path}: {error.strerror or error}")


def part_path(path: Path) -> Path:
    """The hidden temporary file a record is written to beside `path` (`.NAME.PID.RANDOM.part`), unique per
    writer: two writers of one path (two runs sharing a records directory) never mix lines."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.part")


def _create(path: Path, part: Path, mode: str) -> IO[Any]:
    """Open the new temporary file `part` of the record `path`; RecordError for a disk that refuses it, and the
    OSError for any other reason (a missing directory is the user's mistake)."""
    try:
        return open(part, mode, encoding=None if "b" in mode else "utf-8")
    except OSError as e:
        if e.errno in DISK_ERRNOS:
            raise RecordError(path, e) from None
        raise


def write_record(path: str | Path, data: bytes) -> None:
    """Put a whole record (written elsewhere: on a tournament's Dask worker) at `path` as RecordWriter does: via
    a temporary file, on disk before it is renamed into place, so no partial record is ever at `path`; RecordError
    once the disk refuses (nothing is left then), the OSError if the file cannot be created for another reason."""
    path = Path(path)
    part = part_path(path)
    file = _create(path, part, "xb")
    try:
        with file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(part, path)
    except OSError as e:
        with suppress(OSError):
            part.unlink()
        raise RecordError(path, e) from None


def sign_record(data: bytes, key: bytes) -> bytes:
    """The bytes of an unsigned record with the signature RecordWriter would have put on its last line with `key`
    (so a record written where the key is not, on a Dask worker, is signed where it is)."""
    lines = data.split(b"\n")  # the last is the b"" after the final newline
    header = json.loads(lines[0])
    del header["chain"]
    last = json.loads(lines[-2])
    last["signature"] = sign(key, header, last["chain"])
    lines[-2] = json.dumps(last, separators=(",", ":")).encode()
    return b"\n".join(lines)


class RecordWriter:
    """Appends chained JSON lines to a temporary file, flushing each one (a crash keeps what was written there),
    and renames it to `path` on close; RecordError once the disk refuses a write. With a `key`, the last line
    (`write(..., last=True)`) carries the signature."""

    def __init__(self, path: str | Path, header: dict[str, Any], key: bytes | None = None):
        self.path = Path(path)
        self.part = part_path(self.path)
        self.file: IO[str] = _create(self.path, self.part, "x")
        self.failed: RecordError | None = None
        self.chain = ""
        self.key = key
        self.header = {"type": "header", "record_version": RECORD_VERSION, **header}
        self.write(self.header)

    # Protected from Ctrl-C: a KeyboardInterrupt between writing a line and advancing the chain would
    # break the chain of every later line (the `interrupted` one included).
    @trio.lowlevel.enable_ki_protection
    def write(self, data: dict, last: bool = False) -> None:
        """Write one line (`last`: the record's final line, signed if there is a key); after a failed write,
        nothing more is written (the match is stopping)."""
        if self.failed:
            return
        chain = _link(self.chain, data)
        extra: dict[str, Any] = {"chain": chain}
        if last and self.key is not None:
            extra["signature"] = sign(self.key, self.header, chain)
        try:
            self.file.write(json.dumps({**data, **extra}, separators=(",", ":")) + "\n")
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
        self.signature = "none"  # what replay found of the signature (see `replay`)

    @property
    def headline(self) -> str:
        """What `romis replay` says after the file name."""
        return str(self) if self.signature == "none" else f"{self} ({SIGNATURE_WORDS[self.signature]})"


class SignatureError(ReplayError):
    """A record whose signature does not prove it with the key given."""

    @property
    def headline(self) -> str:
        """What `romis replay` says after the file name."""
        return f"signature refused: {self}"


SIGNATURE_WORDS = {"ok": "signed, key ok", "unchecked": "signed; signature not checked (no --key)", "none": "unsigned"}


# The fields replay relies on, per line type; other fields are ignored.
class _Header(msgspec.Struct):
    variant: str
    seats: list[Any]
    options: dict[str, Any]
    seed: int
    limits: dict[str, Any] = {}


class _Action(msgspec.Struct):
    seat: int
    ops: list[Any]
    verdict: str
    kind: str | None = None
    phase: str | None = None


class _Totals(msgspec.Struct):  # deal_over
    totals: list[float]  # float accepts the integers too; records written before scores were integers hold floats
    deal: int | None = None


class _Result(msgspec.Struct):
    totals: list[float]
    ranks: list[int] | None = None  # required from version 2 on (checked in `_Replay.result`)
    faults: list[str | None] | None = None


class _Seated(msgspec.Struct):  # ready, fault, stale, stderr
    seat: int
    kind: str = ""
    detail: str = ""
    fault: str | None = None


class _Interrupted(msgspec.Struct):
    deal: int


class _Signature(msgspec.Struct):
    key_id: str
    header: dict[str, str]
    mac: str


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


MAX_RECORD_BYTES = 1 << 30  # a record is read whole: a file larger than this is no record romis wrote
MAX_RECORD_LINE = 16 << 20  # a record's longest line (a bot's line is capped at 1 MiB, its stderr tail at 64 KiB)


def _read_bounded(path: str | Path) -> bytes:
    """The bytes of a record file, read with bounds: its first line must be a JSON object, no line may pass
    MAX_RECORD_LINE and the whole MAX_RECORD_BYTES, so that /dev/zero or /dev/urandom is a quick, clear error."""
    data = bytearray()
    first_checked, line = False, 0  # line: the bytes since the last newline
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                data += chunk
                nl = chunk.rfind(b"\n")
                line = line + len(chunk) if nl < 0 else len(chunk) - nl - 1
                if not first_checked and (nl >= 0 or len(data) >= MAX_RECORD_LINE):
                    _parse_line(bytes(data[:MAX_RECORD_LINE]).split(b"\n", 1)[0], 1)  # garbage fails here, at once
                    first_checked = True
                if line > MAX_RECORD_LINE:
                    raise ReplayError(f"a line longer than {MAX_RECORD_LINE >> 20} MiB: not a game record")
                if len(data) > MAX_RECORD_BYTES:
                    raise ReplayError(f"larger than {MAX_RECORD_BYTES >> 20} MiB: not a game record")
    except OSError as e:
        raise ConfigError(f"cannot read record {path}: {e.strerror}") from None
    return bytes(data)


def _read(path: str | Path) -> tuple[list[dict], str, Any]:
    """The lines of a record with the hash chain checked, the final chain, and the last line's signature."""
    text = _read_bounded(path)
    lines, chain, signature, width = [], "", None, 64
    raws = text.split(b"\n")
    if raws[-1] == b"":  # the newline that ends the last line
        raws.pop()
    for n, raw in enumerate(raws, 1):
        data = _parse_line(raw, n)
        given = data.pop("chain", None)
        if n == 1 and data.get("record_version") == 1:
            width = 32
        if "signature" in data and n < len(raws):
            raise ReplayError(f"line {n}: a signature on a line that is not the last")
        signature = data.pop("signature", None)
        try:
            chain = _link(chain, data, width)
        except RecursionError:
            raise ReplayError(f"line {n}: nested too deeply") from None
        if given != chain:
            raise ReplayError(f"line {n}: checksum mismatch (the record was altered)")
        lines.append(data)
    if not lines or lines[0].get("type") != "header":
        raise ReplayError("the record has no header line")
    if lines[0].get("record_version") not in READABLE:
        raise ReplayError(f"line 1: record version {lines[0].get('record_version')!r} (this romis reads 1 and 2)")
    return lines, chain, signature


def read_record(path: str | Path) -> list[dict]:
    """The lines of a record, with the hash chain checked."""
    return _read(path)[0]


def check_header_signature(header: dict, signature: Any, key: bytes) -> _Signature:
    """The signature, checked for the key and for every header field; SignatureError naming what differs."""
    if signature is None:
        raise SignatureError("the record is not signed (its last line has no signature)")
    try:
        sig = msgspec.convert(signature, _Signature)
    except msgspec.ValidationError as e:
        raise SignatureError(f"unreadable signature ({e})") from None
    if sig.key_id != key_id(key):
        raise SignatureError(f"signed with another key (key id {sig.key_id[:16]!r}; --key has {key_id(key)})")
    for name in sorted(set(header) | set(sig.header)):
        good = name in header and _mac(key, f"header:{name}", _canonical(header[name]))
        if not good or not hmac.compare_digest(good, sig.header.get(name, "")):
            raise SignatureError(f"the header's {name!r} was changed after the record was signed")
    return sig


def check_signature(sig: _Signature, chain: str, key: bytes) -> None:
    """SignatureError unless the signature covers the final chain, i.e. every line as it is now."""
    if not hmac.compare_digest(sig.mac, _mac(key, "record", chain.encode())):
        raise SignatureError("the record was changed after it was signed (and re-chained without the key)")


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


def final_ranks(game: Game, faulted: list[bool]) -> list[int]:
    """The match's ranks: a forfeiting seat ranks below every seat that finished (the referee's policy); in a team
    game a side forfeits with either partner, and the sides that finished are ranked as sides."""
    totals = list(game.totals)
    if not any(faulted):
        return game.ranks(totals)
    if game.teams:
        faulted = [any(faulted[p] for p in game.teams[game.team_of(s)]) for s in range(game.n)]
    ok = [t for t, f in zip(totals, faulted) if not f]
    kept = game.ranks(ok, [i for i, f in enumerate(faulted) if not f])
    last = 1 + len({game.team_of(i) for i, f in enumerate(faulted) if not f})  # below every side that finished
    return [kept[sum(1 for g in faulted[:i] if not g)] if not f else last for i, f in enumerate(faulted)]


def replay(path: str | Path, key: bytes | None = None) -> dict[str, Any]:
    """Re-validate a record (with `key`: and its signature); return the replayed result, with `signature`
    "ok", "unchecked" (signed, no key given) or "none"; raise ReplayError (SignatureError if the key does not
    prove it, RecordInterrupted if it stopped early)."""
    from referee.replay import Replay

    lines, chain, signature = _read(path)
    sig = check_header_signature(lines[0], signature, key) if key is not None else None
    status = "ok" if sig else "unchecked" if signature is not None else "none"
    try:
        out = Replay(lines[0]).run(lines)
    except RecordInterrupted as e:
        if sig:
            check_signature(sig, chain, key or b"")
        e.signature = status
        raise
    if sig:
        check_signature(sig, chain, key or b"")
    return {**out, "signature": status}
