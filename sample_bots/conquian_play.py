"""The sample bots' plays for conquian (rules/conquian.md). Random answers every decision with a random listed
option: the turn-up, burying the turned card or one listed use of it, a random burial. Greedy uses the turned card
whenever its own melds, regrouped if need be, can hold it: it lays down the arrangement of its melds, its hand and
the turned card that melds the most cards, then buries the hand card with the fewest partners still to be had.
Used by `Brain` (brain.py) through `PLANNERS`."""

from typing import TYPE_CHECKING, Any

from protocol.messages import Decision, Discard, LayOff, Meld, Op, Pass, Rearrange
from referee.rules.cards import deck, rank, suit
from referee.rules.melds import TableMeld
from referee.rules.solver import best_split

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one conquian decision."""
    options = decision.options or []
    if not brain.greedy or decision.phase == "draw":
        return [brain.rng.choice(options)]
    if decision.phase == "turned":
        return _use(brain, decision, view) or [Pass()]
    return [Discard(_bury(brain, view, list(view["hand"])))]


def _use(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The play that melds the most cards with the turned card and every card already melded, then a burial;
    [] if the turned card fits nowhere."""
    mine = [t for t in view["table"] if t["owner"] == view["seat"] and t["cards"]]
    must = {c for t in mine for c in t["cards"]} | {decision.constraints["turned"]}
    split = best_split([*view["hand"], *must], brain.rules, lambda c: 100 if c in must else 1)
    if must & set(split.deadwood):
        return []
    ops = _ops(mine, split.melds)
    hand = list(split.deadwood)
    return [*ops, Discard(_bury(brain, view, hand, split.melds))] if hand else ops


def _ops(mine: list[dict], melds: list[TableMeld]) -> list[Op]:
    """Lay-offs and new melds where each own meld grows into one meld of `melds`; else one regrouping of them."""
    inside = {i: [t for t in mine if set(t["cards"]) <= set(m.cards)] for i, m in enumerate(melds)}
    if sum(len(v) for v in inside.values()) == len(mine) and all(len(v) <= 1 for v in inside.values()):
        ops: list[Op] = []
        for i, m in enumerate(melds):
            if not inside[i]:
                ops.append(Meld(list(m.cards)))
            elif len(m.cards) > len(inside[i][0]["cards"]):
                old = inside[i][0]
                ops.append(LayOff(old["id"], [c for c in m.cards if c not in old["cards"]]))
        return ops
    held = {c for t in mine for c in t["cards"]}
    first = sorted(melds, key=lambda m: not held & set(m.cards))  # the melds holding old cards take their places
    return [Rearrange([t["id"] for t in mine], [Meld(list(m.cards)) for m in first])]


def _bury(brain: "Brain", view: dict[str, Any], hand: list[str], melds: list[TableMeld] | None = None) -> str:
    """The hand card with the fewest partners (same rank, or same suit within two places of the sequence order)
    among the cards held or melded (3 each) and those not yet seen (1 each)."""
    if melds is None:
        mine = [c for t in view["table"] if t["owner"] == view["seat"] for c in t["cards"]]
    else:
        mine = [c for m in melds for c in m.cards]
    seen = {c for t in view["table"] for c in t["cards"]} | set(view["dead"]) | set(view["buried"]) | set(hand)
    unseen = [c for c in deck(size=40) if c not in seen and c not in mine]
    order = brain.rules.run_ranks

    def partner(a: str, b: str) -> bool:
        near = suit(a) == suit(b) and abs(order.index(rank(a)) - order.index(rank(b))) <= 2
        return a != b and (rank(a) == rank(b) or near)

    def worth(card: str) -> tuple[int, str]:
        own = sum(partner(card, c) for c in [*hand, *mine])
        return 3 * own + sum(partner(card, c) for c in unseen), card

    return min(hand, key=worth)
