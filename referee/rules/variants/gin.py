"""Gin (Džinas): rules/gin.md."""

from referee.rules.cards import deck
from referee.rules.engine import Option
from referee.rules.knock import KnockGame
from referee.rules.melds import MeldRules

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
    bonus = 25  # for winning a deal (Scoring)
    game_bonus = 100  # for reaching the target (End of the match)
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
        """The deal's points (`deal_points`) with the game bonus (End of the match); nothing for a drawn deal."""
        if finisher is None:
            return [0] * self.n
        return self.with_game_bonus(self.deal_points(finisher))

    def deal_points(self, finisher: int) -> list[float]:
        """rules/gin.md, Scoring, with ties as undercuts (Ambiguities 4, 5). With more seats the finisher plays
        against the sum of his opponents' deadwood, and all of them score if he loses (rules/gin-three.md, Scoring)."""
        assert self.finish is not None  # scored only once a knock or a gin has set it
        dead = self.finish["deadwood"]
        k = dead[finisher]
        against = sum(dead) - k
        if self.finish["kind"] == "gin" or k < against:
            return [against - k + self.bonus if s == finisher else -d for s, d in enumerate(dead)]
        return [-k if s == finisher else k - d + self.bonus for s, d in enumerate(dead)]

    def leader(self, totals: list[float]) -> int | None:
        """The seat alone at the top of `totals` once that top reaches the target; None while nobody has won
        (a tie at the top means another deal: rules/gin-three.md, Ambiguity 7)."""
        top = max(totals)
        leaders = [s for s, t in enumerate(totals) if t == top]
        return leaders[0] if top >= self.opts["target"] and len(leaders) == 1 else None

    def with_game_bonus(self, scores: list[float]) -> list[float]:
        """Add the game bonus for the seat that wins the match with this deal."""
        won = self.leader([t + s for s, t in zip(scores, self.totals)])
        return [s + (self.game_bonus if i == won else 0) for i, s in enumerate(scores)]

    def match_ended(self) -> bool:
        return self.leader(self.totals) is not None
