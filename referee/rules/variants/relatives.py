"""Relatives (Giminaičiai): rules/relatives.md. Seven cards are laid down all at once as one or two related
groups (referee/rules/related.py); finishers are skipped while the deal goes on and score 1 for every card the
others take."""

from typing import Any

from protocol.messages import Decision, Discard, Draw, Meld, Op, Pass
from referee.rules.cards import pack
from referee.rules.describe import Field, Phase
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.related import arrangements, fits, is_layout, layout_groups


def extra_bonus(n: int) -> int:
    """Special rules, extra cards: the 8th card 1, the 9th 2, the 10th 4... in all 2^(n-7) - 1."""
    return 2 ** max(n - 7, 0) - 1


class Relatives(DrawMeldDiscard):
    """Giminaičiai: draw, then discard or lay the whole hand down (8 cards, then the pile top down; or discard
    and 7); finished seats are skipped and collect a point for each card the others take."""

    slug = "relatives"
    name = "Relatives"
    local_name = "Giminaičiai"
    family = "all-at-once"
    low_wins = False
    hand_size = 7
    stock_floor = 0  # rebuilt at the end of the turn that emptied it (End of a deal)
    unused_options = frozenset({"max_stock_rebuilds"})  # Ambiguity 13: no rebuild limit
    _mutable = DrawMeldDiscard._mutable + ("layouts", "finished", "deal_points")
    OPTIONS = {
        "target": Option(200, help="the match ends the moment a total reaches this"),
        "max_turns_per_deal": Option(500, help="safety cap: a deal that reaches this many turns ends"),
    }
    PHASES = {
        ("turn", "play"): Phase(
            "after the draw: discard; or lay down all 8 cards (meld of 8); or lay down 7 (meld of 7 of them: the "
            "8th card is your discard). A layout is one or two related groups",
            ("discard", "meld"),
        ),
        ("turn", "extend"): Phase(
            "you laid down 8: take the top discard onto your layout (it fits), or pass to end the turn",
            ("draw", "pass"),
        ),
    }
    CONSTRAINTS = {
        "initial_meld": None,
        "opened": None,
        "whole_hand": Field("bool", "always true: the hand goes down all at once as one layout"),
    }
    VIEW = {
        "layouts": Field("card[][]", "the cards each seat has laid down this deal (empty: not finished)"),
        "finished": Field("int[]", "the seats that have laid down this deal, in the order they did"),
        "table": None,
        "opened": None,
    }
    CARD_VALUES = {"penalty": None, "meld": None}

    def make_deck(self) -> list[str]:
        """Players, deck and deal: one 52-card pack, no jokers."""
        return pack(52)

    def penalty(self, card: str) -> int:
        """Cards have no value: only laying down and others' draws score."""
        return 0

    def start_deal(self) -> None:
        self.layouts: list[list[str]] = [[] for _ in range(self.n)]
        self.finished: list[int] = []
        self.deal_points: list[float] = [0] * self.n
        super().start_deal()

    # --- decisions ----------------------------------------------------------------------
    def decision(self, seat: int) -> Decision:
        constraints: dict[str, Any] = {"whole_hand": True}
        if self.phase == "extend":
            return Decision("turn", "extend", [Draw("discard"), Pass()], constraints)
        if self.phase == "draw":
            return Decision("turn", "draw", self.draw_options(seat), constraints)
        hand = sorted(self.hands[seat])
        options: list[Op] = [Discard(c) for c in self.legal_discards(seat)]
        if is_layout(hand):
            options.append(Meld(hand))
        options += [Meld([x for x in hand if x != c]) for c in self.legal_discards(seat) if self.layable(hand, c)]
        return Decision("turn", "play", options, constraints)

    def layable(self, hand: list[str], out: str) -> bool:
        """Whether `hand` less the discard `out` is a layout."""
        return is_layout([c for c in hand if c != out])

    def view(self, seat: int) -> dict[str, Any]:
        v = super().view(seat)
        del v["table"], v["opened"]
        # the deal in play counts in the running scores; a scored deal (the last one of the match) is in the totals
        live = self.deal_points if self.phase != "over" else [0] * self.n
        totals = [t + d for t, d in zip(self.totals, live)]
        return {**v, "scores": totals, "layouts": [sorted(x) for x in self.layouts], "finished": list(self.finished)}

    def fallback(self, seat: int) -> list[Op]:
        """Lay down whenever possible (taking every fitting discard); else draw from the stock, discard."""
        if self.phase == "extend":
            return [Draw("discard")]
        if self.phase == "play":
            melds = [o for o in self.decision(seat).options or [] if isinstance(o, Meld)]
            if melds:
                return [melds[0]]
        return super().fallback(seat)

    # --- plays -------------------------------------------------------------------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        deal = self.deal_no
        for op in ops:
            if self.deal_no != deal or self.over:
                return  # the target was reached mid-play: the match is over (End of the match)
            if self.phase == "over" or self.turn != seat:
                raise IllegalAction("play.after-end", "nothing may follow the discard or the end of your turn")
            self.do(seat, op)
        if self.deal_no == deal and self.phase == "over":
            self.end_turn()

    def do(self, seat: int, op: Op) -> None:
        match op:
            case Draw() if self.phase == "extend":
                self.extend(seat, op.depth)
            case Draw():
                self.draw(seat, op)
                self.credit(1)
            case Meld():
                self.lay_down(seat, op.cards)
            case Pass() if self.phase == "extend":
                self.phase = "over"
            case Discard():
                self.discard(seat, op)
            case _:
                raise IllegalAction(
                    "op.unsupported", f"{type(op).__name__.lower()} is not an operation of relatives now"
                )

    def lay_down(self, seat: int, cards: list[str]) -> None:
        """Turn structure 2b/2c: show all 8 cards, or 7 with the 8th discarded."""
        if self.phase != "play":
            raise IllegalAction("play.before-draw", "draw before you lay down")
        hand = sorted(self.hands[seat])
        if sorted(cards) != hand and not (len(cards) == len(hand) - 1 and set(cards) < set(hand)):
            raise IllegalAction(
                "layout.whole-hand", "lay down your whole hand: all 8 cards, or 7 of them with the 8th discarded"
            )
        if not is_layout(cards):
            raise IllegalAction(
                "layout.invalid",
                "not a layout: one or two groups, each a base (sequence or set) with every other card a relative "
                "of a base card (no branch from a relative)",
            )
        rest = [c for c in hand if c not in cards]
        if rest:
            self.discard(seat, Discard(rest[0]))  # case (c): no discard-pile cards after it (Ambiguity 4)
        self.hands[seat] = []
        self.layouts[seat] = sorted(cards)
        self.emit({"type": "meld", "seat": seat, "cards": sorted(cards)})
        self.phase = "over" if rest else "extend"
        self.check_extend()

    def check_extend(self) -> None:
        """Ambiguity 3: the pile's top is offered while it fits; the first misfit (or an empty pile) ends it."""
        layout, pile = self.layouts[self.turn], self.piles[0]
        if self.phase == "extend" and not (pile and fits(layout, pile[-1])):
            self.phase = "over"

    def extend(self, seat: int, depth: int) -> None:
        """Add the top `depth` discards, one at a time from the top, each fitting the layout."""
        for _ in range(depth):
            if self.phase != "extend":
                raise IllegalAction("layout.misfit", "the next discard does not fit your layout: you must stop")
            card = self.piles[0].pop()
            self.layouts[seat].append(card)
            self.emit({"type": "layoff", "seat": seat, "cards": [card], "source": "discard"})
            self.credit(1)
            if self.over:
                return
            self.check_extend()

    def credit(self, cards: int) -> None:
        """Counting draws: each seat already finished scores 1 per card an unfinished player takes."""
        for s in self.finished:
            self.deal_points[s] += cards
        self.check_target()

    def check_target(self) -> None:
        """End of the match: the first total to reach the target wins at once, mid-deal too."""
        if any(t + d >= self.opts["target"] for t, d in zip(self.totals, self.deal_points)):
            self.close_deal()

    # --- turns and the end of a deal -------------------------------------------------------
    def end_turn(self) -> None:
        seat = self.turn
        if self.layouts[seat] and seat not in self.finished:
            self.deal_points[seat] += (10 if not self.finished else 0) + extra_bonus(len(self.layouts[seat]))
            self.finished.append(seat)
            self.check_target()
            if self.over:
                return
            if len(self.finished) == self.n:
                return self.close_deal()
        super().end_turn()

    def rebuild_yield(self, pile: int) -> int:
        """Ambiguity 13: the stock is rebuilt from all but the top discard however often it runs out."""
        return pile - 1 if pile >= 2 else 0

    def next_seat(self, seat: int) -> int:
        """Finished seats are skipped for the rest of the deal."""
        nxt = super().next_seat(seat)
        while getattr(self, "finished", None) and nxt in self.finished and len(self.finished) < self.n:
            nxt = super().next_seat(nxt)
        return nxt

    def end_deal(self, winner: int | None) -> None:
        """The safeguards (turn cap, a stock that cannot be rebuilt) end the deal as it stands."""
        self.close_deal()

    def close_deal(self) -> None:
        """Score the deal: its points, with the first finisher as its winner."""
        self.phase = "over"
        first = self.finished[0] if self.finished else None
        self.finish_deal(list(self.deal_points), first, finished=list(self.finished))

    def match_ended(self) -> bool:
        return max(self.totals) >= self.opts["target"]

    def ranks(self, totals: list[float], seats: list[int] | None = None) -> list[int]:
        """Highest total first; a tie at the target goes to the earlier finisher of the last deal."""
        seats = list(range(len(totals))) if seats is None else seats
        order = self.deal_results[-1].get("finished", []) if self.deal_results else []
        won = max(totals) >= self.opts["target"]
        keys = [(-t, order.index(s) if won and s in order else len(order)) for s, t in zip(seats, totals)]
        return [1 + sum(u < k for u in keys) for k in keys]

    def cards_in_play(self) -> list[str]:
        return super().cards_in_play() + [c for x in self.layouts for c in x]

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """Whether the hand can be laid down and how: its groups (base, then relatives)."""
        picks = arrangements(hand)
        groups = layout_groups(hand, picks[0]) if picks else []
        melds = [g["base"] + g["relatives"] for g in groups]
        verdict = (
            "yes: " + "; ".join(f"base {' '.join(g['base'])} + {' '.join(g['relatives']) or '-'}" for g in groups)
            if picks
            else "no"
        )
        return {
            "melds": melds,
            "groups": groups,
            "deadwood": [] if picks else sorted(hand),
            "points": extra_bonus(len(hand)) if picks else 0,
            "layable": bool(picks),
            "verdict": verdict,
        }
