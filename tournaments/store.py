"""Durable results: SQLite in WAL mode, one writer connection, one transaction per finished game.

A game is committed with its per-seat results in one transaction under its unique key, so a crash
at any moment (SIGKILL included) loses no finished game and never stores one twice. The first run
stores the configuration's fingerprint; a run with another configuration is refused.

A game that could not be played to a result (it raised, or its worker died) is kept in `failures`
with its reason until a later run plays it; it is never in `games`, so it is never counted twice.
"""

import json
import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from referee.rules.errors import ConfigError
from tournaments.spec import GameResult, GameSpec, SeatResult

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
SEAT_FIELDS = list(SeatResult.__dataclass_fields__)


@dataclass
class Failure:
    """A game that could not be played to a result, and why (its latest attempt)."""

    key: str
    entrants: list[str]  # in seat order
    reason: str  # one line
    detail: str  # the traceback, where there is one
    attempts: int


class Store:
    """The results database of one tournament."""

    def __init__(self, path: str | Path):
        try:
            self.db = sqlite3.connect(path, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as e:
            raise ConfigError(f"{path}: not a romis results database ({e})") from None

    def bind(self, config: dict[str, Any]) -> None:
        """Record the configuration on first use; refuse a different one later."""
        text = json.dumps(config, sort_keys=True)
        row = self.db.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        if row is None:
            self.db.execute("INSERT INTO meta VALUES ('config', ?)", (text,))
        elif row[0] != text:
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

    def finished_keys(self) -> set[str]:
        """Keys of the games already stored."""
        return {k for (k,) in self.db.execute("SELECT key FROM games")}

    def add(self, result: GameResult) -> None:
        """Store one finished game atomically (ignored if it is already stored)."""
        with self.db:  # one transaction: the game and its seats together, or nothing
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
        with self.db:
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
        """Close the connection."""
        self.db.close()
