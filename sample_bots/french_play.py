"""The sample bots' plays for french (rules/french.md; brain.PLANNERS). Greedy declares rummy whenever the whole
hand goes down (with 8 cards where allowed), takes the top discard when it joins a combination (setting aside the
card whose loss costs least), discards to keep the least deadwood, and uses its one manipulation on whatever takes
the most penalty points out of its hand; it buys back while the bank is worth more than the fee. Random draws,
sets aside, discards and manipulates at random among legal plays, and buys back half the time."""

from typing import TYPE_CHECKING, Any

from protocol.messages import Bid, Decision, Discard, Draw, LayOff, Op, Pass
from referee.rules.errors import IllegalAction
from referee.rules.melds import TableMeld, lay_off
from referee.rules.solver import best_split

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one french decision."""
    if decision.kind == "buyback":
        fee, left = decision.constraints["fee"], view["bankrupt"].count(False)
        yes = fee < view["bank"] / max(1, left) if brain.greedy else brain.rng.random() < 0.5
        return [Bid("buyback") if yes else Pass()]
    hand, eight = list(view["hand"]), decision.constraints["eight_card_rummy"]
    if decision.phase == "draw":
        top = view["discard"][-1]
        if eight and brain.greedy and whole(brain, hand + [top]):
            return [Draw("discard"), *brain._melds(best_split(hand + [top], brain.rules, brain.game.penalty))]
        if taking_pays(brain, hand, top):
            out = brain._pick_discard(hand, hand + [top]) if brain.greedy else brain.rng.choice(hand)
            rest = [*hand, top]
            rest.remove(out)
            return [Discard(out), Draw("discard"), *manipulation(brain, rest, view, decision)]
        return [Draw("stock")]
    if decision.phase == "discard":
        if eight and whole(brain, hand):
            return brain._melds(best_split(hand, brain.rules, brain.game.penalty))
        out = brain._pick_discard(sorted(set(hand)), hand)
        hand.remove(out)
        return [Discard(out), *manipulation(brain, hand, view, decision)]
    return manipulation(brain, hand, view, decision) or [Pass()]


def whole(brain: "Brain", hand: list[str]) -> bool:
    """Whether every card of `hand` fits in combinations."""
    return not best_split(hand, brain.rules, brain.game.penalty).deadwood


def taking_pays(brain: "Brain", hand: list[str], top: str) -> bool:
    """Greedy: the top discard joins a combination; random: half the time."""
    if not brain.greedy:
        return brain.rng.random() < 0.5
    value = brain.game.penalty
    before = best_split(hand, brain.rules, value).points
    return best_split(hand + [top], brain.rules, value).points < before + value(top) - 0.5


def manipulation(brain: "Brain", hand: list[str], view: dict[str, Any], decision: Decision) -> list[Op]:
    """The turn's one manipulation for a hand of `hand` after the discard: a rummy if the whole hand goes down,
    else the meld or connected lay-off that sheds the most penalty points ([] for none; random skips half the time)."""
    if not brain.greedy and brain.rng.random() < 0.5:
        return []
    split = best_split(hand, brain.rules, brain.game.penalty)
    seat, others = view["seat"], decision.constraints["lay_off_on_others"]
    allowed = [t["id"] for t in view["table"] if t["kind"] == "run" and (others or t["owner"] == seat)]
    melds = brain._melds(split)
    lay_offs = brain._lay_offs(list(split.deadwood), view, allowed)
    if len(split.deadwood) == sum(len(o.cards) for o in lay_offs):
        return [*melds, *lay_offs]  # rummy: the whole hand at once
    value = brain.game.penalty
    best: list[Op] = []
    gain = 0
    for op, m in zip(melds, split.melds):
        if sum(map(value, m.cards)) > gain:
            best, gain = [op], sum(map(value, m.cards))
    for op2 in connected_lay_offs(brain, list(split.deadwood), view, allowed):
        if sum(map(value, op2.cards)) > gain:
            best, gain = [op2], sum(map(value, op2.cards))
    return best


def connected_lay_offs(brain: "Brain", cards: list[str], view: dict[str, Any], allowed: list[int]) -> list[LayOff]:
    """For each sequence open to us and each of its ends, the longest chain of `cards` that extends it there."""
    out = []
    for t in view["table"]:
        if t["id"] not in allowed:
            continue
        meld = TableMeld(t["kind"], tuple(t["cards"]), tuple(t["identities"]), t["owner"])
        for low in (True, False):
            chain, grown, left = [], meld, list(cards)
            while True:
                nxt = next((c for c in left if c != "JK" and fits_end(brain, grown, c, low)), None)
                if nxt is None:
                    break
                grown = lay_off(grown, [nxt], brain.rules)
                chain.append(nxt)
                left.remove(nxt)
            if chain:
                out.append(LayOff(t["id"], chain))
    return out


def fits_end(brain: "Brain", meld: TableMeld, card: str, low: bool) -> bool:
    """Whether natural `card` extends run `meld` at its low (or high) end."""
    try:
        grown = lay_off(meld, [card], brain.rules)
    except IllegalAction:
        return False
    return grown.ids[0 if low else -1] == card
