"""The sample bots' plays for hungarian (rules/hungarian.md; brain.PLANNERS). Both bots declare whenever ten of
their eleven cards are all in combinations (the same-rank sets showing all four suits, jokers' suits stated).
Otherwise greedy draws and discards to keep the hand closest to combinations, the costliest cards first; random
picks any offered option."""

from typing import TYPE_CHECKING, Any

from protocol.messages import Decision, Discard, Meld, Op

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def declaration(brain: "Brain", hand: list[str], discards: list[str]) -> list[Op]:
    """Melds holding ten cards of `hand` and the discard of the eleventh (greedy throws the costliest); []: none."""
    game = brain.game
    for card in sorted(discards, key=game.penalty, reverse=True):
        rest = list(hand)
        rest.remove(card)
        split = game.split(rest)
        if not split.deadwood:
            melds: list[Op] = [Meld(list(m.cards), _wild_ids(m, brain), m.kind) for m in split.melds]
            return [*melds, Discard(card)]
    return []


def _wild_ids(meld: Any, brain: "Brain") -> list[str] | None:
    """What each joker of `meld` stands for (the suits chosen for the four-suit condition), in card order."""
    return [x for c, x in zip(meld.cards, meld.ids) if c in brain.rules.wilds] or None


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one hungarian decision."""
    options, hand = decision.options or [], list(view["hand"])
    if decision.phase == "draw":
        return [brain._draw(options, view)]
    discards = [o.card for o in options if isinstance(o, Discard)]
    return declaration(brain, hand, discards) or [Discard(brain._pick_discard(discards, hand))]
