"""Best split of a hand into melds: the arrangement that leaves the least deadwood, found exactly.

Every meld the hand can form is listed once per multiset of cards and packed as a count vector: one bit
field per distinct card code, topped by a guard bit, so a single subtraction tells whether a meld still
fits. A memoised search then places the lowest remaining card, either as deadwood or in a meld holding it.

The same search is compiled (_solver.c, built by `pip install` where a C compiler is found) for the hands
it takes: no wild card, no joker, rules without named kinds or a variant's own meld check. It lists the same
melds in the same order, so both give the same split; ROMIS_PURE=1 keeps this module's own search.
"""

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import combinations, combinations_with_replacement, product
from types import ModuleType
from typing import Any

from protocol.cards import JOKER, RANKS, SUITS
from referee import PURE_PYTHON
from referee.rules import kinds
from referee.rules.cards import rank, suit
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, TableMeld, is_valid, naturals_needed, new_meld, size_needed

built: ModuleType | None
try:
    from referee.rules import _solver as built
except ImportError:  # installed without a C compiler: the search below does it all
    built = None
core = None if PURE_PYTHON else built  # the compiled search in use (tests switch it)

Value = Callable[[str], int]
_SCALE = 1 << 12  # cost = points * _SCALE + cards left over: fewer points first, then more cards melded


@dataclass(frozen=True)
class Split:
    """An arrangement of a hand: the melds, the cards left over, and what those are worth."""

    melds: list[TableMeld]
    deadwood: list[str]
    points: int


if built:
    built.types(Split, TableMeld)  # the compiled search builds its results itself


def best_split(hand: list[str], rules: MeldRules, value: Value) -> Split:
    """The arrangement of `hand` into disjoint valid melds leaving the least deadwood value
    (ties: more cards melded, then a fixed order of the cards, whatever the order of `hand`)."""
    split = _compiled(hand, rules, value, discard=False)
    if not split:
        if rules.kinds:  # named kinds: sets of a range are counted, not listed (there are thousands)
            return Split(*kinds.best_split(hand, rules, value))
        search = _Search(hand, rules, value)
        split = search.split(search.full)
    if not split.deadwood or not rules.wholes:
        return split
    return whole_split(hand, rules) or grown_split(hand, rules, value, split)


def grown_split(hand: list[str], rules: MeldRules, value: Value, split: Split) -> Split:
    """The better of `split` and the best split holding a combination of `rules.wholes` that need not be the
    whole hand (`at_least`: rules/mississippi.md, ten or more cards of one suit): such a combination takes the
    cards of one group (a suit, with `one_suit`) as themselves, less at most two left for the other melds."""
    best = split
    for w in (w for w in rules.wholes if w.at_least):
        groups: dict[str, list[str]] = {}
        for c in sorted(hand, key=_order):
            if c != JOKER and rank(c) in w.ranks:
                groups.setdefault(suit(c) if w.one_suit else "", []).append(c)
        for group in (g for g in groups.values() if len(g) >= w.size):
            for k in range(min(2, len(group) - w.size) + 1):
                for kept in sorted(set(combinations(group, k))):
                    cards = list(group)
                    for c in kept:
                        cards.remove(c)
                    try:
                        meld = new_meld(cards, rules, kind=w.name)
                    except IllegalAction:
                        continue
                    rest = list(hand)
                    for c in cards:
                        rest.remove(c)
                    sub = best_split(rest, rules, value)
                    if (sub.points, len(sub.deadwood)) < (best.points, len(best.deadwood)):
                        best = Split([meld, *sub.melds], sub.deadwood, sub.points)
    return best


def whole_split(hand: list[str], rules: MeldRules) -> Split | None:
    """`hand` as one whole-hand combination of `rules.wholes` (rules/rummy-bridge.md: one suit, figures), the
    first that it forms; None if it forms none."""
    for w in rules.wholes:
        if len(hand) == w.size:
            try:
                return Split([new_meld(sorted(hand, key=_order), rules, kind=w.name)], [], 0)
            except IllegalAction:
                continue
    return None


def best_discard(hand: list[str], rules: MeldRules, value: Value) -> tuple[str, Split]:
    """The discard that leaves the least deadwood in the rest of `hand` (e.g. an 11-card gin hand),
    with the best split of the cards kept. Ties go to the first card in the fixed card order."""
    if not hand:
        raise ValueError("best_discard needs at least one card")
    if rules.kinds:
        splits = {c: best_split([*hand[: hand.index(c)], *hand[hand.index(c) + 1 :]], rules, value) for c in hand}
        card = min(sorted(splits, key=_order), key=lambda c: (splits[c].points, len(splits[c].deadwood)))
        return card, splits[card]
    if any(w.at_least for w in rules.wholes):  # a combination that need not be the whole hand: split each rest
        rests = {c: best_split([*hand[: hand.index(c)], *hand[hand.index(c) + 1 :]], rules, value) for c in hand}
        card = min(sorted(set(hand), key=_order), key=lambda c: (rests[c].points, len(rests[c].deadwood)))
        return card, rests[card]
    found = _compiled(hand, rules, value, discard=True)
    if found:
        card, split = found
    else:
        search = _Search(hand, rules, value)
        card = min(search.codes, key=lambda c: search.cost(search.without(c)))
        split = search.split(search.without(card))
    for c in sorted(set(hand), key=_order) if split.deadwood and rules.wholes else ():
        rest = list(hand)
        rest.remove(c)
        whole = whole_split(rest, rules)
        if whole:
            return c, whole
    return card, split


def least_after_discard(hand: list[str], rules: MeldRules, value: Value) -> int:
    """The deadwood `best_discard` leaves, without building its split where the compiled search answers (the
    knock games ask it at every end-of-turn decision)."""
    spec = core and not rules.wholes and _spec(rules)
    points = core.least(hand, spec, value) if core and spec else None
    return best_discard(hand, rules, value)[1].points if points is None else points


def candidate_melds(hand: list[str], rules: MeldRules) -> list[TableMeld]:
    """Every valid meld that can be formed from cards of `hand`: one per kind and multiset of cards,
    each wild card given one valid identity. Pass the melds to `new_meld` with their identities."""
    return list(_melds(Counter(hand), rules).values())


def _compiled(hand: list[str], rules: MeldRules, value: Value, discard: bool) -> Any:
    """The compiled search's best split (with `discard`: (best discard, split of the rest)), or None for a hand or
    rules it does not take."""
    spec = core and _spec(rules)
    return core.split(hand, spec, value, discard) if core and spec else None


def _spec(rules: MeldRules) -> tuple | None:
    """What _solver.c needs of `rules`, worked out once per rules object and kept in its __dict__ (hashing a
    MeldRules on every call would cost more than the search; an attribute is read fastest): None for rules it
    cannot follow.
    (lines, extra windows, fewest and most cards of a run, of a set, max_copies, copies per suit in a set,
    the wild cards as bits suit * 13 + rank - 1)."""
    try:
        return rules._c_spec  # type: ignore[attr-defined]  # set below, in its __dict__
    except AttributeError:
        pass
    if rules.kinds or rules.meld_check or rules.identical_sets:
        spec = None
    else:
        lines, extras = _run_windows(rules) if rules.allow_runs else ((), ())
        run_need = max(size_needed("run", rules), rules.min_naturals)
        set_lo, set_hi = max(size_needed("set", rules), naturals_needed("set", rules)), rules.set_max
        wild_bits = sum(1 << (SUITS.index(suit(c)) * 13 + rank(c) - 1) for c in rules.wilds if c != JOKER)
        spec = (
            tuple(map(bytes, lines)),
            tuple(map(bytes, extras)),
            run_need,
            rules.run_max,
            set_lo if rules.allow_sets else 1,
            set_hi if rules.allow_sets else 0,
            rules.max_copies,
            rules.max_copies if rules.set_max > 4 else 1,
            wild_bits,
        )
    rules.__dict__["_c_spec"] = spec  # a frozen dataclass: its fields are set, not this cache
    return spec


def _order(card: str) -> tuple[int, int, int]:
    """Fixed card order: by rank, then suit, jokers last."""
    if card == JOKER:
        return 1, 0, 0
    return 0, rank(card), SUITS.index(suit(card))


class _Search:
    """The memoised search over the count vectors of one hand."""

    def __init__(self, hand: list[str], rules: MeldRules, value: Value):
        counts = Counter(hand)
        self.codes = sorted(counts, key=_order)
        self.value = value
        index = {c: i for i, c in enumerate(self.codes)}
        self.width = w = max(counts.values(), default=1).bit_length() + 1
        self.guard = sum(1 << (i * w + w - 1) for i in range(len(self.codes)))
        self.full = sum(counts[c] << (index[c] * w) for c in self.codes)
        self.unit = [value(c) * _SCALE + 1 for c in self.codes]
        self.melds: dict[int, TableMeld] = {}  # by count vector: a set and a run of 5H JK JK are one option
        for meld in _melds(counts, rules).values():
            self.melds.setdefault(sum(1 << (index[c] * w) for c in meld.cards), meld)
        self.by_low: list[list[int]] = [[] for _ in self.codes]  # melds by their lowest card
        for mask, meld in self.melds.items():
            self.by_low[min(index[c] for c in meld.cards)].append(mask)
        self.memo: dict[int, tuple[int, int]] = {0: (0, 0)}  # state -> (cost, meld chosen or 0 for deadwood)

    def without(self, card: str) -> int:
        """The full hand's state less one copy of `card`."""
        return self.full - (1 << (self.codes.index(card) * self.width))

    def cost(self, state: int) -> int:
        """Least cost of the cards in `state` (memoised, with the choice made for each state)."""
        memo, by_low, unit, guard, w = self.memo, self.by_low, self.unit, self.guard, self.width
        field = (1 << (w - 1)) - 1

        def best(s: int) -> int:
            hit = memo.get(s)
            if hit is not None:
                return hit[0]
            i = ((s & -s).bit_length() - 1) // w
            options = by_low[i]
            if not options:  # no meld can hold this card any more: every copy is deadwood
                n = (s >> (i * w)) & field
                cost, choice = best(s - (n << (i * w))) + n * unit[i], 0
            else:
                cost, choice = best(s - (1 << (i * w))) + unit[i], 0
                g = s | guard
                for mask in options:
                    if (g - mask) & guard == guard:  # a borrow clears a guard bit: the meld does not fit
                        c = best(s - mask)
                        if c < cost:
                            cost, choice = c, mask
            memo[s] = (cost, choice)
            return cost

        return best(state)

    def split(self, state: int) -> Split:
        """The best split of the cards in `state`, following the memoised choices."""
        self.cost(state)
        w, melds, dead = self.width, [], []
        while state:
            mask = self.memo[state][1]
            if mask:
                melds.append(self.melds[mask])
            else:
                i = ((state & -state).bit_length() - 1) // w
                n = 1 if self.by_low[i] else (state >> (i * w)) & ((1 << (w - 1)) - 1)
                dead += [self.codes[i]] * n
                mask = n << (i * w)
            state -= mask
        return Split(melds, dead, sum(self.value(c) for c in dead))


def _melds(counts: Counter, rules: MeldRules) -> dict[tuple, TableMeld]:
    """Every valid meld from the cards counted, keyed by (kind, sorted cards)."""
    if rules.kinds:
        return kinds.candidates(counts, rules)
    wilds = {c: n for c, n in counts.items() if c in rules.wilds}
    n_wild = sum(wilds.values())
    n_wild = min(n_wild, rules.max_wilds) if rules.max_wilds else n_wild  # more could never be placed
    naturals = {c: n for c, n in counts.items() if c != JOKER}  # a wild deuce may stand for itself
    out: dict[tuple, TableMeld] = {}
    if rules.allow_runs:
        lines, extras = _run_windows(rules)
        for s in SUITS:
            present = [0] + [naturals.get(r + s, 0) for r in RANKS]
            if rules.min_naturals and not any(present):
                continue
            for line in lines:
                if n_wild or present[line[0]]:
                    _walk_line(line, s, present, wilds, n_wild, rules, out)
            for window in extras:
                _window(window, s, present, wilds, n_wild, rules, out)
    if rules.allow_sets:
        by_rank: Counter[str] = Counter()
        for c, n in naturals.items():
            by_rank[c[0]] += n
        for r in RANKS:
            if by_rank[r] + n_wild >= rules.min_size and by_rank[r] >= naturals_needed("set", rules):
                _set_melds(r, naturals, wilds, rules, out)
        jokers = 0 if JOKER in rules.wilds or not rules.joker_sets else counts.get(JOKER, 0)
        for n in range(rules.min_size, min(jokers, 4, rules.set_max) + 1):  # a joker set (rules/persian.md)
            _add(out, "set", [JOKER] * n, [JOKER] * n, rules)
    return out


@cache
def _run_windows(rules: MeldRules) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """(lines, extras) of ranks in table order: the runs allowed are the prefixes of each line
    (of at least min_size cards) plus the extra windows."""
    extras = []
    if rules.run_ranks:  # the variant's own rank order (no wrap): the runs start at any of its places
        return tuple(rules.run_ranks[a:] for a in range(len(rules.run_ranks))), ()
    if rules.wrap:  # any stretch round the corner of up to 12 ranks; all 13 as a low or high run
        lines = tuple(tuple((a + j) % 13 + 1 for j in range(12)) for a in range(13))
        if rules.ace_low:
            extras.append(tuple(range(1, 14)))
        elif rules.ace_high:
            extras.append(tuple(range(2, 14)) + (1,))
    else:  # positions 1..14 with the ace at both ends; a run spans at most 13 of them
        lo, hi = (1 if rules.ace_low else 2), (14 if rules.ace_high else 13)
        lines = tuple(tuple((p - 1) % 13 + 1 for p in range(a, min(hi, a + 12) + 1)) for a in range(lo, hi + 1))
    if rules.ace_both_ends:
        extras.append(tuple(range(1, 14)) + (1,))
    return lines, tuple(extras)


def _walk_line(
    line: tuple[int, ...], s: str, present: list[int], wilds: dict, n_wild: int, rules: MeldRules, out: dict
) -> None:
    """Emit the runs along one line, stopping once the gaps outnumber the wild cards."""
    avail: list[int] = []
    gaps: list[int] = []
    for p, r in enumerate(line):
        (avail if present[r] else gaps).append(p)
        if len(gaps) > n_wild:
            return
        # a window from a gap to before a gap holds the same cards as the window one step higher
        shifts = bool(gaps) and gaps[0] == 0 and p + 1 < len(line) and not present[line[p + 1]]
        if p + 1 >= size_needed("run", rules) and not shifts:
            _emit_run(line[: p + 1], s, avail, gaps, wilds, n_wild, rules, out)


def _window(
    window: tuple[int, ...], s: str, present: list[int], wilds: dict, n_wild: int, rules: MeldRules, out: dict
) -> None:
    """Emit the runs filling one window that may hold a rank twice (the ace of A-2-...-K-A)."""
    used = [0] * 14
    avail, gaps = [], []
    for p, r in enumerate(window):
        if used[r] < present[r]:
            used[r] += 1
            avail.append(p)
        else:
            gaps.append(p)
    if len(gaps) <= n_wild:
        _emit_run(window, s, avail, gaps, wilds, n_wild, rules, out)


def _emit_run(
    window: tuple[int, ...],
    s: str,
    avail: list[int],
    gaps: list[int],
    wilds: dict,
    n_wild: int,
    rules: MeldRules,
    out: dict,
) -> None:
    """Emit the runs of `window`: gaps filled by wild cards, and also naturals left out for wild cards
    to stand in for (the natural may be needed in another meld)."""
    ids = [RANKS[r - 1] + s for r in window]
    if not n_wild:
        _add(out, "run", ids, ids, rules)
        return
    for drop in range(n_wild - len(gaps) + 1):
        for dropped in combinations(avail, drop):
            fill = sorted(gaps + list(dropped))
            pool = _pool(wilds, [ids[p] for p in avail if p not in dropped])
            for fillers in _fillers(pool, len(fill)):
                _add(out, "run", _placed(ids, fill, fillers), ids, rules)


def _set_melds(r: str, naturals: dict, wilds: dict, rules: MeldRules, out: dict) -> None:
    """Emit the sets of rank `r`, naturals first (so a wild deuce keeps its own identity when it can)."""
    counts = [naturals.get(r + s, 0) for s in SUITS]
    if rules.identical_sets:  # no wild cards: every mix of the cards held that is a valid set
        for ks in product(*(range(c + 1) for c in counts)):
            ids = [r + s for s, k in zip(SUITS, ks) for _ in range(k)]
            if rules.min_size <= len(ids) <= rules.set_max and is_valid(ids, "set", rules):
                _add(out, "set", ids, ids, rules)
        return
    cap = rules.max_copies if rules.set_max > 4 else 1
    for ks in sorted(product(*(range(min(c, cap) + 1) for c in counts)), key=lambda k: -sum(k)):
        base = [r + s for s, k in zip(SUITS, ks) for _ in range(k)]
        pool = _pool(wilds, base)
        for w in range(max(0, rules.min_size - len(base)), sum(pool.values()) + 1):
            suits = _wild_suits(list(ks), w, rules)
            if suits is not None:
                ids = base + [r + x for x in suits]
                for fillers in _fillers(pool, w):
                    _add(out, "set", _placed(ids, range(len(base), len(ids)), fillers), ids, rules)


def _wild_suits(have: list[int], w: int, rules: MeldRules) -> list[str] | None:
    """Suits for `w` wild cards joining naturals with these suit counts, or None if no valid set results.
    Sets above four cards need all four suits first, no suit more than max_copies (_general.md, Valid combinations)."""
    n = sum(have) + w
    if not rules.min_size <= n <= rules.set_max:
        return None
    if n <= 4:
        return None if max(have) > 1 else [SUITS[i] for i in range(4) if not have[i]][:w]
    if max(have) > rules.max_copies or have.count(0) > w:
        return None
    out = []
    for _ in range(w):  # the least used suit first, so missing suits come before second copies
        i = min(range(4), key=have.__getitem__)
        if have[i] >= rules.max_copies:
            return None
        have[i] += 1
        out.append(SUITS[i])
    return out


def _pool(wilds: dict, used: list[str]) -> dict:
    """Wild cards still free once the naturals `used` are taken (a wild deuce may be one of them)."""
    return {c: n - used.count(c) for c, n in wilds.items() if n > used.count(c)}


def _fillers(pool: dict, k: int) -> list[tuple[str, ...]]:
    """Every multiset of `k` wild cards from `pool`."""
    if k == 0:
        return [()]
    codes = sorted(pool, key=_order)
    return [f for f in combinations_with_replacement(codes, k) if all(f.count(c) <= pool[c] for c in f)]


def _placed(ids: list[str], fill, fillers: tuple[str, ...]) -> list[str]:
    """The cards of a meld: naturals at their own ids, wild cards at the `fill` positions
    (a wild deuce at its own identity where possible, so that it counts as natural)."""
    cards, rest, later = list(ids), list(fill), []
    for c in fillers:
        own = next((p for p in rest if ids[p] == c), None)
        if own is None:
            later.append(c)
        else:
            cards[own] = c
            rest.remove(own)
    for p, c in zip(rest, later):
        cards[p] = c
    return cards


def _add(out: dict, kind: str, cards: list[str], ids: list[str], rules: MeldRules) -> None:
    """Keep the meld if it has enough natural cards and its kind and cards are new."""
    naturals = sum(c == x for c, x in zip(cards, ids))
    if (
        len(cards) < size_needed(kind, rules)
        or naturals < naturals_needed(kind, rules)
        or (rules.max_wilds and len(cards) - naturals > rules.max_wilds)
    ):
        return
    if kind == "run" and rules.run_max and len(cards) > rules.run_max:
        return
    key = (kind, tuple(sorted(cards)))
    if key not in out:
        meld = TableMeld(kind, tuple(cards), tuple(ids))
        if rules.meld_check:
            try:
                rules.meld_check(meld)
            except IllegalAction:  # the variant's own condition on new melds (rules/fortuna.md: the spade queen)
                return
        out[key] = meld
