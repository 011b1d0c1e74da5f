"""A final round: once normal play stops (a knock, an interruption, a player going out, the stock running out),
some seats each play one more turn, in a given order, and then the deal ends.

`FinalRound` is a mixin for the draw-meld-discard family, placed before the family engine. The variant starts the
round with `begin_final_round(seats, **event)` (one public `final_round` event naming the seats in order), ends each
final turn with `next_final_turn()`, and says what happens after the last one in `final_round_over()`. The seats
still to play are an immutable tuple (`finals`; None outside a final round), so a rejected play that the engine
rolls back leaves the round as it was. What a final turn allows (a draw or none, melds, lay-offs, no knock) is the
variant's: the phase of a final turn is `final_phase`.
"""

from typing import Any

from referee.rules.describe import Field
from referee.rules.dmd import DrawMeldDiscard


class FinalRound(DrawMeldDiscard):
    """Mixin: one more turn each for some seats, in order, then the end of the deal."""

    final_phase = "final"
    VIEW: dict[str, Field | None] = {
        "finals_left": Field(
            "int[]|null", "in a final round: the seats still to play their final turn, in order (null: none)"
        ),
    }

    def start_deal(self) -> None:
        self.finals: tuple[int, ...] | None = None
        super().start_deal()

    @property
    def in_final_round(self) -> bool:
        """Whether the deal is in its final round."""
        return self.finals is not None

    def begin_final_round(self, seats: list[int], phase: str | None = None, **event: Any) -> None:
        """Start the final round: `seats` each play one final turn, in this order, each beginning in `phase`
        (default `final_phase`; a variant with two kinds of final round names the phase of this one)."""
        self.finals = tuple(seats)
        self.finals_phase = phase or self.final_phase
        self.emit({"type": "final_round", "seats": list(seats), **event})
        self.next_final_turn()

    def next_final_turn(self) -> None:
        """Pass on to the next final turn, or, after the last one, to `final_round_over`."""
        assert self.finals is not None
        self.clear_turn()
        if not self.finals:
            return self.final_round_over()
        self.turn, self.finals = self.finals[0], self.finals[1:]
        self.phase = self.finals_phase

    def final_round_over(self) -> None:
        """Hook: every final turn has been played; by default the deal ends without a winner."""
        self.end_deal(winner=None)

    def view(self, seat: int) -> dict[str, Any]:
        return {**super().view(seat), "finals_left": None if self.finals is None else list(self.finals)}
