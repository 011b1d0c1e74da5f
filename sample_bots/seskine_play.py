"""The sample bots' plays for seskine (rules/seskine.md; brain.PLANNERS). Both bots declare whenever all seven
cards are in combinations (one 7-card run when the hand is one, for its bonus), before drawing if they can.
After such a declaration greedy adds every fitting discard, to a sequence first (the long-sequence bonus); random
picks any option. Otherwise greedy keeps the hand closest to combinations."""

from typing import TYPE_CHECKING, Any

from protocol.messages import Decision, Discard, LayOff, Op

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def declaration(brain: "Brain", hand: list[str]) -> list[Op]:
    """Melds holding all of `hand` (a single run where it is one), or [] if it cannot be declared."""
    from referee.rules.variants.seskine import arrangement

    split = arrangement(hand)
    return [] if split.deadwood else brain._melds(split)


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one seskine decision."""
    options, hand = decision.options or [], list(view["hand"])
    if decision.phase == "extend":
        if not brain.greedy:
            return [brain.rng.choice(options)]
        runs = {t["id"] for t in view["table"] if t["kind"] == "run"}
        adds = [o for o in options if isinstance(o, LayOff)]
        return [min(adds, key=lambda o: o.meld not in runs) if adds else options[-1]]
    if decision.phase == "draw":
        return declaration(brain, hand) or [brain._draw(options, view)]
    discards = [o.card for o in options if isinstance(o, Discard)]
    for card in discards:
        rest = list(hand)
        rest.remove(card)
        melds = declaration(brain, rest)
        if melds:
            return [*melds, Discard(card)]
    return [Discard(brain._pick_discard(discards, hand))]
