"""The all-at-once family: no partial melds during play. A player goes out only by declaring rummy, putting
his whole hand down at once in his own combinations; when the stock runs down to the number of players,
play is interrupted and everyone has one final turn to draw and declare what he can (rules/straight.md).

Variants are subclasses of `AllAtOnce` that say how a deal is settled (`settle`); see variants/straight.py.
"""

from collections import Counter
from collections.abc import Collection
from typing import Any

from protocol.messages import Decision, Discard, Draw, LayOff, Meld, Op, Pass
from referee.rules.describe import Field, Phase
from referee.rules.errors import IllegalAction
from referee.rules.finals import FinalRound
from referee.rules.melds import MeldRules, is_valid
from referee.rules.solver import Split, Value, best_split, candidate_melds


def is_one_run(cards: list[str], rules: MeldRules) -> bool:
    """Whether `cards` together form a single sequence."""
    return is_valid(list(cards), "run", rules)


def has_long_run(cards: list[str], rules: MeldRules, value: Value, length: int) -> bool:
    """Whether `cards` can be arranged, with the least deadwood they allow, so that one sequence holds at
    least `length` cards (rules/american.md, Ambiguity 14: judged on the cards, not on a grouping)."""
    least = best_split(cards, rules, value).points
    for meld in candidate_melds(cards, rules):
        if meld.kind == "run" and len(meld.cards) >= length:
            rest = list((Counter(cards) - Counter(meld.cards)).elements())
            if best_split(rest, rules, value).points == least:
                return True
    return False


def first_lowest(values: list[int], start: int) -> int:
    """The seat with the lowest value; ties go to `start`, then clockwise from it (rules/straight.md, Special
    rules 3)."""
    n = len(values)
    return min(((start + i) % n for i in range(n)), key=values.__getitem__)


# the final turns of the interruption round (Turn structure 4), as the reference describes them
LAST_DRAW = Phase(
    "your final turn in the interruption round: draw (only the interrupter may take the discard)",
    ("draw",),
    requires="interruption",
)
DECLARE = Phase(
    "your final turn, after its draw: meld what you can (and lay off, where lay_off_on_others allows), or pass; "
    "nobody discards",
    ("pass",),
    requires="interruption",
)


class AllAtOnce(FinalRound):
    """Engine of the all-at-once family: whole-hand declarations and the interruption round.

    Phases: `draw`, `play` (discard, or declare rummy) in a normal turn; `last-draw` and `declare` in the
    final turn of the interruption round."""

    family = "all-at-once"
    immediate_rummy = True  # a dealt hand all in combinations may be declared before the first draw
    lay_off_on_others = True  # in the interruption round, later players may add to others' combinations
    rebuild_stock = False  # the interruption begins before the stock runs out
    # False: no interruption round; the stock is rebuilt (set rebuild_stock) and a deal that cannot go on is a
    # stalemate (rummy-bridge, seskine)
    interruption = True
    rummy_discards = False  # a rummy after the draw ends with a discard: all cards but one shown (rummy-bridge)
    dealer_opens = False  # the dealer is dealt one card more and opens by discarding; no starter (rummy-bridge)
    first_opens = False  # Pirmasis is dealt one card more and opens by discarding; no starter (hungarian)
    _mutable = FinalRound._mutable + ("declared", "laid_off", "drew", "pile_draws")
    ban_lapses = False  # banned_discards
    PHASES = {
        ("turn", "draw"): Phase(
            "the start of your turn: draw one card; where immediate_rummy is true you may instead declare your whole "
            "dealt hand (melds only, no draw)",
            ("draw",),
        ),
        ("turn", "play"): Phase(
            "after the draw: discard, or declare rummy: meld your whole hand at once (every card, or all but one "
            "and discard it)",
            ("discard",),
        ),
        ("turn", "last-draw"): LAST_DRAW,
        ("turn", "declare"): DECLARE,
    }
    CONSTRAINTS = {
        "initial_meld": None,
        "opened": None,
        "whole_hand": Field("bool", "always true: no partial melds during play, only a whole-hand declaration (rummy)"),
        "lay_off_on_others": Field(
            "bool",
            "whether in the final turns of the interruption round you may add to other players' combinations",
            requires="interruption",
        ),
        "immediate_rummy": Field("bool", "whether you may declare rummy now, before drawing (your first turn)"),
    }
    VIEW = {
        "interrupter": Field(
            "int|null",
            "the seat that began the interruption round (null: no interruption yet)",
            requires="interruption",
        )
    }
    CARD_VALUES = {"penalty": Field("int", "unused points: what a card outside your declared combinations counts")}

    @property
    def stock_floor(self) -> int:
        """The interruption begins once a turn leaves this many stock cards or fewer (Turn structure 4); without
        it, the stock is rebuilt once it is empty."""
        return len(self.seats_in()) if self.interruption else 0

    def settle(self, kind: str, winner: int | None) -> None:
        """Score and record the deal. `kind` is rummy, immediate-rummy, interruption (winner None: the
        variant decides) or stalemate (the turn cap; no winner)."""
        raise NotImplementedError

    def split(self, cards: list[str]) -> Split:
        """The best arrangement of cards into the variant's combinations."""
        return best_split(cards, self.meld_rules, self.penalty)

    # --- deal and decisions -----------------------------------------------------------
    def start_deal(self) -> None:
        super().start_deal()
        if self.dealer_opens or self.first_opens:  # the opener's extra card; his opening discard starts the pile
            opener = self.dealer if self.dealer_opens else self.turn
            self.hands[opener].append(self.stock.pop())
            self.turn, self.phase = opener, "play"
        self.interrupter: int | None = None
        self.declared: list[list[str]] = [[] for _ in range(self.n)]  # cards put down in one's own combinations
        self.laid_off = [False] * self.n  # added cards to another player's combination
        self.drew = [False] * self.n  # took a card from the stock or the pile this deal
        self.pile_draws = [0] * self.n

    def first_turn(self) -> bool:
        """Whether the seat to act is in its first turn of the deal (turns go round from Pirmasis)."""
        return self.interrupter is None and self.turns < len(self.seats_in())

    def may_declare_before_draw(self) -> bool:
        """Whether the seat to act may declare rummy before drawing now: by default an immediate rummy in one's
        first turn (seskine: in any turn)."""
        return self.immediate_rummy and self.first_turn()

    def decision(self, seat: int) -> Decision:
        constraints: dict[str, Any] = {
            "whole_hand": True,
            "immediate_rummy": self.phase == "draw" and self.may_declare_before_draw(),
        }
        if self.interruption:
            constraints["lay_off_on_others"] = self.lay_off_on_others
        options: list[Op]
        if self.phase == "last-draw":
            options = [Draw("stock"), *([Draw("discard")] if seat == self.interrupter and self.piles[0] else [])]
        elif self.phase == "declare":
            options = [Pass()]
        elif self.phase == "draw":
            options = self.draw_options(seat)
        else:
            options = self.discard_options(seat)
        return Decision("turn", self.phase, options, constraints)

    def banned_discards(self, seat: int) -> Collection[str]:
        """The card taken from the pile this turn. The ban never lapses (`ban_lapses`): a normal turn always leaves
        other cards, and a rummy may not end by discarding the card taken (rules/straight.md, Turn structure 3a,
        Ambiguity 15)."""
        return (self.taken,) if self.taken and not self.opts["allow_rediscard"] else ()

    def view(self, seat: int) -> dict[str, Any]:
        return {**super().view(seat), **({"interrupter": self.interrupter} if self.interruption else {})}

    def fallback(self, seat: int) -> list[Op]:
        """Draw from the stock; discard the costliest card; in the final turn declare the best combinations."""
        if self.phase in ("draw", "last-draw"):
            return [Draw("stock")]
        if self.phase == "declare":
            return [Meld(list(m.cards), kind=m.kind) for m in self.split(self.hands[seat]).melds] or [Pass()]
        return super().fallback(seat)

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """Best combinations of a hand and its deadwood, which is what it costs after another player's rummy."""
        game = cls.hooks_only()
        split = game.split(hand)
        return {
            "melds": [list(m.cards) for m in split.melds],
            "deadwood": list(split.deadwood),
            "points": split.points,
            "rummy": not split.deadwood,
        }

    # --- plays ------------------------------------------------------------------------------
    def do(self, seat: int, op: Op) -> None:
        match op:
            case Draw():
                self.draw(seat, op)
            case Meld() | LayOff():
                self.declare(seat, op)
            case Discard() if self.interrupter is not None:
                raise IllegalAction("interruption.no-discard", "nobody discards in the interruption round")
            case Discard():
                self.discard(seat, op)
            case Pass() if self.phase == "declare":
                self.emit({"type": "pass", "seat": seat})
                self.phase = "over"
            case _:
                raise IllegalAction(
                    "op.unsupported",
                    f"{type(op).__name__.lower()} is not an operation of {self.slug} in phase {self.phase}",
                )

    def draw(self, seat: int, op: Draw) -> None:
        if self.phase == "last-draw":
            if op.source != "stock" and seat != self.interrupter:
                raise IllegalAction(
                    "interruption.stock-only", "after the interrupter, every final draw is the top card of the stock"
                )
            self.phase = "draw"
            super().draw(seat, op)
            self.phase = "declare"
        else:
            super().draw(seat, op)
        self.drew[seat] = True
        self.pile_draws[seat] += op.source == "discard"

    def can_lay_off(self, seat: int) -> bool:
        return True  # where lay-offs are allowed at all is decided in `declare`

    def declare(self, seat: int, op: Meld | LayOff) -> None:
        """Put down a combination: in a normal turn only as part of a rummy, otherwise in one's final turn."""
        if self.interrupter is None:
            if isinstance(op, LayOff):
                raise IllegalAction(
                    "layoff.interruption-only" if self.interruption else "layoff.none",
                    "no lay-offs during play: combinations are declared only with the whole hand",
                )
            if self.phase == "draw" and not self.immediate_rummy:
                raise IllegalAction("rummy.draw-first", "draw first: rummy is declared after the draw")
            if self.phase == "draw" and not self.may_declare_before_draw():
                raise IllegalAction(
                    "rummy.immediate-first-turn",
                    "before drawing, rummy may be declared only in your first turn: draw first",
                )
        elif self.phase != "declare":
            raise IllegalAction("interruption.draw-first", "take your last card before declaring")
        self.table_op(seat, op)
        if isinstance(op, Meld) or self.table[op.meld].owner == seat:
            self.declared[seat] += op.cards
        elif not self.lay_off_on_others:
            raise IllegalAction(
                "interruption.own-combinations",
                "after the interruption you may not add cards to other players' combinations",
            )
        else:
            self.laid_off[seat] = True

    def end_play(self, seat: int, was_opened: bool) -> None:
        """A normal-turn play that declared must have emptied the hand (a rummy); a final-turn play that
        declared (or passed) ends that final turn."""
        if self.interrupter is not None:
            if self.placed_now or self.phase == "over":
                self.next_final_turn()
            return
        if self.placed_now and self.hands[seat]:
            raise IllegalAction(
                "rummy.whole-hand",
                "no partial melds: declare your whole hand at once (all cards, or all but one and discard it)",
            )
        if self.placed_now and self.rummy_discards and self.phase == "play":
            raise IllegalAction(
                "rummy.discard", "a rummy after the draw shows all cards but one: meld them, then discard the last"
            )
        super().end_play(seat, was_opened)

    # --- the interruption round and the end of a deal --------------------------------------
    def stock_out(self) -> None:
        """The stock is down to N cards: the next player is the interrupter (Ambiguity 6). Without the
        interruption, the stock could not be rebuilt: a stalemate."""
        if not self.interruption:
            return self.end_deal(winner=None)
        self.interrupter = self.next_seat(self.turn)
        self.emit({"type": "interruption", "seat": self.interrupter, "stock": len(self.stock)})
        self.begin_final_round(self.order_from(self.interrupter), "last-draw")  # everyone, the interrupter first

    def final_round_over(self) -> None:
        """The interruption round is over: the deal is scored without a winner of its own."""
        self.phase = "over"
        self.settle("interruption", None)

    def end_deal(self, winner: int | None) -> None:
        """A rummy (before the draw: an immediate rummy), or the turn cap (no winner)."""
        kind = "stalemate" if winner is None else "immediate-rummy" if self.phase == "draw" else "rummy"
        self.phase = "over"
        self.settle(kind, winner)
