"""The knock family: draw-meld-discard turns that may end with a knock, after which hands are laid out
against the table and deadwood decides the deal (rules/gin.md and the variants based on it)."""

from collections.abc import Callable
from typing import Any

from protocol.messages import Decision, Discard, Draw, Knock, Op, Pass
from referee.rules.cards import deck, rank
from referee.rules.deadwood import arrangements, min_deadwood, sure_deadwood
from referee.rules.describe import Field, Phase
from referee.rules.dmd import DISCARDS, DRAW_DISCARD, DRAW_STOCK, PASS, DrawMeldDiscard
from referee.rules.errors import IllegalAction
from referee.rules.melds import TableMeld
from referee.rules.solver import best_discard, best_split, least_after_discard


class KnockGame(DrawMeldDiscard):
    """Engine of the knock family. Variants set the knock limit and score `self.finish` in `score_deal`."""

    family = "knock"
    knock_limit = 9
    starter_offer = True  # the starter is offered around before the first draw (rules/gin.md, Start of play)
    predraw_plays = False
    rebuild_stock = False  # the discard pile is never reused
    stock_floor = 2
    PHASES = {
        ("turn", "offer"): Phase(
            "before the deal's first draw the starter (the top discard) is offered to each seat in turn from the "
            "dealer's left: take it (draw from the discard pile) or pass; if all pass, the first seat draws from "
            "the stock",
            ("draw", "pass"),
            requires="starter_offer",
        ),
        ("turn", "draw"): Phase("the start of your turn: draw one card; nothing may come before the draw", ("draw",)),
        ("turn", "play"): Phase(
            "after the draw: meld and lay off as you like, then discard, or knock with your discard; the knock "
            "options are the discards after which your deadwood is within knock_limit",
            ("discard", "knock"),
        ),
    }
    CONSTRAINTS = {
        "initial_meld": None,
        "opened": None,
        "knock_limit": Field(
            "int",
            "the most deadwood a knock may leave, inclusive: you may knock with deadwood <= knock_limit "
            "(0: only with no deadwood, which is gin)",
        ),
    }
    CARD_VALUES = {
        "penalty": Field("int", "deadwood value: what an unmatched card counts (for knock_limit and the deal's score)")
    }

    def penalty(self, card: str) -> int:
        """Deadwood value: A = 1, 2-10 face value, J Q K = 10."""
        return min(rank(card), 10)

    def penalties(self) -> Callable[[str], int]:
        """`penalty` as a table's lookup, made at the first deal (before any play: a play that is rejected
        leaves the state as it was, caches included): the compiled best-split search reads a dict's values
        without calling Python for each card (the search runs at every end-of-turn decision). A penalty is a
        function of the card alone in this family."""
        return self._penalties.__getitem__

    def can_lay_off(self, seat: int) -> bool:
        return True  # rules/gin.md, Ambiguity 1: own and opponents' melds, any time in one's own turn

    def limit(self) -> int:
        """The most deadwood a knock may leave."""
        return self.knock_limit

    def layoff_table(self, seat: int) -> list[TableMeld]:
        """The table melds that count for `seat`'s own deadwood in its turn."""
        return [self.table[i] for i in self.reachable(seat)] if self.table else []

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """Deadwood and best melds of a hand; for a hand one card over, the best discard and whether it knocks."""
        game = cls.hooks_only()
        if len(hand) == game.hand_size + 1:
            card, split = best_discard(hand, cls.meld_rules, game.penalty)
        else:
            card, split = None, best_split(hand, cls.meld_rules, game.penalty)
        out = {"melds": [list(m.cards) for m in split.melds], "deadwood": list(split.deadwood), "points": split.points}
        if card is not None:
            out.update(discard=card, knock=split.points <= cls.knock_limit, gin=split.points == 0)
        return out

    # --- deal, offer, decisions ------------------------------------------------------
    def start_deal(self) -> None:
        if not hasattr(self, "_penalties"):
            self._penalties = {c: self.penalty(c) for c in deck(jokers=1)}
        super().start_deal()
        self.finish: dict[str, Any] | None = None
        self.stock_only = False
        if self.starter_offer:
            self.phase, self.offers = "offer", 0

    def decision(self, seat: int) -> Decision:
        constraints = {"knock_limit": self.limit()}
        if self.phase == "offer":
            return Decision("turn", "offer", [DRAW_DISCARD, PASS], constraints)
        if self.phase == "draw":
            return Decision("turn", "draw", self.draw_options(seat), constraints)
        discards = self.legal_discards(seat)
        options: list[Op] = list(map(DISCARDS.__getitem__, discards))
        knocks = self.knocks(seat, discards)
        if knocks:
            options += [Knock(c) for c in knocks]
        return Decision("turn", "play", options, constraints)

    def draw_options(self, seat: int) -> list[Op]:
        """After everyone declined the starter, only the stock."""
        return [DRAW_STOCK] if self.stock_only else super().draw_options(seat)

    def knocks(self, seat: int, discards: list[str]) -> list[str]:
        """The discards after which `seat` may knock."""
        hand, limit, table = self.hands[seat], self.limit(), self.layoff_table(seat)
        if not table:  # nothing to lay off on: one search over every discard (memo shared) bounds them all
            if least_after_discard(hand, self.meld_rules, self.penalties()) > limit:
                return []
        else:
            sure = sorted(self.penalty(c) for c in sure_deadwood(hand, table, self.meld_rules))
            if sum(sure) - (sure[-1] if sure else 0) > limit:  # no discard can get under the limit
                return []
        return [c for c in discards if self.deadwood_without(seat, c, table) <= limit]

    def deadwood_without(self, seat: int, card: str, table: list[TableMeld]) -> int:
        """The seat's deadwood after discarding `card`, against the table melds it may reach."""
        rest = list(self.hands[seat])
        rest.remove(card)
        return min_deadwood(rest, table, self.meld_rules, self.penalties())

    def fallback(self, seat: int) -> list[Op]:
        """Decline the starter; draw from the stock; discard the costliest legal card."""
        return [Pass()] if self.phase == "offer" else super().fallback(seat)

    # --- plays --------------------------------------------------------------------------
    def do(self, seat: int, op: Op) -> None:
        if self.phase == "offer":
            return self.offer(seat, op)
        if isinstance(op, Knock):
            return self.knock(seat, op)
        if self.stock_only and isinstance(op, Draw) and op.source == "discard":
            raise IllegalAction("draw.starter-declined", "everyone declined the starter: draw from the stock")
        super().do(seat, op)
        self.stock_only = False  # the first op that succeeds after the last pass on the starter is the stock draw

    def offer(self, seat: int, op: Op) -> None:
        """The starter is offered to each seat in turn from Pirmasis; if all decline, Pirmasis draws from the stock."""
        if isinstance(op, Draw) and op.source == "discard":
            self.phase = "draw"
            self.draw(seat, op)
        elif isinstance(op, Pass):
            self.emit({"type": "pass", "seat": seat})
            self.offers += 1
            seats = self.order_from(self.next_seat(self.dealer))
            self.turn = seats[self.offers % len(seats)]
            if self.offers == len(seats):
                self.phase, self.stock_only = "draw", True
        else:
            raise IllegalAction("offer.take-or-pass", "take the starter (draw from the discard pile) or pass")

    def knock(self, seat: int, op: Knock) -> None:
        """Discard and knock: the deal ends in a showdown if the deadwood left is within the limit."""
        if self.phase != "play":
            raise IllegalAction("knock.after-draw", "you may knock only after drawing, with your discard")
        if op.discard is None:
            raise IllegalAction("knock.discard", "a knock names the card discarded with it")
        self.discard(seat, Discard(op.discard))
        dead = self.knock_deadwood(seat)
        if dead > self.limit():
            raise IllegalAction(
                "knock.deadwood", f"your deadwood would be {dead}; a knock needs {self.limit()} or less"
            )
        self.emit({"type": "knock", "seat": seat, "deadwood": dead})
        self.showdown(seat)

    def knock_deadwood(self, seat: int) -> int:
        """The knocker's deadwood as the knock limit judges it: by default his best arrangement against the table."""
        return min_deadwood(self.hands[seat], self.layoff_table(seat), self.meld_rules, self.penalty)

    def showdown(self, knocker: int) -> None:
        """Lay out the knocker's hand, then each defender's in turn from the knocker's left, each against
        the table left by those before (rules/gin.md, Ambiguities 7, 13, 14; rules/gin-three.md, Ambiguity 10)."""
        reach = self.reachable(knocker)
        least, layouts = arrangements(
            self.hands[knocker], self.layoff_table(knocker), self.meld_rules, self.penalty, knocker
        )
        if least == 0:  # a knock with no deadwood counts as gin: nobody lays off
            return self.end_deal(knocker)
        defenders = self.order_from(knocker)[1:]
        best: tuple[list[TableMeld], list[int]] | None = None
        for laid, _ in layouts:  # the layout that leaves the defenders the most deadwood
            table = list(self.table)
            for j, i in enumerate(reach):  # the melds the knocker could not reach stay as they were
                table[i] = laid[j]
            table += laid[len(reach) :]
            dead = self.defend(defenders, table)
            if best is None or sum(dead) > sum(best[1]):
                best = (table, dead)
        assert best is not None  # arrangements() gives at least one layout
        self.table = best[0]
        deadwood = {knocker: least, **dict(zip(defenders, best[1]))}
        self.finish = {"kind": "knock", "finisher": knocker, "deadwood": [deadwood[s] for s in range(self.n)]}
        self.end_deal(knocker)

    def defend(self, defenders: list[int], table: list[TableMeld]) -> list[int]:
        """The defenders' deadwoods, each laying off on the whole table as the ones before left it; a defender
        with several best layouts shows the one that leaves those after him the least."""
        first, rest = defenders[0], defenders[1:]
        if not rest:
            return [min_deadwood(self.hands[first], table, self.meld_rules, self.penalty)]
        least, layouts = arrangements(self.hands[first], table, self.meld_rules, self.penalty, first)
        seen: dict[tuple, list[int]] = {}
        for laid, _ in layouts:
            key = tuple((m.cards, m.ids, m.owner) for m in laid)
            if key not in seen:
                seen[key] = self.defend(rest, laid)
        return [least] + min(seen.values(), key=sum)

    def end_deal(self, winner: int | None) -> None:
        """Score the deal. `winner` is the finisher (None: a drawn deal); the deal's winner is the seat that
        gained points (the finisher, or a defender who undercut)."""
        if winner is not None and self.finish is None:  # gin: an empty hand, or a knock with no deadwood
            self.finish = {
                "kind": "gin",
                "finisher": winner,
                "deadwood": [0 if s == winner else sum(map(self.penalty, h)) for s, h in enumerate(self.hands)],
            }
        self.phase = "over"
        scores = self.score_deal(winner)
        # several gainers (rules/gin-three.md, Ambiguity 6): the highest; equal ones go clockwise from the finisher
        start = self.n - 1 if winner is None else winner
        order = [(start + i) % self.n for i in range(1, self.n + 1)]
        gainer = max(order, key=lambda s: scores[s]) if max(scores) > 0 else None
        self.finish_deal(scores, gainer, hands=[sorted(h) for h in self.hands], finish=self.finish)
