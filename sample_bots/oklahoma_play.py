"""The sample bots' plays for new-oklahoma (rules/new-oklahoma.md; brain.PLANNERS). Both bots keep a card for the
compulsory final discard, meld only the cards the pile lock allows, and lay off on their own sets only. Greedy
takes the discard pile whenever its top card makes a set with its hand, melds every set it can and never discards
a wild card while it holds another card; random takes the pile now and then and melds half of the time."""

from collections import Counter
from typing import TYPE_CHECKING, Any

from protocol.messages import Decision, Discard, Draw, Meld, Op
from referee.rules.melds import TableMeld
from referee.rules.solver import best_split

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one new-oklahoma decision."""
    hand = list(view["hand"])
    if decision.phase == "draw":
        take = _take(brain, view)
        return take or [Draw("stock")]
    legal = [o.card for o in decision.options or [] if isinstance(o, Discard)]
    return _finish(brain, hand, list(decision.constraints.get("locked", [])), legal, view, decision)


def _take(brain: "Brain", view: dict[str, Any]) -> list[Op]:
    """The pile take with the set its top card makes with held cards, then the rest of the turn; [] to draw."""
    pile = view["discard"]
    if not pile or (not brain.greedy and brain.rng.random() < 0.7):
        return []
    top = pile[-1]
    split = best_split(view["hand"] + [top], brain.rules, brain.game.penalty)
    meld = next((m for m in split.melds if top in m.cards), None)
    if meld is None:
        return []
    hand = view["hand"] + pile[::-1]
    for card in meld.cards:
        hand.remove(card)
    if not hand:  # the set would empty the hand: no card left for the compulsory discard
        return []
    locked = pile[:-1]
    ops: list[Op] = [Draw("discard", depth=len(pile)), _meld_op(brain, meld)]
    legal = sorted({c for c in hand if c != top}) or sorted(set(hand))  # the re-discard ban on the top card's code
    return ops + _finish(brain, hand, locked, legal, view, None)


def _meld_op(brain: "Brain", meld: TableMeld) -> Meld:
    wild = [x for c, x in zip(meld.cards, meld.ids) if c in brain.rules.wilds]
    return Meld(list(meld.cards), wild or None, meld.kind)


def _finish(
    brain: "Brain", hand: list[str], locked: list[str], legal: list[str], view: dict[str, Any], d: Decision | None
) -> list[Op]:
    """Melds and lay-offs of the unlocked cards that keep a card in hand, then the discard."""
    free = list((Counter(hand) - Counter(locked)).elements())
    ops: list[Op] = []
    if brain.greedy or brain.rng.random() < 0.5:
        for meld in best_split(free, brain.rules, brain.game.penalty).melds:
            if len(hand) - len(meld.cards) < 1:
                continue  # the final discard is compulsory: never meld the last card
            ops.append(_meld_op(brain, meld))
            for card in meld.cards:
                hand.remove(card)
                free.remove(card)
    mine = (
        d.constraints.get("layoff_melds", []) if d else [t["id"] for t in view["table"] if t["owner"] == view["seat"]]
    )
    for op in brain._lay_offs(list(free), view, mine):
        if len(hand) <= 1:
            break
        ops.append(op)
        hand.remove(op.cards[0])
    choices = sorted({c for c in hand if c in legal}) or sorted(set(hand))
    if brain.greedy:
        natural = [c for c in choices if c not in brain.rules.wilds]
        return [*ops, Discard(brain._pick_discard(natural or choices, hand))]
    return [*ops, Discard(brain.rng.choice(choices))]
