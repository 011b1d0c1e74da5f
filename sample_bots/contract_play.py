"""The sample bots' plays for the contract family (may-i, contract, liverpool, continental): meet the deal's
requirement when the hand can, lay off once down, claim a discard when it helps, and keep two cards until
going out is allowed. Used by `Brain` (brain.py) for every decision whose constraints carry a `contract`."""

from itertools import combinations
from typing import TYPE_CHECKING, Any

from protocol.cards import JOKER
from protocol.messages import Claim, Decision, Discard, Draw, LayOff, Meld, Op, Pass
from referee.rules import kinds
from referee.rules.contracts import ContractGame, Part, Requirement, find_contract, find_cover, match
from referee.rules.melds import TableMeld
from referee.rules.solver import best_split, candidate_melds

RANK_ORDER = "A23456789TJQK"

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def requirements(constraints: dict[str, Any], distinct: bool = True) -> list[Requirement]:
    """The requirement(s) a decision's `contract` constraint describes (`distinct`: two sets of one requirement
    must differ in rank, as in every variant of the family but liverpool)."""
    c = constraints["contract"]
    listed = c.get("patterns", [c])
    return [
        Requirement(tuple(Part(p["kind"], p["min_size"]) for p in r["parts"]), "", distinct, r["distinct_runs"])
        for r in listed
    ]


def _family(brain: "Brain") -> ContractGame:
    """The bot's private instance of the variant, a contract game (its hooks: requirements, span)."""
    assert isinstance(brain.game, ContractGame)
    return brain.game


def _requirement(brain: "Brain", c: dict[str, Any]) -> Requirement:
    """The decision's requirement, with the variant's own "not alike" rule for sets (the same for every seat)."""
    return requirements(c, all(r.distinct_set_ranks for r in _family(brain).requirements(0)))[0]


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one decision of the contract family."""
    options = decision.options or []
    if decision.kind == "claim":
        return _claim(brain, decision, view)
    if decision.phase == "draw":
        draws: list[Op] = [o for o in options if isinstance(o, Draw) and o.depth == 1]
        return [brain._draw(draws, view)] if brain.greedy else [brain.rng.choice(options)]
    return _play(brain, decision, view)


def _helps(brain: "Brain", view: dict[str, Any]) -> bool:
    """Whether the top discard joins a meld of the hand's best split."""
    if not view["discard"]:
        return False
    top = view["discard"][-1]
    value = brain.game.penalty
    before = best_split(view["hand"], brain.rules, value).points
    after = best_split([*view["hand"], top], brain.rules, value).points
    return after <= before and after < before + value(top)


def _claim(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    options = decision.options or []
    if decision.phase == "discard":
        cards = [o.card for o in options if isinstance(o, Discard)]
        return [Discard(brain._pick_discard(cards, view["hand"]))]
    if not brain.greedy:
        return [brain.rng.choice(options)]
    single = next((o for o in options if isinstance(o, Claim | Draw) and o.depth == 1), None)
    return [single] if single is not None and _helps(brain, view) else [Pass()]


def _play(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """After the draw: go down (or out) if possible, meld more where allowed, lay off, then discard or pass."""
    c = decision.constraints
    hand, seat = list(view["hand"]), view["seat"]
    if "patterns" in c["contract"]:
        return _whole_hand(brain, decision, hand)
    ops: list[Op] = []
    new: list[TableMeld] = []
    opened = c["opened"]
    careless = not brain.greedy and brain.rng.random() < 0.5  # the random bot skips melding half the time
    if not opened and not c["free_melding"] and not careless:
        melds = find_contract(hand, requirements(c)[0], candidate_melds(hand, brain.rules))
        if melds:
            ops += _meld_ops(brain, melds, hand)
            new += melds
            opened = True
    met = True
    if c["free_melding"] and brain.greedy:  # liverpool: the requirement's melds first, then only once it is met
        melds = _toward(brain, _requirement(brain, c), _own(view, seat), hand)
        ops += _meld_ops(brain, melds, hand)
        new += melds
        opened = opened or bool(melds)
        met = _met(brain, view, seat, new, c)
    if (c["free_melding"] or (opened and c["melds_after"])) and not careless and met:
        melds = best_split(hand, brain.rules, brain.game.penalty).melds
        ops += _meld_ops(brain, melds, hand)
        new += melds
        opened = opened or bool(melds)
    if opened and not careless and met:
        lays = brain._lay_offs(list(hand), view)
        for op in lays:
            for card in op.cards:
                hand.remove(card)
        ops += lays
    may_out = _met(brain, view, seat, new, c) if c["free_melding"] else opened
    return _end(brain, decision, list(view["hand"]), hand, ops, may_out)


def _own(view: dict[str, Any], seat: int) -> list[TableMeld]:
    """The seat's own melds on the table."""
    return [
        TableMeld(t["kind"], tuple(t["cards"]), tuple(t["identities"]), t["owner"])
        for t in view["table"]
        if t["owner"] == seat and t["cards"]
    ]


def _met(brain: "Brain", view: dict[str, Any], seat: int, new: list[TableMeld], c: dict[str, Any]) -> bool:
    """Free melding: whether the seat's own melds, with `new`, meet its requirement (so it may go out)."""
    got = match(_requirement(brain, c), _own(view, seat) + new, exact=False, span=_family(brain).span)
    return not isinstance(got, str)


def _toward(brain: "Brain", req: Requirement, own: list[TableMeld], hand: list[str]) -> list[TableMeld]:
    """Free melding: melds from `hand` that, with the seat's own melds, meet as many parts of `req` as possible
    (all of them, or the most that the hand holds); [] when the own melds already meet it or nothing helps."""
    span, parts = _family(brain).span, req.parts
    if not isinstance(match(req, own, exact=False, span=span), str):
        return []
    rules = brain.rules
    found = [] if rules.kinds else candidate_melds(hand, rules)

    def find(want: Requirement) -> list[TableMeld] | None:  # named kinds: sets are dealt out, not listed
        return (
            kinds.find_requirement(hand, want, rules, span) if rules.kinds else find_contract(hand, want, found, span)
        )

    for size in range(len(parts), 0, -1):
        for chosen in combinations(range(len(parts)), size):
            sub = Requirement(tuple(parts[i] for i in chosen), "", req.distinct_set_ranks)
            for k in range(1, size + 1):  # the hand supplies as few parts as it can: the own melds meet the rest
                for mine in combinations(sub.parts, k):
                    melds = find(Requirement(mine, "", req.distinct_set_ranks))
                    if melds and not isinstance(match(sub, own + melds, exact=False, span=span), str):
                        return melds
    return []


def _meld_ops(brain: "Brain", melds: list[TableMeld], hand: list[str]) -> list[Op]:
    """Meld ops for `melds`, whose cards leave `hand`."""
    for m in melds:
        for card in m.cards:
            hand.remove(card)
    return [meld_op(m, brain.rules.wilds) for m in melds]


def meld_op(m: TableMeld, wilds: frozenset[str]) -> Meld:
    """The op that puts `m` on the table, naming what its wild cards stand for."""
    ident = [x for card, x in zip(m.cards, m.ids) if card in wilds] or None
    return Meld(list(m.cards), ident, m.kind)


def _end(
    brain: "Brain", decision: Decision, start: list[str], hand: list[str], ops: list[Op], may_out: bool
) -> list[Op]:
    """Close the play: never leave an empty hand before going out is allowed, nor a last card that may not be
    discarded (take back lay-offs, or every meld of the play); then pass after a take of several discards, or
    discard."""
    c = decision.constraints

    def stuck() -> bool:
        if not hand:
            return not may_out
        return len(hand) == 1 and c["discard_due"] and (not may_out or c["last_deal"])

    while ops and stuck():
        undone = ops.pop()
        if isinstance(undone, LayOff):
            hand.extend(undone.cards)
        else:  # a meld: none of this play's melds then (a contract goes down whole or not at all)
            ops, hand[:] = [], list(start)
            may_out = c["opened"] and not c["free_melding"]
    if not hand:
        return ops
    if not c["discard_due"]:
        return [*ops, Pass()]
    legal = {o.card for o in decision.options or [] if isinstance(o, Discard)}
    choices = sorted({x for x in hand if x in legal}) or sorted(set(hand))
    return [*ops, Discard(brain._pick_discard(choices, hand))]


def _whole_hand(brain: "Brain", decision: Decision, hand: list[str]) -> list[Op]:
    """Continental: lay the whole hand down in a pattern, all of it (its jokers then score) or with a final
    discard (the card the melds leave out)."""
    reqs = requirements(decision.constraints)
    candidates = candidate_melds(hand, brain.rules)
    melds = find_cover(hand, reqs, candidates) or find_cover(hand, reqs, candidates, spare=1)
    if melds:
        left = list(hand)
        for card in (c for m in melds for c in m.cards):
            left.remove(card)
        return [*(meld_op(m, brain.rules.wilds) for m in melds), *(Discard(c) for c in left)]
    legal = {o.card for o in decision.options or [] if isinstance(o, Discard)}
    split = best_split(hand, brain.rules, brain.game.penalty) if brain.greedy else None
    loose = [c for c in split.deadwood if c in legal and c != JOKER] if split else []
    if loose:  # greedy keeps its sequences; of the cards left out, it drops the one furthest from any other
        return [Discard(min(loose, key=lambda card: (_near(card, hand), card)))]
    return _end(brain, decision, hand, list(hand), [], False)


def _near(card: str, hand: list[str]) -> int:
    """How many other cards of `hand` could share a short sequence with `card` (its suit, within two ranks; an
    ace counts as low, as it ends every sequence it is in)."""
    r = RANK_ORDER.index(card[0])
    return sum(1 for c in hand if c != card and c[1] == card[1] and 0 < abs(RANK_ORDER.index(c[0]) - r) <= 2)
