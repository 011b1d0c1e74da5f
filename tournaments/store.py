"""Durable results: SQLite in WAL mode, one writer connection, one transaction per finished game.

A game is committed with its per-seat results in one transaction under its unique key, so a crash
at any moment (SIGKILL included) loses no finished game and never stores one twice. The first run
stores the configuration's fingerprint; a run with another configuration is refused. Every run (the
first and each resume) also records when it started and what it ran under (romis and protocol versions,
the variant's name, rules version and scoring direction), so a report of the database alone, even a
copied one, says what was played.

A game that could not be played to a result (it raised, or its worker died) is kept in `failures`
with its reason until a later run plays it; it is never in `games`, so it is never counted twice.
"""

import json
import sqlite3
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from referee.rules.errors import ConfigError
from tournaments.about import About
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


class Store:
    """The results database of one tournament."""

    def __init__(self, path: str | Path):
        try:
            self.db = sqlite3.connect(path, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)
            self.db.executescript(RUNS_SCHEMA)
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

    def begin_run(self, variant: str, specs: list[GameSpec]) -> None:
        """Record that a run of the schedule `specs` starts now and what it runs under; refuse to add to
        results played under other rules or with the entrants seated otherwise."""
        info = {**run_info(variant), "games_scheduled": len(specs)}
        self._check_rules(variant, info["variant"]["rules_version"])
        self._check_seating(specs)
        started = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        (games,) = self.db.execute("SELECT count(*) FROM games").fetchone()
        self.db.execute("INSERT INTO runs VALUES (?, ?, ?)", (started, games, json.dumps(info, sort_keys=True)))

    def _check_rules(self, variant: str, rules_version: int) -> None:
        """ConfigError if the stored games were played under another version of the variant's rules."""
        runs = self.runs()
        if runs and runs[0]["variant"]["rules_version"] != rules_version:
            raise ConfigError(
                f"the results database was played under {variant} rules version "
                f"{runs[0]['variant']['rules_version']}, this romis plays version {rules_version}; "
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
        rows = self.db.execute("SELECT started, games_before, info FROM runs ORDER BY rowid")
        return [{"started": t, "games_before": n, **json.loads(info)} for t, n, info in rows]

    def finish_times(self) -> tuple[str | None, str | None]:
        """When the first and the last stored game finished (UTC), or None twice while none has."""
        row = self.db.execute(
            "SELECT strftime('%Y-%m-%dT%H:%M:%SZ', min(finished)), strftime('%Y-%m-%dT%H:%M:%SZ', max(finished)) "
            "FROM games"
        ).fetchone()
        return row[0], row[1]

    def about(self) -> About:
        """What this database's tournament played, for a report."""
        return About(self.config(), self.runs(), self.finish_times(), len(self.finished_keys()))

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


def run_info(variant: str) -> dict[str, Any]:
    """What a run plays under besides its configuration: romis and protocol versions and the variant's rules."""
    # imported here: only a run needs the referee (trio and all), a report of the database does not
    from protocol import PROTOCOL_VERSION
    from referee.play import romis_version
    from referee.rules.engine import Game
    from referee.rules.variants import find_variant

    cls = find_variant(variant)
    return {
        "romis": romis_version(),
        "protocol": PROTOCOL_VERSION,
        "variant": {
            "slug": cls.slug,
            "name": cls.name,
            "local_name": cls.local_name,
            "rules_version": cls.rules_version,
            "low_wins": cls.low_wins,
            # a variant with its own dealer rule lets play decide who deals later deals (gin: the winner)
            "dealer_follows_play": cls.next_dealer is not Game.next_dealer,
        },
    }
