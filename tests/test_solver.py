"""Best-split solver: known hands, every ace mode, wild cards, multi-pack duplicates, and an exhaustive cross-check,
each on both paths: the compiled search (referee/rules/_solver.c) and the pure-Python one (ROMIS_PURE=1)."""

import random
from collections import Counter
from functools import cache
from itertools import combinations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.cards import RANKS, SUITS
from referee.rules import solver
from referee.rules.cards import deck, rank
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, TableMeld, new_meld
from referee.rules.solver import best_discard, best_split, candidate_melds
from referee.rules.variants.fortuna import FORTUNA_MELDS
from referee.rules.variants.tonk import TWO_PACKS as TONK_TWO_PACKS

GIN = MeldRules(ace_low=True, ace_high=False, wilds=frozenset())  # rules/gin.md, Valid combinations
CLASSIC = MeldRules()  # rules/classic.md, Valid combinations
HIGH = MeldRules(ace_low=False)
NO_ACE_RUNS = MeldRules(ace_low=False, ace_high=False)
AROUND = MeldRules(wrap=True)
DEUCES = MeldRules(wilds=frozenset({"JK", "2S", "2H", "2D", "2C"}))
TWO_NATURALS = MeldRules(wilds=frozenset({"JK", "2S", "2H", "2D", "2C"}), min_naturals=2)


@pytest.fixture(autouse=True, params=["compiled", "pure"])
def search_path(request, monkeypatch):
    """Every test once on each path (the test id says which); the compiled one must be built (make .venv/.installed)."""
    if request.param == "compiled":
        assert solver.built is not None, "referee/rules/_solver.c is not built: pip install -e . needs gcc"
    monkeypatch.setattr(solver, "core", solver.built if request.param == "compiled" else None)
    return request.param


def gin_value(card: str) -> int:
    """rules/gin.md, Special rules: A = 1, 2-10 face value, J Q K = 10."""
    return min(rank(card), 10)


def classic_value(card: str) -> int:
    """rules/classic.md, Scoring: joker 20, A 11, K Q J 10, 2-10 face value."""
    return 20 if card == "JK" else 11 if card[0] == "A" else min(rank(card), 10)


def cards(text: str) -> list[str]:
    return text.split()


def assert_is_split_of(split, hand, rules, value):
    """The split uses each card of the hand exactly once, every meld is valid as shown, and the points add up."""
    used = [c for m in split.melds for c in m.cards] + split.deadwood
    assert Counter(used) == Counter(hand)
    for m in split.melds:
        assert new_meld(list(m.cards), rules, identities=wild_ids(m, rules), kind=m.kind) == m
    assert split.points == sum(value(c) for c in split.deadwood)


def wild_ids(meld, rules) -> list[str]:
    return [x for c, x in zip(meld.cards, meld.ids) if c in rules.wilds]


# --- known hands -------------------------------------------------------------------------------------------


def test_gin_eleven_cards_best_discard_leaves_nine():
    hand = cards("4S 5S 6S AC 5C 3D 6D 3H 4H 5H 6H")
    card, split = best_discard(hand, GIN, gin_value)
    assert (card, split.points, sorted(split.deadwood)) == ("6D", 9, ["3D", "5C", "AC"])
    assert sorted(m.cards for m in split.melds) == [("3H", "4H", "5H", "6H"), ("4S", "5S", "6S")]
    assert_is_split_of(split, [c for c in hand if c != "6D"], GIN, gin_value)


def test_gin_worked_example_knocker_keeps_two_and_three():
    # rules/gin.md, Worked examples 1: the knocker's unmatched cards are a 2 and a 3, K = 5
    split = best_split(cards("AS 2S 3S 4S 7H 7D 7C 7S 2D 3H"), GIN, gin_value)
    assert (split.points, sorted(split.deadwood)) == (5, ["2D", "3H"])


def test_gin_worked_example_defender_keeps_king_and_seven():
    # rules/gin.md, Worked examples 1: the defender's free cards are a K and a 7, D = 17
    split = best_split(cards("3C 4C 5C 6C QH QS QD QC KS 7H"), GIN, gin_value)
    assert (split.points, split.deadwood) == (17, ["7H", "KS"])


def test_a_card_in_a_set_and_a_run_goes_where_it_saves_most():
    # the set of sevens leaves 5H 6H (11), the run leaves 7S 7D (14)
    assert best_split(cards("5H 6H 7H 7S 7D"), GIN, gin_value).deadwood == ["5H", "6H"]
    # the run 5H 6H 7H leaves 5S 5D (10), the set of fives leaves 6H 7H (13)
    assert best_split(cards("5H 6H 7H 5S 5D"), GIN, gin_value).deadwood == ["5S", "5D"]
    assert best_split(cards("5H 6H 7H 7S 7D 7C"), GIN, gin_value).points == 0


def test_gin_hand_melded_in_full():
    hand = cards("AH 2H 3H 4H 9S 9D 9C JC QC KC")
    split = best_split(hand, GIN, gin_value)
    assert split.points == 0 and split.deadwood == []
    assert_is_split_of(split, hand, GIN, gin_value)


def test_result_does_not_depend_on_hand_order():
    hand = cards("5H 6H 7H 7S 7D 7C 8H JK 9C 9D 2S 2H KD")
    first = best_split(hand, CLASSIC, classic_value)
    for seed in range(5):
        random.Random(seed).shuffle(hand)
        assert best_split(hand, CLASSIC, classic_value) == first


def test_ties_prefer_more_cards_melded():
    # every card is worth 0: deadwood is 0 either way, but the split melds all four sevens
    split = best_split(cards("7S 7H 7D 7C"), GIN, lambda c: 0)
    assert split.deadwood == [] and len(split.melds[0].cards) == 4


def test_empty_hand():
    assert best_split([], CLASSIC, classic_value).points == 0
    with pytest.raises(ValueError):
        best_discard([], CLASSIC, classic_value)


# --- ace modes ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rules,low,high,around",
    [
        (GIN, True, False, False),
        (HIGH, False, True, False),
        (CLASSIC, True, True, False),
        (NO_ACE_RUNS, False, False, False),
        (AROUND, True, True, True),
    ],
    ids=["low", "high", "either", "no-ace", "around"],
)
def test_ace_modes(rules, low, high, around):
    for hand, melded in (("AS 2S 3S", low), ("QS KS AS", high), ("KS AS 2S", around)):
        assert best_split(cards(hand), rules, classic_value).deadwood == (
            [] if melded else sorted(cards(hand), key=rank)
        )


def test_ace_either_end_but_not_both_in_one_run():
    # classic: Q-K-A and A-2-3 share the ace; the better one (Q-K-A) is kept
    split = best_split(cards("QS KS AS 2S 3S"), CLASSIC, classic_value)
    assert (split.points, split.deadwood) == (5, ["2S", "3S"])
    assert best_split(cards("QS KS AS 2S 3S"), AROUND, classic_value).points == 0


@pytest.mark.parametrize(
    "rules,missing,longest,with_joker",
    [
        (GIN, "", 13, 13),
        (HIGH, "", 13, 13),
        (NO_ACE_RUNS, "", 12, 12),
        (CLASSIC, "", 13, 13),
        (AROUND, "", 13, 13),
        (MeldRules(wrap=True, ace_low=False, ace_high=False), "", 12, 12),  # all 13 ranks need an ace mode
        (CLASSIC, "7", 7, 13),
        (AROUND, "7", 12, 13),
        (GIN, "7", 6, 13),
        (NO_ACE_RUNS, "27", 6, 11),
    ],
    ids=["low", "high", "no-ace", "either", "around", "around-no-ace", "either-7", "around-7", "low-7", "no-ace-27"],
)
def test_longest_run_of_one_suit(rules, missing, longest, with_joker):
    suit = [r + "H" for r in RANKS if r not in missing]
    assert max(len(m.cards) for m in candidate_melds(suit, rules)) == longest
    jokers = MeldRules(ace_low=rules.ace_low, ace_high=rules.ace_high, wrap=rules.wrap)
    assert max(len(m.cards) for m in candidate_melds(suit + ["JK"], jokers)) == with_joker


def test_ace_at_both_ends_only_with_that_option():
    suit = [r + "H" for r in RANKS] + ["AH"]
    long = MeldRules(min_size=8)  # runs of 8+, so the 14 cards cannot be split into two runs
    assert best_split(suit, long, classic_value).deadwood == ["AH"]
    split = best_split(suit, MeldRules(min_size=8, ace_both_ends=True), classic_value)
    assert split.deadwood == [] and split.melds[0].ids == tuple(suit)
    assert any(len(m.cards) == 14 for m in candidate_melds(suit, MeldRules(ace_both_ends=True)))
    assert not any(len(m.cards) == 14 for m in candidate_melds(suit, CLASSIC))


# --- wild cards --------------------------------------------------------------------------------------------


def test_joker_fills_a_gap():
    split = best_split(cards("5H JK 7H"), CLASSIC, classic_value)
    assert split.points == 0 and split.melds[0].ids == ("5H", "6H", "7H")


def test_joker_left_over_costs_its_value():
    assert best_split(cards("5H JK 9C"), CLASSIC, classic_value).points == 5 + 20 + 9
    assert best_split(cards("JK JK JK"), CLASSIC, classic_value).points == 60  # a meld needs a natural card
    assert best_split(cards("5H JK JK 9C"), CLASSIC, classic_value).deadwood == ["5H"]  # the jokers meld the dearer 9C


def test_joker_extends_a_complete_meld_rather_than_stay_in_hand():
    split = best_split(cards("4H 5H 6H JK"), CLASSIC, classic_value)
    assert split.deadwood == [] and len(split.melds) == 1
    assert best_split(cards("9S 9H 9D 9C JK"), CLASSIC, classic_value).points == 0  # a set of five
    # with sets of at most four, the joker still melds and the cheapest natural is left over
    four = best_split(cards("9S 9H 9D 9C JK"), MeldRules(set_max=4), classic_value)
    assert four.points == 9 and "JK" not in four.deadwood


def test_joker_stands_in_for_a_natural_needed_elsewhere():
    # two naturals per meld: 5S JK(6S) 7S and 6S 6H JK; keeping 5S 6S 7S together would strand 6H
    hand = cards("5S 6S 7S 6H JK JK")
    split = best_split(hand, TWO_NATURALS, classic_value)
    assert split.points == 0
    assert_is_split_of(split, hand, TWO_NATURALS, classic_value)


def test_wild_deuce_stands_for_itself_or_for_another_card():
    as_itself = best_split(cards("AH 2H 3H"), DEUCES, classic_value)
    assert as_itself.points == 0 and as_itself.melds[0].wild_positions() == []
    as_wild = best_split(cards("9C 2H JC"), DEUCES, classic_value)
    assert as_wild.melds[0].ids == ("9C", "TC", "JC")


def test_two_wild_kinds_the_dearer_one_is_melded():
    # room for one wild card only: the joker (20) goes into the set, the deuce (2) stays in hand
    rules = MeldRules(wilds=DEUCES.wilds, set_max=3)
    assert best_split(cards("9C 9D 2H JK"), rules, classic_value).deadwood == ["2H"]


# --- multi-pack duplicates and big sets ---------------------------------------------------------------------


def test_duplicate_card_is_used_once_per_meld():
    assert best_split(cards("7H 7H 8H 9H"), CLASSIC, classic_value).deadwood == ["7H"]
    assert best_split(cards("5H 5H 6H 6H 7H 7H"), CLASSIC, classic_value).points == 0


def test_set_of_five_needs_all_four_suits():
    assert best_split(cards("7H 7H 7S 7D 7C"), CLASSIC, classic_value).points == 0
    assert best_split(cards("7H 7H 7S 7D"), CLASSIC, classic_value).deadwood == ["7H"]
    assert sorted(best_split(cards("7H 7H 7S 7S 7D"), CLASSIC, classic_value).deadwood) == ["7H", "7S"]
    assert best_split(cards("7H 7H 7S 7S 7D JK"), CLASSIC, classic_value).points == 0  # joker as 7C


def test_sets_stop_at_set_max_and_max_copies():
    eight = cards("7S 7H 7D 7C 7S 7H 7D 7C")
    assert max(len(m.cards) for m in candidate_melds(eight, CLASSIC)) == 8
    assert max(len(m.cards) for m in candidate_melds(eight, MeldRules(set_max=6))) == 6
    five = cards("7S 7H 7D 7C 7S")
    assert best_split(five, CLASSIC, classic_value).points == 0
    assert best_split(five, MeldRules(set_max=4), classic_value).deadwood == ["7S"]  # and 3 + 2 is no split
    three_packs = cards("7S 7S 7S 7H 7D 7C")
    assert best_split(three_packs, CLASSIC, classic_value).deadwood == ["7S"]
    assert best_split(three_packs, MeldRules(max_copies=3), classic_value).points == 0


@pytest.mark.parametrize(
    "hand,meld,points",
    [("2D 2C 9D 2S 9D TS KH", "2C 2D 2S 9D 9D", 20), ("2C KH KH 2H KS AH AD", "2C 2H KH KH KS", 2)],
)
def test_wild_deuces_fill_the_missing_suits_before_a_second_copy(hand, meld, points):
    # rules/tonk.md, Valid combinations: with two packs, deuces as the missing suits, then the natural's twin
    split = best_split(cards(hand), TONK_TWO_PACKS, gin_value)
    assert split.points == points and [sorted(m.cards) for m in split.melds] == [cards(meld)]
    assert {x[1] for x in split.melds[0].ids} == set(SUITS)
    assert_is_split_of(split, cards(hand), TONK_TWO_PACKS, gin_value)


# --- candidate melds ---------------------------------------------------------------------------------------


def test_candidate_melds_of_a_gin_hand():
    found = {m.cards for m in candidate_melds(cards("4S 5S 6S 7S 5H 5C KD"), GIN)}
    assert found == {("4S", "5S", "6S"), ("5S", "6S", "7S"), ("4S", "5S", "6S", "7S"), ("5S", "5H", "5C")}


def test_candidate_melds_give_identities_new_meld_accepts():
    hand = cards("QS KS AS 2S 5H 5D JK 2C 2D")
    melds = candidate_melds(hand, DEUCES)
    assert len(melds) > 20
    for m in melds:
        assert new_meld(list(m.cards), DEUCES, identities=wild_ids(m, DEUCES), kind=m.kind) == m


# --- exhaustive cross-check --------------------------------------------------------------------------------


def identity_options(kind: str, naturals: list[str], n_wild: int):
    """Every identity list a brute force could give the wild cards of a run or a set."""
    if kind == "run":
        suits = {c[1] for c in naturals}
        if len(suits) <= 1:
            for s in suits or SUITS:
                yield from product([r + s for r in RANKS], repeat=n_wild)
    else:
        ranks = {c[0] for c in naturals}
        if len(ranks) <= 1:
            for r in ranks or RANKS:
                yield from product([r + s for s in SUITS], repeat=n_wild)


def book_set(cards: tuple[str, ...], ids: tuple[str, ...], rules: MeldRules) -> bool:
    """A set as the rules files define it, written apart from melds.py: one rank; 3-4 cards of different suits;
    5 to set_max cards with all four suits, none more than max_copies times (_general.md, Valid combinations;
    tonk.md, Ambiguity 8); enough natural cards (a wild card standing for itself is one: tonk.md, Ambiguity 4)."""
    suits = Counter(x[1] for x in ids)
    if "JK" in ids or len({x[0] for x in ids}) != 1 or not rules.min_size <= len(ids) <= rules.set_max:
        return False
    if max(suits.values()) > (1 if len(ids) <= 4 else rules.max_copies) or (len(ids) > 4 and len(suits) < 4):
        return False
    if sum(c == x for c, x in zip(cards, ids)) < max(rules.min_naturals, rules.set_naturals):
        return False
    try:
        if rules.meld_check:
            rules.meld_check(TableMeld("set", cards, ids))
        return True
    except IllegalAction:
        return False


def wild_identities(key: tuple[str, ...], rules: MeldRules, kind: str):
    """Every list of identities for the wild cards of `key` (in card order) a brute force could try."""
    return identity_options(kind, [c for c in key if c not in rules.wilds], sum(c in rules.wilds for c in key))


def with_ids(key: tuple[str, ...], ids, rules: MeldRules) -> tuple[str, ...]:
    """The identities of all the cards of `key`: naturals their own, wild cards `ids` in card order."""
    it = iter(ids)
    return tuple(next(it) if c in rules.wilds else c for c in key)


def accepts(key: tuple[str, ...], rules: MeldRules, kind: str, ids) -> bool:
    """`new_meld` accepts these cards as a `kind` with these identities for the wild cards."""
    try:
        new_meld(list(key), rules, identities=list(ids), kind=kind)
        return True
    except IllegalAction:
        return False


@cache
def is_meld(key: tuple[str, ...], rules: MeldRules) -> bool:
    """These cards form a run `new_meld` accepts, or a set by the book, with some identities for the wild cards."""
    if any(accepts(key, rules, "run", ids) for ids in wild_identities(key, rules, "run")):
        return True
    return any(book_set(key, with_ids(key, ids, rules), rules) for ids in wild_identities(key, rules, "set"))


def brute_force(hand: list[str], rules: MeldRules, value) -> tuple[tuple[int, int], set]:
    """(least (points, cards left), every meld multiset) by trying every partition of the hand."""
    n = len(hand)
    melds = [
        sum(1 << i for i in idx)
        for k in range(rules.min_size, n + 1)
        for idx in combinations(range(n), k)
        if is_meld(tuple(sorted(hand[i] for i in idx)), rules)
    ]

    @cache
    def best(rest: int) -> tuple[int, int]:
        if not rest:
            return 0, 0
        low = rest & -rest
        points, left = best(rest - low)
        options = [(points + value(hand[low.bit_length() - 1]), left + 1)]
        options += [best(rest - m) for m in melds if m & low and m & rest == m]
        return min(options)

    shapes = {tuple(sorted(hand[i] for i in range(n) if m >> i & 1)) for m in melds}
    return best((1 << n) - 1), shapes


DENSE = [c for c in deck(packs=2) if c[0] in "A2345QK"]
TWO_PACK_DEUCES = [c for c in deck(packs=2) if c[0] == "2"]
CROSS_CHECKS = {  # rules, cards to draw naturals from, wild cards to draw from, value, naturals per hand
    "gin": (GIN, deck(), [], gin_value, (7, 9)),
    "gin-dense": (GIN, [c for c in deck() if c[0] in "A23456"], [], gin_value, (7, 9)),
    "classic": (CLASSIC, DENSE, ["JK", "JK"], classic_value, (5, 7)),
    "ace-high": (HIGH, DENSE, ["JK"], classic_value, (5, 7)),
    "no-ace-runs": (NO_ACE_RUNS, DENSE, ["JK"], classic_value, (5, 7)),
    "around": (AROUND, DENSE, ["JK", "JK"], classic_value, (5, 7)),
    "deuces": (DEUCES, [c for c in DENSE if c[0] != "2"], ["2H", "2S", "2D", "JK"], classic_value, (5, 7)),
    "two-naturals": (TWO_NATURALS, [c for c in DENSE if c[0] != "2"], ["2H", "2C", "JK", "JK"], classic_value, (5, 7)),
    "big-sets": (CLASSIC, [c for c in deck(packs=2) if c[0] in "78"], ["JK"], classic_value, (6, 8)),
    "three-packs": (MeldRules(max_copies=3), [c for c in deck(packs=3) if c[0] in "9T"], [], classic_value, (7, 9)),
    # two packs with wild cards: sets of five or more where the wild cards stand for the missing suits and a
    # second copy of a natural joins (rules/tonk.md, Valid combinations and Ambiguity 8; classic.md, Valid combinations)
    "tonk-big-sets": (TONK_TWO_PACKS, [c for c in deck(packs=2) if c[0] in "9K"], TWO_PACK_DEUCES, gin_value, (3, 6)),
    "tonk-two-packs": (
        TONK_TWO_PACKS,
        [c for c in deck(packs=2) if c[0] in "A349K"],
        TWO_PACK_DEUCES,
        gin_value,
        (3, 6),
    ),
    "joker-big-sets": (CLASSIC, [c for c in deck(packs=2) if c[0] in "7K"], ["JK"] * 4, classic_value, (3, 6)),
    "fortuna-big-sets": (
        FORTUNA_MELDS,
        [c for c in deck(packs=2) if c[0] in "9Q"],
        TWO_PACK_DEUCES,
        classic_value,
        (3, 6),
    ),
}
MAX_WILDS = {"tonk-big-sets": 3, "tonk-two-packs": 3, "joker-big-sets": 3, "fortuna-big-sets": 3}  # else 2


def hands(naturals: list[str], wilds: list[str], sizes: tuple[int, int], max_wilds: int = 2):
    """Hands of distinct deck positions: `sizes` naturals plus up to `max_wilds` of the wild cards."""
    return st.tuples(draws(naturals, *sizes), draws(wilds, 0, max_wilds)).map(lambda t: t[0] + t[1])


def draws(pool: list[str], lo: int, hi: int):
    """lo..hi cards from distinct positions of `pool`."""
    if not pool:
        return st.just([])
    return st.lists(st.integers(0, len(pool) - 1), unique=True, min_size=lo, max_size=hi).map(
        lambda ix: [pool[i] for i in ix]
    )


@pytest.mark.parametrize("name", CROSS_CHECKS)
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_best_split_matches_exhaustive_search(name, data):
    rules, naturals, wilds, value, sizes = CROSS_CHECKS[name]
    hand = data.draw(hands(naturals, wilds, sizes, MAX_WILDS.get(name, 2)), label="hand")
    (points, left), shapes = brute_force(hand, rules, value)
    split = best_split(hand, rules, value)
    assert (split.points, len(split.deadwood)) == (points, left)
    assert_is_split_of(split, hand, rules, value)
    assert {tuple(sorted(m.cards)) for m in candidate_melds(hand, rules)} == shapes


@settings(max_examples=40, deadline=None)
@given(hand=draws([c for c in deck() if c[0] in "A234567"], 11, 11))
def test_best_discard_matches_every_discard_tried(hand):
    card, split = best_discard(hand, GIN, gin_value)
    rest = list(hand)
    rest.remove(card)
    assert split == best_split(rest, GIN, gin_value)
    assert split.points == min(best_split(hand[:i] + hand[i + 1 :], GIN, gin_value).points for i in range(len(hand)))


def test_sure_deadwood_is_a_sound_and_tight_bound():
    """The cheap pre-check of knock options never calls a meldable card dead (and in gin misses none)."""
    import random as _random

    from referee.rules.cards import deck as _deck
    from referee.rules.deadwood import sure_deadwood
    from referee.rules.variants.gin import GIN_MELDS

    rng = _random.Random(7)
    for _ in range(500):
        hand = rng.sample(_deck(), 11)
        melded = {c for m in candidate_melds(hand, GIN_MELDS) for c in m.cards}
        assert set(sure_deadwood(hand, [], GIN_MELDS)) == {c for c in hand if c not in melded}


def test_named_kinds_candidates_are_valid_and_complete():
    """Liverpool's kinds (referee/rules/kinds.py): every candidate is a valid meld of its kind, and every meld of
    3-5 cards that a hand holds is among the candidates (runs of at most RUN_WILDS deuces)."""
    from referee.rules.kinds import RUN_WILDS
    from referee.rules.variants.liverpool import LIVERPOOL_MELDS as KINDS

    rng = random.Random(11)
    for _ in range(40):
        hand = rng.sample(deck(packs=2), 7)
        found = candidate_melds(hand, KINDS)
        for m in found:
            ident = [x for c, x in zip(m.cards, m.ids) if c in KINDS.wilds] or None
            assert new_meld(list(m.cards), KINDS, identities=ident, kind=m.kind).kind == m.kind
        keys = {(m.kind, tuple(sorted(m.cards))) for m in found}
        for size in (3, 4, 5):
            for cards in set(combinations(sorted(hand), size)):
                for kind in KINDS.kinds:
                    if kind.base == "run" and sum(c in KINDS.wilds for c in cards) > RUN_WILDS:
                        continue  # not listed: a hand of many deuces would hold tens of thousands of runs
                    try:
                        new_meld(list(cards), KINDS, kind=kind.name)
                    except IllegalAction:
                        continue
                    assert (kind.name, cards) in keys, (kind.name, cards)


def test_named_kinds_best_split_melds_mixed_suit_runs_and_mixed_rank_sets():
    from referee.rules.variants.liverpool import LIVERPOOL_MELDS as KINDS

    hand = ["AH", "3D", "4H", "2S", "9C", "TS", "JC", "8D", "KD", "5C", "6S", "7C"]
    split = best_split(hand, KINDS, lambda c: 10)
    assert not split.deadwood  # no two cards share a suit and a run, nor a rank: only the named kinds meld them all
    assert best_split(hand, MeldRules(wilds=KINDS.wilds), lambda c: 10).deadwood


def test_named_kinds_best_split_agrees_with_the_search_over_every_meld():
    """The named-kinds split (runs searched, sets counted) leaves as little deadwood as the generic search over
    every listed meld, which small hands can still afford."""
    from referee.rules.solver import _Search
    from referee.rules.variants.liverpool import LIVERPOOL_MELDS as KINDS
    from referee.rules.variants.liverpool import Liverpool

    value, rng = Liverpool.hooks_only().penalty, random.Random(5)
    for _ in range(150):
        hand = rng.sample(deck(packs=2), 9)
        search = _Search(hand, KINDS, value)
        listed = search.split(search.full)
        split = best_split(hand, KINDS, value)
        assert (split.points, len(split.deadwood)) == (listed.points, len(listed.deadwood)), hand
        assert sorted([*(c for m in split.melds for c in m.cards), *split.deadwood]) == sorted(hand)
        for m in split.melds:
            ident = [x for c, x in zip(m.cards, m.ids) if c in KINDS.wilds] or None
            new_meld(list(m.cards), KINDS, identities=ident, kind=m.kind)
