"""Boathouse Rummy (Valčių stoties romis): rules/boathouse.md, based on rules/classic.md."""

from collections import Counter
from typing import Any

from protocol.messages import Decision, Discard, Draw, Exchange, LayOff, Meld, Op, Pass
from referee.rules.describe import Field, Phase
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.finals import FinalRound
from referee.rules.melds import MeldRules
from referee.rules.variants.classic import Classic

# in the final turn only melds and lay-offs from hand (Special rules 4; Ambiguity 7)
FINAL_TURN_BANS = {
    Draw: ("final.no-draw", "nobody may take a card from the table in the final turn"),
    Exchange: ("final.no-exchange", "joker exchanges are not allowed in the final turn"),
    Discard: ("final.no-discard", "nobody discards in the final turn"),
}


class Boathouse(FinalRound, Classic):
    """Valčių stoties romis: Classic with round-the-corner runs, a run of discards taken after a stock draw and
    put on the table at once, and a final turn for each loser to put down what fits."""

    slug = "boathouse"
    name = "Boathouse Rummy"
    local_name = "Valčių stoties romis"
    rules_version = 2  # 2: one run of discards per turn
    meld_rules = MeldRules(wrap=True)  # Valid combinations: the ranks form a cycle
    final_phase = "declare"
    OPTIONS = {"per_card_scoring": Option(False, help="losers pay 1 point per card left; no final turns")}
    PHASES = {
        ("turn", "declare"): Phase(
            "your final turn once a player went out (not with per_card_scoring): meld and lay off from your hand "
            "what fits, on any meld, then pass or let the play end the turn; no draw, exchange or discard",
            ("pass",),
        )
    }
    CONSTRAINTS = {
        "pile_take": Field(
            "str",
            'after a stock draw, while the pile is not empty: "all": you may take a run of discards from the top '
            "(draw from the discard pile with depth k) if every card taken goes on the table in the same play",
        ),
        "lay_off_on_others": Field("bool", "in your final turn: always true, you may lay off on any meld"),
        "final_turn": Field("bool", "always true: the decision is your final turn of the deal (phase declare)"),
    }

    def start_deal(self) -> None:
        self.finisher: int | None = None  # the winner, while the final turns are played
        super().start_deal()

    def penalty(self, card: str) -> int:
        """Scoring: classic card values, or 1 a card with `per_card_scoring` (Special rules 5)."""
        return 1 if self.opts["per_card_scoring"] else super().penalty(card)

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """As classic, but a hand costs only what fits no combination: the rest goes down in the final turn."""
        out = super().evaluate(hand)
        return {**out, "points": out["deadwood_points"]}

    # --- the run of discards after a stock draw (Turn structure 3b; Special rules 1; Ambiguity 13) ---------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        self.run: list[str] = []  # cards taken in runs during this play
        self.placed: list[str] = []  # cards this play put on the table
        super()._apply(seat, ops)

    def draw(self, seat: int, op: Draw) -> None:
        if op.source != "discard" or (self.phase == "draw" and op.depth == 1):
            return super().draw(seat, op)
        if self.phase != "play" or self.taken:
            raise IllegalAction("draw.run-after-stock", "a run of discards may follow only a draw from the stock")
        if op.pile != 0:
            raise IllegalAction("draw.one-pile", "there is only one discard pile")
        if self.taken_cards:  # after the stock draw, only a run takes from the pile: one run a turn (3b)
            raise IllegalAction(
                "draw.one-run", "only one run of discards per turn: take all the cards you need in one draw"
            )
        self.run += self.take_discards(seat, op.depth)

    def after_table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        self.placed += [op.card] if isinstance(op, Exchange) else op.cards

    def end_play(self, seat: int, was_opened: bool) -> None:
        if self.finisher is not None:
            return self.next_final_turn()
        unused = Counter(self.run) - Counter(self.placed)  # identical copies count (_general.md, Ambiguity 11)
        if unused:
            raise IllegalAction(
                "draw.run-unused",
                f"every card of a run must go on the table in the same play: "
                f"{' '.join(sorted(unused.elements()))} did not",
            )
        super().end_play(seat, was_opened)

    # --- final turns (Special rules 4; Ambiguities 6-8, 10, 14) ------------------------------------------------
    def end_deal(self, winner: int | None) -> None:
        if winner is None or self.opts["per_card_scoring"] or self.finisher is not None:
            return super().end_deal(winner)
        self.finisher = winner
        self.begin_final_round(self.order_from(winner)[1:], winner=winner)  # each loser, clockwise from the winner

    def final_round_over(self) -> None:
        super().end_deal(self.finisher)

    def do(self, seat: int, op: Op) -> None:
        if self.phase != "declare":
            return super().do(seat, op)
        if type(op) in FINAL_TURN_BANS:
            raise IllegalAction(*FINAL_TURN_BANS[type(op)])
        if isinstance(op, Pass):
            self.emit({"type": "pass", "seat": seat})
            self.phase = "over"
        elif isinstance(op, (Meld, LayOff)):
            opened = self.opened[seat]  # "not opened" is judged when the winner went out (Ambiguity 8)
            self.table_op(seat, op)
            self.opened[seat] = opened
        else:
            raise IllegalAction("op.unsupported", f"{type(op).__name__.lower()} is not a final-turn operation")

    def can_lay_off(self, seat: int) -> bool:
        return self.phase == "declare" or super().can_lay_off(seat)

    def decision(self, seat: int) -> Decision:
        if self.phase == "declare":
            return Decision("turn", "declare", [Pass()], {"lay_off_on_others": True, "final_turn": True})
        d = super().decision(seat)
        if self.phase == "play" and not self.taken_cards and self.piles[0]:  # no top discard, no run yet
            d.constraints["pile_take"] = "all"  # a run of discards, every card put on the table in the same play
        return d

    def fallback(self, seat: int) -> list[Op]:
        return [Pass()] if self.phase == "declare" else super().fallback(seat)
