"""The sample bots' plays for carpathian (rules/carpathian.md; brain.PLANNERS). Both bots meld their best
arrangement once it reaches the 51 (or empties the hand: a rummy from the hand), leave out a new set that would
break the four-suit condition with their own sets on the table, then lay off what fits and discard. Greedy
also takes the top discard when its play uses it (once opened, in a meld; before that, only for a rummy from the
hand), and keeps the hand closest to combinations; random draws from the stock and melds half the time when it
could wait."""

from collections import Counter
from typing import TYPE_CHECKING, Any

from protocol.messages import Decision, Discard, Draw, Meld, Op
from referee.rules.melds import TableMeld

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one carpathian decision."""
    if decision.phase == "draw":
        if brain.greedy and view["discard"]:
            top = view["discard"][-1]
            ops = plan(brain, decision, view, [*view["hand"], top], top)
            if ops:
                return [Draw("discard"), *ops]
        return [Draw("stock")]
    return plan(brain, decision, view, list(view["hand"]), None)


def fit_groups(melds: list[TableMeld], own: list[TableMeld]) -> list[TableMeld]:
    """`melds` less the new sets that would leave a rank's sets (with one's own on the table) short of a suit."""
    from referee.rules.variants.hungarian import short_groups

    kept = list(melds)
    while short := short_groups(own + kept):
        kept.remove(next(m for m in kept if m.kind == "set" and m.ids[0][0] == short[0]))
    return kept


def plan(brain: "Brain", decision: Decision, view: dict[str, Any], hand: list[str], taken: str | None) -> list[Op]:
    """Melds, lay-offs and the discard for `hand`; with `taken` (the top discard, already in `hand`) the plan must
    use it legally, else [] (no take)."""
    game, seat = brain.game, view["seat"]
    opened = decision.constraints.get("opened", False)
    own = [TableMeld(t["kind"], tuple(t["cards"]), tuple(t["identities"]), t["owner"]) for t in view["table"]]
    melds = fit_groups(game.split(hand).melds, [m for m in own if m.owner == seat and m.kind == "set"])
    left = list((Counter(hand) - Counter(c for m in melds for c in m.cards)).elements())
    worth = sum(game.meld_points(m) for m in melds)
    out = not left or (len(left) == 1 and left[0] != taken)  # a rummy, or going out with a final discard
    opens = opened or worth >= game.initial_meld
    meld_now = bool(melds) and (opens or out)
    if meld_now and not brain.greedy and not out and brain.rng.random() < 0.5:
        meld_now = False
    if taken and not (meld_now and taken not in left and (opened or out)):
        return []  # the take must go into a meld; unopened, only in a rummy from the hand
    ops: list[Op] = []
    if meld_now:
        ops += [Meld(list(m.cards), _wild_ids(m, brain), m.kind) for m in melds]
    else:
        left = list(hand)
    if opens and (meld_now or opened) and not (taken and not opened):  # a rummy from the hand lays nothing off
        ops += brain._lay_offs(left, view)  # removes what it lays off from `left`
    if not left:
        return ops
    legal = {o.card for o in decision.options or [] if isinstance(o, Discard)}
    choices = sorted({c for c in left if (c != taken if taken else c in legal)}) or sorted(set(left))
    return [*ops, Discard(brain._pick_discard(choices, left))]


def _wild_ids(meld: TableMeld, brain: "Brain") -> list[str] | None:
    """What each joker of `meld` stands for, in card order."""
    return [x for c, x in zip(meld.cards, meld.ids) if c in brain.rules.wilds] or None
