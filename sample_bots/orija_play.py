"""The sample bots' plays for orija (rules/orija.md). Random answers phase 1 with random legal options and in
phase 2 melds what its hand holds now and then, else picks a random listed option. Greedy declares four quartets
when it can, buys only one card short of a double quartet (or close to a triple or quadruple), shows its best
showing, takes a discard it can place at once, swaps jokers out of sequences, melds and extends its own
sequences, draws again whenever the drawn card went down, and discards what builds least. Used by `Brain`
(brain.py) through `PLANNERS`."""

from typing import TYPE_CHECKING, Any

from protocol.cards import JOKER, RANKS, SUITS
from protocol.messages import Bid, Decision, Discard, Draw, Exchange, Meld, Op, Pass
from referee.rules.cards import suit
from referee.rules.solver import best_split
from sample_bots.brain import _identities, _neighbours

if TYPE_CHECKING:
    from sample_bots.brain import Brain

BUY_AT = {7: 1, 10: 3, 11: 3, 14: 6, 15: 6}  # usable cards of the suit -> cards to buy


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one orija decision."""
    options = decision.options or [Pass()]
    phase, cons = decision.phase, decision.constraints
    if phase == "grand":
        return (
            _grand(view["hand"]) if cons["grand_possible"] and (brain.greedy or brain.rng.random() < 0.5) else [Pass()]
        )
    if phase == "settle":
        return _settle(brain, view["hand"], cons["discards_due"])
    if not brain.greedy:
        return _random(brain, decision, view, options)
    if phase == "buy":
        n = sum(1 for c in view["hand"] if c == JOKER or suit(c) == cons["suit"])
        k = BUY_AT.get(n)
        return [Bid(k)] if k and view["stock"] >= k else [Pass()]
    if decision.kind == "show":
        shows = [o for o in options if isinstance(o, Meld)]
        return [max(shows, key=lambda m: len(m.cards))] if shows else [Pass()]
    return _turn(brain, decision, view, options)


def _grand(hand: list[str]) -> list[Op]:
    """Four simple quartets of the whole hand, jokers standing for ranks the suit lacks."""
    ops: list[Op] = []
    for s in SUITS:
        cards = [c for c in hand if c != JOKER and suit(c) == s]
        fill = [r + s for r in RANKS if r + s not in cards][: 4 - len(cards)]
        ops.append(Meld(cards + [JOKER] * len(fill), fill or None))
    return ops


def _settle(brain: "Brain", hand: list[str], due: int) -> list[Op]:
    """The card a failed buyer gives up next: the loosest one (random: any)."""
    if not brain.greedy:
        return [Discard(brain.rng.choice(sorted(hand)))]
    dead = best_split(hand, brain.rules, brain.game.penalty).deadwood or hand
    return [Discard(min(dead, key=lambda c: (_neighbours(c, hand), c)))]


def _random(brain: "Brain", decision: Decision, view: dict[str, Any], options: list[Op]) -> list[Op]:
    """A random legal play: now and then the melds the hand holds, else a random option."""
    if decision.kind == "turn" and decision.phase != "draw" and brain.rng.random() < 0.3:
        melds = _melds(brain, view["hand"])
        if melds:
            return melds
    return [brain.rng.choice(options)]


def _melds(brain: "Brain", hand: list[str]) -> list[Op]:
    split = best_split(hand, brain.rules, brain.game.penalty)
    return [Meld(list(m.cards), _identities(m, brain.rules.wilds), "run") for m in split.melds]


def _placing(brain: "Brain", view: dict[str, Any], hand: list[str], mine: list[int]) -> list[Op]:
    """Table actions for `hand`: joker exchanges in any sequence, new sequences, lay-offs on own ones."""
    ops: list[Op] = []
    hand = list(hand)
    for t in view["table"]:
        for c, x in zip(t["cards"], t["identities"]):
            if c == JOKER and x in hand:
                ops.append(Exchange(t["id"], x))
                hand.remove(x)
                hand.append(JOKER)
    split = best_split(hand, brain.rules, brain.game.penalty)
    ops += [Meld(list(m.cards), _identities(m, brain.rules.wilds), "run") for m in split.melds]
    table = {**view, "table": [_after(t, ops) for t in view["table"]]}
    return ops + list(brain._lay_offs(list(split.deadwood), table, mine))


def _after(t: dict, ops: list[Op]) -> dict:
    """A table meld as it lies once `ops`' exchanges are made."""
    cards, ids = list(t["cards"]), list(t["identities"])
    for op in ops:
        if isinstance(op, Exchange) and op.meld == t["id"]:
            i = next(i for i, (c, x) in enumerate(zip(cards, ids)) if c == JOKER and x == op.card)
            cards[i] = op.card
    return {**t, "cards": cards, "identities": ids}


def _placed(ops: list[Op]) -> list[str]:
    return [c for op in ops for c in ([op.card] if isinstance(op, Exchange) else getattr(op, "cards", []))]


def _turn(brain: "Brain", decision: Decision, view: dict[str, Any], options: list[Op]) -> list[Op]:
    """Phase 2: take a usable discard, place what fits, draw again after a used card, discard the loosest."""
    hand, mine = list(view["hand"]), decision.constraints.get("layoff_melds", [])
    pile = view["discard"]
    can_take = decision.phase in ("draw", "after-stock") or decision.constraints.get("draw_again")
    if can_take and pile:
        ops = _placing(brain, view, hand + [pile[-1]], mine)
        if pile[-1] in _placed(ops):
            return [Draw("discard")] + ops
    if decision.phase == "draw":
        return [Draw("stock")]
    ops = _placing(brain, view, hand, mine)
    if ops:
        drawn = decision.constraints.get("drawn")
        if drawn in _placed(ops) and view["stock"]:
            ops.append(Draw("stock"))  # the card drawn went down: draw again (Ambiguity 24)
        return ops
    if Draw("stock") in options:
        return [Draw("stock")]
    discards = [o.card for o in options if isinstance(o, Discard)]
    if discards:
        return [Discard(brain._pick_discard(discards, hand))]
    return [Pass()]
