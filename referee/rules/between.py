"""Decisions between deals: after a deal is scored, the seats concerned are asked, one at a time, whether to pay
to stay in, buy back, buy down or drop out, before the deal is recorded and the next one dealt.

A variant mixes `BetweenDeals` in before its family engine (`class Mississippi(BetweenDeals, ChipsGame, Knock)`).
The family ends a deal's play with `finish_deal(scores, winner, ...)` as usual; the mixin holds that deal back,
asks the variant's questions, and only then records the deal (with the scores the answers changed: a buy-back's
lower total, a re-entry fee's chips) and starts the next deal or ends the match. Its `eliminations()` and
`match_ended()` hooks therefore see the seats' choices.

A question is asked of one seat at a time in playing order from the deal's first player (the dealer's left), each
answer public at once (rules/tariff-bridge.md Ambiguity 13, mississippi.md 18, victoria.md 22), so the next
question is decided with the earlier answers known. It is a decision of kind `Ask.kind` in phase `between-deals`
with two options, `bid {value: Ask.value}` (yes: pay, buy back, re-enter) and `pass` (no); the fallback, for a
seat that faults or times out, is `pass`. The round of one seat is a `Sealed` round, like panguingue's
participation question, so the match loop, the records and replay need nothing new.

The variant writes `between_question(seat)` (what, if anything, to ask `seat` now) and `between_answer(seat, ask,
yes)` (apply the answer); a variant with several steps (victoria: re-entries, then the game-end check, then
buy-downs) overrides `next_question`. All state is rebound, never mutated in place, so a rejected answer that the
engine rolls back leaves everything as it was.
"""

from dataclasses import dataclass, field, replace
from typing import Any

from protocol.messages import Bid, Decision, Op, Pass
from referee.rules.describe import Field
from referee.rules.engine import Game
from referee.rules.errors import IllegalAction
from referee.rules.sealed import Sealed

PHASE = "between-deals"


@dataclass(frozen=True)
class Ask:
    """One question between deals: the decision kind, the `bid` value that answers yes, and its constraints (the
    fee, the total the seat would get, ...)."""

    kind: str
    value: str
    constraints: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Pending:
    """The deal held back while its questions are asked: its scores (as the answers change them), winner and
    detail, the playing order the questions follow, and the answers so far."""

    scores: tuple[float, ...]
    winner: int | None
    detail: dict[str, Any]
    order: tuple[int, ...]
    answers: tuple[dict[str, Any], ...] = ()


class BetweenDeals(Game):
    """Mixin: questions asked of seats after a deal is scored and before it is recorded."""

    VIEW: dict[str, Field | None] = {
        "between": Field(
            "object[]|null",
            "between deals: the answers given so far after the deal just played ({kind, seat, answer}); "
            "null during play",
            rare=True,
        ),
    }

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        self.pending: Pending | None = None
        self.asking_between: tuple[Ask, Sealed] | None = None
        super().__init__(players, options, seed)

    # --- the variant's hooks ---------------------------------------------------------------
    def between_question(self, seat: int) -> Ask | None:
        """What to ask `seat` now, after the deal and the earlier answers (None: nothing)."""
        return None

    def between_answer(self, seat: int, ask: Ask, yes: bool) -> None:
        """Apply `seat`'s answer to `ask` (pay, change its total with `set_total`, drop it out)."""

    def between_done(self) -> None:
        """Every question has been answered; the deal is about to be recorded (a variant pays out a bank here)."""

    def next_question(self, after: int | None) -> tuple[int, Ask] | None:
        """The next seat to ask and what, after `after` (None: from the first player): by default each seat once,
        in playing order, that `between_question` has something for."""
        assert self.pending is not None
        order = self.pending.order
        for seat in order[order.index(after) + 1 :] if after is not None else order:
            ask = self.between_question(seat)
            if ask is not None:
                return seat, ask
        return None

    # --- helpers for the variant -------------------------------------------------------------
    @property
    def between(self) -> bool:
        """Whether the deal just played is being settled (its questions asked)."""
        return self.pending is not None

    def total_after(self, seat: int) -> float:
        """`seat`'s total with the held-back deal counted (its match total as the next deal will see it)."""
        extra = self.pending.scores[seat] if self.pending is not None else 0
        return self.totals[seat] + extra

    def set_total(self, seat: int, total: float) -> None:
        """Give `seat` the total `total` after the deal (a buy-back or buy-down): its deal score absorbs it."""
        assert self.pending is not None
        scores = list(self.pending.scores)
        scores[seat] = total - self.totals[seat]
        self.pending = replace(self.pending, scores=tuple(scores))

    def note(self, **detail: Any) -> None:
        """Add keys to the held-back deal's detail (what the answers did)."""
        assert self.pending is not None
        self.pending = replace(self.pending, detail={**self.pending.detail, **detail})

    # --- the engine side ----------------------------------------------------------------------
    def finish_deal(self, scores: list[float], winner: int | None, **detail: Any) -> None:
        order = tuple(self.order_from(self.next_seat(self.dealer)))
        self.pending = Pending(tuple(scores), winner, dict(detail), order)
        self.ask_after(None)

    def ask_after(self, after: int | None) -> None:
        """Ask the next question, or, when there is none, record the deal."""
        question = self.next_question(after)
        if question is not None:
            seat, ask = question
            self.asking_between = (ask, Sealed(ask.kind, PHASE, (seat,)))
            return
        self.asking_between = None
        self.between_done()
        pending = self.pending
        assert pending is not None
        scores, detail = list(pending.scores), dict(pending.detail)
        if pending.answers:
            detail["between"] = list(pending.answers)
        if self.unit == "chips":  # the chips the answers moved belong to this deal
            chips: Any = self
            scores = chips.deal_chips()
            detail.update(chips=list(chips.ledger.chips), bank=chips.ledger.bank, moved=chips.moved_by_reason())
        self.pending = None
        super().finish_deal(scores, pending.winner, **detail)

    def to_act(self) -> list[int]:
        if self.asking_between is not None and not self.over:
            return self.asking_between[1].waiting()
        return super().to_act()

    def decision(self, seat: int) -> Decision:
        if self.asking_between is not None:
            ask = self.asking_between[0]
            return Decision(ask.kind, PHASE, [Bid(ask.value), Pass()], dict(ask.constraints))
        return super().decision(seat)

    def view(self, seat: int) -> dict[str, Any]:
        v = super().view(seat)
        v["between"] = list(self.pending.answers) if self.pending is not None else None
        if self.asking_between is not None and "phase" in v:
            v["phase"] = PHASE
        return v

    def fallback(self, seat: int) -> list[Op]:
        if self.asking_between is not None:
            return [Pass()]
        return super().fallback(seat)

    def _apply(self, seat: int, ops: list[Op]) -> None:
        if self.asking_between is None:
            return super()._apply(seat, ops)
        ask = self.asking_between[0]
        op = ops[0]
        if len(ops) != 1 or not (isinstance(op, Pass) or (isinstance(op, Bid) and op.value == ask.value)):
            raise IllegalAction(f"{ask.kind}.answer", f"answer with one `bid {{value: {ask.value}}}` or one `pass`")
        yes = isinstance(op, Bid)
        answer = {"kind": ask.kind, "seat": seat, "answer": ask.value if yes else "pass"}
        self.emit({"type": ask.kind, "seat": seat, "answer": answer["answer"]})
        assert self.pending is not None
        self.pending = replace(self.pending, answers=(*self.pending.answers, answer))
        self.between_answer(seat, ask, yes)
        self.ask_after(seat)
