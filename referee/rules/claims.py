"""Out-of-turn claims of the just-discarded card ("May I?": rules/may-i.md, Special rules; contract, liverpool).

After a regular discard by D, every seat other than D and the next player N is asked at once, sealed, whether it
claims the discard (`claim {depth}`) or passes. If anyone claims, N is shown the claims and asked next (phase
`priority`): he takes from the discard pile as his ordinary draw, or passes. If he passes, the claimant nearest to
N in playing order takes his block with stock cards as penalty, and, for a single card, discards one (phase
`discard`). Then N plays his regular turn. The sealed-claim protocol is rules/may-i.md, Ambiguities 2 and 18.

`Claims` extends the contract family (`class MayI(Claims)`).
"""

from typing import Any

from protocol.messages import Claim, Decision, Discard, Draw, Op, Pass
from referee.rules.contracts import ContractGame
from referee.rules.describe import Field, Phase
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.sealed import Sealed


class Claims(ContractGame):
    """The claim window after each regular discard, resolved by priority from the next player."""

    deep_claims = False  # may-i: a claimant may take a deeper card with everything above it
    OPTIONS = {
        "may_i_next_turn_to_claimant_left": Option(
            False, help="after an out-of-turn take, the claimant's left neighbour plays next instead of N"
        ),
    }
    PHASES = {
        ("claim", "claim"): Phase(
            "another player has just discarded and you are neither he nor the next player: claim the card "
            "(`claim {depth}`; depth k > 1 takes the k-th card from the top with every card above it, where the "
            "pile is spread) or `pass`. Answers are sealed: nobody sees yours before all are in",
            ("claim", "pass"),
            rare=True,
        ),
        ("claim", "priority"): Phase(
            "you are the next player and someone has claimed the discard (constraints `claims`): take from the "
            "discard pile yourself as your ordinary draw (`draw {source: discard, depth}`; then your turn goes on) "
            "or `pass` and let the claimant nearest to you have it",
            ("draw", "pass"),
            rare=True,
        ),
        ("claim", "discard"): Phase(
            "your claim of one card was granted: you took it and a stock card; discard one card (not the one claimed)",
            ("discard",),
            rare=True,
        ),
    }
    CONSTRAINTS = {
        "claims": Field("object[]", "in phase priority: the claims, each {seat, depth}", rare=True),
    }
    VIEW = {
        "claim": Field(
            "object|null",
            "the claim window in progress: {stage (claim, priority or discard), discarder, next, claimant}; null "
            "when there is none",
        ),
    }

    # --- the window ---------------------------------------------------------------------
    def start_deal(self) -> None:
        self.sealed: Sealed | None = None
        self.stage: str | None = None  # "claim", "priority", "discard" while a window is open
        self.window: tuple[int, int] = (-1, -1)  # (discarder, next player)
        self.claims: tuple[tuple[int, int], ...] = ()  # (seat, depth) of each claim, in priority order
        self.claimant: int | None = None
        super().start_deal()

    def end_turn(self) -> None:
        by_discard, discarder, deal = self.discard_due, self.turn, self.deal_no
        super().end_turn()
        if by_discard and not self.over and self.deal_no == deal and self.phase == "draw":
            self.open_window(discarder)

    def open_window(self, discarder: int) -> None:
        """Ask every seat but the discarder and the next player, sealed, if a claim is possible at all."""
        nxt = self.turn
        seats = tuple(s for s in self.order_from(nxt) if s not in (nxt, discarder) and self.claim_depths(s))
        if not seats:
            return
        self.window, self.stage = (discarder, nxt), "claim"
        self.sealed = Sealed("claim", "claim", seats)
        self.emit({"type": "claim_window", "discarder": discarder, "next": nxt, "seats": list(seats)})

    def claim_depths(self, seat: int) -> list[int]:
        """The depths a claimant may take: 1, and deeper only with `deep_claims`; each needs stock cards as
        penalty (1 for a single card, k for k cards) that the stock, with one rebuild, can pay
        (rules/may-i.md, Ambiguity 19)."""
        deepest = len(self.piles[0]) if self.deep_claims else min(1, len(self.piles[0]))
        return [k for k in range(1, deepest + 1) if self.stock_reach(k) >= (1 if k == 1 else k)]

    def stock_reach(self, taken: int) -> int:
        """Stock cards available to a take of `taken` pile cards: the stock, plus one rebuild of what is left."""
        return len(self.stock) + self.rebuild_yield(len(self.piles[0]) - taken)

    def draw_stock(self, seat: int, count: int) -> None:
        """`count` stock cards to `seat`, rebuilding the stock in the middle of the action where it runs out."""
        cards = []
        for _ in range(count):
            if not self.stock and not self.rebuild():
                raise IllegalAction("draw.stock-short", "the stock cannot pay for this take")
            cards.append(self.stock.pop())
        self.hands[seat] += cards
        self.emit({"type": "draw", "seat": seat, "source": "stock", "count": count}, seat, cards=cards)

    # --- the interface ------------------------------------------------------------------
    def to_act(self) -> list[int]:
        if self.over:
            return []
        if self.sealed is not None:
            return self.sealed.waiting()
        if self.stage == "priority":
            return [self.window[1]]
        if self.stage == "discard" and self.claimant is not None:
            return [self.claimant]
        return super().to_act()

    def decision(self, seat: int) -> Decision:
        if self.stage is None:
            return super().decision(seat)
        constraints: dict[str, Any] = self.contract_constraints(seat)
        if self.stage == "claim":
            options: list[Op] = [*(Claim(k) for k in self.claim_depths(seat)), Pass()]
        elif self.stage == "priority":
            options = [*(Draw("discard", depth=k) for k in self.own_depths()), Pass()]
            constraints["claims"] = [{"seat": s, "depth": k} for s, k in self.claims]
        else:
            options = self.discard_options(seat)
        return Decision("claim", self.stage, options, constraints)

    def own_depths(self) -> list[int]:
        """The depths the next player may take from the pile as his draw."""
        return [1] if self.piles[0] else []

    def view(self, seat: int) -> dict[str, Any]:
        v = super().view(seat)
        if self.stage is None:
            v["claim"] = None
        else:
            discarder, nxt = self.window
            v["claim"] = {"stage": self.stage, "discarder": discarder, "next": nxt, "claimant": self.claimant}
            v["phase"] = self.stage
            # the card taken in the window is the claimant's, not the next player's (whose turn it is)
            v["taken"] = self.taken if seat == self.claimant else None
        return v

    def fallback(self, seat: int) -> list[Op]:
        if self.stage in ("claim", "priority"):
            return [Pass()]
        if self.stage == "discard":
            return [Discard(max(self.legal_discards(seat), key=self.penalty))]
        return super().fallback(seat)

    def _apply(self, seat: int, ops: list[Op]) -> None:
        if self.stage == "claim":
            self.answer_claim(seat, ops)
        elif self.stage == "priority":
            self.answer_priority(seat, ops)
        elif self.stage == "discard":
            self.claimant_discard(seat, ops)
        else:
            super()._apply(seat, ops)

    # --- answers ------------------------------------------------------------------------------
    def answer_claim(self, seat: int, ops: list[Op]) -> None:
        """Store a sealed claim answer; the last one resolves the round."""
        if len(ops) != 1 or not isinstance(ops[0], Claim | Pass):
            raise IllegalAction("claim.answer", "answer a claim window with one `claim` or one `pass`")
        op = ops[0]
        if isinstance(op, Claim) and op.depth not in self.claim_depths(seat):
            raise IllegalAction("claim.depth", f"you may not claim {op.depth} card(s) here")
        assert self.sealed is not None
        self.sealed = self.sealed.add(seat, ops)
        if self.sealed.complete:
            self.resolve_claims(self.sealed)

    def resolve_claims(self, done: Sealed) -> None:
        """All answers are in: no claim lets the next player play on; claims go to him first (privately)."""
        self.sealed = None
        order = self.order_from(self.window[1])
        self.claims = tuple(
            (s, ops[0].depth)
            for s in sorted(done.seats, key=order.index)
            if isinstance((ops := done.answer(s))[0], Claim)
        )
        if not self.claims:
            self.emit({"type": "claims", "claims": [], "winner": None})
            self.stage = None
            return
        self.stage = "priority"
        listed = [{"seat": s, "depth": k} for s, k in self.claims]
        self.emit({"type": "claims_heard"}, self.window[1], claims=listed)  # rules/may-i.md, Ambiguity 18

    def answer_priority(self, seat: int, ops: list[Op]) -> None:
        """The next player takes from the pile as his draw (his turn goes on) or passes to the claimant."""
        first = ops[0]
        listed = [{"seat": s, "depth": k} for s, k in self.claims]
        if isinstance(first, Draw) and first.source == "discard":
            if first.depth not in self.own_depths():
                raise IllegalAction("claim.depth", f"you may not take {first.depth} card(s) here")
            self.emit({"type": "claims", "claims": listed, "winner": seat})
            self.stage, self.claims = None, ()
            super()._apply(seat, ops)
            return
        if len(ops) != 1 or not isinstance(first, Pass):
            raise IllegalAction(
                "claim.priority", "take from the discard pile as your draw, or pass and let the claimant take it"
            )
        winner, depth = self.claims[0]
        self.emit({"type": "claims", "claims": listed, "winner": winner})
        self.claimant, self.claims = winner, ()
        taken = self.take_discards(winner, depth)
        self.taken = taken[0] if depth == 1 else None
        self.draw_stock(winner, 1 if depth == 1 else depth)
        if depth == 1:
            self.stage = "discard"  # rules/may-i.md: card plus a stock card, then one card to the pile
        else:
            self.finish_claim()

    def claimant_discard(self, seat: int, ops: list[Op]) -> None:
        """The claimant's discard; it opens no window (rules/may-i.md, Special rules)."""
        if len(ops) != 1 or not isinstance(ops[0], Discard):
            raise IllegalAction("claim.discard", "after your claim, discard one card")
        card = ops[0].card
        if card not in self.hands[seat]:
            raise IllegalAction("hand.missing-card", f"{card} is not in your hand")
        if not self.may_discard(seat, card):
            raise IllegalAction("discard.rediscard", f"{card} was just claimed: discard another card")
        self.hands[seat].remove(card)
        self.piles[0].append(card)
        self.emit({"type": "discard", "seat": seat, "card": card, "claim": True})
        self.finish_claim()

    def finish_claim(self) -> None:
        """Close the window: rebuild an empty stock, then the next regular turn (N's, or the claimant's left
        neighbour's with the option)."""
        claimant = self.claimant
        self.stage, self.claimant, self.taken, self.taken_cards = None, None, None, ()
        if not self.stock and not self.rebuild():
            self.end_deal(winner=None)  # rules/may-i.md, Ambiguity 10: no rebuild left is a stalemate
            return
        if claimant is not None and self.opts["may_i_next_turn_to_claimant_left"]:
            self.turn = self.next_seat(claimant)
