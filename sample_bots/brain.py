"""Decision logic shared by the Python sample bots (random and greedy), usable in-process or over pipes.

The bots build on romis's own meld primitives and best-split solver, so they play every variant
whose melds those describe.
"""

import importlib
import random
from typing import Any

from protocol.messages import Decision, Discard, Draw, Knock, LayOff, Meld, Op, Pass
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.errors import ConfigError, IllegalAction
from referee.rules.melds import MeldRules, TableMeld, lay_off
from referee.rules.solver import Split, best_split

# Variants whose games are not draw-meld-discard: the module that plans for them, with a function
# `choose(brain, decision, view) -> list[Op]` (`brain.game` is a private instance of the variant, `brain.greedy`
# and `brain.rng` say how to play).
PLANNERS: dict[str, str] = {
    "elimination": "sample_bots.elimination_play",
    "two-candles": "sample_bots.two_candles_play",
    "relatives": "sample_bots.relatives_play",
    "orija": "sample_bots.orija_play",
    "panguingue": "sample_bots.panguingue_play",
    "rummy-bridge": "sample_bots.bridge_play",
    "seskine": "sample_bots.seskine_play",
    "carousel": "sample_bots.carousel_play",
    "new-oklahoma": "sample_bots.oklahoma_play",
    "tariff-bridge": "sample_bots.bridge_play",
    "french": "sample_bots.french_play",
    "hungarian": "sample_bots.hungarian_play",
    "carpathian": "sample_bots.carpathian_play",
    "conquian": "sample_bots.conquian_play",
    "trump": "sample_bots.trump_play",
    "victoria": "sample_bots.victoria_play",
    "mississippi": "sample_bots.mississippi_play",
}


class Brain:
    """Plans plays for one seat of one variant; `greedy` picks the best known move, else random legal ones."""

    def __init__(self, variant: str, players: int, options: dict[str, Any], greedy: bool, seed: int = 0):
        from referee.rules.variants import find_variant

        game = find_variant(variant)(players, options, 0)  # a private instance: hooks and meld rules
        self.planner = importlib.import_module(PLANNERS[variant]) if variant in PLANNERS else None
        if self.planner is None and not isinstance(game, DrawMeldDiscard):  # the plans below use its meld rules
            raise ConfigError(f"the sample bots cannot play {variant}: it is not a draw-meld-discard game")
        self.game: Any = game
        self.rules = game.meld_rules if isinstance(game, DrawMeldDiscard) else MeldRules()
        self.greedy = greedy
        self.rng = random.Random(seed)
        self.cautious = False

    def choose(self, decision: Decision, view: dict[str, Any]) -> list[Op]:
        """The ops to send for this decision."""
        if self.planner is not None:
            return self.planner.choose(self, decision, view)
        options = decision.options or []
        self.rules = self.game.meld_rules_for(view)
        if self.cautious and options:
            self.cautious = False
            return [options[0]]
        if "contract" in decision.constraints:
            from sample_bots import contract_play

            return contract_play.choose(self, decision, view)
        if decision.kind != "turn":
            return [self.rng.choice(options)] if options else []
        if decision.phase == "declare":  # a final turn: put down what fits
            return self._declare(list(view["hand"]), view, decision.constraints.get("lay_off_on_others", False))
        if decision.constraints.get("whole_hand"):
            return self._whole_hand(decision, view)
        if decision.phase in ("draw", "offer"):
            return (
                self._take_to_meld(decision, view) or self._take_several(decision, view) or [self._draw(options, view)]
            )
        knocks = [o.discard for o in options if isinstance(o, Knock) and o.discard is not None]
        if knocks and (self.greedy or self.rng.random() < 0.5):
            return [Knock(min(knocks, key=lambda card: (self._deadwood_without(view, card), card)))]
        if self.game.family == "knock":  # keep melds in hand: melding only gives the opponent lay-offs
            return self._knock_turn_end(decision, view)
        return self._take_several(decision, view) or self._play(decision, view)

    def _knock_turn_end(self, decision: Decision, view: dict[str, Any]) -> list[Op]:
        """Lay off free cards on the melds the decision opens to lay-offs (if any), then discard."""
        discards = [o.card for o in decision.options or [] if isinstance(o, Discard)]
        open_melds = decision.constraints.get("layoff_melds")
        if not open_melds:
            return [Discard(self._pick_discard(discards, view["hand"]))]
        hand = list(view["hand"])
        lay_offs = self._lay_offs(list(best_split(hand, self.rules, self.game.penalty).deadwood), view, open_melds)
        for op in lay_offs:
            for card in op.cards:
                hand.remove(card)
        if not hand:
            return [*lay_offs]
        taken = view.get("taken")  # the re-discard ban, judged on the cards left (it lapses if nothing else is)
        choices = sorted({c for c in hand if c != taken}) or sorted(set(hand))
        return [*lay_offs, Discard(self._pick_discard(choices, hand))]

    def _take_to_meld(self, decision: Decision, view: dict[str, Any]) -> list[Op]:
        """Where the discard may be taken only to meld it at once (constraint `discard_needs_meld`, or
        `discard_needs_placing`: meld or lay it off), the greedy
        bot takes it in one play with melds that hold it and open it (or put the whole hand down); else []."""
        tied = decision.constraints.get("discard_needs_meld") or decision.constraints.get("discard_needs_placing")
        if not (self.greedy and tied and view["discard"]):
            return []
        top = view["discard"][-1]
        hand = view["hand"] + [top]
        split = best_split(hand, self.rules, self.game.penalty)
        worth = sum(self.game.meld_points(m) for m in split.melds)
        opens = decision.constraints.get("opened", True) or worth >= decision.constraints.get("initial_meld", 0)
        if not any(top in m.cards for m in split.melds) or not (opens or len(split.deadwood) <= 1):
            return []
        return [Draw("discard")] + self._play(decision, {**view, "hand": hand, "taken": top})

    def _take_several(self, decision: Decision, view: dict[str, Any]) -> list[Op]:
        """Where several discards may be taken in one play that puts them on the table (constraint `pile_take`:
        "all" when every card taken must go into a meld, "deepest" when the deepest must), the greedy bot takes
        the longest such run ("all") or the shallowest such dig ("deepest") that its best melds use; else []."""
        mode, pile = decision.constraints.get("pile_take"), view["discard"]
        if not self.greedy or not mode or not pile:
            return []
        best = None
        for depth in range(1 if mode == "all" else 2, min(len(pile), 6) + 1):
            taken = pile[-depth:][::-1]
            hand = view["hand"] + taken
            split = best_split(hand, self.rules, self.game.penalty)
            melded = [c for m in split.melds for c in m.cards]
            worth = sum(self.game.meld_points(m) for m in split.melds)
            opens = decision.constraints.get("opened", True) or worth >= decision.constraints.get("initial_meld", 0)
            used = all(melded.count(c) >= taken.count(c) for c in taken) if mode == "all" else taken[-1] in melded
            if used and (opens or len(split.deadwood) <= 1):
                best = (depth, hand, taken)
                if mode != "all":
                    break
            elif mode == "all":
                break
        if best is None:
            return []
        depth, hand, taken = best
        return [Draw("discard", depth=depth)] + self._play(decision, {**view, "hand": hand, "taken_cards": taken})

    def _draw(self, options: list[Op], view: dict[str, Any]) -> Op:
        take = next((o for o in options if isinstance(o, Draw) and o.source == "discard"), None)
        if not self.greedy or take is None:
            return self.rng.choice(options)
        other = next(o for o in options if o is not take)
        top = view["discard"][-1]
        before = best_split(view["hand"], self.rules, self.game.penalty).points
        after = best_split(view["hand"] + [top], self.rules, self.game.penalty).points
        # taking the discard is worth it when the card joins a meld (its own value drops out of deadwood)
        return take if after < before + self.game.penalty(top) - 0.5 and after <= before else other

    def _deadwood_without(self, view: dict[str, Any], card: str) -> int:
        rest = list(view["hand"])
        rest.remove(card)
        return best_split(rest, self.rules, self.game.penalty).points

    def _play(self, decision: Decision, view: dict[str, Any]) -> list[Op]:
        hand = list(view["hand"])
        split = best_split(hand, self.rules, self.game.penalty)
        ops: list[Op] = []
        opened = decision.constraints.get("opened", True)
        need = decision.constraints.get("initial_meld", 0)
        worth = sum(self.game.meld_points(m) for m in split.melds)
        goes_out = len(split.deadwood) <= 1
        meld_now = split.melds and (opened or worth >= need or goes_out)
        if meld_now and not self.greedy and not goes_out and self.rng.random() < 0.5:
            meld_now = False
        allowed = decision.constraints.get("layoff_melds")  # the melds open to lay-offs, where the decision names them
        if meld_now:
            for m in split.melds:
                ops.append(Meld(list(m.cards), _identities(m, self.rules.wilds), m.kind))
            hand = list(split.deadwood)
            if opened or worth >= need:
                ops += self._lay_offs(hand, view, allowed)
        elif allowed:  # named melds are open now, with or without a meld of one's own (persian: the partner's)
            for op in self._lay_offs(list(split.deadwood), view, allowed):
                ops.append(op)
                hand.remove(op.cards[0])
        if not hand:
            return ops
        # the re-discard ban: the decision's legal discards, unless this play took cards after it was asked
        fresh = "taken_cards" not in view
        legal = {o.card for o in decision.options or [] if isinstance(o, Discard)} if fresh else set()
        banned = set(view.get("taken_cards") or [view.get("taken")])
        choices = sorted({c for c in hand if (c in legal if legal else c not in banned)}) or sorted(set(hand))
        ops.append(Discard(self._pick_discard(choices, hand)))
        return ops

    def _whole_hand(self, decision: Decision, view: dict[str, Any]) -> list[Op]:
        """All-at-once variants: melds only as a whole-hand rummy, or in the final turn's declarations."""
        options, hand = decision.options or [], list(view["hand"])
        if decision.phase == "declare":
            return self._declare(hand, view, decision.constraints.get("lay_off_on_others", False))
        if decision.phase in ("draw", "last-draw"):
            split = best_split(hand, self.rules, self.game.penalty)
            if decision.constraints.get("immediate_rummy") and not split.deadwood:
                return self._melds(split)
            knock = next((o for o in options if isinstance(o, Knock)), None)
            if knock and (split.points <= 5 if self.greedy else self.rng.random() < 0.1):
                return [knock]
            return [self._draw([o for o in options if isinstance(o, Draw)], view)]
        discards = [o.card for o in options if isinstance(o, Discard)]
        return self._rummy(hand, discards) or [Discard(self._pick_discard(discards, hand))]

    def _melds(self, split: Split) -> list[Op]:
        """Meld operations for the melds of a split."""
        return [Meld(list(m.cards), _identities(m, self.rules.wilds), m.kind) for m in split.melds]

    def _rummy(self, hand: list[str], discards: list[str]) -> list[Op]:
        """A whole-hand declaration: every card in melds, or all but one legal discard; [] if none exists."""
        split = best_split(hand, self.rules, self.game.penalty)
        if not split.deadwood:
            return self._melds(split)
        for card in discards:
            rest = list(hand)
            rest.remove(card)
            split = best_split(rest, self.rules, self.game.penalty)
            if not split.deadwood:
                return self._melds(split) + [Discard(card)]
        return []

    def _declare(self, hand: list[str], view: dict[str, Any], on_others: bool) -> list[Op]:
        """The final turn's declarations: the best melds, then lay-offs where allowed (random passes half the time)."""
        if not self.greedy and self.rng.random() < 0.5:
            return [Pass()]
        split = best_split(hand, self.rules, self.game.penalty)
        ops = self._melds(split) + (self._lay_offs(list(split.deadwood), view) if on_others else [])
        return ops or [Pass()]

    def _lay_offs(self, hand: list[str], view: dict[str, Any], allowed: list[int] | None = None) -> list[LayOff]:
        """Lay-offs of `hand`'s cards, costliest first, on the view's table melds (those `allowed`, if given)."""
        table = [TableMeld(t["kind"], tuple(t["cards"]), tuple(t["identities"]), t["owner"]) for t in view["table"]]
        ops: list[LayOff] = []
        for card in sorted(hand, key=self.game.penalty, reverse=True):
            for i, meld in enumerate(table):
                if allowed is not None and i not in allowed:
                    continue
                try:
                    grown = lay_off(meld, [card], self.rules)
                except IllegalAction:
                    continue
                new_ids = list(grown.ids)
                for x in meld.ids:
                    new_ids.remove(x)
                ident = new_ids if card in self.rules.wilds else None
                closes = self.rules.wrap and meld.kind == "run" and len(grown.ids) == 13  # a cycle: name the end
                ops.append(LayOff(i, [card], ident, "high" if closes else None))
                table[i] = grown
                hand.remove(card)
                break
        return ops

    def _pick_discard(self, choices: list[str], hand: list[str]) -> str:
        if not self.greedy:
            return self.rng.choice(choices)

        value = self.game.penalty
        # where a card held costs nothing and a card melded scores (persian), the valuable cards are kept
        keep_high = not getattr(self.game, "hand_cards_count", True)

        # what keeping the rest is worth: melded value first, then meld-building cards
        def cost(card: str) -> tuple[int, int, str]:
            rest = list(hand)
            rest.remove(card)
            left = best_split(rest, self.rules, value).points
            if keep_high:  # keep the rest's melds, then throw the cheapest card that builds the fewest
                return (left - sum(map(value, rest)), value(card) + 6 * _neighbours(card, hand), card)
            return (left, -value(card) + 6 * _neighbours(card, hand), card)

        return min(choices, key=cost)


def _identities(meld: TableMeld, wilds: frozenset[str]) -> list[str] | None:
    """What each wild card of the meld stands for, in card order (None when it has none)."""
    return [x for c, x in zip(meld.cards, meld.ids) if c in wilds] or None


def _neighbours(card: str, hand: list[str]) -> int:
    """How many other cards could meld with `card` (same rank, or same suit within two ranks)."""
    if card == "JK":
        return 5
    from referee.rules.cards import rank

    n = 0
    for c in hand:
        if c == card or c == "JK":
            continue
        if c[0] == card[0] or (c[1] == card[1] and abs(rank(c) - rank(card)) <= 2):
            n += 1
    return n
