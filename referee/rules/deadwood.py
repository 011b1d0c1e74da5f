"""Deadwood with the table: the best arrangement of a hand into new melds plus lay-offs (chained) onto
melds already on the table, as knock games count it (rules/gin.md, Special rules: Deadwood)."""

from collections import Counter
from collections.abc import Callable

from referee.rules.cards import RANK_VALUE
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, TableMeld, lay_off
from referee.rules.solver import best_split, candidate_melds

Value = Callable[[str], int]


def layable(hand: list[str], table: list[TableMeld], rules: MeldRules) -> list[str]:
    """Every hand card that can be laid off on the table, directly or after other lay-offs (a superset
    of any one arrangement's lay-offs: adding cards only ever opens more room)."""
    table, left, out = list(table), list(hand), []
    grew = True
    while grew:
        grew = False
        for card in list(left):
            for i, meld in enumerate(table):
                try:
                    table[i] = lay_off(meld, [card], rules)
                except IllegalAction:
                    continue
                left.remove(card)
                out.append(card)
                grew = True
                break
    return out


def lay_off_options(
    hand: list[str], table: list[TableMeld], rules: MeldRules
) -> list[tuple[tuple[str, ...], list[TableMeld]]]:
    """Every distinct way to lay off some of `hand` on `table`: (cards laid off, resulting table)."""
    seen: dict[tuple, tuple[tuple[str, ...], list[TableMeld]]] = {}

    def walk(left: list[str], laid: tuple[str, ...], tab: list[TableMeld]) -> None:
        key = (tuple(sorted(laid)), tuple((m.cards, m.ids) for m in tab))
        if key in seen:
            return
        seen[key] = (tuple(sorted(laid)), tab)
        for card in sorted(set(left)):
            for i, meld in enumerate(tab):
                try:
                    grown = lay_off(meld, [card], rules)
                except IllegalAction:
                    continue
                rest = list(left)
                rest.remove(card)
                walk(rest, laid + (card,), tab[:i] + [grown] + tab[i + 1 :])

    walk([c for c in hand if c in set(layable(hand, table, rules))], (), list(table))
    return list(seen.values())


def _without(hand: list[str], cards: tuple[str, ...]) -> list[str]:
    rest = list(hand)
    for c in cards:
        rest.remove(c)
    return rest


def min_deadwood(hand: list[str], table: list[TableMeld], rules: MeldRules, value: Value) -> int:
    """The least deadwood of `hand` given the melds on the table."""
    if not table:  # nothing to lay off on (gin's table until the showdown): the hand's own best split
        return best_split(hand, rules, value).points
    return min(best_split(_without(hand, laid), rules, value).points for laid, _ in lay_off_options(hand, table, rules))


def sure_deadwood(hand: list[str], table: list[TableMeld], rules: MeldRules) -> list[str]:
    """Cards of `hand` that fit no meld of the hand and no table meld: deadwood in every arrangement of
    the hand or of any part of it (a cheap lower bound before the exact search; it runs at every
    end-of-turn decision of the knock games, hence the plain loops)."""
    if rules.wilds & set(hand):
        return []  # a wild card could complete almost anything: no cheap bound
    same_rank = Counter(c[0] for c in hand)
    suits: dict[str, set[int]] = {}
    for c in hand:
        suits.setdefault(c[1], set()).add(RANK_VALUE[c[0]])
    layable_cards = set(layable(hand, table, rules)) if table else ()
    out = []
    for c in hand:
        if c in layable_cards or (rules.allow_sets and same_rank[c[0]] >= 3):
            continue
        if rules.allow_runs and _in_a_run(RANK_VALUE[c[0]], suits[c[1]], rules):
            continue
        out.append(c)
    return out


def _in_a_run(r: int, have: set[int], rules: MeldRules) -> bool:
    """Whether three consecutive ranks including `r` are all present (it may say yes too often, never no wrongly)."""
    if rules.wrap:
        up, down, up2, down2 = r % 13 + 1, (r - 2) % 13 + 1, (r + 1) % 13 + 1, (r - 3) % 13 + 1
    else:
        up, down, up2, down2 = r + 1, r - 1, r + 2, r - 2
        if r == 1 and rules.ace_high and 13 in have and 12 in have:
            return True
        above = (r == 13 and 12 in have) or (r == 12 and 13 in have)
        if rules.ace_high and 1 in have and above:  # Q-K-A: an ace above the king
            return True
    return (down in have and (up in have or down2 in have)) or (up in have and up2 in have)


def all_best_splits(
    hand: list[str], rules: MeldRules, value: Value, cap: int = 64
) -> list[tuple[list[TableMeld], list[str]]]:
    """Every arrangement of `hand` into melds with the least deadwood (at most `cap` of them)."""
    best = best_split(hand, rules, value).points
    melds = sorted(candidate_melds(hand, rules), key=lambda m: m.cards)
    out: list[tuple[list[TableMeld], list[str]]] = []

    def walk(i: int, left: Counter, chosen: list[TableMeld]) -> None:
        if len(out) >= cap:
            return
        dead = sorted(left.elements())
        if sum(value(c) for c in dead) == best:
            out.append((list(chosen), dead))
        for j in range(i, len(melds)):
            need = Counter(melds[j].cards)
            if all(left[c] >= k for c, k in need.items()):
                walk(j + 1, left - need, chosen + [melds[j]])

    walk(0, Counter(hand), [])
    return out


def arrangements(
    hand: list[str], table: list[TableMeld], rules: MeldRules, value: Value, owner: int
) -> tuple[int, list[tuple[list[TableMeld], list[str]]]]:
    """(least deadwood, every table that results from laying the hand out that well, with its deadwood)."""
    options = [
        (laid, tab, best_split(_without(hand, laid), rules, value).points)
        for laid, tab in lay_off_options(hand, table, rules)
    ]
    least = min(p for *_, p in options)
    out = []
    for laid, tab, points in options:
        if points == least:
            for melds, dead in all_best_splits(_without(hand, laid), rules, value):
                out.append((tab + [TableMeld(m.kind, m.cards, m.ids, owner) for m in melds], dead))
    return least, out
