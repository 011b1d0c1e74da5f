"""Robbers' Rummy (Plėšikų romis): rules/robbers.md, based on rules/krambambulis.md."""

from collections import Counter

from protocol.messages import Decision, Draw, Exchange, LayOff, Op
from referee.rules.cards import deck
from referee.rules.describe import Field
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.variants.krambambulis import Krambambulis


class Robbers(Krambambulis):
    """Plėšikų romis: Krambambulis with 4 jokers, the pile card only if placed in the same play, a 40-point
    opening that counts lay-offs and cards robbed from other players' melds, and a double all-at-once win."""

    slug = "robbers"
    name = "Robbers' Rummy"
    local_name = "Plėšikų romis"
    initial_meld = 40  # Special rules 3
    robbing = True  # Special rules 4: only in the opening play (check_rob)
    short_remainder_to_owner = True  # Special rules 4c
    unused_options = frozenset({"jokers", "layoff_before_opening", "hand_out_double"})
    OPTIONS = {
        "target": Option(500, help="the match ends when a total reaches this"),
        "max_stock_rebuilds": Option(20, help="safety cap: stock rebuilds per deal before a stalemate"),
        "hand_out_needs_40": Option(False, help="a go-out all at once must also reach the 40 points"),
    }
    CONSTRAINTS = {
        "discard_needs_placing": Field(
            "bool",
            "always true: the top discard may be taken only in a play that puts it on the table (new meld or "
            "lay-off); the draw options list only the stock",
        ),
        "rob": Field("bool", "whether you may rob other players' melds now (op take): only in the play that opens you"),
    }

    def make_deck(self) -> list[str]:
        return deck(packs=2, jokers=4)

    def can_lay_off(self, seat: int) -> bool:
        """Special rules 3, 5: lay-offs on any meld count towards the opening, and are free after it."""
        return True

    def draw_options(self, seat: int) -> list[Op]:
        """Special rules 2: the pile card may be taken only in a play that puts it on the table, so the
        draw played on its own is from the stock."""
        return [Draw("stock")]

    def decision(self, seat: int) -> Decision:
        d = super().decision(seat)
        d.constraints.update(discard_needs_placing=True, rob=not self.opened[seat])
        return d

    # --- the opening play (Special rules 3-4; Ambiguities 14, 15) -----------------------------------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        self.was_opened = self.opened[seat]
        self.laid: dict[int, Counter[tuple[str, str]]] = {}  # (card, identity) laid off from hand in this play, by meld
        self.pile_card: str | None = None  # the card taken from the discard pile in this play
        super()._apply(seat, ops)

    def check_rob(self, seat: int) -> None:
        if self.was_opened:
            raise IllegalAction("rob.outside-opening", "melds may be robbed only in the play of your initial meld")

    def draw(self, seat: int, op: Draw) -> None:
        super().draw(seat, op)
        if op.source == "discard":
            self.pile_card = self.taken

    def do(self, seat: int, op: Op) -> None:
        if isinstance(op, Exchange) and not self.opened[seat]:
            raise IllegalAction("initial-meld.first", "joker exchanges need the 40 points of the opening reached")
        target = op.meld if isinstance(op, LayOff) and 0 <= op.meld < len(self.table) else None
        before = None if target is None else self.table[target]
        super().do(seat, op)
        if target is not None and before is not None:
            after = self.table[target]
            added = Counter(zip(after.cards, after.ids)) - Counter(zip(before.cards, before.ids))
            self.laid[target] = self.laid.get(target, Counter()) + added
        if not self.was_opened:
            self.play_melded = self.opening_points()
            self.opened[seat] = self.play_melded >= self.initial_meld

    def opening_points(self) -> int:
        """Ambiguity 15: each card counts once, where it lies now: in a new meld of this play (robbed cards
        included), or laid off from the hand on another player's meld and still there."""
        points = sum(self.meld_points(self.table[k]) for k in set(self.play_new))
        for k, pairs in self.laid.items():
            if k in self.play_new:
                continue
            meld, left = self.table[k], Counter(pairs)
            for i, pair in enumerate(zip(meld.cards, meld.ids)):
                if left[pair] > 0:
                    left[pair] -= 1
                    points += self.points_at(meld, i)
        return points

    def end_play(self, seat: int, was_opened: bool) -> None:
        card = self.pile_card  # Ambiguity 14: placed by a copy of its own, over any robbed copies
        if card and self.play_placed[card] < 1 + self.robbed.count(card):
            raise IllegalAction(
                "draw.discard-unplaced",
                f"{card} taken from the discard pile must go on the table (new meld or lay-off) in the same play",
            )
        super().end_play(seat, was_opened)
