"""The generic rules engine: one `Game` is one match (deals until the variant's end condition).

Pure and deterministic: no I/O, no clock, no global random state. A game is fully determined by
(variant, options, seed, the sequence of plays), so every game replays exactly.
"""

import difflib
import hashlib
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import msgspec

from protocol.cards import CardError
from protocol.messages import DealOver, Decision, Op, normalize, to_builtins
from referee import PURE_PYTHON
from referee.rules.describe import Field
from referee.rules.errors import ConfigError, IllegalAction

compiled_snapshot: Callable[[dict[str, Any], tuple[str, ...]], dict[str, Any]] | None
try:  # the compiled copy of a state (referee/rules/_solver.c); without it, the loop in Game.copy_state
    from referee.rules._solver import snapshot as compiled_snapshot
except ImportError:
    compiled_snapshot = None
snapshot_copy = None if PURE_PYTHON else compiled_snapshot  # the copy in use (tests switch it)


def derive_seed(*parts: Any) -> int:
    """A 64-bit seed derived from the master seed and an identity (never from scheduling order)."""
    return int.from_bytes(hashlib.sha256("/".join(map(str, parts)).encode()).digest()[:8], "big")


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """The tail of an "unknown ..." message: the closest known name, or the list of them all."""
    names = sorted(known)
    close = difflib.get_close_matches(word.strip().lower(), names, n=1)
    return f" (did you mean {close[0]!r}?)" if close else f"; known: {', '.join(names)}"


MAX_OPTION = 2**53  # an option's largest value: a JSON number every bot's language reads exactly, sums included
# how option types are named to a user (type(...).__name__ says "int")
_TYPE_NAMES = {bool: "true or false", int: "whole number", float: "number", str: "text"}


@dataclass(frozen=True)
class Option:
    """A variant option ("by agreement" rules and referee safety caps) with its default."""

    default: Any
    choices: tuple | None = None
    help: str = ""
    minimum: float = 0  # every numeric option is a count, a score or a cap: at least this

    def parse(self, name: str, value: Any) -> Any:
        """Convert `value` (a CLI string or a JSON value) to the option's type, checking choices."""
        kind = type(self.default)
        try:
            if isinstance(value, str) and kind is bool:
                if value.lower() not in ("true", "false", "1", "0", "yes", "no"):
                    raise ValueError(value)
                value = value.lower() in ("true", "1", "yes")
            elif not isinstance(value, kind) or isinstance(value, bool) != (kind is bool):
                value = kind(value)
        except (TypeError, ValueError, OverflowError):  # OverflowError: int() of an infinite float
            raise ConfigError(f"option {name}: {value!r} is not a {_TYPE_NAMES.get(kind, kind.__name__)}") from None
        if kind is float and value != value:  # NaN: no count, score or cap
            raise ConfigError(f"option {name}: {value!r} is not a number")
        if kind in (int, float) and value < self.minimum:
            least = "must not be negative" if self.minimum == 0 else f"must be at least {self.minimum:g}"
            raise ConfigError(f"option {name}: {value!r} {least}")
        if kind in (int, float) and value > MAX_OPTION:  # bots are promised 64-bit integers, and sums of them
            raise ConfigError(f"option {name}: {value!r} is more than {MAX_OPTION:,}")
        if self.choices and value not in self.choices:
            raise ConfigError(f"option {name}: {value!r} is not one of {', '.join(map(str, self.choices))}")
        return value


class Event(msgspec.Struct):
    """A public event; `secret` is merged into it for seat `private_to` only (e.g. the card drawn from the stock).
    A Struct: built in C, it costs half what a dataclass does (several events are logged at every play)."""

    data: dict
    private_to: int = -1
    secret: dict = {}


class Game:
    """Base of every variant: match bookkeeping, options, events, atomic plays, results."""

    slug = ""
    name = ""
    local_name = ""
    family = ""
    rules_version = 1
    min_players = 2
    max_players = 6
    low_wins = True  # penalty game: the lowest total wins
    unit = "points"  # what the totals count: "points", or "chips" (referee/rules/chips.py: the totals are net chips)
    elimination_limit: float | None = None  # a seat whose total reaches this after a deal is out of the match
    # partnerships, each a tuple of seats (persian: ((0, 2), (1, 3))); empty: every seat plays for itself. In a
    # team game each seat's deal score and total are its team's, so partners carry the same numbers and rank
    teams: tuple[tuple[int, ...], ...] = ()
    OPTIONS: dict[str, Option] = {
        "max_deals": Option(200, help="safety cap: the match ends after this many deals", minimum=1),
        "max_turns_per_deal": Option(
            1000, help="safety cap: a deal that reaches this many turns ends as a stalemate", minimum=1
        ),
    }
    # the view fields every family sends (referee/rules/describe.py); `view_head` writes the first four
    VIEW: dict[str, Field | None] = {
        "seat": Field("int", "your seat, 0-based"),
        "players": Field("int", "the number of seats"),
        "deal": Field("int", "the deal number, 0-based"),
        "dealer": Field("int", "the dealer's seat"),
        "hand": Field("card[]", "your cards, sorted"),
        "stock": Field("int", "cards left in the stock"),
        "scores": Field("number[]", "each seat's running match total"),
    }
    unused_options: frozenset[str] = frozenset()  # inherited options of rules the variant does not have
    _mutable: tuple[str, ...] = ()  # attributes a play may mutate in place (see _snapshot)
    # `romis check`'s hints for decision kinds that seeded play at the minimum table seldom reaches: each a table
    # to search for its `kinds` (kind/phase), {"kinds": [...], "players": n, "options": {...}, "rig": {"hand":
    # "cards", "discard": "card", "stock": n}} (all but kinds optional; a rig sets seat 0's cards, the top discard
    # and the stock of the first deal: referee/check.py's rig_deal)
    CHECK_TABLES: tuple[dict[str, Any], ...] = ()

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        self.check_players(players)
        self.n = players
        self.seed = seed
        self.opts = self.parse_options(options or {})
        # what the totals count and which way they rank may depend on an option (mississippi's money_mode)
        self.unit, self.low_wins = self.unit_for(self.opts), self.low_wins_for(self.opts)
        self.log: list[Event] = []
        self.totals: list[float] = [0] * players
        self.deal_results: list[dict] = []
        self.deal_no = 0
        self.out_deal: list[int | None] = [None] * players  # the deal after which each seat was eliminated
        self.dealer = random.Random(derive_seed(seed, "dealer")).randrange(players)
        self.over = False
        self.start_deal()

    @classmethod
    def players_text(cls) -> str:
        """The player count as a person says it: "2" or "2 to 6"."""
        low, high = cls.min_players, cls.max_players
        return str(low) if low == high else f"{low} to {high}"

    @classmethod
    def check_players(cls, players: int, unit: str = "players", hint: str = "") -> None:
        """ConfigError unless the variant is played by `players` players ("gin needs 2 bots, got 3")."""
        if not cls.min_players <= players <= cls.max_players:
            raise ConfigError(f"{cls.slug} needs {cls.players_text()} {unit}, got {players}{hint}")

    # --- options -------------------------------------------------------------
    @classmethod
    def all_options(cls) -> dict[str, Option]:
        """Every option of this variant, its own overriding its family's, less the `unused_options`."""
        out: dict[str, Option] = {}
        for klass in reversed(cls.__mro__):
            # each class's own OPTIONS only: an inherited one read again through a mixin would undo overrides
            out.update(vars(klass).get("OPTIONS", {}))
        return {k: o for k, o in out.items() if k not in cls.unused_options}

    @classmethod
    def parse_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        """Options with defaults filled in; raises ConfigError for an unknown name or a bad value."""
        known = cls.all_options()
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise ConfigError(f"unknown option {unknown[0]!r} for {cls.slug}{did_you_mean(unknown[0], known)}")
        return {k: (o.parse(k, given[k]) if k in given else o.default) for k, o in known.items()}

    @classmethod
    def unit_for(cls, options: dict[str, Any]) -> str:
        """What the totals count under `options` ("points" or "chips"): by default the class's `unit`."""
        return cls.unit

    @classmethod
    def low_wins_for(cls, options: dict[str, Any]) -> bool:
        """Whether the lowest total wins under `options`: by default the class's `low_wins`."""
        return cls.low_wins

    # --- the interface every caller uses --------------------------------------
    def to_act(self) -> list[int]:
        """Seats whose decision is awaited (several for simultaneous decisions); empty when the match is over."""
        raise NotImplementedError

    def decision(self, seat: int) -> Decision:
        """What is asked of `seat`, with the legal single-op plays when they are few."""
        raise NotImplementedError

    def view(self, seat: int) -> dict[str, Any]:
        """Everything `seat` may know, and nothing more."""
        raise NotImplementedError

    def request_view(self, seat: int) -> dict[str, Any]:
        """The view as a request carries it: by default `view`. A family may give parts of it as pre-encoded JSON
        (msgspec.Raw) that decode to what `view` holds (tests/test_conformance.py checks every decision of every
        variant): parts that seldom change between requests, encoded once rather than at every request."""
        return self.view(seat)

    def view_head(self, seat: int) -> dict[str, Any]:
        """The first fields of every view: who the seat is, how many play, which deal and who dealt it."""
        return {"seat": seat, "players": self.n, "deal": self.deal_no, "dealer": self.dealer}

    def fallback(self, seat: int) -> list[Op]:
        """The simple built-in policy that plays a forfeited seat's cards: the first legal option."""
        options = self.decision(seat).options
        if not options:
            raise NotImplementedError(f"{self.slug}: a decision without options needs the variant's own fallback")
        return [options[0]]

    def apply(self, seat: int, ops: list[Op]) -> None:
        """Validate and apply one play atomically; raises IllegalAction naming the rule broken."""
        if self.over or seat not in self.to_act():
            raise IllegalAction("turn.not-your-turn", f"seat {seat} is not asked to act now")
        if not ops:
            raise IllegalAction("play.empty", "a play must hold at least one operation")
        try:
            ops = normalize(ops)
        except CardError as e:
            raise IllegalAction("card.invalid", str(e)) from None
        snap = self._snapshot()
        try:
            self._apply(seat, ops)
        except IllegalAction:
            self._restore(snap)
            raise

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """End-of-deal value of a hand (`romis evaluate`); the families with melds override this."""
        raise ConfigError(f"{cls.slug} has no hand evaluation")

    def is_over(self) -> bool:
        """True once the match has ended."""
        return self.over

    def result(self) -> dict[str, Any]:
        """Final totals, ranks (1 = best, ties share) and the per-deal results; in a team game also each team's
        seats, total and rank."""
        ranks = self.ranks(self.totals)
        out: dict[str, Any] = {"totals": list(self.totals), "ranks": ranks, "deals": self.deal_results}
        if self.teams:
            out["teams"] = [{"seats": list(t), "total": self.totals[t[0]], "rank": ranks[t[0]]} for t in self.teams]
        return out

    # --- partnerships ---------------------------------------------------------------
    def team_of(self, seat: int) -> int:
        """The index in `teams` of the team `seat` plays for; without partnerships every seat is a side of its
        own, numbered by its seat."""
        return next((i for i, t in enumerate(self.teams) if seat in t), seat)

    def partners(self, seat: int) -> list[int]:
        """The other seats of `seat`'s team (none without partnerships)."""
        return [s for s in self.teams[self.team_of(seat)] if s != seat] if self.teams else []

    def partner(self, seat: int) -> int | None:
        """The one partner of `seat` in a game of pairs (None without partnerships)."""
        mates = self.partners(seat)
        return mates[0] if len(mates) == 1 else None

    def team_values(self, values: list[float]) -> list[float]:
        """Per-seat numbers from per-team ones: each seat gets its team's value (the form of a team game's
        deal scores and totals)."""
        return [values[self.team_of(s)] for s in range(self.n)]

    def events_since(self, seat: int, cursor: int) -> tuple[list[dict], int]:
        """The events `seat` may see from position `cursor` of the log on, and the new cursor."""
        out = [dict(e.data, **e.secret) if e.private_to == seat else e.data for e in self.log[cursor:]]
        return out, len(self.log)

    # --- helpers for families -------------------------------------------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        raise NotImplementedError

    def start_deal(self) -> None:
        """Deal the next deal (families override)."""
        raise NotImplementedError

    def deal_rng(self) -> random.Random:
        """The chance source of the current deal, derived from the master seed and the deal number."""
        return random.Random(derive_seed(self.seed, "deal", self.deal_no))

    def emit(self, data: dict, private_to: int = -1, **secret: Any) -> None:
        """Record a public event (with an optional secret part for one seat)."""
        self.log.append(Event(data, private_to, secret))

    def ranks(self, totals: list[float], seats: list[int] | None = None) -> list[int]:
        """Competition ranking of the `seats` (default: all, in order) holding `totals` (1 = best; equal
        places share a rank): seats still in above eliminated ones, later eliminations above earlier ones
        (_general.md, End of the match), then by total."""
        seats = list(range(len(totals))) if seats is None else seats
        sign = 1 if self.low_wins else -1
        keys = [(self.out_deal[s] is not None, -(self.out_deal[s] or 0), sign * t) for s, t in zip(seats, totals)]
        # a team game ranks the teams: the sides ahead are counted once each, so partners share their team's rank
        return [1 + len({self.team_of(s) for s, u in zip(seats, keys) if u < k}) for k in keys]

    # --- seats still in the match -------------------------------------------------
    def seats_in(self) -> list[int]:
        """The seats not eliminated, in seat order."""
        return [s for s in range(self.n) if self.out_deal[s] is None]

    @property
    def step(self) -> int:
        """The play direction as a seat step: 1 clockwise (to the left, the default), -1 counter-clockwise
        (option `direction = ccw`, where a variant has it: rules/panguingue.md)."""
        return -1 if self.opts.get("direction") == "ccw" else 1

    def order_from(self, seat: int) -> list[int]:
        """The seats still in, in play direction, starting at `seat` (or at the first seat still in after it)."""
        return [s for s in ((seat + self.step * i) % self.n for i in range(self.n)) if self.out_deal[s] is None]

    def next_seat(self, seat: int) -> int:
        """The nearest seat still in after `seat` in play direction (`seat` may itself be out)."""
        step, n, out = self.step, self.n, self.out_deal
        for i in range(1, n + 1):  # order_from(seat + step)[0], without its list (this runs at every turn)
            if out[(nearest := (seat + step * i) % n)] is None:
                return nearest
        raise IndexError("no seat is still in the match")

    def eliminations(self) -> list[int]:
        """The seats that go out after the deal just scored: by default those still in whose total has
        reached `elimination_limit`."""
        limit = self.elimination_limit
        return [] if limit is None else [s for s in self.seats_in() if self.totals[s] >= limit]

    def finish_deal(self, scores: list[float], winner: int | None, **detail: Any) -> None:
        """Add a deal's scores to the totals, eliminate, record the deal, and start the next deal or end the
        match (also when at most one seat is left in it)."""
        self.totals = [t + s for t, s in zip(self.totals, scores)]
        out = self.eliminations()
        if out:
            self.out_deal = [self.deal_no if s in out else d for s, d in enumerate(self.out_deal)]
            detail["eliminated"] = out
        if self.teams:  # each team's deal score, unless the variant gives its own (persian: before the match bonus)
            detail.setdefault("teams", [scores[t[0]] for t in self.teams])
        record = {"deal": self.deal_no, "winner": winner, "scores": scores, "totals": list(self.totals), **detail}
        self.deal_results.append(record)
        self.emit(to_builtins(DealOver.of(record)))  # the event carries what the deal_over message does
        self.deal_no += 1
        if len(self.seats_in()) <= 1 or self.match_ended() or self.deal_no >= self.opts["max_deals"]:
            self.over = True
            self.emit({"type": "match_over", "totals": list(self.totals), "ranks": self.ranks(self.totals)})
        else:
            self.dealer = self.next_dealer(winner)
            self.start_deal()

    def next_dealer(self, winner: int | None) -> int:
        """Who deals the next deal: by default the deal passes to the left, to the nearest seat still in."""
        return self.next_seat(self.dealer)

    def match_ended(self) -> bool:
        """The variant's end condition, checked after each deal."""
        return False

    def _snapshot(self) -> tuple[dict, int, int]:
        # the append-only logs are not copied: they are cut back on restore
        copy = self.copy_state if snapshot_copy is None else snapshot_copy
        return copy(self.__dict__, self._mutable), len(self.log), len(self.deal_results)

    @staticmethod
    def copy_state(state: dict[str, Any], mutable: tuple[str, ...]) -> dict[str, Any]:
        """The state a rejected play is undone to. Scalars are rebound, never mutated, so a shallow copy keeps
        them; the containers that plays mutate in place (named in `_mutable`) are copied: lists and dicts, two
        levels deep for a list of lists (hands). The compiled core does the same (tests/test_engine.py), and
        does it where it is built: this runs on every play."""
        state = state.copy()
        for k in mutable:
            value = state[k]
            if isinstance(value, list):
                state[k] = [x[:] for x in value] if value and isinstance(value[0], list) else value[:]
            elif isinstance(value, dict):
                state[k] = value.copy()
        return state

    def _restore(self, snap: tuple[dict, int, int]) -> None:
        state, log_len, deals_len = snap
        self.__dict__.clear()
        self.__dict__.update(state)
        del self.log[log_len:]
        del self.deal_results[deals_len:]
