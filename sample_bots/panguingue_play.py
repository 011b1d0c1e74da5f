"""The sample bots' plays for panguingue (rules/panguingue.md). Random answers the join, demand and forced
decisions with a random listed option, draws a random listed source, and half the time melds its best split
before a random legal discard. Greedy always takes part, never demands (a forced card pays its taker), takes the
top discard when it joins one of its melds or a new meld at once, melds every combination it holds (conditions are
paid at once), adds what fits to its own melds, puts its drawn card on the next player's melds when it is spare,
and discards the card that leaves the best split. Used by `Brain` (brain.py) through `PLANNERS`."""

from typing import TYPE_CHECKING, Any

from protocol.messages import Bid, Decision, Discard, Draw, LayOff, Meld, Op, Pass
from referee.rules.melds import TableMeld, lay_off
from referee.rules.solver import best_split
from referee.rules.variants.panguingue import PANGUINGUE_MELDS as RULES

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one panguingue decision."""
    options = decision.options or []
    if decision.kind in ("join", "demand"):
        if not brain.greedy:
            return [brain.rng.choice(options)]
        return [Bid("join")] if decision.kind == "join" else [Pass()]
    if decision.phase == "forced":
        return [options[0] if brain.greedy else brain.rng.choice(options)]
    if decision.phase == "draw":
        return _draw(brain, decision, view) if brain.greedy else [brain.rng.choice(options)]
    if not brain.greedy and brain.rng.random() < 0.5:
        return [brain.rng.choice(options)]
    return _play(brain, decision, view)


def _melds(view: dict[str, Any], owner: int) -> list[tuple[int, TableMeld]]:
    """The table melds of `owner`, with their ids."""
    return [
        (t["id"], TableMeld(t["kind"], tuple(t["cards"]), tuple(t["identities"]), owner))
        for t in view["table"]
        if t["owner"] == owner and t["cards"]
    ]


def _fits(brain: "Brain", meld: TableMeld, card: str) -> bool:
    return bool(brain.game.fits(meld, [card]))


def _draw(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """Take the top discard onto an own meld or into a new meld at once, or freely when it helps; else the stock."""
    if not view["discard"]:
        return [Draw("stock")]
    top, hand = view["discard"][-1], list(view["hand"])
    for i, meld in _melds(view, view["seat"]):
        if _fits(brain, meld, top):
            return [Draw("discard"), LayOff(i, [top])]
    before = len(best_split(hand, RULES, lambda c: 1).deadwood)
    split = best_split([*hand, top], RULES, lambda c: 1)
    if len(split.deadwood) < before + 1:
        with_top = next((m for m in split.melds if top in m.cards), None)
        if with_top is not None:
            return [Draw("discard"), Meld(list(with_top.cards))]
        if decision.constraints.get("free_take"):
            return [Draw("discard")]
    return [Draw("stock")]


def _play(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """Meld the best split, add spare cards to own melds (the drawn card to the next player's), then discard."""
    hand = list(view["hand"])
    split = best_split(hand, RULES, lambda c: 1)
    ops: list[Op] = [Meld(list(m.cards)) for m in split.melds]
    spare = list(split.deadwood)
    own = _melds(view, view["seat"])
    nxt = _melds(view, decision.constraints.get("next_player", -1))
    drawn = view.get("drawn")
    for card in sorted(spare):
        target = next((i for i, m in own if _fits(brain, m, card)), None)
        if target is None and card == drawn and not any(isinstance(o, LayOff) and o.meld in dict(nxt) for o in ops):
            target = next((i for i, m in nxt if _fits(brain, m, card)), None)
        if target is not None and card in spare:
            ops.append(LayOff(target, [card]))
            spare.remove(card)
            melds = dict(own) if target in dict(own) else dict(nxt)
            grown = lay_off(melds[target], [card], RULES)
            own = [(i, grown if i == target else m) for i, m in own]
            nxt = [(i, grown if i == target else m) for i, m in nxt]
    if not spare:
        return ops  # every card used: out
    legal = {o.card for o in decision.options or [] if isinstance(o, Discard)}
    choices = sorted({c for c in spare if c in legal}) or sorted(set(spare))
    return [*ops, Discard(brain._pick_discard(choices, spare))]
