"""The sample bots' plays for victoria (rules/victoria.md; brain.PLANNERS). Random picks any legal option. Greedy
declares as soon as it can, with the discard that leaves the best pattern (the largest bonus, then the lowest
penalty); otherwise it draws and discards to keep the least deadwood. Between deals it buys down when that takes
at least 10 points off, and re-enters when the others' average is at most 60, in both cases only while at most one
other player still contends for the bank."""

from typing import TYPE_CHECKING, Any

from protocol.messages import Bid, Decision, Discard, Knock, Op, Pass

if TYPE_CHECKING:
    from sample_bots.brain import Brain

BUYDOWN_GAIN = 10  # the fewest points a buy-down must take off to be worth half the bank
REENTRY_MOST = 60  # the highest total a re-entry may give to be worth half the bank


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one victoria decision."""
    options, hand = decision.options or [], list(view["hand"])
    if not brain.greedy:
        return [brain.rng.choice(options)]
    if decision.kind in ("buydown", "reentry"):
        return [between(decision, view)]
    if decision.phase == "draw":
        return [brain._draw(options, view)]
    knocks = [o for o in options if isinstance(o, Knock) and o.discard is not None]
    if knocks:
        return [min(knocks, key=lambda k: declared(brain, hand, k))]
    discards = [o.card for o in options if isinstance(o, Discard)]
    return [Discard(brain._pick_discard(discards, hand))]


def declared(brain: "Brain", hand: list[str], knock: Knock) -> tuple[int, str]:
    """What declaring with this discard adds to one's total (lower is better), then the card."""
    rest = list(hand)
    rest.remove(str(knock.discard))
    pattern = brain.game.pattern(rest)
    return (pattern.change if pattern else 1000), str(knock.discard)


def between(decision: Decision, view: dict[str, Any]) -> Op:
    """Buy down for a real gain, or re-enter at a low enough total, and only while at most one other player still
    contends for the bank: then half the bank is worth paying (with more contenders it most likely goes to another).
    Trump's greedy bot answers the same way."""
    c = decision.constraints
    own = view["points"][view["seat"]]
    contenders = sum(1 for s, beyond in enumerate(view["beyond"]) if not beyond and s != view["seat"])
    gain = own - c["total"] >= BUYDOWN_GAIN if decision.kind == "buydown" else c["total"] <= REENTRY_MOST
    worth = gain and contenders <= 1
    return Bid(decision.options[0].value) if worth and decision.options else Pass()  # type: ignore[union-attr]
