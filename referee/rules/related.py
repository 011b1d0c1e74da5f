"""Related cards (rules/elimination.md, Valid combinations): the pairwise relation elimination's shows are built
on, and the groups and chains it makes in a hand. Used by the variant, `romis eval` and the sample bots."""

ORDER = "23456789TJQKA"  # A-K-...-2 read upwards: the ace is next to the king only, never to the 2


def related(a: str, b: str) -> bool:
    """Same rank, or same suit and adjacent in A-K-Q-...-2 (an ace relates to its king and to aces only)."""
    if a[0] == b[0]:
        return True
    return a[1] == b[1] and abs(ORDER.index(a[0]) - ORDER.index(b[0])) == 1


def touches(card: str, cards: list[str]) -> bool:
    """Whether `card` is related to at least one of `cards`."""
    return any(related(card, c) for c in cards)


def chain(up: list[str], cards: list[str]) -> list[str]:
    """The cards of `cards` that can be turned up one at a time onto `up`, each related to `up` or to one turned
    up before it, in the order they are turned (the smallest code first wherever several could go)."""
    done: list[str] = []
    rest = sorted(cards)
    while nxt := [c for c in rest if touches(c, up) or touches(c, done)]:
        done.append(nxt[0])
        rest.remove(nxt[0])
    return done


def groups(cards: list[str]) -> list[list[str]]:
    """`cards` split into groups connected by relations, each sorted, the groups sorted."""
    out: list[list[str]] = []
    for card in sorted(cards):
        joined = [g for g in out if touches(card, g)]
        out = [g for g in out if g not in joined] + [sorted([c for g in joined for c in g] + [card])]
    return sorted(out)


# --- relatives (rules/relatives.md, Valid combinations): a base plus relatives on its cards' branches ---------
CYCLE = "A23456789TJQK"  # the connecting ace: K-A-2 is a sequence in relatives (Ambiguity 1)


def _step(card: str, d: int) -> str:
    """The card of the same suit one rank up (d=1) or down (d=-1) in the round-the-corner order."""
    return CYCLE[(CYCLE.index(card[0]) + d) % 13] + card[1]


def bases(cards: list[str]) -> list[tuple[str, ...]]:
    """Every base among `cards`: a set of 3 or 4 of one rank, or a same-suit sequence of 3 to 13 cards, the ace
    connecting K and 2."""
    have = set(cards)
    out: set[tuple[str, ...]] = set()
    for r in {c[0] for c in have}:
        same = sorted(c for c in have if c[0] == r)
        for skip in [None, *same] if len(same) == 4 else [None]:
            pick = tuple(c for c in same if c != skip)
            if len(pick) >= 3:
                out.add(pick)
    for start in have:
        run = [start]
        while len(run) < 13 and _step(run[-1], 1) in have:
            run.append(_step(run[-1], 1))
            if len(run) >= 3:
                out.add(tuple(sorted(run)))
    return sorted(out)


def attach(cards: list[str], base: tuple[str, ...]) -> dict[str, str] | None:
    """Each card of `cards` outside the base cards `base` mapped to the base card whose branch holds it (same
    rank, or a same-suit run through the base card over non-base cards); None if one fits no branch."""
    rest, home = set(cards) - set(base), {}
    for b in base:
        for d in (1, -1):  # the run branch: walk away from b over relatives of its suit
            c = _step(b, d)
            while c in rest and c not in home:
                home[c] = b
                c = _step(c, d)
    for c in rest - set(home):
        same = next((b for b in base if b[0] == c[0]), None)  # the same-rank branch
        if same is None:
            return None
        home[c] = same
    return home


def arrangements(cards: list[str]) -> list[tuple[tuple[str, ...], ...]]:
    """Every choice of one or two disjoint bases that makes `cards` a valid layout (the referee accepts any)."""
    found = bases(cards)
    out: list[tuple[tuple[str, ...], ...]] = []
    for i, a in enumerate(found):
        if attach(cards, a) is not None:
            out.append((a,))
        for b in found[i + 1 :]:
            if not set(a) & set(b) and attach(cards, a + b) is not None:
                out.append((a, b))
    return out


def layout_groups(cards: list[str], pick: tuple[tuple[str, ...], ...]) -> list[dict[str, list[str]]]:
    """The groups of a valid layout under the bases `pick`: each its base and its relatives, sorted."""
    home = attach(cards, tuple(c for b in pick for c in b)) or {}
    return [{"base": sorted(b), "relatives": sorted(c for c, h in home.items() if h in b)} for b in pick]


def is_layout(cards: list[str]) -> bool:
    """Whether `cards` can be shown as one or two related groups."""
    return bool(arrangements(cards))


def fits(layout: list[str], card: str) -> bool:
    """Whether `card` joins a shown layout's existing groups as a relative (Ambiguity 3: no new group)."""
    return any(attach(layout + [card], tuple(c for b in pick for c in b)) is not None for pick in arrangements(layout))
