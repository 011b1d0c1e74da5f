"""The sample bots' plays for elimination (rules/elimination.md): random shows a random legal show; greedy shows
the cards whose loss keeps the most shows possible later (it keeps cards with many relations in hand) and starts
a new group when that keeps more. Both take an auxiliary card whenever they cannot show (declining is elimination).
Used by `Brain` (brain.py) through `PLANNERS`."""

from typing import TYPE_CHECKING, Any

from protocol.messages import Claim, Decision, Meld, Op, Pass
from referee.rules.variants.elimination import related

if TYPE_CHECKING:
    from sample_bots.brain import Brain


def choose(brain: "Brain", decision: Decision, view: dict[str, Any]) -> list[Op]:
    """The ops for one elimination decision: a show, `pass` where nothing can be shown, or an auxiliary take."""
    options = decision.options or [Pass()]
    if decision.phase == "auxiliary":
        return [next((o for o in options if isinstance(o, Claim)), options[0])]
    shows = [o for o in options if isinstance(o, Meld)]
    if not shows:
        return [Pass()]
    if not brain.greedy:
        return [brain.rng.choice(shows)]
    return [max(shows, key=lambda show: _worth(show, view))]


def _worth(show: Meld, view: dict[str, Any]) -> tuple[int, int, int]:
    """How good a show is for later rounds: the relations left between the cards still held and the face-up
    cards after it, then those among the held cards; a new group counts its reserved cards as held."""
    seat_up = list(view["face_up"][view["seat"]])
    turned = show.cards[:1] if show.kind else show.cards
    up = seat_up + turned
    held = [c for c in view["hand"] + view["reserved"] if c not in turned]
    playable = sum(1 for c in held if any(related(c, u) for u in up))
    links = sum(1 for i, a in enumerate(held) for b in held[i + 1 :] if related(a, b))
    return playable, links, -len(turned)
