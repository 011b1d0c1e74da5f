"""Two Candles (Dvi žvakės): rules/two-candles.md."""

from collections import Counter
from typing import Any

from referee.rules.cards import deck
from referee.rules.engine import Option
from referee.rules.errors import ConfigError
from referee.rules.exchange import Exchange

PACK_BY_PLAYERS = {2: 24, 3: 24, 4: 24, 5: 32, 6: 32, 7: 36, 8: 36}  # Players, deck and deal
RED, BLACK = "HD", "SC"
MAXIMUM = 43  # eight of a kind (Valid combinations)


def same_rank_points(n: int, single: int = 0) -> int:
    """Feature 1 for a largest same-rank group of `n` cards: 3 a card up to 5, then 19, 23, 27 (4n - 5); a single
    card is `single` (Ambiguity 2)."""
    if n <= 1:
        return single if n == 1 else 0
    return 3 * n if n <= 5 else 4 * n - 5


def criteria(hand: list[str], single: int = 0) -> dict[str, dict[str, int]]:
    """The five features of a hand, each as the cards (or quartets, or pairs) counted and the points they make
    (rules/two-candles.md, Valid combinations and the reconstructed table)."""
    copies = Counter(hand)
    group = max(Counter(c[0] for c in hand).values())
    suit = max(Counter(c[1] for c in hand).values())
    ranks = {c[0] for c in hand}
    # Ambiguity 3: both copies of the rank in both suits of one colour
    quartets = sum(all(copies[r + s] == 2 for s in RED) + all(copies[r + s] == 2 for s in BLACK) for r in ranks)
    red = sum(c[1] in RED for c in hand)
    colour = max(red, len(hand) - red)
    pairs = sum(k // 2 for k in copies.values())
    return {
        "same_rank": {"count": group, "points": same_rank_points(group, single)},
        "suit": {"count": suit, "points": 2 * suit},
        "quartets": {"count": quartets, "points": 2 * quartets},
        "colour": {"count": colour, "points": colour},
        "pairs": {"count": pairs, "points": pairs},
    }


def hand_points(hand: list[str], single: int = 0) -> int:
    """The value of a hand: the sum of its five features."""
    return sum(f["points"] for f in criteria(hand, single).values())


class TwoCandles(Exchange):
    """Dvi žvakės: 2–8 players, a doubled short pack, two piles showing two cards each; take two, put back one on
    each pile; the hands are valued on five features once everyone declines after the stock is gone."""

    slug = "two-candles"
    name = "Two Candles"
    local_name = "Dvi žvakės"
    min_players = 2
    max_players = 8
    OPTIONS = {
        "last_player_three_exchanges": Option(
            False, help="once all but one have declined in succession, that player may exchange up to three more times"
        ),
        "single_rank_points": Option(0, (0, 3), help="points for a largest same-rank group of one card (32/36 packs)"),
        "tiebreak": Option(
            "last_deal_winner",
            ("last_deal_winner", "extra_deals"),
            help="equal totals and deal wins: the lone winner of the last deal wins, or further deals are played",
        ),
    }

    def make_deck(self) -> list[str]:
        """Two copies of the 24-, 32- or 36-card pack, by the number of players."""
        return deck(packs=2, size=PACK_BY_PLAYERS[self.n])

    def hand_value(self, hand: list[str]) -> int:
        return hand_points(hand, self.opts["single_rank_points"])

    def solo_exchanges(self) -> int:
        return 3 if self.opts["last_player_three_exchanges"] else 0  # Special rules

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """The five features of an 8-card hand and its total (`romis eval`), with the default options."""
        if len(hand) != cls.hand_size:
            raise ConfigError(f"{cls.slug} hands hold {cls.hand_size} cards, this one has {len(hand)}")
        features = criteria(hand, cls.OPTIONS["single_rank_points"].default)
        return {**features, "points": sum(f["points"] for f in features.values())}

    # --- the end of the match (rules/two-candles.md, End of the match) ------------------------------------------
    def standing(self, seat: int, total: float) -> tuple:
        """What orders seats: the total, then deals won, then (by default) being the lone winner of the last deal."""
        last = self.deal_results[-1]["winners"] if self.deal_results else []
        lone = self.opts["tiebreak"] == "last_deal_winner" and last == [seat]
        return (-total, -self.deals_won[seat], -lone)

    def ranks(self, totals: list[float], seats: list[int] | None = None) -> list[int]:
        """Competition ranking by `standing` (1 = best; seats that no tie-break separates share a place)."""
        seats = list(range(len(totals))) if seats is None else seats
        keys = [self.standing(s, t) for s, t in zip(seats, totals)]
        return [1 + sum(1 for u in keys if u < k) for k in keys]

    def match_ended(self) -> bool:
        """After one deal per player, once the tie-breaks name a single winner; else another deal with everyone."""
        return self.deal_no >= self.n and self.ranks(self.totals).count(1) == 1
