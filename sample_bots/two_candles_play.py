"""The sample bots' plays for two-candles (brain.PLANNERS): random answers a random legal option each time;
greedy takes the combination that leaves the best 8-card hand and puts back the two cards that hurt it least,
and declines, once it may, when no take improves its hand."""

from itertools import combinations
from typing import TYPE_CHECKING, Any

from protocol.messages import Decision, Discard, Draw, Op, Pass

if TYPE_CHECKING:
    from sample_bots.brain import Brain

# what the unseen stock cards of a take are worth to greedy, beyond the known cards (an even chance to help)
STOCK_HOPE = {1: 1.0, 2: 1.5}


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one two-candles decision."""
    options = decision.options or []
    if not brain.greedy or decision.phase == "take-second":
        return [brain.rng.choice(options)]
    if decision.phase == "putback":
        return put_back(brain, view["hand"], decision.constraints["putback_piles"])
    return take(brain, view, bool(decision.constraints["decline_allowed"]))


def best_keep(brain: "Brain", cards: list[str], keep: int = 8) -> tuple[int, list[str]]:
    """The best value of `keep` of `cards`, and the cards left out to reach it."""
    value = brain.game.hand_value
    best: tuple[int, list[str]] | None = None
    for out in combinations(range(len(cards)), len(cards) - keep):
        rest = [c for i, c in enumerate(cards) if i not in out]
        score = value(rest)
        if best is None or score > best[0]:
            best = (score, [cards[i] for i in out])
    assert best is not None
    return best


def put_back(brain: "Brain", hand: list[str], piles: list[int]) -> list[Op]:
    """Discards of the cards whose loss costs least, one on each pile still waiting for one."""
    _, out = best_keep(brain, list(hand), len(hand) - len(piles))
    return [Discard(card, pile) for card, pile in zip(out, piles)]


def take(brain: "Brain", view: dict[str, Any], may_decline: bool) -> list[Op]:
    """The take whose known cards (plus a hope for stock cards) leave the best hand; with known cards only, the
    put-back rides in the same play. A decline where allowed and nothing improves the hand."""
    hand, piles, stock = list(view["hand"]), view["piles"], view["stock"]
    now = brain.game.hand_value(hand)
    plans: list[tuple[float, list[Op], list[str]]] = []  # (worth, draws, known cards taken)
    for p in range(2):
        if len(piles[p]) >= 2:
            plans.append((0.0, [Draw("discard", p, 2)], piles[p][-2:]))
        if stock:
            plans.append((STOCK_HOPE[1], [Draw("discard", p), Draw("stock")], piles[p][-1:]))
    plans.append((0.0, [Draw("discard", 0), Draw("discard", 1)], [piles[0][-1], piles[1][-1]]))
    if stock >= 2:
        plans.append((STOCK_HOPE[2], [Draw("stock", depth=2)], []))
    scored = []
    for hope, draws, known in plans:
        value, _ = best_keep(brain, hand + known)
        scored.append((value + hope, value, draws, known))
    _, value, draws, known = max(scored, key=lambda s: s[0])
    if may_decline and value <= now:
        return [Pass()]
    if len(known) == 2:  # nothing unseen: put back at once
        return [*draws, *put_back(brain, hand + known, [0, 1])]
    return draws
