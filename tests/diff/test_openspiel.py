"""Differential tests against OpenSpiel's gin_rummy (pyspiel): deadwood, knock and gin availability, deal scoring.

Run by `make test-diff`, which installs open-spiel; skipped where pyspiel is missing. OpenSpiel's card ints are
suit * 13 + rank with the suits in the order s c d h (checked below against its own `card_string`).

Where romis's gin (rules/gin.md) and OpenSpiel's differ. K = the knocker's deadwood, D = the opponent's;
the last column names the test that asserts the row.

| point               | romis                             | OpenSpiel                                | test         |
|---------------------|-----------------------------------|------------------------------------------|--------------|
| knock threshold     | deadwood <= 9                     | deadwood <= knock_card = 10              | threshold    |
| knock check on 11   | exact best discard                | best meld group of all 11, then drop the | availability |
| cards               |                                   | highest leftover: misses some knocks     | tie          |
| knock win, K < D    | knocker +(D-K)+25, opponent -D    | knocker +(D-K), opponent -(D-K)          | scoring      |
| tie, K = D > 0      | undercut: opp. +25, knocker -K    | 0 each                                   | scoring      |
| undercut, K > D     | opp. +(K-D)+25, knocker -K        | opp. the same, knocker -(K-D)-25         | scoring      |
| gin, K = 0          | finisher +D+25, opponent -D       | finisher +D+25, opponent -(D+25)         | scoring      |
| D after a gin       | the opponent's whole hand         | he may still lay his own melds           | scoring      |
| the knocker's K     | the referee's best arrangement    | the melds he chose to lay (can be worse) | scoring      |
| melding during play | melds, additions to any meld      | none; at the end the opponent lays off   | not compared |
|                     |                                   | on the knocker's melds only              |              |
| stock limit         | drawn after a discard at 2 cards  | at 2 cards knock with the upcard or draw | not compared |
"""

import random
from collections import Counter

import pytest

pyspiel = pytest.importorskip("pyspiel")

from protocol.cards import RANKS  # noqa: E402
from referee.rules.cards import deck, rank  # noqa: E402
from referee.rules.melds import MeldRules, new_meld  # noqa: E402
from referee.rules.solver import best_discard, best_split, candidate_melds  # noqa: E402

GIN_RULES = MeldRules(ace_low=True, ace_high=False, wilds=frozenset(), set_max=4)  # rules/gin.md, Valid combinations
OS = pyspiel.gin_rummy
UTILS = OS.GinRummyUtils(13, 4, 10)  # ranks, suits, hand size
GAME = pyspiel.load_game("gin_rummy")
OS_SUITS = "SCDH"
DECK = deck()
SMALL_MELDS = [m.cards for m in candidate_melds(DECK, GIN_RULES) if len(m.cards) <= 5]
# Two meld groups of 33 points tie; OpenSpiel keeps 5S 5C 5H + 6S 6D 6H, whose leftovers cost 11 after a discard.
TIED = ["4S", "5S", "6S", "AC", "5C", "3D", "6D", "3H", "4H", "5H", "6H"]


def gin_value(card: str) -> int:
    """rules/gin.md, Special rules: A = 1, 2-10 face value, J Q K = 10."""
    return min(rank(card), 10)


def to_int(card: str) -> int:
    return OS_SUITS.index(card[1]) * 13 + RANKS.index(card[0])


def ints(hand: list[str]) -> list[int]:
    return [to_int(c) for c in hand]


def codes(hand: list[int]) -> list[str]:
    return [RANKS[c % 13] + OS_SUITS[c // 13] for c in hand]


def meld_heavy(rng: random.Random, n: int) -> list[str]:
    """`n` cards, from two or three random (often crossing) melds plus random cards, or all from a band of
    4-5 ranks in 3-4 suits, so that knocks, gins and ties between meld groups are common."""
    if rng.random() < 0.4:
        width, suits = rng.choice((4, 5)), rng.sample(OS_SUITS, rng.choice((3, 4)))
        low = rng.randint(1, 14 - width)
        return rng.sample([c for c in DECK if low <= rank(c) < low + width and c[1] in suits], n)
    cards = set()
    for meld in rng.sample(SMALL_MELDS, rng.choice((2, 3))):
        if len(cards | set(meld)) <= n:
            cards |= set(meld)
    cards.update(rng.sample([c for c in DECK if c not in cards], n - len(cards)))
    return rng.sample(sorted(cards), n)


def test_card_ints_are_suit_times_13_plus_rank():
    assert [UTILS.card_string(to_int(c)) for c in DECK] == [c[0] + c[1].lower() for c in DECK]
    assert sorted(ints(DECK)) == list(range(52)) and codes(ints(DECK)) == DECK


def test_deadwood_of_10_card_hands_matches_min_deadwood():
    rng = random.Random(20240501)
    hands = [rng.sample(DECK, 10) for _ in range(10_000)] + [meld_heavy(rng, 10) for _ in range(5_000)]
    bad = [h for h in hands if best_split(h, GIN_RULES, gin_value).points != UTILS.min_deadwood(ints(h))]
    assert not bad, f"{len(bad)} of {len(hands)} hands differ, e.g. {' '.join(bad[0])}"


def verified_discard(hand: list[str]) -> int:
    """romis's least deadwood after a discard from an 11-card hand, after proving it: the melds are valid
    (new_meld), discard + melds + deadwood are exactly the hand, and OpenSpiel's own per-discard check
    (legal_discards, used once a player has knocked) allows that deadwood and nothing lower."""
    card, split = best_discard(hand, GIN_RULES, gin_value)
    for meld in split.melds:
        new_meld(list(meld.cards), GIN_RULES)
    assert sorted([card, *split.deadwood, *(c for m in split.melds for c in m.cards)]) == sorted(hand)
    assert split.points == sum(map(gin_value, split.deadwood))
    assert to_int(card) in UTILS.legal_discards(ints(hand), split.points)
    assert not UTILS.legal_discards(ints(hand), split.points - 1)
    return split.points


def test_knock_and_gin_availability_on_11_card_hands():
    """romis: knock iff the best discard leaves <= 9, gin iff 0. OpenSpiel offers KNOCK_ACTION iff its 11-card
    min_deadwood is <= knock_card (here romis's 9). Every disagreement must be OpenSpiel's heuristic missing a
    better arrangement that romis found and verified; OpenSpiel never finds less deadwood than romis."""
    rng = random.Random(7)
    hands = [meld_heavy(rng, 11) for _ in range(4_000)] + [TIED]
    seen, heuristic_misses = Counter(), []
    for hand in hands:
        ours, theirs = verified_discard(hand), UTILS.min_deadwood(ints(hand))
        seen["knock"] += ours <= 9
        seen["gin"] += ours == 0
        if theirs != ours:
            assert theirs > ours, f"OpenSpiel finds {theirs} < romis's {ours} in {' '.join(hand)}"
            heuristic_misses.append(hand)
            seen["knock refused"] += ours <= 9 < theirs
            seen["gin refused"] += ours == 0 < theirs
        else:
            assert (ours <= 9, ours == 0) == (theirs <= 9, theirs == 0)
    assert TIED in heuristic_misses
    assert seen["knock"] > 1_000 and seen["gin"] > 100 and seen["knock refused"] > 0, seen


def dealt(hands: list[list[str]], upcard: str) -> "pyspiel.State":
    """An OpenSpiel state after dealing seat 0's then seat 1's 10 cards and the upcard, seat 0 to act."""
    s = GAME.new_initial_state()
    for c in hands[0] + hands[1] + [upcard]:
        s.apply_action(to_int(c))
    return s


def test_openspiel_refuses_a_knock_when_meld_groups_tie():
    card, split = best_discard(TIED, GIN_RULES, gin_value)
    assert verified_discard(TIED) == 9 and card == "6D" and sorted(split.deadwood) == ["3D", "5C", "AC"]
    assert sorted(m.cards for m in split.melds) == [("3H", "4H", "5H", "6H"), ("4S", "5S", "6S")]
    assert sorted(map(sorted, UTILS.best_meld_group(ints(TIED)))) == sorted(
        map(sorted, [ints(["5S", "5C", "5H"]), ints(["6S", "6D", "6H"])])
    )
    assert UTILS.min_deadwood(ints(TIED)) == 11
    s = dealt([TIED[:10], [c for c in DECK if c not in TIED][:10]], TIED[10])
    s.apply_action(OS.DRAW_UPCARD_ACTION)
    assert s.current_phase() == OS.Phase.DISCARD and OS.KNOCK_ACTION not in s.legal_actions()  # even at 10


def test_knock_threshold_differs():
    hand = ["AS", "2S", "3S", "4H", "5H", "6H", "7C", "8C", "9C", "TD"]
    _, split = best_discard(hand + ["KC"], GIN_RULES, gin_value)
    assert split.points == 10  # rules/gin.md, Special rules: a knock needs < 10
    s = dealt([hand, [c for c in DECK if c not in hand + ["KC"]][:10]], "KC")
    s.apply_action(OS.DRAW_UPCARD_ACTION)
    assert OS.KNOCK_ACTION in s.legal_actions()


def romis_score(k: int, d: int) -> tuple[int, int]:
    """What romis's Gin scores (finisher, opponent) for deadwoods K and D: the engine's own `score_deal`,
    fed the showdown's result (a knock with K = 0 is Gin, Ambiguity 13; ties are undercuts, Ambiguity 4)."""
    from referee.rules.variants.gin import Gin

    game = Gin(2, {}, seed=0)
    game.finish = {"kind": "gin" if k == 0 else "knock", "finisher": 0, "deadwood": [k, d]}
    finisher, opponent = game.score_deal(0)
    return finisher, opponent


def kind(k: int, d: int) -> str:
    return "gin" if k == 0 else "knock win" if k < d else "tie" if k == d else "undercut"


# kind -> (OpenSpiel's returns (finisher, opponent), romis minus OpenSpiel); a 0 is where the rule sets agree
DIFFERENCE = {
    "gin": (lambda k, d: (d + 25, -d - 25), lambda k, d: (0, 25)),
    "knock win": (lambda k, d: (d - k, k - d), lambda k, d: (25, -k)),
    "tie": (lambda k, d: (0, 0), lambda k, d: (-k, 25)),
    "undercut": (lambda k, d: (d - k - 25, k - d + 25), lambda k, d: (25 - d, 0)),
}


def finished_deal(rng: random.Random):
    """Play one OpenSpiel deal greedily enough that knocks and gins are common: take the upcard when it helps,
    discard to the least deadwood, knock once the deadwood is at most a per-deal aim (0: play for gin, then lay
    OpenSpiel's best melds), otherwise random legal actions, laying melds and layoffs rather than passing.
    Returns (final state, knocker or None, the knocker's 10 cards before laying, the opponent's hand at the knock)."""
    s, knocker, laid_from, other = GAME.new_initial_state(), None, None, None
    aim = rng.choice((0, 0, 5, 10))
    while not s.is_terminal():
        if s.is_chance_node():
            s.apply_action(rng.choice(s.chance_outcomes())[0])
            continue
        p, phase, legal = s.current_player(), s.current_phase(), s.legal_actions()
        hand = s.hands()[p]
        if OS.KNOCK_ACTION in legal and s.deadwood()[p] <= aim:
            knocker, other, action = p, list(s.hands()[1 - p]), OS.KNOCK_ACTION
        elif phase == OS.Phase.DISCARD:
            action = min(hand, key=lambda c: UTILS.min_deadwood([x for x in hand if x != c]))
        elif OS.DRAW_UPCARD_ACTION in legal and UTILS.min_deadwood(hand, s.upcard()) < s.deadwood()[p]:
            action = OS.DRAW_UPCARD_ACTION
        else:
            wanted = []
            if p == knocker and aim == 0:
                best = {m + OS.MELD_ACTION_BASE for m in map(UTILS.meld_to_int, UTILS.best_meld_group(hand))}
                wanted = [a for a in legal if a in best]
            legal = [a for a in legal if a != OS.KNOCK_ACTION]
            action = rng.choice(
                wanted or [a for a in legal if a not in (OS.PASS_ACTION, OS.DRAW_UPCARD_ACTION)] or legal
            )
        if p == knocker and laid_from is None and phase == OS.Phase.KNOCK and len(hand) == 10:
            laid_from = list(hand)
        s.apply_action(action)
    return s, knocker, laid_from, other


def test_scoring_against_openspiel_returns():
    rng, seen = random.Random(3), Counter()
    for _ in range(600):
        s, knocker, laid_from, other = finished_deal(rng)
        if knocker is None:
            assert s.returns() == [0, 0]
            continue
        k, d = s.deadwood()[knocker], s.deadwood()[1 - knocker]
        theirs = (s.returns()[knocker], s.returns()[1 - knocker])
        openspiel, difference = DIFFERENCE[kind(k, d)]
        assert theirs == openspiel(k, d), (k, d, theirs)
        ours = romis_score(k, d)
        assert (ours[0] - theirs[0], ours[1] - theirs[1]) == difference(k, d)
        seen[kind(k, d)] += 1
        best = best_split(codes(laid_from), GIN_RULES, gin_value).points
        assert k >= best  # romis would score the knocker's optimal arrangement
        seen["K worse than optimal"] += k > best
        seen["K = 10: no knock in romis"] += k == 10
        if k == 0:
            whole = UTILS.total_card_value(other)
            assert d <= whole  # romis counts the whole hand after a gin
            seen["gin: opponent melded"] += d < whole
    assert all(
        seen[c] for c in (*DIFFERENCE, "K worse than optimal", "K = 10: no knock in romis", "gin: opponent melded")
    ), seen
