"""American Rummy (Amerikietiškasis romis): rules/american.md, based on rules/straight.md."""

from dataclasses import replace

from protocol.messages import Knock, Op
from referee.rules.allatonce import DECLARE, LAST_DRAW, first_lowest, has_long_run
from referee.rules.describe import Phase
from referee.rules.errors import IllegalAction
from referee.rules.variants.straight import Straight


class American(Straight):
    """Amerikietiškasis romis: Straight Rummy where a player may knock instead of drawing; x6 wins; the winner deals."""

    slug = "american"
    name = "American Rummy"
    local_name = "Amerikietiškasis romis"
    family = "knock"  # as rules/README.md lists it; the engine is Straight's (all-at-once)
    lay_off_on_others = False  # Turn structure: after the interruption, own combinations only
    # Straight's own options (rules/README.md, Shared option names); their defaults apply here
    unused_options = frozenset({"first_discard_any_player", "rummy_opponents_count"})
    PHASES = {
        ("turn", "draw"): Phase(
            "the start of your turn: draw one card, or knock instead of drawing (the deal ends in a showdown of "
            "every hand's unused points); where immediate_rummy is true you may declare your whole dealt hand",
            ("draw", "knock"),
        ),
        # a knock usually ends the deal long before the stock runs down to the interruption
        ("turn", "last-draw"): replace(LAST_DRAW, rare=True),
        ("turn", "declare"): replace(DECLARE, rare=True),
    }

    def draw_options(self, seat: int) -> list[Op]:
        return super().draw_options(seat) + [Knock()]

    def next_dealer(self, winner: int | None) -> int:
        """The deal winner deals next; with no winner the same dealer deals again (Ambiguities 10, 13)."""
        return self.dealer if winner is None else winner

    def do(self, seat: int, op: Op) -> None:
        if isinstance(op, Knock):
            return self.knock(seat, op)
        super().do(seat, op)

    def knock(self, seat: int, op: Knock) -> None:
        """Turn structure 1a: instead of drawing, end the deal with a showdown of every hand's deadwood."""
        if self.interrupter is not None:
            raise IllegalAction("knock.interruption", "nobody may knock after the interruption")
        if self.phase != "draw":
            raise IllegalAction(
                "knock.after-draw", "knock instead of drawing: after a draw you may not knock this turn"
            )
        if op.discard is not None:
            raise IllegalAction("knock.no-discard", "a knock takes no card and discards none")
        if self.placed_now:
            raise IllegalAction(
                "rummy.whole-hand", "no partial melds: a knock shows the hand, it does not follow melds"
            )
        self.emit({"type": "knock", "seat": seat})
        self.phase = "over"
        unused = [self.split(h).points for h in self.hands]  # Special rules 2
        winner = first_lowest(unused, seat)  # Special rules 3: the knocker wins a tie
        counted = [2 * u if s == seat != winner else u for s, u in enumerate(unused)]  # Special rules 4
        self.pay("knock", winner, unused, counted)

    def multiplier(self, kind: str, winner: int) -> int:
        """Scoring: x6 for a winner who took no card, or whose cards hold a sequence of `hand_size` or more;
        otherwise as straight (its immediate and full-sequence x4 are covered by the x6, Ambiguity 7)."""
        cards = self.hands[winner] if kind == "knock" else self.declared[winner]
        if not self.drew[winner] or has_long_run(cards, self.meld_rules, self.penalty, self.hand_size):
            return 6
        return super().multiplier(kind, winner)
