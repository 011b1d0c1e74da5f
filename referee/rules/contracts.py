"""Contracts: what a seat must meld in a deal, and the family of games built on them.

A `Requirement` is a list of `Part`s (a kind of combination and its minimum size) with the rules that relate the
melds meeting it ("not alike": two sets of one contract have different ranks, two same-suit runs are neither
identical nor joinable into one). The deal's requirement comes from a fixed schedule by deal number (may-i,
contract), from the seat's position relative to the dealer (liverpool), or from a fixed list of whole-hand
patterns (continental). `ContractGame` adds to the draw-meld-discard family: going down with the whole contract in
one play, what is allowed before and after it, going out only where the requirement allows it, and matches of a
fixed number of deals.
"""

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import permutations
from typing import Any

from protocol.messages import Decision, Discard, Exchange, LayOff, Meld, Op, Pass
from referee.rules.cards import rank, suit
from referee.rules.describe import Field, Phase
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.errors import IllegalAction
from referee.rules.melds import TableMeld

KIND_NAMES = {"set": "set", "run": "sequence"}


@dataclass(frozen=True)
class Part:
    """One combination a requirement asks for: its kind and minimum size. The kind "set" is met by any kind of
    set ("high-set", "low-set") and "run" by any kind of run ("red-run", "black-run")."""

    kind: str
    min_size: int = 3

    def met_by(self, meld: TableMeld) -> bool:
        """Whether `meld` counts as this part."""
        kind = meld.kind
        return (kind == self.kind or kind.endswith("-" + self.kind)) and len(meld.cards) >= self.min_size


@dataclass(frozen=True)
class Requirement:
    """The combinations a seat must have melded, and how they must differ from each other."""

    parts: tuple[Part, ...]
    name: str = ""
    distinct_set_ranks: bool = True  # two sets of one contract have different ranks (rules/may-i.md)
    distinct_runs: bool = True  # same-suit runs neither identical nor joinable (off: rules/continental.md)

    @property
    def min_cards(self) -> int:
        """The fewest cards that meet the requirement."""
        return sum(p.min_size for p in self.parts)

    def describe(self) -> dict[str, Any]:
        """The requirement as a bot reads it (decision constraints, the view); one shared dict per requirement,
        made once (every request carries every seat's), so callers must not change it."""
        return _described(self)


@cache
def _described(req: Requirement) -> dict[str, Any]:
    self = req
    return {
        "name": self.name or describe_parts(self.parts),
        "parts": [{"kind": p.kind, "min_size": p.min_size} for p in self.parts],
        "min_cards": self.min_cards,
        "distinct_runs": self.distinct_runs,
    }


def describe_parts(parts: Sequence[Part]) -> str:
    """ "two sets + one sequence"-style name of a list of parts."""
    words = ["", "one", "two", "three", "four", "five"]
    out = []
    for kind in dict.fromkeys(p.kind for p in parts):
        k = sum(1 for p in parts if p.kind == kind)
        noun = KIND_NAMES.get(kind, kind)
        out.append(f"{words[k] if k < len(words) else k} {noun}{'s' if k > 1 else ''}")
    return " + ".join(out)


def contract(*kinds: str, run_min: int = 3, set_min: int = 3, **kw: Any) -> Requirement:
    """A requirement of sets and runs: `contract("set", "run")`."""
    return Requirement(tuple(Part(k, run_min if k.endswith("run") else set_min) for k in kinds), **kw)


Span = Callable[[TableMeld], tuple[str, int, int]]  # a run's (suit or colour, lowest place, highest place)


def run_span(meld: TableMeld) -> tuple[str, int, int]:
    """Where a standard run lies: its suit and the places of its ends (A low = 1, K = 13, A high = 14)."""
    lo, hi = rank(meld.ids[0]), rank(meld.ids[-1])
    if hi == 1:
        hi = 14  # an ace at the top end is high
    return suit(meld.ids[0]), lo, hi


def alike(a: TableMeld, b: TableMeld, req: Requirement, span: Span) -> str | None:
    """The rule two melds meeting one requirement break by being "alike", or None (rules/may-i.md, Valid
    combinations, Ambiguity 6; rules/contract.md, Ambiguity 5)."""
    if a.kind.endswith("set") and b.kind.endswith("set"):
        if req.distinct_set_ranks and rank(a.ids[0]) == rank(b.ids[0]):
            return "contract.same-rank"
        return None
    if a.kind.endswith("run") and b.kind.endswith("run") and req.distinct_runs:
        (sa, alo, ahi), (sb, blo, bhi) = span(a), span(b)
        if sa != sb:
            return None
        if (alo, ahi) == (blo, bhi):  # one suit (or colour: liverpool) over the same ranks
            return "contract.identical"
        if ahi + 1 == blo or bhi + 1 == alo:
            return "contract.joinable"
    return None


def match(req: Requirement, melds: Sequence[TableMeld], exact: bool, span: Span = run_span) -> list[int] | str:
    """Which of `melds` meet the parts of `req` (their indices, part by part), or the rule broken when none do.
    With `exact`, every meld must count as a part (a contract melded in one action, a whole-hand pattern)."""
    parts = req.parts
    if exact and len(melds) != len(parts):
        return "contract.count"
    broken = "contract.kinds"
    for chosen in permutations(range(len(melds)), len(parts)):
        if not all(p.met_by(melds[i]) for p, i in zip(parts, chosen)):
            continue
        why = next(
            (w for x, y in _pairs(chosen) if (w := alike(melds[x], melds[y], req, span))),
            None,
        )
        if why is None:
            return list(chosen)
        broken = why
    return broken


def _pairs(items: Sequence[int]) -> list[tuple[int, int]]:
    return [(items[i], items[j]) for i in range(len(items)) for j in range(i + 1, len(items))]


MESSAGES = {
    "contract.count": "the contract needs exactly {n} combinations ({name}), melded in one play",
    "contract.kinds": "these melds do not make the contract ({name}: kinds and minimum sizes)",
    "contract.same-rank": "two sets of one contract must be of different ranks",
    "contract.identical": "two sequences of one contract must not be identical",
    "contract.joinable": "two same-suit sequences of one contract must not join into one sequence",
}


class ContractGame(DrawMeldDiscard):
    """The contract family: a requirement per deal and seat, met in one play (or, with `free_melding`, by the
    seat's own melds by the time it goes out), in a match of a fixed number of deals."""

    family = "contract"
    free_melding = False  # liverpool: anything may be melded at any time; the requirement gates going out only
    melds_after = True  # further melds once down (contract); may-i: lay-offs only
    whole_hand = False  # continental: going down is going out, in one of the requirement's patterns
    last_deal_no_final_discard = False  # may-i, contract: the last deal is won by melding or laying off the last card
    schedule: tuple[Requirement, ...] = ()  # the contract of each deal, by deal number
    _mutable = DrawMeldDiscard._mutable + ("down_melds",)
    PHASES = {
        ("turn", "play"): Phase(
            "after the draw: meld (the contract first, all of it in one play), lay off once down, then discard to end "
            "the turn (or go out by emptying your hand); after a take of several discards there is no discard, and "
            "`pass` ends the turn",
            ("discard", "pass"),
        ),
    }
    CONSTRAINTS = {
        "initial_meld": None,
        "opened": Field("bool", "whether you have met this deal's requirement (gone down)"),
        "contract": Field(
            "object",
            "this deal's requirement for you: {name, parts: [{kind, min_size}], min_cards, distinct_runs}; `parts` are "
            "the combinations to meld (all at once, the contract's melds first in the play, unless `free_melding`)",
        ),
        "free_melding": Field("bool", "whether you may meld anything at any time (the requirement gates going out)"),
        "melds_after": Field("bool", "whether further melds are allowed once down (else lay-offs only)"),
        "last_deal": Field("bool", "whether this is the last deal, where the last card may not be discarded"),
        "discard_due": Field("bool", "whether this turn ends with a discard (false after a take of several discards)"),
    }
    VIEW = {
        "contracts": Field("object[]", "each seat's requirement this deal (as in the constraints' `contract`)"),
        "deals": Field("int", "the number of deals in the match"),
    }

    # --- hooks -----------------------------------------------------------------------
    @property
    def deals(self) -> int:
        """How many deals the match has."""
        return len(self.schedule)

    def requirements(self, seat: int) -> tuple[Requirement, ...]:
        """The requirement(s) `seat` may meet this deal (several: alternative whole-hand patterns); once the match
        is over, those of its last deal (the views still describe it)."""
        return (self.schedule[min(self.deal_no, len(self.schedule) - 1)],)

    def span(self, meld: TableMeld) -> tuple[str, int, int]:
        """Where a run lies, for the "not joinable" rule (liverpool: colour and its own rank order)."""
        return run_span(meld)

    @property
    def last_deal(self) -> bool:
        """Whether the current deal is the match's last."""
        return self.deal_no == self.deals - 1

    def match_ended(self) -> bool:
        return self.deal_no >= self.deals

    # --- state -------------------------------------------------------------------------
    def start_deal(self) -> None:
        self.down_melds: list[list[int]] = [[] for _ in range(self.n)]  # this play's contract melds, per seat
        self.discard_due = True
        super().start_deal()

    @property
    def described(self) -> list[dict[str, Any]]:
        """Every seat's requirement as bots read it. Every request carries them all, so they are described once
        per deal and dealer (they change only between deals)."""
        key = (self.deal_no, self.dealer)
        if getattr(self, "_described", (None,))[0] != key:
            self._described = (key, [self.describe_requirements(s) for s in range(self.n)])
        return self._described[1]

    def describe_requirements(self, seat: int) -> dict[str, Any]:
        """The seat's requirement this deal as a bot reads it (alternative patterns: `{patterns: [...]}`)."""
        reqs = self.requirements(seat)
        return reqs[0].describe() if len(reqs) == 1 else {"patterns": [r.describe() for r in reqs]}

    def decision(self, seat: int) -> Decision:
        d = super().decision(seat)
        if d.kind == "turn" and d.phase == "play" and not self.discard_due:
            d = Decision(d.kind, d.phase, [Pass()], d.constraints)
        if d.kind == "turn" and d.phase == "play":
            d.options = [o for o in d.options or [] if not isinstance(o, Discard) or self.discard_ok(seat)]
        d.constraints = {**self.contract_constraints(seat), **(d.constraints or {})}
        d.constraints.pop("initial_meld", None)
        return d

    def contract_constraints(self, seat: int) -> dict[str, Any]:
        """The constraints every decision of the family carries."""
        return {
            "opened": self.opened[seat],
            "contract": self.described[seat],
            "free_melding": self.free_melding,
            "melds_after": self.melds_after,
            "last_deal": self.last_deal and self.last_deal_no_final_discard,
            "discard_due": self.discard_due,
        }

    def view(self, seat: int) -> dict[str, Any]:
        v = super().view(seat)
        v["contracts"] = list(self.described)
        v["deals"] = self.deals
        return v

    # --- going down ------------------------------------------------------------------------
    def table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        if isinstance(op, Meld):
            if self.opened[seat] and not self.free_melding and not self.melds_after:
                raise IllegalAction("contract.only-contract", "only this deal's contract may be melded")
        elif not self.can_lay_off(seat):
            raise IllegalAction("contract.first", "lay-offs and exchanges come only after your contract is down")
        super().table_op(seat, op)

    def can_lay_off(self, seat: int) -> bool:
        return self.opened[seat] and not self.whole_hand

    def opens_with(self, seat: int, meld: TableMeld) -> bool:
        """Free melding: any meld "opens" (lay-offs may follow). Otherwise the contract's melds are counted, and
        once there are as many as it has parts they must meet it."""
        if self.free_melding:
            return True
        pending = self.down_melds[seat] = [*self.down_melds[seat], len(self.table) - 1]
        if self.whole_hand:
            return False  # judged when the play ends (end_play)
        req = self.requirements(seat)[0]
        if len(pending) < len(req.parts):
            return False
        self.check_contract(req, [self.table[i] for i in pending], exact=True)
        self.emit({"type": "down", "seat": seat, "melds": pending})
        return True

    def check_contract(self, req: Requirement, melds: Sequence[TableMeld], exact: bool) -> list[int]:
        """The melds meeting `req`, or IllegalAction naming how they fail."""
        got = match(req, melds, exact, self.span)
        if isinstance(got, str):
            raise IllegalAction(got, MESSAGES[got].format(n=len(req.parts), name=req.describe()["name"]))
        return got

    def end_play(self, seat: int, was_opened: bool) -> None:
        hand = self.hands[seat]
        if self.whole_hand and self.down_melds[seat]:
            self.check_pattern(seat)
        elif self.down_melds[seat] and not self.opened[seat]:
            req = self.requirements(seat)[0]
            raise IllegalAction(
                "contract.incomplete",
                f"the contract ({req.describe()['name']}) must be melded whole in one play: this play melds "
                f"{len(self.down_melds[seat])} of its {len(req.parts)} combinations",
            )
        self.down_melds[seat] = []
        if not hand and not self.may_go_out(seat):
            raise IllegalAction("contract.go-out", self.go_out_message(seat))
        if hand and self.phase == "play" and self.discard_due and len(hand) == 1 and not self.discard_ok(seat):
            raise IllegalAction(
                "contract.keep-two",
                "keep at least two cards until you may go out: your last card may not be discarded here",
            )
        super().end_play(seat, was_opened)

    def check_pattern(self, seat: int) -> None:
        """Whole-hand patterns: the play's melds hold every card and meet one of the patterns."""
        if self.hands[seat]:
            raise IllegalAction("contract.whole-hand", "melds may be put down only all at once, emptying the hand")
        melds = [self.table[i] for i in self.down_melds[seat]]
        errors = [match(r, melds, exact=True, span=self.span) for r in self.requirements(seat)]
        if all(isinstance(e, str) for e in errors):
            names = "; ".join(r.describe()["name"] for r in self.requirements(seat))
            raise IllegalAction("contract.pattern", f"the melds meet none of the patterns ({names})")
        self.opened[seat] = True

    def may_go_out(self, seat: int) -> bool:
        """Whether `seat` may empty its hand now: by default once down."""
        return self.opened[seat]

    def go_out_message(self, seat: int) -> str:
        """Why `seat` may not go out yet."""
        return "you may not go out before your contract is down"

    def discard_ok(self, seat: int) -> bool:
        """Whether the seat's discard may empty its hand (a hand of more cards may always discard)."""
        if len(self.hands[seat]) != 1:
            return True
        return self.may_go_out(seat) and not (self.last_deal and self.last_deal_no_final_discard)

    def discard(self, seat: int, op: Discard) -> None:
        if not self.discard_due:
            raise IllegalAction("discard.after-deep-take", "after a take of several discards you may not discard")
        if len(self.hands[seat]) == 1 and op.card in self.hands[seat] and not self.discard_ok(seat):
            raise IllegalAction("contract.final-discard", "your last card may not be discarded here")
        super().discard(seat, op)

    def do(self, seat: int, op: Op) -> None:
        if isinstance(op, Pass) and self.phase == "play" and not self.discard_due:
            self.phase = "over"  # the turn of a take of several discards ends without a discard
            return
        super().do(seat, op)

    def clear_turn(self) -> None:
        super().clear_turn()
        self.discard_due = True

    def fallback(self, seat: int) -> list[Op]:
        if self.phase == "play" and not self.discard_due:
            return [Pass()]
        return super().fallback(seat)


def find_contract(
    hand: Sequence[str], req: Requirement, candidates: Sequence[TableMeld], span: Span = run_span
) -> list[TableMeld] | None:
    """Disjoint melds from `hand` (chosen among `candidates`, e.g. solver.candidate_melds) that meet `req`
    exactly, using as many cards as possible; None if the hand cannot meet it."""
    best: list[TableMeld] | None = None

    def grow(chosen: list[int], left: Counter) -> None:
        nonlocal best
        k = len(chosen)
        if k == len(req.parts):
            if best is None or sum(len(candidates[i].cards) for i in chosen) > sum(map(_size, best)):
                best = [candidates[i] for i in chosen]
            return
        part = req.parts[k]
        # equal parts take their melds in list order, so each choice is tried once
        start = chosen[-1] + 1 if k and req.parts[k - 1] == part else 0
        for i in range(start, len(candidates)):
            meld = candidates[i]
            need = Counter(meld.cards)
            fits = part.met_by(meld) and all(left[c] >= n for c, n in need.items())
            if fits and all(alike(meld, candidates[j], req, span) is None for j in chosen):
                grow([*chosen, i], left - need)

    grow([], Counter(hand))
    return best


def find_cover(
    hand: Sequence[str], reqs: Sequence[Requirement], candidates: Sequence[TableMeld], spare: int = 0
) -> list[TableMeld] | None:
    """Melds holding every card of `hand` exactly that meet one of the whole-hand patterns `reqs`; None if none.
    With `spare`, up to that many cards may be left out (a final discard: the cards the melds do not hold)."""
    search = _Cover(hand, reqs, candidates)
    return search.cover(search.full, [], spare)


class _Cover:
    """find_cover's search over count vectors: the lowest card left goes into a meld holding it (or is spared).
    Where no "not alike" rule is in force, whether melds meet a pattern depends on their kinds and sizes only,
    so a state (cards left, shapes chosen) that failed once is not searched again."""

    def __init__(self, hand: Sequence[str], reqs: Sequence[Requirement], candidates: Sequence[TableMeld]):
        counts = Counter(hand)
        codes = sorted(counts)
        index = {c: i for i, c in enumerate(codes)}
        self.reqs, self.most = reqs, max(len(r.parts) for r in reqs)
        self.full = tuple(counts[c] for c in codes)
        self.by_low: list[list[tuple[TableMeld, tuple[int, ...]]]] = [[] for _ in codes]
        for meld in candidates:
            need = Counter(meld.cards)
            if all(k <= counts[c] for c, k in need.items()):
                self.by_low[min(index[c] for c in need)].append((meld, tuple(need[c] for c in codes)))
        self.by_shape = all(
            not r.distinct_runs and not (r.distinct_set_ranks and any(p.kind.endswith("set") for p in r.parts))
            for r in reqs
        )
        self.failed: set[tuple] = set()

    def cover(self, left: tuple[int, ...], chosen: list[TableMeld], spare: int) -> list[TableMeld] | None:
        """Melds completing `chosen` with the cards `left` (all but up to `spare` of them), or None."""
        if not any(left):
            return chosen if self.met(chosen) else None
        if len(chosen) == self.most and not spare:
            return None
        key = (left, spare, tuple(sorted((m.kind, len(m.cards)) for m in chosen))) if self.by_shape else None
        if key in self.failed:
            return None
        first = next(i for i, k in enumerate(left) if k)
        for meld, need in self.by_low[first] if len(chosen) < self.most else ():
            if all(a >= b for a, b in zip(left, need)):
                found = self.cover(tuple(a - b for a, b in zip(left, need)), [*chosen, meld], spare)
                if found is not None:
                    return found
        if spare:  # the lowest card left is the one left out
            found = self.cover(tuple(k - (i == first) for i, k in enumerate(left)), chosen, spare - 1)
            if found is not None:
                return found
        if key is not None:
            self.failed.add(key)
        return None

    def met(self, melds: list[TableMeld]) -> bool:
        """Whether `melds` meet one of the patterns."""
        return any(not isinstance(match(r, melds, exact=True), str) for r in self.reqs)


def _size(meld: TableMeld) -> int:
    return len(meld.cards)
