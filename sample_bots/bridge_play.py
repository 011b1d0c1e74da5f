"""The sample bots' plays for rummy-bridge (rules/rummy-bridge.md; brain.PLANNERS). Both bots declare rummy when
they can; greedy picks the discard that leaves the largest bonus (suit sequence, one suit or figures before an
ordinary rummy), knocks whenever a knock is offered (the lowest free card), and otherwise keeps the hand closest to
combinations. Random then picks any offered option. Between deals of tariff-bridge (re-enter or drop out at the
limit) greedy re-enters while an even share of the bank, the fee paid, is worth more than the fee."""

from typing import TYPE_CHECKING, Any

from protocol.messages import Bid, Decision, Discard, Knock, Meld, Op, Pass

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def declaration(brain: "Brain", hand: list[str], discards: list[str]) -> list[Op]:
    """A rummy: 10 cards shown in combinations and the 11th discarded; greedy takes the largest bonus; []: none."""
    from referee.rules.variants.rummy_bridge import BONUSES

    game, best = brain.game, None
    for card in discards:
        rest = list(hand)
        rest.remove(card)
        category = game.category(rest)
        if category and (best is None or BONUSES[category] > BONUSES[best[0]]):
            best = (category, card, rest)
            if not brain.greedy:
                break
    if best is None:
        return []
    category, card, rest = best
    if category == "ordinary":
        melds = brain._melds(game.split(rest))
    else:  # a suit sequence is one 10-card run; one suit and figures are whole-hand kinds
        melds = [Meld(rest, kind="run" if category == "suit-sequence" else category)]
    return [*melds, Discard(card)]


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one rummy-bridge decision."""
    options, hand = decision.options or [], list(view["hand"])
    if decision.phase == "between-deals":
        return [reentry(decision, view)] if brain.greedy else [brain.rng.choice(options)]
    if decision.phase == "draw":
        return [brain._draw(options, view)]
    discards = [o.card for o in options if isinstance(o, Discard)]
    if decision.constraints.get("final_round"):
        return [Discard(brain._pick_discard(discards, hand))]
    rummy = declaration(brain, hand, discards)
    if rummy:
        return rummy
    if not brain.greedy:
        return [brain.rng.choice(options)]
    knocks = [o for o in options if isinstance(o, Knock) and o.discard]
    if knocks:
        return [min(knocks, key=lambda k: (_free(brain, hand, k.discard), k.discard))]
    return [Discard(brain._pick_discard(discards, hand))]


def _free(brain: "Brain", hand: list[str], card: Any) -> int:
    """What the knocker's free card costs after discarding `card`."""
    rest = list(hand)
    rest.remove(card)
    return brain.game.penalty(brain.game.knock_card(rest) or "JK")


def reentry(decision: Decision, view: dict[str, Any]) -> Op:
    """tariff-bridge at the limit: re-enter while an even share of the bank (with the fee in it) beats the fee."""
    fee = decision.constraints["fee"]
    staying = view["dropped"].count(False)
    return Bid("reenter") if (view["bank"] + fee) / staying > fee else Pass()
