"""The sample bots' plays for carousel (rules/carousel.md; brain.PLANNERS).

Combinations held in the hand cost nothing at a showdown (only free cards count), while a table action ends the
drawing and gives the others melds to lay off on and rob. So greedy keeps its combinations in hand; it goes out
when its whole hand fits on the table (all at once earns 25 more), knocks as soon as its free points, after any
lay-offs of free cards on the table, are 5 or less, and otherwise lays off the free cards it can (which also stops
its drawing) or draws again. In the final round it
puts down what it can. Random draws, melds, knocks or passes at random among legal plays. Neither robs (the fuzzer
and the unit tests do)."""

from typing import TYPE_CHECKING, Any

from protocol.messages import Decision, Knock, LayOff, Op, Pass
from referee.rules.solver import best_split

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def table_actions(brain: "Brain", view: dict[str, Any]) -> tuple[list[Op], int]:
    """The hand's best combinations as melds, then lay-offs of the free cards on any meld; and the free points
    left after the lay-offs."""
    split = best_split(list(view["hand"]), brain.rules, brain.game.penalty)
    free = list(split.deadwood)
    lay_offs = brain._lay_offs(free, view)  # removes what it lays off from `free`
    return [*brain._melds(split), *lay_offs], sum(map(brain.game.penalty, free))


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one carousel decision."""
    options = decision.options or []
    knock = next((o for o in options if isinstance(o, Knock)), None)
    if not brain.greedy:
        if decision.phase in ("play", "final") and brain.rng.random() < 0.3:
            act, _ = table_actions(brain, view)
            return act or [brain.rng.choice(options)]
        return [brain.rng.choice(options)]
    if decision.phase in ("draw", "last"):
        return [knock] if knock else [options[0]]
    act, left = table_actions(brain, view)
    if decision.phase == "final":
        return act or [Pass()]
    placed = sum(len(op.cards) for op in act if hasattr(op, "cards"))
    if act and placed == len(view["hand"]):
        return act  # the whole hand goes down: out
    lay_offs: list[Op] = [op for op in act if isinstance(op, LayOff)]
    if left <= 5 and (knock or lay_offs):
        return [*lay_offs, Knock()]
    if lay_offs:  # free cards onto the table: fewer free points, and no more cards drawn this turn
        return lay_offs
    return [next((o for o in options if not isinstance(o, Knock)), options[0])]
