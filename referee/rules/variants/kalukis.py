"""Kaluki (Kalukis): rules/kalukis.md, based on rules/classic.md."""

from protocol.messages import Decision, Draw, Exchange, LayOff, Meld, Op
from referee.rules.cards import deck, rank
from referee.rules.describe import Field
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.variants.classic import CLASSIC_OWN, Classic

HAND_SIZES = {5: 13, 6: 11}  # Players, deck and deal: 15 each with 2-4 players


class Kalukis(Classic):
    """Kalukis: 108 cards, 15/13/11 cards by player count, a 51-point opening, the discard taken only to meld it
    while unopened, freed jokers re-placed at once, and only the deal winner scores."""

    slug = "kalukis"
    name = "Kaluki"
    local_name = "Kalukis"
    initial_meld = 51
    low_wins = False
    unused_options = CLASSIC_OWN
    _mutable = Classic._mutable + ("pile_takes",)
    OPTIONS = {
        "target": Option(500, help="the match ends when a total reaches this (bonus points)"),
        "per_card_scoring": Option(False, help="the winner scores 1 per card left to the others, 2 per joker"),
        "first_discard_literal": Option(
            False, help="an opened player's first take from the discard pile must also be melded at once"
        ),
    }
    CONSTRAINTS = {
        "discard_needs_meld": Field(
            "bool",
            "whether the top discard may be taken now only in a play that puts it into a new meld (unopened, or "
            "first_discard_literal); the draw options then list only the stock",
        )
    }

    @property
    def hand_size(self) -> int:
        return HAND_SIZES.get(self.n, 15)

    def make_deck(self) -> list[str]:
        return deck(packs=2, jokers=4)

    def start_deal(self) -> None:
        self.pile_takes = [0] * self.n  # takes from the discard pile this deal, per seat (first_discard_literal)
        super().start_deal()

    def penalty(self, card: str) -> int:
        """Scoring: joker 25, ace 15, K/Q/J 10, 2-10 face value; `per_card_scoring`: 1 a card, 2 a joker."""
        if self.opts["per_card_scoring"]:
            return 2 if card == "JK" else 1
        return 25 if card == "JK" else 15 if rank(card) == 1 else min(rank(card), 10)

    def card_points(self, card: str, ident: str, low_ace: bool) -> int:
        """Special rules 1: an ace counts 15 unless low (1)."""
        return 15 if rank(ident) == 1 and not low_ace else super().card_points(card, ident, low_ace)

    def take_restricted(self, seat: int) -> bool:
        """Turn structure 3, Ambiguities 1, 12: the discard must be melded at once by an unopened player
        (with `first_discard_literal`, in everybody's first take of the deal)."""
        return not self.opened[seat] or (self.opts["first_discard_literal"] and not self.pile_takes[seat])

    def draw_options(self, seat: int) -> list[Op]:
        return super().draw_options(seat) if not self.take_restricted(seat) else [Draw("stock")]

    def decision(self, seat: int) -> Decision:
        d = super().decision(seat)
        d.constraints["discard_needs_meld"] = self.take_restricted(seat)
        return d

    # --- per-play obligations: the taken discard melded, freed jokers re-placed ---------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        self.must_meld: str | None = None  # the discard taken that a new meld of this play must hold
        self.jokers_freed = self.jokers_placed = 0
        super()._apply(seat, ops)

    def draw(self, seat: int, op: Draw) -> None:
        restricted = op.source == "discard" and self.take_restricted(seat)
        super().draw(seat, op)
        if op.source == "discard":
            self.pile_takes[seat] += 1
            self.must_meld = self.taken if restricted else None

    def after_table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        if isinstance(op, Exchange):
            self.jokers_freed += 1
            return
        self.jokers_placed += op.cards.count("JK")
        if isinstance(op, Meld) and self.must_meld in op.cards:  # either copy will do (_general.md, Ambiguity 11)
            self.must_meld = None

    def end_play(self, seat: int, was_opened: bool) -> None:
        if self.must_meld:
            raise IllegalAction(
                "discard-take.meld-at-once",
                f"{self.must_meld} taken from the discard pile must go into a new meld of this play "
                "that opens you (51 points) or puts your whole hand down",
            )
        if self.jokers_placed < self.jokers_freed:
            raise IllegalAction(
                "joker-exchange.replace",
                "a joker taken by exchange must go back on the table (new meld or lay-off) in the same play",
            )
        super().end_play(seat, was_opened)

    def score_deal(self, winner: int | None) -> list[float]:
        """Scoring: only the winner scores, the others' hands with classic's doublings; a stalemate scores nothing."""
        if winner is None:
            return [0] * self.n
        bonus = sum(super().score_deal(winner))
        return [bonus if s == winner else 0 for s in range(self.n)]
