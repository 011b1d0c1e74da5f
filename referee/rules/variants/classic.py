"""Classic Rummy (Klasikinis romis): rules/classic.md."""

from referee.rules.dmd import DrawMeldDiscard
from referee.rules.engine import Option

# Options of Classic's own rules, which variants based on it without those rules drop (rules/README.md)
CLASSIC_OWN = frozenset({"jokers", "hand_out_needs_40", "layoff_before_opening"})


class Classic(DrawMeldDiscard):
    """Klasikinis romis: 13 cards, a 40-point initial meld, jokers, doubled penalties."""

    slug = "classic"
    name = "Classic Rummy"
    local_name = "Klasikinis romis"
    min_players, max_players = 2, 6
    initial_meld = 40
    OPTIONS = {
        "jokers": Option(6, (4, 6), "jokers in the double pack"),
        "target": Option(100, (100, 200), "the match ends when a total reaches this"),
        "hand_out_double": Option(True, help="going out all at once doubles the opponents' penalties"),
        "unopened_double": Option(True, help="a player not opened at the end of the deal pays double"),
        "hand_out_needs_40": Option(False, help="a go-out all at once must also reach the 40 points"),
        "layoff_before_opening": Option(False, help="allow lay-offs and exchanges before the initial meld"),
    }

    def score_deal(self, winner: int | None) -> list[float]:
        base = super().score_deal(winner)
        if winner is None:  # stalemate: plain penalties (Ambiguity 17, 20)
            return base
        return [0 if s == winner else b * self.doubling(winner, s) for s, b in enumerate(base)]

    def doubling(self, winner: int, seat: int) -> int:
        """Special rules 3-4: the factor on loser `seat`'s count, x2 if the winner went out all at once
        (`hand_out_double`) and x2 if `seat` is not opened (`unopened_double`)."""
        all_out = self.opts.get("hand_out_double", True) and not self.placed_before[winner]
        return (2 if all_out else 1) * (2 if self.opts["unopened_double"] and not self.opened[seat] else 1)

    def match_ended(self) -> bool:
        return max(self.totals) >= self.opts["target"]
