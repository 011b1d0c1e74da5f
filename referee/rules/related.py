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
