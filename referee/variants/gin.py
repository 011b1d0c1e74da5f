"""Gin (Džinas): rules/gin.md."""
from referee.cards import deck
from referee.engine import Option
from referee.knock import KnockGame
from referee.melds import MeldRules

GIN_MELDS = MeldRules(ace_high=False, wilds=frozenset(), set_max=4)


class Gin(KnockGame):
    """Džinas: two players, 10 cards, knock at 9 or less, melding and laying off during play, 100 to win."""
    slug = "gin"
    name = "Gin"
    local_name = "Džinas"
    min_players = max_players = 2
    hand_size = 10
    meld_rules = GIN_MELDS
    low_wins = False
    bonus = 25                    # for winning a deal (Scoring)
    game_bonus = 100              # for reaching the target (End of the match)
    OPTIONS = {
        "max_turns_per_deal": Option(300, help="safety cap: a deal that reaches this many turns is drawn"),
        "target": Option(100, help="the match ends when a total reaches this"),
    }

    def make_deck(self) -> list[str]:
        return deck()

    def next_dealer(self, winner: int | None) -> int:
        """The winner of a deal deals the next; after a drawn deal the same dealer deals again."""
        return self.dealer if winner is None else winner

    def score_deal(self, finisher: int | None) -> list[float]:
        """rules/gin.md, Scoring, with ties as undercuts (Ambiguity 4) and the game bonus (End of the match)."""
        scores = [0.0] * self.n
        if finisher is None:
            return scores
        dead = self.finish["deadwood"]
        k, other = dead[finisher], 1 - finisher
        d = dead[other]
        if self.finish["kind"] == "gin":
            scores[finisher], scores[other] = d + self.bonus, -d
        elif k < d:
            scores[finisher], scores[other] = d - k + self.bonus, -d
        else:
            scores[other], scores[finisher] = k - d + self.bonus, -k
        return self.with_game_bonus(scores)

    def with_game_bonus(self, scores: list[float]) -> list[float]:
        """Add the game bonus for the seat whose total reaches the target with this deal."""
        return [s + (self.game_bonus if s > 0 and t + s >= self.opts["target"] else 0)
                for s, t in zip(scores, self.totals)]

    def match_ended(self) -> bool:
        return max(self.totals) >= self.opts["target"]
