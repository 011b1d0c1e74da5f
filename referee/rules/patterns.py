"""Victoria's seven graded rummy patterns (rules/victoria.md, Special rules): which one a hand meets, the one best
for the declarer, with its penalty, bonus and arrangement. Shared with trump (rules/trump.md, concealed victoria),
which values the ace at 11: the card values and the meld rules are parameters.

`victoria_pattern(hand, rules, value)` answers None (the hand may not declare) or the best `Pattern`: the highest
bonus, and among patterns 1 and 2 the lower penalty (Ambiguity 8). Every search is on the existing solver
(`candidate_melds`, `best_split`): a pattern is a few named combinations plus a condition on the rest.
"""

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from protocol.cards import JOKER, SUITS
from referee.rules.cards import rank, suit
from referee.rules.melds import MeldRules, TableMeld
from referee.rules.solver import best_split, candidate_melds

Value = Callable[[str], int]
# Valid combinations: ace low or high, no wrap; jokers wild, any number per combination; a set of 5 or more has
# every suit, then suits repeat as far as the deck's copies go (so no cap below the hand size)
VICTORIA_MELDS = MeldRules(set_max=16, max_copies=16)
SMALL = 5  # patterns 1 and 5: the other cards total at most 5 pips
NAMES = {1: "", 2: "", 3: "Zero", 4: "Minus", 5: "Grand", 6: "Victoria", 7: "River"}
BONUS = {1: 0, 2: 0, 3: 0, 4: 10, 5: 25, 6: 50, 7: 100}


@dataclass(frozen=True)
class Pattern:
    """A rummy pattern a hand meets: its number (1-7), name, the declarer's penalty and bonus, the alternative that
    made it, and the arrangement: the combinations shown, the cards of one suit (the one-suit alternatives), and
    the other cards."""

    number: int
    penalty: int
    alternative: str
    melds: tuple[TableMeld, ...] = ()
    suited: tuple[str, ...] = ()
    rest: tuple[str, ...] = field(default=())

    @property
    def name(self) -> str:
        """The pattern's name ("" for patterns 1 and 2, which have none)."""
        return NAMES[self.number]

    @property
    def bonus(self) -> int:
        """The bonus subtracted from the declarer's total (patterns 4-7)."""
        return BONUS[self.number]

    @property
    def change(self) -> int:
        """What the declaration adds to the declarer's total: penalty less bonus."""
        return self.penalty - self.bonus

    def as_dict(self) -> dict[str, Any]:
        """The pattern as `romis eval` and the deal's detail show it."""
        return {
            "pattern": self.number,
            "name": self.name,
            "penalty": self.penalty,
            "bonus": self.bonus,
            "alternative": self.alternative,
            "melds": [list(m.cards) for m in self.melds],
            "kinds": [m.kind for m in self.melds],
            "suited": list(self.suited),
            "rest": list(self.rest),
        }


def card_value(card: str, ace: int = 1, joker: int = 20) -> int:
    """Scoring, card values: K, Q, J 10, the pips their face value, the ace `ace` (trump: 11), a joker `joker`."""
    if card == JOKER:
        return joker
    r = rank(card)
    return ace if r == 1 else min(r, 10)


def _less(hand: list[str], cards: tuple[str, ...] | list[str]) -> list[str]:
    return list((Counter(hand) - Counter(cards)).elements())


class _Hand:
    """One hand under one set of rules, with its candidate combinations listed once."""

    def __init__(self, hand: list[str], rules: MeldRules, value: Value):
        self.hand, self.rules, self.value = sorted(hand), rules, value
        self.melds = sorted(candidate_melds(hand, rules), key=lambda m: (-len(m.cards), m.kind, m.cards))

    def long(self, kind: str | None, size: int) -> list[TableMeld]:
        """The combinations of at least `size` cards (of `kind`, or of either kind)."""
        return [m for m in self.melds if len(m.cards) >= size and kind in (None, m.kind)]

    def all_in(self, cards: list[str]) -> TableMeld | None:
        """`cards` as one combination, if they form one."""
        want = sorted(cards)
        return next((m for m in self.melds if sorted(m.cards) == want), None)

    def deadwood(self, cards: list[str]) -> tuple[tuple[TableMeld, ...], int]:
        """The least deadwood of `cards` (their best combinations and the pips left)."""
        split = best_split(cards, self.rules, self.value)
        return tuple(split.melds), split.points

    def one_suit(self, size: int) -> Pattern | None:
        """`size` cards of one suit, wild cards standing in (Ambiguity 7), as (suit cards, rest)."""
        wild = [c for c in self.hand if c in self.rules.wilds]
        for s in SUITS:
            own = [c for c in self.hand if c not in self.rules.wilds and suit(c) == s]
            if own and len(own) + len(wild) >= size:
                cards = (own + wild)[:size]
                return Pattern(
                    0, 0, f"{size} cards of one suit", suited=tuple(cards), rest=tuple(_less(self.hand, cards))
                )
        return None

    def with_rest(self, meld: TableMeld, limit: int | None, alternative: str) -> Pattern | None:
        """`meld` and the other cards, whose deadwood is at most `limit` pips (None: any)."""
        rest = _less(self.hand, meld.cards)
        others, points = self.deadwood(rest) if limit is not None else ((), 0)
        if limit is not None and points > limit:
            return None
        return Pattern(
            0, 0, alternative, (meld, *others), rest=tuple(_less(rest, [c for m in others for c in m.cards]))
        )


def _first(*found: Pattern | None) -> Pattern | None:
    return next((p for p in found if p is not None), None)


def _numbered(number: int, found: Pattern | None) -> Pattern | None:
    if found is None:
        return None
    return Pattern(number, found.penalty, found.alternative, found.melds, found.suited, found.rest)


def _river(h: _Hand) -> Pattern | None:
    meld = h.all_in(h.hand) if len(h.hand) >= 10 else None
    if meld is None or len(meld.cards) < 10:
        return None
    return Pattern(7, 0, f"10-card {'sequence' if meld.kind == 'run' else 'set'}", (meld,))


def _victoria(h: _Hand) -> Pattern | None:
    return _first(
        *(h.with_rest(m, None, "9-card sequence") for m in h.long("run", 9)[:1]),
        *(h.with_rest(m, None, "8-card set") for m in h.long("set", 8)[:1]),
    )


def _grand(h: _Hand) -> Pattern | None:
    runs = (h.with_rest(m, SMALL, "8-card sequence, the rest at most 5 pips") for m in h.long("run", 8))
    sets = (h.with_rest(m, SMALL, "7-card set, the rest at most 5 pips") for m in h.long("set", 7))
    return _first(next((p for p in runs if p), None), next((p for p in sets if p), None), h.one_suit(10))


def _pair(h: _Hand, first: TableMeld, kind: str | None, size: int, alternative: str) -> Pattern | None:
    """`first` and, among the other cards, a combination of at least `size` cards (of `kind`)."""
    rest = _less(h.hand, first.cards)
    for m in sorted(candidate_melds(rest, h.rules), key=lambda m: -len(m.cards)):
        if len(m.cards) >= size and kind in (None, m.kind):
            return Pattern(0, 0, alternative, (first, m), rest=tuple(_less(rest, m.cards)))
    return None


def _minus(h: _Hand) -> Pattern | None:
    pairs = (_pair(h, m, "run", 3, "7-card sequence and 3-card sequence") for m in h.long("run", 7))
    return _first(next((p for p in pairs if p), None), h.one_suit(9))


def _zero(h: _Hand) -> Pattern | None:
    melds, points = h.deadwood(h.hand)
    if points == 0 and sum(len(m.cards) for m in melds) == len(h.hand):
        return Pattern(3, 0, "all 10 cards in combinations", melds)
    pairs = (_pair(h, m, None, 3, "6-card and 3-card combinations") for m in h.long(None, 6))
    return _first(next((p for p in pairs if p), None), h.one_suit(8))


def _low(h: _Hand) -> Pattern | None:
    """Patterns 2 (9 cards in combinations, the 10th any) and 1 (8, the other two at most 5 pips): the lower
    penalty; on a tie, pattern 2."""
    best: Pattern | None = None
    singles = [(c,) for c in sorted(set(h.hand), key=h.value)]
    pairs = sorted(
        {tuple(sorted(p)) for p in combinations(h.hand, 2) if sum(map(h.value, p)) <= SMALL},
        key=lambda p: sum(map(h.value, p)),
    )
    for out in singles + pairs:
        penalty = sum(map(h.value, out))
        if best is not None and penalty >= best.penalty:
            continue
        melds, points = h.deadwood(_less(h.hand, out))
        if points == 0 and sum(len(m.cards) for m in melds) == len(h.hand) - len(out):
            number = 2 if len(out) == 1 else 1
            best = Pattern(number, penalty, f"{len(h.hand) - len(out)} cards in combinations", melds, rest=out)
    return best


def victoria_pattern(hand: list[str], rules: MeldRules, value: Value) -> Pattern | None:
    """The best rummy pattern of a 10-card `hand` under `rules` and card `value`s, or None if it meets none."""
    if len(hand) != 10:
        return None
    h = _Hand(hand, rules, value)
    for number, find in ((7, _river), (6, _victoria), (5, _grand), (4, _minus), (3, _zero)):
        found = _numbered(number, find(h))
        if found is not None:
            return found
    return _low(h)


def can_declare(hand: list[str], rules: MeldRules) -> bool:
    """A cheap necessary condition for a pattern in `hand` (10 or 11 cards): few cards outside combinations, or
    many of one suit (a hand failing it meets no pattern, even after one discard)."""
    wild = sum(c in rules.wilds for c in hand)
    suits = Counter(suit(c) for c in hand if c not in rules.wilds)
    if max(suits.values(), default=0) + wild >= 8:
        return True
    # every pattern but the one-suit ones leaves at most 3 of 10 cards outside combinations
    return len(best_split(hand, rules, lambda c: 1).deadwood) <= 3 + len(hand) - 10


def fewest_left_out(hand: list[str], rules: MeldRules, value: Value) -> Pattern | None:
    """Patterns 1 and 2 on a hand of any size: all cards in combinations but one (any) or two (at most 5 pips),
    the lower penalty; None if neither (trump's open declaration, rules/trump.md, Ambiguity 16)."""
    return _low(_Hand(hand, rules, value))
