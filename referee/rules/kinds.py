"""Named meld kinds: combinations defined by the ranks and suits they admit rather than by "one rank" or "one suit"
(rules/liverpool.md, Valid combinations: red and black runs that mix the two suits of a colour, high and low sets
of any cards in a range of ranks).

A `MeldKind` is either a run (one card of each consecutive rank in the kind's own rank order, any of its suits) or
a set (any cards of its ranks and suits, duplicates allowed). A variant lists its kinds in `MeldRules.kinds`; the
meld layer (melds.py) and the solver then validate, fill wild cards and enumerate melds through this module, and
the player names the kind of each new meld. A wild card in a run stands for a card of its rank in the kind's first
suit; any natural card of that rank and of the kind's suits may take its place (rules/liverpool.md, Ambiguity 15).

A hand of many cards of one range holds thousands of sets, so the best split (`best_split`) and the search for a
requirement's melds (`find_requirement`) search the runs only and count the sets out of what the runs leave.
"""

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement, islice
from typing import TYPE_CHECKING

from protocol.cards import RANKS
from referee.rules.cards import rank, suit
from referee.rules.errors import IllegalAction

if TYPE_CHECKING:
    from referee.rules.contracts import Requirement, Span
    from referee.rules.melds import MeldRules, TableMeld

SET_SIZES = (3, 4, 5)  # every larger set splits into these, so candidates list only them (lay-offs grow a set)
SET_CAP = 300  # set candidates listed per kind: a hand of many cards of one range holds thousands
RUN_WILDS = 2  # wild cards per run candidate: a hand of many deuces holds tens of thousands of runs otherwise
STATES = 50_000  # positions the split searches before it stops trying more runs (hands of 30-40 cards)
_SCALE = 1 << 12  # as in solver.py: fewer points first, then more cards melded


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


@dataclass(frozen=True)
class WholeHand:
    """A combination that takes a whole hand of `size` cards at once (rules/rummy-bridge.md, Valid combinations:
    one suit, figures): its natural cards are of the ranks `ranks` and, with `one_suit`, all of one suit; a wild
    card stands for a card it admits (the first natural card's identity unless declared). With `at_least`, `size`
    is only the fewest cards: the combination need not be the whole hand, and any card it admits may be laid off
    on it; without `wild`, a wild card may join only as itself (rules/mississippi.md: ten or more cards of one
    suit, Ambiguity 4)."""

    name: str
    size: int
    ranks: tuple[int, ...] = tuple(range(1, 14))
    one_suit: bool = False
    at_least: bool = False
    wild: bool = True

    def broken(self, ids: Sequence[str]) -> str | None:
        """The rule the identities `ids` break as this combination, or None when they form it."""
        if len(ids) < self.size if self.at_least else len(ids) != self.size:
            return "whole.size"
        if any(x == "JK" or rank(x) not in self.ranks for x in ids):
            return "whole.ranks"
        return "whole.suit" if self.one_suit and len({suit(x) for x in ids}) > 1 else None

    def text(self) -> str:
        """The combination as the reference describes it."""
        ranks = "any ranks" if len(self.ranks) == 13 else "ranks " + ",".join(RANKS[r - 1] for r in self.ranks)
        suits = "all of one suit" if self.one_suit else "any suits"
        if self.at_least:
            wild = "" if self.wild else ", no wild cards (a wild card only as itself)"
            return f"meld kind {self.name!r} is {self.size} or more cards, {suits}, {ranks}{wild}; it takes lay-offs."
        return f"meld kind {self.name!r} is a whole hand of {self.size} cards, {suits}, {ranks}."


def whole(rules: "MeldRules", name: str | None) -> WholeHand | None:
    """The whole-hand combination called `name` (MeldRules.wholes), or None."""
    return next((w for w in rules.wholes if w.name == name), None)


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
def candidates(
    counts: Counter, rules: "MeldRules", bases: tuple[str, ...] = ("run", "set")
) -> dict[tuple, "TableMeld"]:
    """The melds of the kinds (of `bases`) that the cards counted can form, keyed by (kind, sorted cards): every
    run with at most RUN_WILDS wild cards, and sets of 3 to 5 cards (a larger set is worth as much split into
    these), at most SET_CAP per kind."""
    from referee.rules.melds import TableMeld

    wilds = Counter({c: n for c, n in counts.items() if c in rules.wilds})
    out: dict[tuple, TableMeld] = {}
    for kind in (k for k in rules.kinds if k.base in bases):
        pool = wilds if kind.wild else Counter()
        if kind.base == "run":
            found = _runs(kind, counts, pool, rules)
        else:
            found = islice(_sets(kind, counts, pool, rules), SET_CAP)
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
        for w in sorted(+free) if sum(c in rules.wilds for c in cards) < RUN_WILDS else ():
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


# --- the best split and a requirement's melds, with sets counted rather than listed ---------------------------------
def best_split(hand: Sequence[str], rules: "MeldRules", value: Callable[[str], int]) -> tuple[list, list, int]:
    """(melds, deadwood, points) of the arrangement of `hand` leaving the least deadwood value (ties: more cards
    melded). Only the runs are searched: whatever they leave, each set kind takes all its cards at once (and the
    wild cards, where it admits them and holds a natural card), since any mix of its range is a valid set. Exact
    up to STATES positions searched (hands of 25 cards and more may get a good split rather than the best)."""
    counts = Counter(hand)
    codes = sorted(counts, key=lambda c: (c in rules.wilds, _order(c)))  # wild cards last: runs by their naturals
    index = {c: i for i, c in enumerate(codes)}
    w = max(counts.values(), default=1).bit_length() + 1  # a bit field per code, topped by a guard bit
    guard = sum(1 << (i * w + w - 1) for i in range(len(codes)))
    by_low: list[list[tuple[int, TableMeld]]] = [[] for _ in codes]
    for m in candidates(counts, rules, ("run",)).values():
        by_low[min(index[c] for c in m.cards)].append((sum(1 << (index[c] * w) for c in m.cards), m))
    pool, budget = _Pool(rules, value), [STATES]

    @cache
    def best(left: int, summary: tuple) -> tuple[int, tuple["TableMeld", ...]]:
        if not left:
            return pool.cost(summary), ()
        i = ((left & -left).bit_length() - 1) // w
        top = best(left - (1 << (i * w)), pool.add(summary, codes[i]))
        g, budget[0] = left | guard, budget[0] - 1
        for mask, m in by_low[i] if budget[0] > 0 else ():  # out of budget: the best found so far stands
            if (g - mask) & guard == guard:  # no borrow cleared a guard bit: the run fits
                cost, chosen = best(left - mask, summary)
                if cost < top[0]:
                    top = (cost, (m, *chosen))
        return top

    _, chosen = best(sum(counts[c] << (index[c] * w) for c in codes), pool.empty)
    sets, dead = _pool_melds(list((counts - Counter(c for m in chosen for c in m.cards)).elements()), rules)
    dead.sort(key=_order)
    return [*chosen, *sets], dead, sum(map(value, dead))


def _order(card: str) -> tuple[int, str]:
    return rank(card), suit(card)


class _Pool:
    """What the runs leave, summed up as far as its cost needs: per set kind, then the wild cards, then the cards no
    set kind admits, a (count, value) pair; a count of min_size or more melds for sure, so its value is dropped."""

    def __init__(self, rules: "MeldRules", value: Callable[[str], int]):
        self.rules, self.value = rules, value
        self.sets = [k for k in rules.kinds if k.base == "set"]
        self.empty = ((0, 0),) * (len(self.sets) + 2)

    def add(self, summary: tuple, card: str) -> tuple:
        """The summary with `card` added."""
        if card in self.rules.wilds:
            at = len(self.sets)
        else:
            at = next((i for i, k in enumerate(self.sets) if k.place(card) is not None), len(self.sets) + 1)
        n, v = summary[at]
        n, v = n + 1, v + self.value(card)
        if at < len(self.sets) and n >= self.rules.min_size:
            n, v = self.rules.min_size, 0
        return summary[:at] + ((n, v),) + summary[at + 1 :]

    def cost(self, summary: tuple) -> int:
        """Deadwood value (scaled) and count of the pool, the set kinds taking what they can."""
        size, wild, other = self.rules.min_size, summary[len(self.sets)], summary[-1]
        points, left, wild_used = other[1], other[0], False
        for kind, (n, v) in zip(self.sets, summary):
            extra = wild[0] if kind.wild and n and not wild_used else 0
            if n and n + extra >= size:
                wild_used = wild_used or bool(extra)
            else:
                points, left = points + v, left + n
        if not wild_used:
            points, left = points + wild[1], left + wild[0]
        return points * _SCALE + left


def _pool_melds(cards: list[str], rules: "MeldRules") -> tuple[list["TableMeld"], list[str]]:
    """One set per set kind of all its cards (with every wild card, in the first that admits them), and the rest."""
    from referee.rules.melds import TableMeld

    wild = [c for c in cards if c in rules.wilds]
    rest = [c for c in cards if c not in rules.wilds]
    melds = []
    for kind in (k for k in rules.kinds if k.base == "set"):
        mine = [c for c in rest if kind.place(c) is not None]
        extra = wild if kind.wild and mine else []
        if mine and len(mine) + len(extra) >= rules.min_size:
            melds.append(TableMeld(kind.name, tuple(mine + extra), tuple(mine + [mine[0]] * len(extra))))
            rest = [c for c in rest if kind.place(c) is None]
            wild = [] if extra else wild
    return melds, rest + wild


def find_requirement(
    hand: Sequence[str], req: "Requirement", rules: "MeldRules", span: "Span"
) -> list["TableMeld"] | None:
    """Disjoint melds from `hand` that meet `req` exactly (as contracts.find_contract, for named kinds); None if
    the hand cannot. The runs are searched; the sets are then dealt out of what the runs leave, by counting."""
    from referee.rules.contracts import alike

    run_parts = [p for p in req.parts if p.kind.endswith("run")]
    set_parts = [p for p in req.parts if not p.kind.endswith("run")]
    runs = list(candidates(Counter(hand), rules, ("run",)).values())

    def grow(k: int, chosen: list["TableMeld"], left: Counter, start: int) -> list["TableMeld"] | None:
        if k == len(run_parts):
            sets = _deal_sets(list(left.elements()), set_parts, rules)
            return None if sets is None else [*chosen, *sets]
        for i in range(start if k and run_parts[k - 1] == run_parts[k] else 0, len(runs)):
            m, need = runs[i], Counter(runs[i].cards)
            fits = run_parts[k].met_by(m) and all(left[c] >= n for c, n in need.items())
            if fits and all(alike(m, x, req, span) is None for x in chosen):
                found = grow(k + 1, [*chosen, m], left - need, i + 1)
                if found is not None:
                    return found
        return None

    return grow(0, [], Counter(hand), 0)


def _deal_sets(cards: list[str], parts: Sequence, rules: "MeldRules") -> list["TableMeld"] | None:
    """Sets meeting `parts` (kinds "high-set", "low-set" or any "set") out of `cards`, or None: each part gets its
    minimum from a kind's cards (one natural first), and the rest of each kind's cards join its first set."""
    from referee.rules.melds import TableMeld

    wild = [c for c in cards if c in rules.wilds]
    groups: list[tuple[MeldKind, list[str]]] = []
    for part in parts:
        fits = [k for k in rules.kinds if k.base == "set" and (part.kind == "set" or k.name == part.kind)]
        for kind in sorted(fits, key=lambda k: -sum(1 for c in cards if k.place(c) is not None)):
            mine = [c for c in cards if c not in rules.wilds and kind.place(c) is not None]
            spare = wild if kind.wild else []
            if mine and len(mine) + len(spare) >= part.min_size:
                take = mine[: part.min_size]
                take += spare[: part.min_size - len(take)]
                for c in take:
                    (wild if c in rules.wilds else cards).remove(c)
                groups.append((kind, take))
                break
        else:
            return None
    for kind, take in groups:  # what is left of each kind joins its first set, wild cards the first that takes them
        more = [c for c in cards if c not in rules.wilds and kind.place(c) is not None]
        more += wild if kind.wild else []
        for c in more:
            (wild if c in rules.wilds else cards).remove(c)
        take += more
    return [
        TableMeld(k.name, tuple(t), tuple(c if c not in rules.wilds else _first(t, rules) for c in t))
        for k, t in groups
    ]


def _first(cards: list[str], rules: "MeldRules") -> str:
    return next(c for c in cards if c not in rules.wilds)
