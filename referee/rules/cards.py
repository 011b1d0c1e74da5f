"""Cards and decks: ranks, suits, deck builders (full, stripped and multiple packs, jokers)."""

import random

from protocol.cards import JOKER, RANKS, SUITS

RANK_VALUE = {r: i + 1 for i, r in enumerate(RANKS)}  # A=1 .. K=13
STRIPPED = {  # ranks kept in the stripped packs the rules files use
    52: RANKS,
    40: "A234567JQK",  # conquian, panguingue: no 8, 9, 10
    36: "A6789TJQK",
    32: "A789TJQK",
    24: "A9TJQK",
}


def run_order(size: int) -> tuple[int, ...]:
    """The ranks of a stripped pack of `size` cards in run order, ace low, the gap left by the removed ranks
    closed (40: A-2-...-7-J-Q-K, so 7 and J are adjacent); for `MeldRules.run_ranks`."""
    return tuple(RANK_VALUE[r] for r in STRIPPED[size])


def rank(card: str) -> int:
    """Rank number of a card: A=1 .. K=13 (0 for a joker)."""
    return 0 if card == JOKER else RANK_VALUE.get(card[0], 0)


def suit(card: str) -> str:
    """Suit letter of a card ('' for a joker)."""
    return "" if card == JOKER else card[1]


def pack(size: int = 52) -> list[str]:
    """One pack of `size` cards (52, or a stripped 40/36/32/24)."""
    return [r + s for s in SUITS for r in STRIPPED[size]]


def deck(packs: int = 1, jokers: int = 0, size: int = 52) -> list[str]:
    """`packs` identical packs of `size` cards plus `jokers` jokers, unshuffled."""
    return pack(size) * packs + [JOKER] * jokers


def shuffled(cards: list[str], rng: random.Random) -> list[str]:
    """A shuffled copy of `cards`."""
    out = list(cards)
    rng.shuffle(out)
    return out
