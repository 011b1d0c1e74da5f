"""Protocol v1 messages: msgspec tagged unions, one encoder and decoder built once.

Referee -> bot: hello, request, rejected, deal_over, match_over, shutdown.
Bot -> referee: ready, play.  A `play` carries a list of operations that the referee
validates and applies atomically (all or nothing).
"""

from collections.abc import Callable, Sequence
from typing import Annotated, Any, Literal

import msgspec

from protocol.cards import JOKER, RANKS, SUITS, parse_card

PROTOCOL_VERSION = 1
MAX_LINE_BYTES = 1 << 20  # a longer line from a bot is a fault
# Every integer a bot sends fits in 64 bits (as JSON readers in most languages need); a bigger one is malformed.
Int = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class _Op(msgspec.Struct, tag_field="op", forbid_unknown_fields=True, omit_defaults=True, frozen=True):
    """Base of the operations a `play` may hold. An op is a value: frozen (each op type says so too, for type
    checkers), so one op object may be shared (the engine offers the same Discard of a card at every decision)."""


class _TextDefaults(_Op, frozen=True):
    """Base of the ops with a text field that has a default (tests/test_protocol.py checks every such op derives
    from it): only they pay for a `__post_init__`, which every construction of an op would otherwise call (the
    engine builds a dozen ops per decision)."""

    def __post_init__(self) -> None:
        # msgspec omits a default by identity, not by equality: an op decoded, unpickled or built from a string
        # equal to a text default would encode that field, and the same op would have two encodings. Rebinding
        # an equal value to the default object keeps one encoding (tests/test_protocol.py)
        for name, default in _TEXT_DEFAULTS[type(self)]:
            if getattr(self, name) == default:
                msgspec.structs.force_setattr(self, name, default)


def text_defaults(cls: type[msgspec.Struct]) -> tuple[tuple[str, str], ...]:
    """(field, default) of each text field of `cls` that has a default."""
    return tuple((f.name, f.default) for f in msgspec.structs.fields(cls) if isinstance(f.default, str))


class Draw(_TextDefaults, tag="draw", frozen=True):
    """Take cards: from the stock, or from a discard pile (`depth` > 1 takes that many cards from the top)."""

    source: Literal["stock", "discard"] = "stock"
    pile: Int = 0
    depth: Int = 1


class Meld(_Op, tag="meld", frozen=True):
    """Put a new combination on the table. `identities` names, in order, what each wild card stands for."""

    cards: list[str]
    identities: list[str] | None = None
    kind: str | None = None  # "set", "run", or a variant's own kind; inferred when omitted


class LayOff(_Op, tag="layoff", frozen=True):
    """Add cards from hand to the table meld `meld` (its id)."""

    meld: Int
    cards: list[str]
    identities: list[str] | None = None
    end: Literal["low", "high"] | None = None  # which end of a run, where a round-the-corner run leaves it open


class Take(_Op, tag="take", frozen=True):
    """Take `cards` from table meld `meld` into the hand (robbing, where a variant allows it)."""

    meld: Int
    cards: list[str]


class Rearrange(_Op, tag="rearrange", frozen=True):
    """Replace the player's own table melds `melds` by the melds `into` (their cards plus cards from hand)."""

    melds: list[Int]
    into: list[Meld]


class Exchange(_Op, tag="exchange", frozen=True):
    """Put the natural `card` into meld `meld` in place of the wild card standing for it; the wild card goes to hand."""

    meld: Int
    card: str


class Discard(_Op, tag="discard", frozen=True):
    """Put `card` face up on discard pile `pile`; ends the turn."""

    card: str
    pile: Int = 0


class Knock(_Op, tag="knock", frozen=True):
    """End the deal by knocking (knock variants); `discard` is the card discarded with the knock."""

    discard: str | None = None


class Pass(_Op, tag="pass", frozen=True):
    """Decline: a claim, a bid, an offered card."""


class Claim(_Op, tag="claim", frozen=True):
    """Claim the discard out of turn (variants with claims); `depth` > 1 claims that many cards from the top."""

    depth: Int = 1


class Bid(_Op, tag="bid", frozen=True):
    """A bid or a choice among named values (variants with bidding or between-deal decisions)."""

    value: Int | str


Op = Draw | Meld | LayOff | Take | Rearrange | Exchange | Discard | Knock | Pass | Claim | Bid


class Message(msgspec.Struct, tag_field="type", omit_defaults=True):
    """Base of every protocol message."""


class Limits(msgspec.Struct, omit_defaults=True):
    """Time limits in seconds."""

    move_time: float
    bank: float
    startup_time: float


class Hello(Message, tag="hello"):
    """First message to a bot: who it is and what is played."""

    protocol: int
    variant: str
    rules_version: int
    seat: int
    players: int
    options: dict[str, Any]
    limits: Limits
    seed: int | None = None


class Decision(msgspec.Struct, omit_defaults=True):
    """What is asked: `kind` and `phase`, the legal single-operation plays when they are few, and constraints."""

    kind: str
    phase: str = ""
    options: list[Op] | None = None
    constraints: dict[str, Any] = {}


class Clock(msgspec.Struct):
    """The seat's remaining time: per-decision limit and match bank, in seconds."""

    move_time: float
    bank: float


class Request(Message, tag="request"):
    """Ask the bot for a decision. `view` is everything the seat may know; `events` the public events since its
    last request."""

    id: int
    decision: Decision
    view: dict[str, Any]
    events: list[dict[str, Any]]
    clock: Clock


class Rejected(Message, tag="rejected"):
    """The play of request `id` broke `rule`; with retries left the bot is asked again."""

    id: int
    rule: str
    message: str
    retries_left: int


class DealOver(Message, tag="deal_over"):
    """A deal ended: per-seat deal scores, running totals (integers in every variant) and the revealed hands."""

    deal: int
    scores: list[int]
    totals: list[int]
    winner: int | None = None
    hands: list[list[str]] = []
    detail: dict[str, Any] = {}

    @classmethod
    def of(cls, result: dict[str, Any]) -> "DealOver":
        """The message for one of the engine's deal results (`Game.deal_results`): what it does not name as a
        field of the message goes into `detail`."""
        detail = {k: v for k, v in result.items() if k not in _DEAL_FIELDS}
        return cls(
            result["deal"], result["scores"], result["totals"], result["winner"], result.get("hands", []), detail
        )


class MatchOver(Message, tag="match_over"):
    """The match ended: final totals, ranks (1 = best) and faults by seat."""

    totals: list[int]
    ranks: list[int]
    faults: list[str | None]


class Shutdown(Message, tag="shutdown"):
    """The bot should exit now."""

    reason: str = "match over"


class Ready(Message, tag="ready", forbid_unknown_fields=False):
    """A bot's answer to hello."""

    name: str = ""
    version: str = ""
    protocol: Int = PROTOCOL_VERSION


class Play(Message, tag="play", forbid_unknown_fields=False):
    """A bot's answer to request `id`: operations applied atomically in order."""

    id: Int
    ops: list[Op]


_DEAL_FIELDS = frozenset(DealOver.__struct_fields__) | {"type"}

ToBot = Hello | Request | Rejected | DealOver | MatchOver | Shutdown
FromBot = Ready | Play

_encoder = msgspec.json.Encoder()
_from_bot = msgspec.json.Decoder(FromBot)
_to_bot = msgspec.json.Decoder(ToBot)
_op_decoder = msgspec.json.Decoder(Op)


def encode(msg: msgspec.Struct) -> bytes:
    """One JSON line, newline-terminated."""
    return _encoder.encode(msg) + b"\n"


# Decode one line a bot wrote; raises msgspec.ValidationError / DecodeError. The decoder's own method: the referee
# decodes a line a decision, and a Python function around it would cost a call more.
decode_from_bot: Callable[[bytes], Ready | Play] = _from_bot.decode


def decode_to_bot(line: bytes) -> Hello | Request | Rejected | DealOver | MatchOver | Shutdown:
    """Decode one line the referee wrote (for bots and tests)."""
    return _to_bot.decode(line)


def to_builtins(obj: Any) -> Any:
    """Plain JSON-compatible data of a message or op."""
    return msgspec.to_builtins(obj)


def op_from_builtins(data: Any) -> Op:
    """Convert plain data (as read from a game record) into an op."""
    return msgspec.convert(data, Op)


_CODES = frozenset([r + s for r in RANKS for s in SUITS] + [JOKER])


def _card_fields(cls: type) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """The fields of op type `cls` that hold cards: (lists of cards, single cards); None for an op without cards."""
    names = {f.name for f in msgspec.structs.fields(cls)}
    lists, singles = (tuple(n for n in group if n in names) for group in (("cards", "identities"), ("card", "discard")))
    return (lists, singles) if lists or singles or cls is Rearrange else None


_CARD_FIELDS = {cls: _card_fields(cls) for cls in Op.__args__}
_TEXT_DEFAULTS = {cls: text_defaults(cls) for cls in Op.__args__}  # what _TextDefaults.__post_init__ rebinds


def normalize(ops: Sequence[Op]) -> list[Op]:
    """The ops with every card written canonically (`7h` -> `7H`, `10d` -> `TD`); CardError for a bad card."""
    out = []
    for op in ops:
        fields = _CARD_FIELDS[type(op)]
        if fields is None:  # a draw, a pass, a claim, a bid
            out.append(op)
            continue
        lists, singles = fields
        changes: dict[str, Any] = {}
        for name in lists:
            value = getattr(op, name)
            if value is not None:  # a fresh list: the engine may keep it, and the caller may change its own
                changes[name] = [c if c in _CODES else parse_card(c) for c in value]
        for name in singles:
            value = getattr(op, name)
            if isinstance(value, str) and value not in _CODES:
                changes[name] = parse_card(value)
        if isinstance(op, Rearrange):
            changes["into"] = normalize(op.into)
        out.append(msgspec.structs.replace(op, **changes) if changes else op)
    return out


def json_schema() -> dict[str, Any]:
    """JSON Schema of every message in both directions."""
    return msgspec.json.schema(ToBot | FromBot)
