"""What a tournament game is: a picklable spec in, a picklable result out (any executor can run it)."""

from dataclasses import dataclass, field
from typing import Any

from referee.process.sandbox import Box


@dataclass(frozen=True)
class GameSpec:
    """One game of a tournament: who sits where, on which decks, under which rules and limits."""

    key: str  # unique and stable: "t{table}-d{deal_set}-r{rotation}", in an event "{slug}.t{table}-..."
    table: int  # index of the table (the combination of entrants)
    deal_set: int  # duplicate deal set: every rotation of a table plays the same decks
    rotation: int
    seed: int  # master seed of the game; the same for every rotation of (table, deal_set)
    variant: str
    entrants: tuple[str, ...]  # entrant names in seat order
    commands: tuple[str, ...]  # bot commands in seat order
    options: dict[str, Any] = field(default_factory=dict)
    limits: dict[str, Any] = field(default_factory=dict)  # move_time, bank, startup_time; clock, pause_idle if set
    retries: int = 0
    record: str | None = None  # game record path, if records are kept
    sign_key: str | None = None  # key file that signs the record (romis replay --key)
    sandbox: str | None = None  # the sandbox mode (referee.process.sandbox.sandbox_mode); None: the default
    boxes: tuple[Box, ...] = ()  # each seat's sandbox settings (empty: the default for every seat)


@dataclass
class SeatResult:
    """One seat of a finished game."""

    entrant: str
    seat: int
    score: float
    rank: int
    fault: str | None = None
    fault_detail: str = ""
    decisions: int = 0
    wall_mean: float = 0.0
    wall_p95: float = 0.0
    wall_max: float = 0.0
    cpu: float = 0.0


@dataclass
class GameResult:
    """A finished game: per-seat results in seat order."""

    key: str
    table: int
    deal_set: int
    rotation: int
    seed: int
    deals: int
    seats: list[SeatResult]


PART_SEP = "."  # in an event's game keys, between the part's slug and the key within it: no slug has a dot


def part_of(key: str) -> str:
    """The slug of the part of an event that the game `key` belongs to ("" in a single-variant tournament)."""
    slug, sep, _ = key.partition(PART_SEP)
    return slug if sep else ""
