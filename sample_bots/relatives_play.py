"""The sample bots' plays for relatives (rules/relatives.md). Random answers with a random legal option. Greedy
lays down as soon as it can (all 8 cards first, then taking every discard that fits), takes the top discard when
the hand it makes is closer to a layout, and otherwise discards the card that keeps the most relations. Used by
`Brain` (brain.py) through `PLANNERS`."""

from typing import TYPE_CHECKING, Any

from protocol.messages import Decision, Discard, Draw, Meld, Op
from referee.rules.related import CYCLE, is_layout

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def _near(a: str, b: str) -> bool:
    """Same rank, or same suit one rank apart round the corner: the relation layouts are built on."""
    gap = abs(CYCLE.index(a[0]) - CYCLE.index(b[0]))
    return a[0] == b[0] or (a[1] == b[1] and gap in (1, 12))


def _worth(hand: list[str]) -> int:
    """How close a hand is to a layout: related pairs (the most-connected cards count most)."""
    return sum(_near(a, b) for i, a in enumerate(hand) for b in hand[i + 1 :])


def _keep(hand: list[str], choices: list[str]) -> str:
    """The discard that leaves the best hand."""
    return max(sorted(choices), key=lambda c: _worth([x for x in hand if x != c]))


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one relatives decision."""
    options = decision.options or []
    if not brain.greedy:
        return [brain.rng.choice(options)]
    if decision.phase == "extend":
        return [options[0]]  # a fitting discard: every card beyond the 7th scores
    hand = list(view["hand"])
    if decision.phase == "draw":
        pile = view["discard"]
        if pile and Draw("discard") in options:
            top = pile[-1]
            if is_layout(hand + [top]) or _worth(hand + [top]) - _worth(hand) >= 2:
                return [Draw("discard")]
        return [Draw("stock")] if Draw("stock") in options else [options[0]]
    melds = sorted((o for o in options if isinstance(o, Meld)), key=lambda m: -len(m.cards))
    if melds:
        return [melds[0]]
    return [Discard(_keep(hand, [o.card for o in options if isinstance(o, Discard)]))]
