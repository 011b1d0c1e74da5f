"""Games played for chips: a ledger of each seat's net chips and of the bank, which carries over between deals.

A chips game (`Game.unit == "chips"`) keeps its money in a `Ledger`: every seat's net balance (it may go negative)
and the bank. Chips only move (ante: seat -> bank, pay: seat -> seat, win or refund: bank -> seat), so the bank
plus all balances is always zero. The match totals ARE the balances: each deal's `scores` are the net chips each
seat won or lost in that deal, and ranks, standings and records work on them unchanged (`low_wins = False`).

Every move is one public `chips` event at the moment it happens: `{"type": "chips", "moves": [{"from": 3,
"to": "bank", "amount": 2, "reason": "ante"}, ...], "chips": [...], "bank": n}`; a payment made by several seats
at once (a condition paid by every other participant) is one event with several moves. The ledger is immutable
(each move makes a new one), so a rejected play that the engine rolls back leaves the chips as they were.
`ChipsGame` is a mixin placed before the family engine (`class Panguingue(ChipsGame, TableMoves, DrawMeldDiscard)`).
"""

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from referee.rules.describe import Field
from referee.rules.engine import Game

BANK = "bank"
Party = int | str  # a seat, or BANK


@dataclass(frozen=True)
class Move:
    """Chips moving from one party to another, and why (`ante`, `condition`, `win`, `refund`, ...)."""

    source: Party
    target: Party
    amount: int
    reason: str

    def as_dict(self) -> dict[str, Any]:
        """The move as the `chips` event shows it."""
        return {"from": self.source, "to": self.target, "amount": self.amount, "reason": self.reason}


@dataclass(frozen=True)
class Ledger:
    """Each seat's net chips, the bank, and what each seat has staked in the bank now (to refund it)."""

    chips: tuple[int, ...]
    bank: int = 0
    staked: tuple[int, ...] = ()

    @classmethod
    def open(cls, players: int) -> "Ledger":
        """The ledger at the start of a match: every balance and the bank at zero."""
        return cls((0,) * players, 0, (0,) * players)

    def apply(self, moves: Iterable[Move]) -> "Ledger":
        """The ledger after `moves`; chips paid into the bank are staked by their payer, chips paid out of it
        are taken from the stakes (all of them once the bank is empty)."""
        chips, staked, bank = list(self.chips), list(self.staked), self.bank
        for m in moves:
            if m.amount < 0:
                raise ValueError(f"a chips move of {m.amount}")
            if m.source == BANK:
                bank -= m.amount
                if isinstance(m.target, int):
                    staked[m.target] = max(0, staked[m.target] - m.amount)
            else:
                chips[int(m.source)] -= m.amount
            if m.target == BANK:
                bank += m.amount
                staked[int(m.source)] += m.amount
            else:
                chips[int(m.target)] += m.amount
        if bank < 0:
            raise ValueError("the bank cannot pay out more than it holds")
        if bank == 0:
            staked = [0] * len(chips)
        return replace(self, chips=tuple(chips), bank=bank, staked=tuple(staked))

    def total(self) -> int:
        """The bank plus all balances: zero in every state (chips are only moved, never made)."""
        return self.bank + sum(self.chips)


class ChipsGame(Game):
    """Mixin: a game played for chips (the totals are the net chip balances; the bank carries over)."""

    unit = "chips"
    low_wins = False
    refund_at_end = True  # chips left in the bank when the match ends go back to those who staked them
    VIEW: dict[str, Field | None] = {
        "chips": Field("int[]", "each seat's net chips in the match so far (negative: lost); live during a deal"),
        "bank": Field("int", "the chips in the bank now (antes of this deal plus any bank carried over)"),
    }

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        self.ledger = Ledger.open(players)
        self.deal_moves: tuple[Move, ...] = ()  # the chips moved in the current deal
        super().__init__(players, options, seed)

    # --- moving chips ------------------------------------------------------------------
    def move_chips(self, moves: list[Move]) -> None:
        """Apply `moves` (those of zero chips are dropped) and emit them as one public `chips` event."""
        moves = [m for m in moves if m.amount]
        if not moves:
            return
        self.ledger = self.ledger.apply(moves)
        self.deal_moves = self.deal_moves + tuple(moves)
        self.emit(
            {
                "type": "chips",
                "moves": [m.as_dict() for m in moves],
                "chips": list(self.ledger.chips),
                "bank": self.ledger.bank,
            }
        )

    def ante(self, seats: Iterable[int], amount: int, reason: str = "ante") -> None:
        """Each of `seats` pays `amount` into the bank."""
        self.move_chips([Move(s, BANK, amount, reason) for s in seats])

    def collect(self, seat: int, payers: Iterable[int], amount: int, reason: str) -> None:
        """Each of `payers` (other than `seat`) pays `seat` `amount` chips: one event."""
        self.move_chips([Move(p, seat, amount, reason) for p in payers if p != seat])

    def pay_bank(self, seat: int, amount: int | None = None, reason: str = "win") -> None:
        """The bank pays `seat` `amount` chips (default: all it holds)."""
        self.move_chips([Move(BANK, seat, self.ledger.bank if amount is None else amount, reason)])

    def return_paid(self, reason: str = "ante", back: str = "refund") -> None:
        """The bank pays back what was paid into it in this deal for `reason` (a void deal's antes)."""
        paid = [m for m in self.deal_moves if m.reason == reason and m.target == BANK and isinstance(m.source, int)]
        self.move_chips([Move(BANK, m.source, m.amount, back) for m in paid])

    def refund_bank(self, reason: str = "refund") -> None:
        """The bank pays every seat back what it has staked in it."""
        self.move_chips([Move(BANK, s, k, reason) for s, k in enumerate(self.ledger.staked)])

    # --- deals and results ---------------------------------------------------------------
    def start_deal(self) -> None:
        self.deal_moves = ()
        super().start_deal()

    def chips_view(self) -> dict[str, Any]:
        """The view fields of a chips game."""
        return {"chips": list(self.ledger.chips), "bank": self.ledger.bank}

    def deal_chips(self) -> list[float]:
        """The deal's scores: the net chips each seat won or lost in it (the balances less the totals so far)."""
        return [c - t for c, t in zip(self.ledger.chips, self.totals)]

    def moved_by_reason(self) -> dict[str, list[int]]:
        """What moved in the current deal: per reason, each seat's net chips (the bank's share left out)."""
        out: dict[str, list[int]] = {}
        for m in self.deal_moves:
            row = out.setdefault(m.reason, [0] * self.n)
            if isinstance(m.source, int):
                row[m.source] -= m.amount
            if isinstance(m.target, int):
                row[m.target] += m.amount
        return out

    def finish_chips_deal(self, winner: int | None, **detail: Any) -> None:
        """End the deal with the chips as they lie (refunding the bank first if the match ends now with chips in
        it: `refund_at_end`), and record the chips, the bank and what moved in the deal's detail."""
        if self.refund_at_end and self.is_last_deal() and self.ledger.bank:
            self.refund_bank()
        detail.update(chips=list(self.ledger.chips), bank=self.ledger.bank, moved=self.moved_by_reason())
        self.finish_deal(self.deal_chips(), winner, **detail)

    def is_last_deal(self) -> bool:
        """Whether the deal being finished is the match's last (the deal cap; variants add their own end)."""
        return self.deal_no + 1 >= self.opts["max_deals"]

    def result(self) -> dict[str, Any]:
        return {**super().result(), "chips": list(self.ledger.chips), "bank": self.ledger.bank, "unit": self.unit}
