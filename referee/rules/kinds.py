"""Named meld kinds: combinations defined by the ranks and suits they admit rather than by "one rank" or "one suit"
(rules/liverpool.md, Valid combinations: red and black runs that mix the two suits of a colour, high and low sets
of any cards in a range of ranks).

A `MeldKind` is either a run (one card of each consecutive rank in the kind's own rank order, any of its suits) or
a set (any cards of its ranks and suits, duplicates allowed). A variant lists its kinds in `MeldRules.kinds`; the
meld layer (melds.py) and the solver then validate, fill wild cards and enumerate melds through this module, and
the player names the kind of each new meld. A wild card in a run stands for a card of its rank in the kind's first
suit; any natural card of that rank and of the kind's suits may take its place (rules/liverpool.md, Ambiguity 15).
"""

from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations_with_replacement
from typing import TYPE_CHECKING

from protocol.cards import RANKS
from referee.rules.cards import rank, suit
from referee.rules.errors import IllegalAction

if TYPE_CHECKING:
    from referee.rules.melds import MeldRules, TableMeld

SET_SIZES = (3, 4, 5)  # every larger set splits into these, so the solver lists only them (lay-offs grow a set)


@dataclass(frozen=True)
class MeldKind:
    """One kind of combination: its name (what `meld.kind` says), run or set, the suits and ranks it admits
    (for a run, in sequence order) and whether wild cards may join it."""

    name: str
    base: str  # "run" or "set"
    suits: str
    ranks: tuple[int, ...]
    wild: bool = True

    def place(self, card: str) -> int | None:
        """A natural card's place in the kind's rank order, or None if the kind does not admit it."""
        r = rank(card)
        if suit(card) not in self.suits or r not in self.ranks:
            return None
        return self.ranks.index(r)

    def code(self, place: int) -> str:
        """The identity a wild card takes at `place` of a run (the kind's first suit)."""
        return RANKS[self.ranks[place] - 1] + self.suits[0]


def find(rules: "MeldRules", name: str | None) -> MeldKind:
    """The kind called `name`; IllegalAction naming the kinds there are otherwise."""
    for kind in rules.kinds:
        if kind.name == name:
            return kind
    names = ", ".join(k.name for k in rules.kinds)
    raise IllegalAction("meld.kind", f"{name!r} is not a kind of meld here ({names})")


def broken(kind: MeldKind, ids: Sequence[str]) -> str | None:
    """The rule the identities `ids` break as a meld of `kind`, or None when they form one."""
    places = [kind.place(x) for x in ids]
    if any(p is None for p in places):
        if kind.base == "run" and all(r in kind.ranks for r in map(rank, ids)):
            return "run.colour"
        return f"{kind.base}.ranks"
    if kind.base == "run":
        ps = sorted(p for p in places if p is not None)
        if ps and (len(set(ps)) != len(ps) or ps[-1] - ps[0] != len(ps) - 1):
            return "run.invalid"
    return None


MESSAGES = {
    "run.colour": "every card of a {name} must be of its colour ({suits})",
    "run.ranks": "a {name} holds only the ranks {ranks}, in that order (no high ace, 2 is never a rank)",
    "run.invalid": "a {name} needs consecutive ranks in the order {ranks}, one card of each",
    "set.ranks": "a {name} holds only cards of the ranks {ranks}",
}


def check(kind: MeldKind, ids: Sequence[str]) -> list[str]:
    """The identities in table order (runs low to high) if they form a `kind` meld; IllegalAction otherwise."""
    rule = broken(kind, ids)
    if rule is not None:
        ranks = ",".join(RANKS[r - 1] for r in kind.ranks)
        text = MESSAGES[rule].format(name=kind.name, suits=kind.suits, ranks=ranks)
        raise IllegalAction(rule, f"{' '.join(ids)}: {text}")
    if kind.base == "run":
        return sorted(ids, key=lambda x: kind.place(x) or 0)
    return list(ids)


def fill(kind: MeldKind, known: Sequence[str], n_wild: int) -> list[str] | None:
    """Identities for `n_wild` wild cards joining the identities `known` in a `kind` meld: a run's gaps first,
    then its high end, then its low end; in a set, the first known card. None where there is no place."""
    if not n_wild:
        return []
    found = [kind.place(x) for x in known]
    places = {p for p in found if p is not None}
    if not kind.wild or not known or None in found or (kind.base == "run" and len(places) < len(known)):
        return None  # a card the kind does not admit, or a rank twice in a run
    if kind.base == "set":
        return [known[0]] * n_wild
    lo, hi, n = min(places), max(places), len(known) + n_wild
    for start in range(max(0, hi - n + 1), lo + 1)[::-1]:
        window = range(start, start + n)
        if window[-1] < len(kind.ranks):
            return [kind.code(p) for p in window if p not in places]
    return None


def may_replace(kind: MeldKind, ident: str, card: str) -> bool:
    """Whether natural `card` may take the place of a wild card standing for `ident` (a run: the same rank in any
    of the kind's suits; a set: any card the kind admits)."""
    if kind.place(card) is None:
        return False
    return kind.base == "set" or rank(card) == rank(ident)


def assign(
    cards: list[str], rules: "MeldRules", identities: list[str] | None, name: str | None, fixed: Sequence[str] = ()
) -> tuple[str, list[str]]:
    """(kind, identities) for `cards` joining `fixed` (an existing meld's identities). With no kind named, the one
    kind the cards fit; IllegalAction where they fit none, or several (then the player must name it)."""
    if name is None:
        fits = []
        for kind in rules.kinds:
            try:
                fits.append(assign(cards, rules, identities, kind.name, fixed))
            except IllegalAction:
                continue
        if len(fits) == 1:
            return fits[0]
        if fits:
            names = " or ".join(k for k, _ in fits)
            raise IllegalAction("meld.kind", f"{' '.join(cards)} could be a {names}: name the kind of the meld")
        raise IllegalAction("meld.invalid", f"{' '.join(cards)} is no kind of meld here")
    kind = find(rules, name)
    wild_at = [i for i, c in enumerate(cards) if c in rules.wilds]
    if wild_at and not kind.wild:
        raise IllegalAction("meld.no-wild", f"wild cards may not join a {kind.name}")
    if identities is not None:
        if len(identities) != len(wild_at):
            raise IllegalAction("meld.identities", f"{len(wild_at)} wild card(s) but {len(identities)} identities")
        ids = list(cards)
        for i, x in zip(wild_at, identities):
            ids[i] = x
        check(kind, [*fixed, *ids])
        return kind.name, ids
    naturals = [c for c in cards if c not in rules.wilds]
    if not fixed and not naturals:  # Ambiguity 6 of rules/liverpool.md: what the meld is would be undefined
        raise IllegalAction("meld.natural", "a new meld needs at least one natural card")
    filled = fill(kind, [*fixed, *naturals], len(wild_at))
    if filled is None:
        check(kind, [*fixed, *naturals])  # says what is wrong with the natural cards, if anything
        raise IllegalAction("meld.invalid", f"the wild cards of {' '.join(cards)} have no place in a {kind.name}")
    it = iter(filled)
    ids = [next(it) if c in rules.wilds else c for c in cards]
    check(kind, [*fixed, *ids])
    return kind.name, ids


# --- every meld of a hand, for the solver ---------------------------------------------------------------------------
def candidates(counts: Counter, rules: "MeldRules") -> dict[tuple, "TableMeld"]:
    """Every meld of the kinds that the cards counted can form, keyed by (kind, sorted cards); sets of 3 to 5 cards
    only (a larger set is worth as much split into these)."""
    from referee.rules.melds import TableMeld

    wilds = Counter({c: n for c, n in counts.items() if c in rules.wilds})
    out: dict[tuple, TableMeld] = {}
    for kind in rules.kinds:
        pool = wilds if kind.wild else Counter()
        found = _runs(kind, counts, pool, rules) if kind.base == "run" else _sets(kind, counts, pool, rules)
        for cards, ids in found:
            if sum(c == x for c, x in zip(cards, ids)) >= rules.min_naturals:
                out.setdefault((kind.name, tuple(sorted(cards))), TableMeld(kind.name, tuple(cards), tuple(ids)))
    return out


def _runs(kind: MeldKind, counts: Counter, wilds: Counter, rules: "MeldRules") -> Iterator[tuple[list, list]]:
    """Runs of `kind`: from each start, each place filled by a natural card of its rank or by a wild card."""
    at: list[list[str]] = [[] for _ in kind.ranks]
    for c in sorted(counts):
        p = kind.place(c) if c not in rules.wilds else None
        if p is not None:
            at[p].append(c)

    def grow(start: int, cards: list[str], free: Counter) -> Iterator[tuple[list, list]]:
        p = start + len(cards)
        if len(cards) >= rules.min_size:
            yield list(cards), [kind.code(start + i) if c in rules.wilds else c for i, c in enumerate(cards)]
        if p >= len(kind.ranks):
            return
        for c in at[p]:
            yield from grow(start, [*cards, c], free)
        for w in sorted(+free):
            yield from grow(start, [*cards, w], free - Counter([w]))

    for start in range(len(kind.ranks)):
        if at[start] or wilds:
            yield from grow(start, [], wilds)


def _sets(kind: MeldKind, counts: Counter, wilds: Counter, rules: "MeldRules") -> Iterator[tuple[list, list]]:
    """Sets of `kind` of 3 to 5 cards: every multiset of its natural cards held, topped up with wild cards."""
    codes = sorted(c for c in counts if c not in rules.wilds and kind.place(c) is not None)
    wild_codes = sorted(wilds)
    for k in range(1, max(SET_SIZES) + 1):
        for combo in combinations_with_replacement(codes, k):
            if any(combo.count(c) > counts[c] for c in set(combo)):
                continue
            for w in range(max(0, min(SET_SIZES) - k), max(SET_SIZES) - k + 1):
                for extra in combinations_with_replacement(wild_codes, w):
                    if all(extra.count(c) <= wilds[c] for c in set(extra)):
                        yield [*combo, *extra], [*combo, *[combo[0]] * w]
