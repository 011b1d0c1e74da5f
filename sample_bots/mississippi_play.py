"""The sample bots' plays for mississippi (rules/mississippi.md; brain.PLANNERS). After the draw greedy puts down
its best melds (a Mississippi among them), lays off what fits on any meld, and discards; it knocks with that discard
whenever the cards left count 5 or less, and buys back whenever it is offered. Random melds and lays off some of
the time, discards at random, knocks half the time it may, and answers a buy-back at random."""

from typing import TYPE_CHECKING, Any

from protocol.messages import Bid, Decision, Discard, Knock, Op

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one mississippi decision."""
    options = decision.options or []
    if decision.kind == "buyback":
        return [Bid("buyback")] if brain.greedy else [brain.rng.choice(options)]
    if decision.phase == "draw":
        return [brain._draw(options, view)]
    return turn_end(brain, decision, view)


def turn_end(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """Melds, lay-offs and the discard (or the knock with it) that end the turn."""
    from referee.rules.solver import best_split

    hand = list(view["hand"])
    ops: list[Op] = []
    if brain.greedy or brain.rng.random() < 0.5:
        split = best_split(hand, brain.rules, brain.game.penalty)
        ops += brain._melds(split)
        hand = list(split.deadwood)
        ops += brain._lay_offs(hand, view)  # removes the cards it lays off from `hand`
    if not hand:
        return ops
    legal = {o.card for o in options_of(decision, Discard)}
    choices = sorted({c for c in hand if c in legal}) or sorted(set(hand))
    card = brain._pick_discard(choices, hand)
    hand.remove(card)
    knock = sum(map(brain.game.penalty, hand)) <= decision.constraints.get("knock_limit", 5)
    if knock and hand and (brain.greedy or brain.rng.random() < 0.5):
        return [*ops, Knock(card)]
    return [*ops, Discard(card)]


def options_of(decision: Decision, kind: type) -> list[Any]:
    """The decision's options of one op type."""
    return [o for o in decision.options or [] if isinstance(o, kind)]
