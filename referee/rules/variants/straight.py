"""Straight Rummy (Tiesusis romis): rules/straight.md."""

from referee.rules.allatonce import AllAtOnce, first_lowest, is_one_run
from referee.rules.cards import rank
from referee.rules.engine import Option
from referee.rules.melds import MeldRules

STRAIGHT_MELDS = MeldRules(ace_high=False, wilds=frozenset())  # ace low only, no jokers


class Straight(AllAtOnce):
    """Tiesusis romis: 6 or 7 cards, rummy only with the whole hand, the interruption round, bonus to the deal
    winner."""

    slug = "straight"
    name = "Straight Rummy"
    local_name = "Tiesusis romis"
    min_players, max_players = 2, 6
    meld_rules = STRAIGHT_MELDS
    low_wins = False
    # romis check: a short stock, so that the interruption round (last-draw, declare) comes before a rummy or a knock
    CHECK_TABLES = ({"kinds": ["turn/last-draw", "turn/declare"], "rig": {"stock": 8}},)
    OPTIONS = {
        "hand_size": Option(7, (6, 7), "cards dealt to each player"),
        "target": Option(100, help="the match ends when a total reaches this"),
        "first_discard_any_player": Option(
            False,
            help="x4 for a rummy in the turn of a player's first pickup "
            "from the discard pile, not only Pirmasis's starter",
        ),
        "rummy_opponents_count": Option(
            "deadwood", ("deadwood", "all_cards"), "what the other players count after a rummy"
        ),
    }

    @property
    def hand_size(self) -> int:
        return self.opts["hand_size"]

    def penalty(self, card: str) -> int:
        """Special rules 1: K Q J = 10, 2-10 face value, A = 1."""
        return min(rank(card), 10)

    def unused(self, kind: str, winner: int | None) -> list[int]:
        """Special rules 2: each player's unused points at the end of the deal."""
        if kind == "stalemate":
            return [0] * self.n
        if kind == "interruption":  # cards not declared count in full (Ambiguity 10)
            return [sum(map(self.penalty, h)) for h in self.hands]
        count = self.split if self.opts.get("rummy_opponents_count", "deadwood") == "deadwood" else None
        return [
            0 if s == winner else (count(h).points if count else sum(map(self.penalty, h)))
            for s, h in enumerate(self.hands)
        ]

    def settle(self, kind: str, winner: int | None) -> None:
        unused = self.unused(kind, winner)
        if kind == "interruption":
            assert self.interrupter is not None  # an interruption round has its interrupter
            winner = first_lowest(unused, self.interrupter)
        self.pay(kind, winner, unused, unused)

    def pay(self, kind: str, winner: int | None, unused: list[int], counted: list[int]) -> None:
        """Scoring: the bonus (sum of the others' counted points - the winner's) x m goes to the winner only."""
        scores: list[float] = [0] * self.n
        m = 0
        if winner is not None:
            m = self.multiplier(kind, winner)
            scores[winner] = (sum(counted) - counted[winner] - unused[winner]) * m
        self.finish_deal(
            scores,
            winner,
            hands=[sorted(h) for h in self.hands],
            finish={"kind": kind, "unused": unused, "counted": counted, "multiplier": m},
        )

    def multiplier(self, kind: str, winner: int) -> int:
        """Scoring: the single largest multiplier that applies (Ambiguity 12)."""
        if (
            kind == "immediate-rummy"
            or (kind == "rummy" and self.took_first_discard(winner))
            or self.full_hand_sequence(winner)
        ):
            return 4
        return 2 if kind == "rummy" else 1

    def took_first_discard(self, seat: int) -> bool:
        """A rummy in the turn Pirmasis took the starter (Ambiguity 5), or with `first_discard_any_player`
        in the turn of the seat's first pickup from the discard pile this deal."""
        if self.taken is None:
            return False
        return self.pile_draws[seat] == 1 if self.opts.get("first_discard_any_player") else self.turns == 0

    def full_hand_sequence(self, seat: int) -> bool:
        """All the seat's cards declared in his own combinations, forming one sequence of at least
        `hand_size` cards (Ambiguities 13, 19)."""
        cards = self.declared[seat]
        return (
            not self.hands[seat]
            and not self.laid_off[seat]
            and len(cards) >= self.hand_size
            and is_one_run(cards, self.meld_rules)
        )

    def match_ended(self) -> bool:
        return max(self.totals) >= self.opts["target"]
