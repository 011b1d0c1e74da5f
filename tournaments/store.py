"""Durable results: SQLite in WAL mode, one writer connection, one transaction per finished game.

A game is committed with its per-seat results in one transaction under its unique key, so a crash
at any moment (SIGKILL included) loses no finished game and never stores one twice. The first run
stores the configuration's fingerprint; a run with another configuration is refused. Every run (the
first and each resume) also records when it started and what it ran under (romis and protocol versions,
the variant's name, rules version and scoring direction), so a report of the database alone, even a
copied one, says what was played.

A game that could not be played to a result (it raised, or its worker died) is kept in `failures`
with its reason until a later run plays it; it is never in `games`, so it is never counted twice.

One run at a time: a writing Store holds an exclusive lock on `DB.lock` (flock: the kernel lets go when
its process dies, SIGKILL included), and a second run is refused with the holder's PID and host. A
report opens the database read-only and takes no lock, so it works during a run and in a read-only
directory. A write the disk refuses (full, read-only, I/O error) is a StoreError: the transaction is
rolled back, every game stored before it is kept, and the run stops.
"""

import contextlib
import fcntl
import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

from referee.rules.errors import ConfigError
from tournaments.about import About, part_about
from tournaments.spec import PART_SEP, GameResult, GameSpec, SeatResult, part_of

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    key TEXT PRIMARY KEY, tbl INTEGER NOT NULL, deal_set INTEGER NOT NULL, rotation INTEGER NOT NULL,
    seed INTEGER NOT NULL, deals INTEGER NOT NULL, finished REAL NOT NULL DEFAULT (julianday('now')));
CREATE TABLE IF NOT EXISTS seats (
    game TEXT NOT NULL REFERENCES games(key), entrant TEXT NOT NULL, seat INTEGER NOT NULL,
    score REAL NOT NULL, rank INTEGER NOT NULL, fault TEXT, fault_detail TEXT NOT NULL,
    decisions INTEGER NOT NULL, wall_mean REAL NOT NULL, wall_p95 REAL NOT NULL, wall_max REAL NOT NULL,
    cpu REAL NOT NULL, PRIMARY KEY (game, seat));
CREATE TABLE IF NOT EXISTS failures (
    key TEXT PRIMARY KEY, tbl INTEGER NOT NULL, deal_set INTEGER NOT NULL, rotation INTEGER NOT NULL,
    seed INTEGER NOT NULL, entrants TEXT NOT NULL, reason TEXT NOT NULL, detail TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 1, failed REAL NOT NULL DEFAULT (julianday('now')));
"""
# A table of its own (not a key in `meta`) so that other additions to the schema never collide with it;
# a database written before it existed simply has no rows: its metadata is unknown.
RUNS_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (started TEXT NOT NULL, games_before INTEGER NOT NULL, info TEXT NOT NULL);
"""
SEAT_FIELDS = list(SeatResult.__dataclass_fields__)


@dataclass
class Failure:
    """A game that could not be played to a result, and why (its latest attempt)."""

    key: str
    entrants: list[str]  # in seat order
    reason: str  # one line
    detail: str  # the traceback, where there is one
    attempts: int


class StoreError(Exception):
    """The disk refused a write of the results database or of a record: the run stops, nothing stored is lost."""


class Busy(ConfigError):
    """Another run holds the results database (or the records directory): this run is refused before it starts."""


class Lock:
    """An exclusive lock on `path` for as long as this object lives (or until `release`); the kernel releases
    it when the process dies. The file holds the holder's PID, host and start time, for the refusal message."""

    def __init__(self, path: str | Path, what: str):
        try:
            self.file: IO[str] | None = open(path, "a+", encoding="utf-8")  # noqa: SIM115 (held, see release())
        except OSError as e:
            raise disk_or_path(f"cannot use {what}: {path}", e) from None
        try:
            fcntl.flock(self.file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(self.file)
            self.release()
            raise Busy(f"{what} is in use by another `romis tournament run` ({holder}); wait for it to end") from None
        since = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        with contextlib.suppress(OSError):  # a full disk: the lock holds all the same, unnamed
            self.file.truncate(0)
            self.file.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "since": since}))
            self.file.flush()

    def release(self) -> None:
        """Let the lock go (idempotent)."""
        if self.file is not None:
            self.file.close()
            self.file = None


def _holder(file: IO[str]) -> str:
    """Who holds the lock, as the holder wrote it (it writes just after taking the lock: wait a moment)."""
    for _ in range(20):
        file.seek(0)
        with contextlib.suppress(ValueError):
            who = json.loads(file.read())
            return f"PID {who['pid']} on host {who['host']}, since {who['since']}"
        time.sleep(0.05)
    return "its PID is not recorded"


def disk_or_path(what: str, e: OSError) -> Exception:
    """A StoreError for an error of the disk, a ConfigError (the user's path) for the others."""
    from referee.records import DISK_ERRNOS

    cls = StoreError if e.errno in DISK_ERRNOS else ConfigError
    return cls(f"{what}: {e.strerror or e}")


_DISK_ERRORS = {
    "SQLITE_FULL": "the disk is full",
    "SQLITE_READONLY": "the database or its directory is read-only",
    "SQLITE_IOERR": "disk I/O error",
    "SQLITE_CANTOPEN": "the file cannot be opened (a missing or read-only directory?)",
}


def _disk_error(e: sqlite3.Error) -> str | None:
    """What the disk refused, in words, if `e` is a disk error rather than a damaged or foreign file."""
    name = getattr(e, "sqlite_errorname", "") or ""
    return next((words for code, words in _DISK_ERRORS.items() if name.startswith(code)), None)


class Store:
    """The results database of one tournament: a writer (the one run, holding the lock) or a read-only reader."""

    def __init__(self, path: str | Path, readonly: bool = False):
        self.path = Path(path)
        self.lock: Lock | None = None
        if readonly:
            self.db = _open_readonly(self.path)
            return
        # beside the file itself: a run reaching the database through a symbolic link sees the same lock
        self.lock = Lock(f"{self.path.resolve()}.lock", f"the results database {path}")
        try:
            with self._writing():
                self.db = sqlite3.connect(path, isolation_level=None)
                self.db.execute("PRAGMA journal_mode=WAL")
                self.db.execute("PRAGMA synchronous=FULL")
                self.db.executescript(SCHEMA)
                self.db.executescript(RUNS_SCHEMA)
        except BaseException:
            self.lock.release()
            raise

    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        """Turn what the disk refuses into a StoreError, and a file that is not a database into a ConfigError."""
        try:
            yield
        except sqlite3.DatabaseError as e:
            words = _disk_error(e)
            if words is None:
                raise ConfigError(f"{self.path}: not a romis results database ({e})") from None
            raise StoreError(f"cannot store results in {self.path}: {words}") from None

    def bind(self, config: dict[str, Any]) -> None:
        """Record the configuration on first use; refuse a different one later."""
        text = json.dumps(config, sort_keys=True)
        with self._writing():
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('config', ?)", (text,))  # atomic: no SELECT first
        row = self.db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        if row[0] != text:
            old = json.loads(row[0])
            changed = sorted(k for k in set(old) | set(config) if old.get(k) != config.get(k))
            raise ConfigError(
                f"the results database holds another tournament (changed: {', '.join(changed)}); "
                "use another --db to start a new one"
            )

    def config(self) -> dict[str, Any]:
        """The configuration this database was made for."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        if row is None:
            raise ConfigError("the results database holds no tournament")
        return json.loads(row[0])

    def begin_run(self, variant: str | list[str], specs: list[GameSpec]) -> None:
        """Record that a run of the schedule `specs` starts now and what it runs under (an event: each of its
        `variant`s, with its games scheduled); refuse to add to results played under other rules or with the
        entrants seated otherwise."""
        info = {**run_info(variant, {s.variant: s.options for s in reversed(specs)}), "games_scheduled": len(specs)}
        if specs:
            info["sandbox"] = sandbox_info(specs)
        for v in info.get("variants", []):
            v["games_scheduled"] = sum(part_of(s.key) == v["slug"] for s in specs)
        for i, v in enumerate(info.get("variants") or [info["variant"]]):
            self._check_rules(v["slug"], v["rules_version"], i)
        self._check_seating(specs)
        started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        (games,) = self.db.execute("SELECT count(*) FROM games").fetchone()
        with self._writing():
            self.db.execute("INSERT INTO runs VALUES (?, ?, ?)", (started, games, json.dumps(info, sort_keys=True)))

    def _check_rules(self, variant: str, rules_version: int, part: int = 0) -> None:
        """ConfigError if the stored games were played under another version of the variant's rules (in an
        event: of its `part`-th variant)."""
        runs = self.runs()
        if not runs:
            return
        stored = runs[0]["variants"][part] if "variants" in runs[0] else runs[0]["variant"]
        if stored["rules_version"] != rules_version:
            raise ConfigError(
                f"the results database was played under {variant} rules version "
                f"{stored['rules_version']}, this romis plays version {rules_version}; "
                "use another --db to start a new tournament"
            )

    def _check_seating(self, specs: list[GameSpec]) -> None:
        """ConfigError if a stored game was played by other entrants than the schedule seats under its key.

        Game keys number the tables in the order the entrants are listed, so the same entrants listed in
        another order would skip games never played and play others twice."""
        seated: dict[str, list[str]] = {}
        for key, entrant in self.db.execute("SELECT game, entrant FROM seats ORDER BY game, seat"):
            seated.setdefault(key, []).append(entrant)
        for spec in specs:
            stored = seated.get(spec.key)
            if stored is not None and tuple(stored) != spec.entrants:
                raise ConfigError(
                    f"game {spec.key} in the results database was played by {', '.join(stored)}, but this "
                    f"configuration seats {', '.join(spec.entrants)} there: list the entrants in the order of "
                    "the first run, or use another --db to start a new tournament"
                )

    def runs(self) -> list[dict[str, Any]]:
        """Every run so far, first first: `run_info` plus started (UTC) and games_before (games stored then)."""
        if not self._has("runs"):  # a database written before runs were recorded, opened read-only
            return []
        rows = self.db.execute("SELECT started, games_before, info FROM runs ORDER BY rowid")
        return [{"started": t, "games_before": n, **json.loads(info)} for t, n, info in rows]

    def finish_times(self, part: str = "") -> tuple[str | None, str | None]:
        """When the first and the last stored game (of an event's `part`) finished (UTC), or None twice while
        none has."""
        row = self.db.execute(
            "SELECT strftime('%Y-%m-%dT%H:%M:%SZ', min(finished)), strftime('%Y-%m-%dT%H:%M:%SZ', max(finished)) "
            "FROM games WHERE substr(key, 1, ?) = ?",
            (len(part), part),
        ).fetchone()
        return row[0], row[1]

    def about(self) -> About:
        """What this database's tournament played, for a report; an event's with an About of each variant."""
        about = About(self.config(), self.runs(), self.finish_times(), len(self.finished_keys()))
        for i, part in enumerate(about.config.get("variants", [])):
            prefix = f"{part['variant']}{PART_SEP}"
            played = self.db.execute("SELECT count(*) FROM games WHERE substr(key, 1, ?) = ?", (len(prefix), prefix))
            about.parts.append(part_about(about, i, self.finish_times(prefix), played.fetchone()[0]))
        return about

    def finished_keys(self) -> set[str]:
        """Keys of the games already stored."""
        return {k for (k,) in self.db.execute("SELECT key FROM games")}

    def _has(self, table: str) -> bool:
        return self.db.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (table,)).fetchone() is not None

    def add(self, result: GameResult) -> None:
        """Store one finished game atomically (ignored if it is already stored); StoreError if the disk refuses."""
        with self._writing(), self.db:  # one transaction: the game and its seats together, or nothing
            self.db.execute("BEGIN IMMEDIATE")
            cur = self.db.execute(
                "INSERT OR IGNORE INTO games (key, tbl, deal_set, rotation, seed, deals) VALUES (?, ?, ?, ?, ?, ?)",
                (result.key, result.table, result.deal_set, result.rotation, result.seed, result.deals),
            )
            if cur.rowcount:
                self.db.executemany(
                    f"INSERT INTO seats VALUES (?, {', '.join('?' * len(SEAT_FIELDS))})",
                    [(result.key, *(asdict(s)[f] for f in SEAT_FIELDS)) for s in result.seats],
                )
            self.db.execute("DELETE FROM failures WHERE key = ?", (result.key,))  # it failed before, not now

    def add_failure(self, spec: GameSpec, reason: str, detail: str) -> None:
        """Record that a game failed (again, if it failed before); a stored game is left alone."""
        with self._writing(), self.db:
            self.db.execute("BEGIN IMMEDIATE")
            self.db.execute(
                "INSERT INTO failures (key, tbl, deal_set, rotation, seed, entrants, reason, detail) "
                "SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM games WHERE key = ?) "
                "ON CONFLICT (key) DO UPDATE SET reason = excluded.reason, detail = excluded.detail, "
                "attempts = attempts + 1, failed = julianday('now')",
                (spec.key, spec.table, spec.deal_set, spec.rotation, spec.seed, json.dumps(spec.entrants))
                + (reason, detail, spec.key),
            )

    def failures(self) -> list[Failure]:
        """The games that failed and are not stored since, in schedule order."""
        if not self._has("failures"):
            return []
        return [
            Failure(key, json.loads(entrants), reason, detail, attempts)
            for key, entrants, reason, detail, attempts in self.db.execute(
                "SELECT key, entrants, reason, detail, attempts FROM failures "
                "WHERE key NOT IN (SELECT key FROM games) ORDER BY tbl, deal_set, rotation"
            )
        ]

    def results(self) -> list[GameResult]:
        """Every stored game, in schedule order."""
        seats: dict[str, list[SeatResult]] = {}
        cols = ", ".join(SEAT_FIELDS)
        for row in self.db.execute(f"SELECT game, {cols} FROM seats ORDER BY game, seat"):
            seats.setdefault(row[0], []).append(SeatResult(*row[1:]))
        return [
            GameResult(k, t, d, r, seed, deals, seats.get(k, []))
            for k, t, d, r, seed, deals in self.db.execute(
                "SELECT key, tbl, deal_set, rotation, seed, deals FROM games ORDER BY tbl, deal_set, rotation"
            )
        ]

    def close(self) -> None:
        """Close the connection and let the lock go."""
        self.db.close()
        if self.lock is not None:
            self.lock.release()


def _open_readonly(path: Path) -> sqlite3.Connection:
    """A read-only connection that writes nothing, not even WAL's shared-memory file where it cannot: `mode=ro`
    (it reads a run's latest commits), else `immutable=1` (a finished database in a read-only directory)."""
    if not path.is_file():
        raise ConfigError(f"no results database at {path}")
    error: sqlite3.Error | None = None
    for mode in ("mode=ro", "immutable=1"):
        db = sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True, isolation_level=None)
        try:
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        except sqlite3.DatabaseError as e:
            db.close()
            error = e
            continue
        if not {"meta", "games", "seats"} <= tables:
            db.close()
            raise ConfigError(f"{path}: not a romis results database (it has no tournament tables)")
        return db
    raise ConfigError(f"{path}: cannot be read as a romis results database ({error})")


def run_info(variant: str | list[str], options: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """What a run plays under besides its configuration: romis and protocol versions and the variant's rules
    (an event's: `variants`, each variant's rules in the order of its parts), under each variant's `options`."""
    # imported here: only a run needs the referee (trio and all), a report of the database does not
    from protocol import PROTOCOL_VERSION
    from referee.play import romis_version

    opts = options or {}
    rules = (
        {"variant": variant_info(variant, opts.get(variant))}
        if isinstance(variant, str)
        else {"variants": [variant_info(v, opts.get(v)) for v in variant]}
    )
    return {"romis": romis_version(), "protocol": PROTOCOL_VERSION, **rules}


def stored_seed(path: str) -> int | None:
    """The master seed of the tournament the database at `path` holds; None if there is none (or it cannot be read:
    opening it for the run says why)."""
    if not os.path.isfile(path):
        return None
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        finally:
            con.close()
        seed = json.loads(row[0]).get("seed") if row else None
    except (sqlite3.Error, ValueError, AttributeError):
        return None
    return seed if isinstance(seed, int) else None


def sandbox_info(specs: list[GameSpec]) -> dict[str, Any]:
    """The sandbox a run's bots play in, as the report states it: its mode, and the entrants given the network."""
    from referee.process.sandbox import BWRAP, UNTRUSTED_WARNING

    mode = specs[0].sandbox
    network = sorted({e for s in specs for e, box in zip(s.entrants, s.boxes) if box.network})
    if mode == BWRAP:
        return {"mode": BWRAP, "network": network}
    return {"mode": "none", "containment": mode, "warning": UNTRUSTED_WARNING}


def variant_info(variant: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """A variant's name, rules version, scoring direction and unit (under `options`: mississippi's money_mode
    plays for chips), as a run records them."""
    from referee.rules.engine import Game
    from referee.rules.variants import find_variant

    cls = find_variant(variant)
    return {
        "slug": cls.slug,
        "name": cls.name,
        "local_name": cls.local_name,
        "rules_version": cls.rules_version,
        "low_wins": cls.low_wins_for(options or {}),
        "unit": cls.unit_for(options or {}),  # "chips" where the variant is played for chips
        # a variant with its own dealer rule lets play decide who deals later deals (gin: the winner)
        "dealer_follows_play": cls.next_dealer is not Game.next_dealer,
    }
