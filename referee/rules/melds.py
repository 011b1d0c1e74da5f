"""Meld primitives: sets and runs (sequences) under every ace mode, with wild cards and their identities.

A meld on the table is immutable: `cards` are the physical codes and `ids` the cards they stand for
(equal for natural cards), both in table order (runs from low to high).
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations, product

from protocol.cards import JOKER, SUITS
from referee.rules import kinds as named
from referee.rules.cards import rank, suit
from referee.rules.errors import IllegalAction


@dataclass(frozen=True)
class MeldRules:
    """How a variant's melds are formed (ace mode, wild cards, set sizes)."""

    ace_low: bool = True  # A-2-3
    ace_high: bool = True  # Q-K-A
    wrap: bool = False  # round the corner: K-A-2
    ace_both_ends: bool = False  # A-2-...-K-A (14 cards)
    wilds: frozenset = frozenset({JOKER})
    min_size: int = 3
    run_min: int = 0  # the fewest cards in a run, where more than min_size (contract rummy: 4)
    set_min: int = 0  # the fewest cards in a set, where more than min_size (french: exactly 4, with set_max)
    set_max: int = 8  # sets above 4 need all four suits first
    max_copies: int = 2  # most cards of one suit in a set of 5+
    min_naturals: int = 1
    set_naturals: int = 0  # natural cards a set needs, where more than min_naturals (tonk: 2)
    allow_sets: bool = True
    allow_runs: bool = True
    meld_check: Callable[["TableMeld"], None] | None = (
        None  # a variant's own condition on new melds: raises IllegalAction
    )
    kinds: tuple[named.MeldKind, ...] = ()  # named kinds instead of sets and runs (liverpool: referee/rules/kinds.py)
    joker_sets: bool = False  # jokers that are not wild meld as a set of their own, 3 to 4 of them (persian)
    run_ranks: tuple[int, ...] = ()  # the rank order of runs where it is not A-K (a stripped pack: 7 then J;
    #                                  cards.run_order)
    run_max: int = 0  # the most cards in a run (0: no cap beyond the rank order; conquian's max_sequence_length)
    identical_sets: bool = False  # sets of one card repeated (any size), 3-4 of distinct suits, 5+ of any suits
    #                               (rules/panguingue.md, Valid combinations), in place of four-suits-first
    max_wilds: int = 0  # the most wild cards standing for other cards in one meld (0: no limit; orija: 1)
    wholes: tuple[named.WholeHand, ...] = ()  # whole-hand combinations beside sets and runs (rummy-bridge)


@dataclass(frozen=True)
class TableMeld:
    """A meld on the table."""

    kind: str  # "set" or "run"
    cards: tuple[str, ...]
    ids: tuple[str, ...]
    owner: int = -1
    hung: tuple[str, ...] = ()  # cards hanging from the meld's trump card, not part of the meld (rules/trump.md)

    def wild_positions(self) -> list[int]:
        """Positions holding a wild card that stands for another card."""
        return [i for i, (c, x) in enumerate(zip(self.cards, self.ids)) if c != x]


def illegal(rule: str, message: str) -> IllegalAction:
    return IllegalAction(rule, message)


def size_needed(kind: str, rules: MeldRules) -> int:
    """The fewest cards a new meld of `kind` may hold."""
    return max(rules.min_size, rules.run_min if kind == "run" else rules.set_min)


def naturals_needed(kind: str, rules: MeldRules) -> int:
    """How many natural cards (a wild deuce standing for itself counts) a meld of `kind` must hold."""
    return max(rules.min_naturals, rules.set_naturals) if kind == "set" else rules.min_naturals


def _check_naturals(kind: str, cards, ids, rules: MeldRules) -> None:
    if rules.max_wilds and sum(1 for c, x in zip(cards, ids) if c != x) > rules.max_wilds:
        raise illegal("meld.max-wilds", f"a meld may hold at most {rules.max_wilds} wild card(s)")
    need = naturals_needed(kind, rules)
    if sum(1 for c, x in zip(cards, ids) if c == x) < need:
        if kind == "set" and need > rules.min_naturals:
            raise illegal("set.naturals", f"a set needs at least {need} natural cards")
        raise illegal("meld.natural", "a new meld needs at least one natural card")


def is_wild(card: str, rules: MeldRules) -> bool:
    """A card that may stand for another."""
    return card in rules.wilds


def _run_order(ids: list[str], rules: MeldRules) -> list[str] | None:
    """The ids ordered low to high if they form a run under `rules`, else None."""
    if len({suit(x) for x in ids}) != 1 or JOKER in ids:
        return None
    if rules.run_ranks:  # consecutive places in the variant's own rank order, each rank once, no wrap
        order = rules.run_ranks
        places = sorted(order.index(rank(x)) if rank(x) in order else -len(ids) for x in ids)
        fits = len(set(places)) == len(ids) and places[0] >= 0 and places[-1] - places[0] == len(ids) - 1
        return sorted(ids, key=lambda x: order.index(rank(x))) if fits else None
    ranks = sorted(rank(x) for x in ids)
    n = len(ranks)
    if len(set(ranks)) != n:
        if rules.ace_both_ends and n == 14 and ranks[:2] == [1, 1] and ranks[2:] == list(range(2, 14)):
            by = sorted(ids, key=rank)
            return [by[0]] + by[2:] + [by[1]]
        return None
    has_ace = ranks[0] == 1
    if ranks[-1] - ranks[0] == n - 1 and (not has_ace or rules.ace_low or n == 1):
        return sorted(ids, key=rank)
    high = sorted(14 if r == 1 else r for r in ranks)
    if has_ace and rules.ace_high and high[-1] - high[0] == n - 1:
        return sorted(ids, key=lambda x: 14 if rank(x) == 1 else rank(x))
    if rules.wrap and n <= 13:
        present = set(ranks)
        for start in present:  # the run starts where the rank before it is missing
            if (start - 2) % 13 + 1 not in present:
                seq = [(start - 1 + i) % 13 + 1 for i in range(n)]
                if set(seq) == present:
                    pos = {r: i for i, r in enumerate(seq)}
                    return sorted(ids, key=lambda x: pos[rank(x)])
                return None
    return None


def _set_ok(ids: list[str], rules: MeldRules) -> str | None:
    """None if the ids form a valid set, else the broken rule."""
    if rules.joker_sets and ids and all(x == JOKER for x in ids):  # rules/persian.md, Valid combinations
        return None if len(ids) <= min(4, rules.set_max) else "set.max-size"
    if JOKER in ids or len({rank(x) for x in ids}) != 1:
        return "set.same-rank"
    n = len(ids)
    suits = [suit(x) for x in ids]
    if n > rules.set_max:
        return "set.max-size"
    if rules.identical_sets:
        repeated = len(set(ids)) > 1 and len(set(suits)) < n
        return "meld.mixed-set-repeated-suit" if n <= 4 and repeated else None
    if n <= 4:
        return None if len(set(suits)) == n else "set.distinct-suits"
    if len(set(suits)) < 4 or max(suits.count(s) for s in SUITS) > rules.max_copies:
        return "set.four-suits-first"
    return None


def check(kind: str, ids: list[str], rules: MeldRules) -> list[str]:
    """Validate identities as a `kind` meld; return them in table order or raise IllegalAction."""
    if rules.kinds:
        return named.check(named.find(rules, kind), ids)
    whole = named.whole(rules, kind)
    if whole is not None:
        rule = whole.broken(ids)
        if rule:
            raise illegal(rule, f"{' '.join(ids)} is not a {whole.name} combination of {whole.size} cards ({rule})")
        return list(ids)
    if kind == "run":
        if not rules.allow_runs:
            raise illegal("meld.no-runs", "runs are not allowed in this variant")
        order = _run_order(ids, rules)
        if order is None:
            raise illegal("run.invalid", f"{' '.join(ids)} is not a run of one suit in consecutive ranks")
        if rules.run_max and len(order) > rules.run_max:
            raise illegal("run.max-size", f"a run may hold at most {rules.run_max} cards")
        return order
    if not rules.allow_sets:
        raise illegal("meld.no-sets", "sets are not allowed in this variant")
    broken = _set_ok(ids, rules)
    if broken:
        raise illegal(broken, f"{' '.join(ids)} is not a valid set ({broken})")
    return list(ids)


def _fill_set(fixed: list[str], n_wild: int, rules: MeldRules) -> list[str] | None:
    r = fixed[0][0]
    counts = dict.fromkeys(SUITS, 0)
    for x in fixed:
        counts[suit(x)] += 1
    out = []
    for _ in range(n_wild):
        s = min(SUITS, key=lambda s: counts[s])
        counts[s] += 1
        out.append(r + s)
    return out


def _fill_run(fixed: list[str], n_wild: int, rules: MeldRules) -> list[str] | None:
    """Wild identities that complete `fixed` into a run: gaps first, then the high end, then the low end."""
    s = suit(fixed[0])
    n = len(fixed) + n_wild
    ranks = {rank(x) for x in fixed}
    for values in ([14 if r == 1 else r for r in ranks] if 1 in ranks else None, list(ranks)):
        if values is None:
            continue
        lo, hi = min(values), max(values)
        for start in range(max(1, hi - n + 1), lo + 1)[::-1]:
            window = range(start, start + n)
            if window[-1] > 14 or not set(values) <= set(window):
                continue
            ids = ["A23456789TJQKA"[v - 1] + s for v in window if v not in values]
            if len(ids) == n_wild and _run_order(fixed + ids, rules):
                return ids
    if rules.wrap and n <= 13:  # round the corner: a stretch of the rank cycle holding the fixed ranks
        for start in range(1, 14):
            stretch = [(start - 1 + i) % 13 + 1 for i in range(n)]
            ids = ["A23456789TJQKA"[v - 1] + s for v in stretch if v not in ranks]
            if ranks <= set(stretch) and len(ids) == n_wild and _run_order(fixed + ids, rules):
                return ids
    return None


def assign(
    cards: list[str],
    rules: MeldRules,
    identities: list[str] | None,
    kind: str | None,
    fixed: Sequence[str] = (),
) -> tuple[str, list[str]]:
    """Work out (kind, identities) for `cards` joining the identities `fixed` (an existing meld's)."""
    if rules.kinds:
        return named.assign(cards, rules, identities, kind, fixed)
    names = ("set", "run", *(w.name for w in rules.wholes))
    if kind is not None and kind not in names:
        raise illegal("meld.kind", f"{kind!r} is not a kind of meld here ({', '.join(names)})")
    wild_idx = [i for i, c in enumerate(cards) if is_wild(c, rules)]
    whole = named.whole(rules, kind)
    if identities is None and whole is not None and wild_idx:  # a whole-hand combination's wild cards
        first = next((c for c in cards if not is_wild(c, rules)), None)
        identities = [first or cards[0]] * len(wild_idx) if whole.wild else [cards[i] for i in wild_idx]
    if identities is not None:
        if len(identities) != len(wild_idx):
            raise illegal("meld.identities", f"{len(wild_idx)} wild card(s) but {len(identities)} identities given")
        if whole is not None and not whole.wild and any(x != cards[i] for i, x in zip(wild_idx, identities)):
            raise illegal("whole.no-wild", f"a wild card joins a {whole.name} only as itself")
        ids = list(cards)
        for i, x in zip(wild_idx, identities):
            if x == JOKER:
                raise illegal("meld.identities", "a wild card must stand for a card, not a joker")
            ids[i] = x
        return _kind_of(list(fixed) + ids, rules, kind), ids
    naturals = [c for c in cards if not is_wild(c, rules)]
    if len(naturals) == len(cards):
        return _kind_of(list(fixed) + cards, rules, kind), list(cards)
    as_themselves = [c for c in cards if c != JOKER]
    # wild deuces placed as themselves count as natural (_general.md, Ambiguity 14): try that first
    for base in [as_themselves] if as_themselves == naturals else [as_themselves, naturals]:
        known = list(fixed) + list(base)
        n_wild = len(cards) - len(base)
        if not known:
            raise illegal("meld.natural", "a new meld needs at least one natural card")
        for k in [kind] if kind else ["run", "set"]:
            fill = (_fill_run if k == "run" else _fill_set)(known, n_wild, rules) if _consistent(known, k) else None
            if fill is not None and is_valid(known + fill, k, rules):
                it = iter(fill)
                out, base_left = [], list(base)
                for c in cards:
                    if c in base_left:
                        base_left.remove(c)
                        out.append(c)
                    else:
                        out.append(next(it))
                return k, out
    raise illegal("meld.invalid", f"{' '.join(cards)} cannot form a valid meld here")


def _consistent(known: list[str], kind: str) -> bool:
    if kind == "run":
        return len({suit(x) for x in known}) == 1
    return len({rank(x) for x in known}) == 1


def is_valid(ids: list[str], kind: str, rules: MeldRules) -> bool:
    """Whether the identities `ids` form a valid `kind` meld under `rules`."""
    try:
        check(kind, ids, rules)
        return True
    except IllegalAction:
        return False


def _kind_of(ids: list[str], rules: MeldRules, kind: str | None) -> str:
    if kind:
        return kind
    # a joker that is not wild (rules/persian.md) tells nothing: JK 5S 5H is read as a set, and refused as one
    same = len({rank(x) for x in ids if x != JOKER}) <= 1
    return "set" if same and len(ids) > 1 and rules.allow_sets else "run"


def _place(kind: str, cards: list[str], ids: list[str], rules: MeldRules) -> tuple[tuple, tuple]:
    order = check(kind, ids, rules)
    pairs = list(zip(cards, ids))
    out = []
    for x in order:
        j = next(i for i, p in enumerate(pairs) if p[1] == x)
        out.append(pairs.pop(j))
    return tuple(c for c, _ in out), tuple(x for _, x in out)


def new_meld(
    cards: list[str], rules: MeldRules, owner: int = -1, identities: list[str] | None = None, kind: str | None = None
) -> TableMeld:
    """Validate `cards` as a new meld and return it; raises IllegalAction naming the broken rule."""
    if len(cards) < rules.min_size:
        raise illegal("meld.min-size", f"a meld needs at least {rules.min_size} cards")
    k, ids = assign(cards, rules, identities, kind)
    if len(cards) < size_needed(k, rules):
        raise illegal(f"{k}.min-size", f"a {k} needs at least {size_needed(k, rules)} cards")
    _check_naturals(k, cards, ids, rules)
    c, x = _place(k, cards, ids, rules)
    meld = TableMeld(k, c, x, owner)
    if rules.meld_check:
        rules.meld_check(meld)
    return meld


def lay_off(
    meld: TableMeld, cards: list[str], rules: MeldRules, identities: list[str] | None = None, end: str | None = None
) -> TableMeld:
    """The meld with `cards` added; raises IllegalAction if it would no longer be valid. A round-the-corner run
    that the cards complete to all 13 ranks has no ends of its own: `end` ("low"/"high") says where they go."""
    if not cards:
        raise illegal("layoff.empty", "a lay-off needs at least one card")
    try:
        _, ids = assign(cards, rules, identities, meld.kind, fixed=list(meld.ids))
        c, x = _place(meld.kind, list(meld.cards) + cards, list(meld.ids) + ids, rules)
        _check_naturals(meld.kind, c, x, rules)
    except IllegalAction as e:
        raise illegal(
            "layoff.invalid", f"{' '.join(cards)} does not fit meld {' '.join(meld.ids)} ({e.rule})"
        ) from None
    grown = replace(meld, cards=c, ids=x)
    if end and rules.wrap and meld.kind == "run" and len(x) == 13:
        after = x[(x.index(meld.ids[-1]) + 1) % 13]
        return start_at(grown, meld.ids[0] if end == "high" else after)
    return grown


def start_at(meld: TableMeld, first: str) -> TableMeld:
    """A run of all 13 ranks (a closed cycle round the corner) laid out from the card standing for `first`."""
    i = meld.ids.index(first)
    return replace(meld, cards=meld.cards[i:] + meld.cards[:i], ids=meld.ids[i:] + meld.ids[:i])


def exchange(
    meld: TableMeld, card: str, wilds: frozenset = frozenset(), rules: MeldRules | None = None
) -> tuple[TableMeld, str]:
    """Put natural `card` in place of the wild card standing for it; return the new meld and the freed wild card.
    A card of `wilds` cannot take the place (a wild deuce standing for a 2: rules/fortuna.md, Ambiguity 14). With
    named kinds (`rules.kinds`), any card the kind admits at that place will do (a red 7 for the red 7)."""
    kind = named.find(rules, meld.kind) if rules is not None and rules.kinds else None
    for i in meld.wild_positions():
        if meld.ids[i] == card or (kind is not None and named.may_replace(kind, meld.ids[i], card)):
            if card in wilds or (kind is not None and rules is not None and card in rules.wilds):
                raise illegal("exchange.natural", f"{card} is wild: only a natural card can take a wild card's place")
            cards, ids = list(meld.cards), list(meld.ids)
            freed, cards[i], ids[i] = cards[i], card, card
            return replace(meld, cards=tuple(cards), ids=tuple(ids)), freed
    raise illegal("exchange.no-wild", f"no wild card in that meld stands for {card}")


def validate(meld: TableMeld, rules: MeldRules) -> None:
    """Raise IllegalAction unless `meld` is valid as it lies, its cards keeping their identities
    (e.g. what is left of a meld once cards were taken out of it)."""
    if len(meld.cards) < rules.min_size:
        raise illegal("meld.min-size", f"a meld needs at least {rules.min_size} cards")
    if len(meld.cards) < size_needed(meld.kind, rules):
        raise illegal(f"{meld.kind}.min-size", f"a {meld.kind} needs at least {size_needed(meld.kind, rules)} cards")
    check(meld.kind, list(meld.ids), rules)
    _check_naturals(meld.kind, meld.cards, meld.ids, rules)
    if rules.meld_check:
        rules.meld_check(meld)


def without(
    meld: TableMeld, cards: list[str], rules: MeldRules, keep: list[str] | None = None
) -> tuple[TableMeld, list[tuple[str, str]]]:
    """`meld` less `cards` (codes), every card left keeping its place and identity, and the (card, identity)
    pairs taken out. Where copies of a code stand for different cards (two jokers), the copies taken are the
    first choice leaving a valid meld, or, with `keep`, leaving wild cards that stand for `keep`."""
    pairs = list(zip(meld.cards, meld.ids))
    per_code = []
    for code in sorted(set(cards)):
        at = [i for i, (c, _) in enumerate(pairs) if c == code]
        n = cards.count(code)
        if len(at) < n:
            raise illegal("meld.missing-card", f"{code} is not in meld {' '.join(meld.ids)} {n} time(s)")
        by_ids = {tuple(sorted(pairs[i][1] for i in combo)): combo for combo in combinations(at, n)}
        per_code.append(list(by_ids.values()))  # copies standing for the same card are interchangeable
    choices = [set(sum(combo, ())) for combo in product(*per_code)]

    def rest(out: set) -> TableMeld:
        left = [p for i, p in enumerate(pairs) if i not in out]
        return replace(meld, cards=tuple(c for c, _ in left), ids=tuple(x for _, x in left))

    def fits(m: TableMeld) -> bool:
        if keep is not None:
            return sorted(x for c, x in zip(m.cards, m.ids) if is_wild(c, rules)) == sorted(keep)
        try:
            validate(m, rules)
            return True
        except IllegalAction:
            return False

    out = next((o for o in choices if fits(rest(o))), None)
    if out is None and keep is not None:
        raise illegal("meld.identities", f"the wild cards left in {' '.join(meld.ids)} cannot stand for {keep}")
    out = choices[0] if out is None else out  # nothing leaves a valid meld: the caller says what is wrong
    return rest(out), [pairs[i] for i in sorted(out)]


def join(
    melds: Sequence[TableMeld], cards: list[str], rules: MeldRules, identities: list[str] | None = None
) -> TableMeld:
    """The runs `melds` joined into one, with `cards` from hand filling what lies between them (orija: own
    sequences may be joined); every card keeps its identity. Raises IllegalAction if the result is no valid run."""
    first = melds[0]
    merged = replace(
        first,
        cards=tuple(c for m in melds for c in m.cards),
        ids=tuple(x for m in melds for x in m.ids),
    )
    try:
        if cards:
            _, ids = assign(cards, rules, identities, "run", fixed=list(merged.ids))
            c, x = _place("run", list(merged.cards) + cards, list(merged.ids) + ids, rules)
        else:
            c, x = _place("run", list(merged.cards), list(merged.ids), rules)
        _check_naturals("run", c, x, rules)
    except IllegalAction as e:
        raise illegal("join.invalid", f"these sequences do not join into one ({e.rule}: {e})") from None
    return replace(merged, cards=c, ids=x)


def put_wild(meld: TableMeld, wild: str, ident: str, rules: MeldRules) -> tuple[TableMeld, str]:
    """Wild card `wild` put in `meld` in place of the natural card standing as `ident` (orija: a joker may take a
    natural card's place); returns the new meld and the natural card released."""
    at = [i for i, (c, x) in enumerate(zip(meld.cards, meld.ids)) if x == ident and c == x]
    if not at:
        raise illegal("joker.no-natural", f"meld {' '.join(meld.ids)} holds no natural {ident} to replace")
    cards = list(meld.cards)
    freed, cards[at[0]] = cards[at[0]], wild
    placed = replace(meld, cards=tuple(cards))
    try:
        _check_naturals(meld.kind, placed.cards, placed.ids, rules)
    except IllegalAction as e:
        raise illegal("joker.limit", f"a joker cannot go into meld {' '.join(meld.ids)} ({e.rule}: {e})") from None
    return placed, freed


def emptied(meld: TableMeld) -> TableMeld:
    """The placeholder left where every card of `meld` has left the table (kind "empty", no cards),
    so that the other melds keep their indices."""
    return replace(meld, kind="empty", cards=(), ids=())


def exchange_to_end(meld: TableMeld, card: str, rules: MeldRules) -> TableMeld:
    """The owner's exchange of a wild deuce (rules/contract.md, Optional wild deuces; liverpool): natural `card`
    takes the place of the wild card standing for it, and that wild card moves to an end of the meld (a run's
    high end if it fits there, else its low end; in a set, another card of the rank). Raises IllegalAction where
    no wild card stands for `card` or the wild card fits no end."""
    placed, freed = exchange(meld, card, rules=rules)
    try:
        return lay_off(placed, [freed], rules)
    except IllegalAction:
        raise illegal("exchange.no-end", f"the wild card freed by {card} fits at neither end of the meld") from None
