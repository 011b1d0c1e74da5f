"""Fortune (Fortūna): rules/fortuna.md, based on rules/classic.md."""

from typing import Any

from protocol.messages import Exchange, LayOff, Meld
from referee.rules.cards import rank
from referee.rules.describe import Field
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, TableMeld, is_valid
from referee.rules.variants.classic import CLASSIC_OWN, Classic

TWOS = frozenset({"2S", "2H", "2D", "2C"})
SPADE_QUEEN = "QS"


def _naturals(meld: TableMeld) -> list[str]:
    """The meld's cards that are not twos (a two standing for a 2 is still a two: Ambiguity 6)."""
    return [c for c in meld.cards if c not in TWOS]


def spade_queen_rule(meld: TableMeld) -> None:
    """Valid combinations: a new meld needs a natural card other than a two, and a natural ♠Q needs
    another natural card beside it (Ambiguities 5, 6)."""
    naturals = _naturals(meld)
    if not naturals:
        raise IllegalAction("meld.natural", "a new meld needs a natural card other than a two (Ambiguity 6)")
    if SPADE_QUEEN in naturals and len(naturals) < 2:
        raise IllegalAction("spade-queen.wild-only", "the queen of spades may not be melded with wild twos alone")


def spade_queen_strict_rule(meld: TableMeld) -> None:
    """`spade_queen_strict`: a new meld holding the ♠Q must be valid without its twos (Ambiguity 5)."""
    spade_queen_rule(meld)
    naturals = _naturals(meld)
    if SPADE_QUEEN in naturals and len(naturals) < len(meld.cards) and not _valid_alone(meld.kind, naturals):
        raise IllegalAction(
            "spade-queen.strict",
            "a meld with the queen of spades must be valid without its twos; twos may only supplement it",
        )


def _valid_alone(kind: str, cards: list[str]) -> bool:
    """Whether natural `cards` form a valid meld of `kind` by themselves."""
    return len(cards) >= FORTUNA_MELDS.min_size and is_valid(cards, kind, FORTUNA_MELDS)


FORTUNA_MELDS = MeldRules(wilds=TWOS, meld_check=spade_queen_rule)
STRICT_MELDS = MeldRules(wilds=TWOS, meld_check=spade_queen_strict_rule)


def _band(r: int) -> int:
    """Special rules 1: A and 8..K count 10, 3..7 count 5."""
    return 10 if r == 1 or r >= 8 else 5


class Fortuna(Classic):
    """Fortūna: classic rummy with wild twos, 11 cards, a 50-point ♠Q, bonus to the winner, played to 500."""

    slug = "fortuna"
    name = "Fortune"
    local_name = "Fortūna"
    hand_size = 11
    meld_rules = FORTUNA_MELDS
    low_wins = False
    unused_options = CLASSIC_OWN
    _mutable = Classic._mutable + ("queens",)
    OPTIONS = {
        "target": Option(500, help="the match ends when a total reaches this"),
        "two_in_hand_value": Option(10, help="what a wild two left in hand costs (Ambiguity 2)"),
        "spade_queen_strict": Option(False, help="a meld with the queen of spades must be valid without its twos"),
    }
    VIEW = {
        "spade_queens": Field("int[]", "natural queens of spades each seat has put on the table this deal (+50 each)")
    }

    def start_deal(self) -> None:
        self.meld_rules = STRICT_MELDS if self.opts["spade_queen_strict"] else FORTUNA_MELDS
        self.queens = [0] * self.n  # natural ♠Q each seat has put on the table this deal (Special rules 3)
        super().start_deal()

    def penalty(self, card: str) -> int:
        """Special rules 1: ♠Q 50, a wild two `two_in_hand_value`, an ace 10, else 10 or 5."""
        if card == SPADE_QUEEN:
            return 50
        r = rank(card)
        return self.opts["two_in_hand_value"] if r == 2 else _band(r)

    def card_points(self, card: str, ident: str, low_ace: bool) -> int:
        """Special rules 1: the natural ♠Q 50; a low ace 5; a two by what it stands for (a 2: 5, Ambiguity 3)."""
        if card == SPADE_QUEEN:
            return 50
        r = rank(ident)
        return 5 if low_ace or r == 2 else _band(r)

    def after_table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        cards = [op.card] if isinstance(op, Exchange) else op.cards
        self.queens[seat] += cards.count(SPADE_QUEEN)  # Ambiguity 7: by meld, lay-off or exchange

    def score_deal(self, winner: int | None) -> list[float]:
        """Scoring: each loser -P (classic's doubled penalty; plain in a stalemate), the winner +ΣP,
        and everyone +50 per natural ♠Q he put on the table."""
        losses = super().score_deal(winner)
        scores = [sum(losses) if s == winner else -p for s, p in enumerate(losses)]
        return [s + 50 * q for s, q in zip(scores, self.queens)]

    def view(self, seat: int) -> dict[str, Any]:
        return {**super().view(seat), "spade_queens": list(self.queens)}
