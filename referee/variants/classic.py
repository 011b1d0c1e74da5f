"""Classic Rummy (Klasikinis romis): rules/classic.md."""
from referee.dmd import DrawMeldDiscard
from referee.engine import Option


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
        all_out = self.opts["hand_out_double"] and not self.placed_before[winner]
        return [0 if s == winner else
                b * (2 if all_out else 1) * (2 if self.opts["unopened_double"] and not self.opened[s] else 1)
                for s, b in enumerate(base)]

    def match_ended(self) -> bool:
        return max(self.totals) >= self.opts["target"]
