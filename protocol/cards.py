"""Card notation shared by the protocol, the CLI, game records and the docs (DESIGN.md)."""

RANKS = "A23456789TJQK"
SUITS = "SHDC"
JOKER = "JK"
_CODES = {r + s: r + s for r in RANKS for s in SUITS} | {JOKER: JOKER}
# DESIGN.md: input may be lower case and may write 10 for T. Nothing else is accepted: no padding, no `1`
# for an ace, and only ASCII (str.upper() would turn the long s `ſ` into `S`).
_ACCEPTED = {
    variant: code
    for text, code in _CODES.items()
    for variant in {text, text.lower(), text[0] + text[1].lower(), text[0].lower() + text[1]}
} | {"10" + suit: "T" + suit.upper() for suit in SUITS + SUITS.lower()}


class CardError(ValueError):
    """A card code that cannot be read."""


def parse_card(text: str) -> str:
    """The canonical code of `text`: a rank `A 2-9 T J Q K` (or `10`) then a suit `S H D C`, or `JK`, in either
    case (`7h` -> `7H`, `10d` -> `TD`, `jk` -> `JK`); CardError for anything else, spaces included."""
    code = _ACCEPTED.get(text)
    if code is None:
        raise CardError(
            f"not a card: {text!r} (a card is a rank {' '.join(RANKS)} or 10, then a suit {' '.join(SUITS)}, "
            f"either case; or {JOKER})"
        )
    return code


def parse_cards(text: str) -> list[str]:
    """Parse a list of cards separated by spaces and/or commas (`7h, 8h 10h`)."""
    return [parse_card(tok) for tok in text.replace(",", " ").split()]
