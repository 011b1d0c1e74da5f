"""The sample bots' plays for trump (rules/trump.md; brain.PLANNERS). Greedy exchanges jokers it holds the card for,
melds its best combinations once they open (30 in one play), adds to its own melds, hangs its trump cards and
declares whenever it may; between deals it buys down or re-enters as victoria's greedy bot does. Random draws
and discards at random, melds and hangs half the time it could, and answers every other decision at random."""

from typing import TYPE_CHECKING, Any

from protocol.cards import JOKER
from protocol.messages import Decision, Discard, Exchange, LayOff, Meld, Op
from referee.rules.melds import TableMeld
from referee.rules.solver import best_split
from sample_bots import victoria_play

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one trump decision."""
    options = decision.options or []
    if decision.kind != "turn":  # between deals: a buy-down or a re-entry (bid), or pass
        if not brain.greedy:
            return [brain.rng.choice(options)]
        return [victoria_play.between(decision, view)]
    if decision.phase == "rummy":  # options: knock, pass
        return [options[0] if brain.greedy else brain.rng.choice(options)]
    if decision.phase == "draw":
        return [brain._draw(options, view)]
    return play(brain, decision, view)


def play(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """Exchanges, melds, additions and hangings, then the discard."""
    c, hand, seat, trump = decision.constraints, list(view["hand"]), view["seat"], decision.constraints["trump"]
    table = [TableMeld(t["kind"], tuple(t["cards"]), tuple(t["identities"]), t["owner"]) for t in view["table"]]
    ops: list[Op] = []
    if brain.greedy:
        for i, meld in enumerate(table):
            for p in meld.wild_positions():
                if meld.ids[p] in hand:  # the exact card the joker stands for: the joker comes to hand
                    ops.append(Exchange(i, meld.ids[p]))
                    hand.remove(meld.ids[p])
                    hand.append(JOKER)
                    cards, ids = list(meld.cards), list(meld.ids)
                    cards[p] = ids[p]
                    meld = table[i] = TableMeld(meld.kind, tuple(cards), tuple(ids), meld.owner)
    split = best_split(hand, brain.rules, brain.game.penalty)
    opened = c["opened"]
    worth = sum(brain.game.meld_points(m) for m in split.melds)
    if split.melds and (opened or worth >= c["initial_meld"]) and (brain.greedy or brain.rng.random() < 0.5):
        for m in split.melds:
            ops.append(Meld(list(m.cards), _wild_ids(m) or None, m.kind))
            table.append(TableMeld(m.kind, m.cards, m.ids, seat))
        hand, opened = list(split.deadwood), True
    if opened:
        own = [i for i, m in enumerate(table) if m.owner == seat]
        adds = brain._lay_offs(hand, {"table": [_entry(m) for m in table]}, own)
        ops += adds
    if brain.greedy or brain.rng.random() < 0.5:
        trumps = [x for x in hand if x != JOKER and x[0] == trump]
        target = next((i for i, m in enumerate(table) if _holds_trump(m, trump)), None)
        if trumps and target is not None:
            ops.append(LayOff(target, trumps))
            hand = [x for x in hand if x not in trumps]
    if not hand:
        return ops
    taken = view.get("taken")
    choices = sorted({x for x in hand if x != taken}) or sorted(set(hand))
    return [*ops, Discard(brain._pick_discard(choices, hand))]


def _wild_ids(meld: TableMeld) -> list[str]:
    return [y for x, y in zip(meld.cards, meld.ids) if x == JOKER]


def _entry(meld: TableMeld) -> dict[str, Any]:
    return {"kind": meld.kind, "cards": list(meld.cards), "identities": list(meld.ids), "owner": meld.owner}


def _holds_trump(meld: TableMeld, trump: str) -> bool:
    return any(x == y and x != JOKER and x[0] == trump for x, y in zip(meld.cards, meld.ids))
