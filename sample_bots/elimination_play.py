"""The sample bots' plays for elimination (rules/elimination.md). Random answers every decision with a random
legal option (a legal show; `claim` or `pass` in the auxiliary step). Greedy always takes an auxiliary card
(declining is elimination) and shows what keeps the most shows possible later: the cards it can still chain onto
its face-up cards (and the groups it can start with the new-group option), then how many unseen cards would be
related to what it keeps (the refills of rounds 1 and 2 and the extra cards come blind). Used by `Brain`
(brain.py) through `PLANNERS`."""

from typing import TYPE_CHECKING, Any

from protocol.messages import Claim, Decision, Meld, Op, Pass
from referee.rules.cards import pack
from referee.rules.related import chain, groups, related, touches

if TYPE_CHECKING:
    from sample_bots.brain import Brain

DECK = pack(52)


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one elimination decision: a show, `pass` where nothing can be shown, or an auxiliary take."""
    options = decision.options or [Pass()]
    if not brain.greedy:
        return [brain.rng.choice(options)]
    if decision.phase == "auxiliary":  # declining is elimination
        return [next((o for o in options if isinstance(o, Claim)), options[0])]
    shows = [o for o in options if isinstance(o, Meld)]
    if not shows:
        return [Pass()]
    return [_greedy(brain, shows, view)]


SAMPLES = 24  # blind refills sampled per round-1 show


def _greedy(brain: "Brain", shows: list[Meld], view: dict[str, Any]) -> Meld:
    """The show that keeps the most shows possible: in round 1 judged over sampled refills of 3 cards and the
    best round-2 show after each; in round 2 with the chance that the refill card joins; later by what is kept."""
    seen = {c for cards in view["face_up"] for c in cards} | set(view["hand"]) | set(view["reserved"])
    unseen = [c for c in DECK if c not in seen]
    up = list(view["face_up"][view["seat"]])
    held = view["hand"] + view["reserved"]
    if view["round"] == 1 and len(unseen) >= 3:
        draws = [brain.rng.sample(unseen, 3) for _ in range(SAMPLES)]
        return max(shows, key=lambda show: sum(_round_two(show.cards, held, d, unseen) for d in draws))
    if view["round"] == 2:
        return max(shows, key=lambda show: _kept_value(up + show.cards, held, show.cards, unseen))
    return max(shows, key=lambda show: _worth(show, view, unseen))


def _round_two(pair: list[str], held: list[str], drawn: list[str], unseen: list[str]) -> float:
    """What a round-1 show is worth if the refill is `drawn`: the best round-2 show's value (-1: none)."""
    hand = [c for c in held if c not in pair] + drawn
    rest = [c for c in unseen if c not in drawn]
    best = -1.0
    for i, a in enumerate(hand):
        for b in hand[i + 1 :]:
            if related(a, b) or (touches(a, pair) and touches(b, pair)):
                best = max(best, _kept_value(pair + [a, b], hand, [a, b], rest))
    return best


def _kept_value(up: list[str], held: list[str], turned: list[str], unseen: list[str]) -> float:
    """Shows left after turning up `turned`, plus the chance that one blind card joins them."""
    kept = [c for c in held if c not in turned]
    reach = chain(up, kept)
    rest = [c for c in kept if c not in reach]
    started = sum(len(g) for g in groups(rest) if len(g) > 1)
    anchors = up + reach
    joins = sum(1 for c in unseen if touches(c, anchors) or touches(c, rest))
    return len(reach) + started + joins / max(1, len(unseen))


def _worth(show: Meld, view: dict[str, Any], unseen: list[str]) -> tuple[int, int, int]:
    """How good a later show is: the shows left in what is kept (chained or as new groups), then the unseen
    cards that would join (an extra or auxiliary card may come), then the relations among the cards kept."""
    turned = show.cards[:1] if show.kind else show.cards
    up = list(view["face_up"][view["seat"]]) + turned
    kept = [c for c in view["hand"] + view["reserved"] if c not in turned]
    reach = chain(up, kept)
    rest = [c for c in kept if c not in reach]
    started = sum(len(g) for g in groups(rest) if len(g) > 1)  # each a new group later (Ambiguity 6)
    fresh = sum(1 for c in unseen if touches(c, up + reach))
    links = sum(1 for i, a in enumerate(kept) for b in kept[i + 1 :] if related(a, b))
    return len(reach) + started, fresh, links
