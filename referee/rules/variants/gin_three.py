"""Three-handed Gin (Džinas trise): rules/gin-three.md."""

from typing import Any

from protocol.messages import Exchange, LayOff, Meld
from referee.rules.describe import Field
from referee.rules.engine import Option
from referee.rules.variants.gin import Gin


class GinThree(Gin):
    """Džinas trise: Gin for three; the finisher plays against the sum of both opponents' deadwood, an
    opponent's meld may be added to only in one's first turn after it appeared, 200 to win."""

    slug = "gin-three"
    name = "Three-handed Gin"
    local_name = "Džinas trise"
    min_players = max_players = 3
    OPTIONS = {
        "target": Option(200, help="the match ends when a total reaches this (End of the match)"),
    }
    VIEW = {"layoff_open": Field("int[]", "the ids of the table melds you may add to in your current (or next) turn")}

    def start_deal(self) -> None:
        self.melded_in: list[int] = []  # the turn (index in the deal) in which each table meld was made
        super().start_deal()

    def table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        super().table_op(seat, op)
        if isinstance(op, Meld):
            self.melded_in = self.melded_in + [self.turns]

    def layoff_allowed(self, seat: int, meld: int) -> bool:
        """Own melds always; an opponent's only in the seat's first turn after it was melded (Turn structure,
        Ambiguities 3, 4). Asked outside the seat's turn, the answer is for its next turn."""
        owner = self.table[meld].owner
        if owner == seat:
            return True
        if meld >= len(self.melded_in):  # laid out at the showdown: the deal is over
            return False
        next_turn = self.turns + (seat - self.turn) % self.n  # turn indices advance clockwise, one per turn
        return next_turn == self.melded_in[meld] + (seat - owner) % self.n

    def view(self, seat: int) -> dict[str, Any]:
        """Gin's view plus the melds the seat may add to in its current (or next) turn."""
        return {**super().view(seat), "layoff_open": self.reachable(seat)}
