"""Card notation shared by the protocol, the CLI, game records and the docs (DESIGN.md)."""

RANKS = "A23456789TJQK"
SUITS = "SHDC"
JOKER = "JK"
_RANK_ALIASES = {"10": "T", "1": "A"}


class CardError(ValueError):
    """A card code that cannot be read."""


def parse_card(text: str) -> str:
    """Return the canonical two-character code of `text` (`7h` -> `7H`, `10d` -> `TD`)."""
    raw = text.strip().upper()
    if raw in (JOKER, "JOKER", "JKR"):
        return JOKER
    rank, suit = raw[:-1], raw[-1:]
    rank = _RANK_ALIASES.get(rank, rank)
    if len(rank) != 1 or rank not in RANKS or suit not in SUITS or not suit:
        raise CardError(f"not a card: {text!r} (expected rank {' '.join(RANKS)} then suit S H D C, or JK)")
    return rank + suit


def parse_cards(text: str) -> list[str]:
    """Parse a space- or comma-separated list of cards."""
    return [parse_card(tok) for tok in text.replace(",", " ").split()]
