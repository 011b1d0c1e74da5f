"""Tonk (Tank – tonk): rules/tonk.md."""

from dataclasses import replace
from typing import Any

from protocol.messages import Decision, Discard, Draw, Exchange, Knock, LayOff, Meld, Op, Pass
from referee.rules.cards import deck
from referee.rules.describe import Field, Phase
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.finals import FinalRound
from referee.rules.knock import KnockGame
from referee.rules.melds import MeldRules
from referee.rules.solver import best_split

DEUCES = frozenset({"2S", "2H", "2D", "2C"})
# Valid combinations: ace low only; 2s wild (or themselves); a set needs two natural cards; 4 cards at most
# in a set with one pack, the suit rule up to 8 with two (Ambiguities 3, 4, 8)
ONE_PACK = MeldRules(ace_high=False, wilds=DEUCES, set_max=4, set_naturals=2)
TWO_PACKS = replace(ONE_PACK, set_max=8)


class Tonk(FinalRound, KnockGame):
    """Tank – tonk: 7 cards, deuces wild, nothing melded in play, knock at 5 or less with a spread, one final
    turn each with lay-offs on the knocker's combinations, the knocker doubled unless strictly lowest, out at 100."""

    slug = "tonk"
    name = "Tonk"
    local_name = "Tank – tonk"
    min_players, max_players = 2, 5
    hand_size = 7
    knock_limit = 5
    meld_rules = ONE_PACK
    starter_offer = False
    stock_floor = 0  # the turn that takes the last stock card ends the deal (Ambiguity 7)
    final_phase = "draw"  # a final turn draws, may lay off, and discards
    elimination_limit = 100  # End of the match
    OPTIONS = {
        "stock_out_is_draw": Option(False, help="a deal that ends with the stock exhausted is a draw: nobody scores"),
    }
    PHASES = {
        ("turn", "draw"): Phase(
            "the start of your turn: draw one card; in the final round after a knock, pass when the stock is empty",
            ("draw", "pass"),
        ),
        ("turn", "play"): Phase(
            "after the draw: discard, or knock with your discard (knock options: your free cards would be within "
            "knock_limit); spread melds only in the knock's play, as [meld..., knock]; in the final round lay off "
            "on the knocker's melds (layoff_melds), then discard (after a pass: nothing)",
            ("discard", "knock"),
        ),
    }
    CONSTRAINTS = {
        "final_round": Field("bool", "present, and true, in the final round after a knock"),
        "knocker": Field("int", "in the final round: the seat that knocked"),
        "layoff_melds": Field(
            "int[]",
            "in the final round: the ids of the melds you may lay off on (the knocker's, if he kept a free card)",
        ),
    }
    VIEW = {
        "packs": Field("int", "packs in this deal's deck: 1 while 2-3 players are in, 2 for 4-5"),
        "knocker": Field("int|null", "the seat that knocked this deal (null: nobody yet)"),
        "knocker_free": Field("card[]|null", "the knocker's free cards, shown to all (null: no knock yet)"),
        "eliminated": Field("bool[]", "whether each seat is out of the match (100 points or more)"),
    }

    def start_deal(self) -> None:
        self.packs = 1 if len(self.seats_in()) <= 3 else 2  # by the players still in (Players, deck and deal)
        self.meld_rules = ONE_PACK if self.packs == 1 else TWO_PACKS
        self.knocker: int | None = None
        self.drew_nothing = False  # this final turn took no card (the stock is empty)
        super().start_deal()

    def make_deck(self) -> list[str]:
        return deck(packs=self.packs)

    def meld_rules_for(self, view: dict[str, Any]) -> MeldRules:
        return TWO_PACKS if view["packs"] == 2 else ONE_PACK

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """As every knock game, under the deck the hand shows (`packs`): two copies of a card come only from the
        two packs of 4-5 players, where a set may grow past four cards; any other hand is valued under one pack."""
        packs = 2 if len(set(hand)) < len(hand) else 1
        return {**super(Tonk, cls if packs == 1 else TwoPackHands).evaluate(hand), "packs": packs}

    def layoff_allowed(self, seat: int, meld: int) -> bool:
        """After a knock, on the knocker's combinations only, and only if he kept a free card (Special rules)."""
        knocker = self.knocker
        return (
            knocker is not None and seat != knocker and self.table[meld].owner == knocker and bool(self.hands[knocker])
        )

    # --- decisions and views ------------------------------------------------------------------
    def decision(self, seat: int) -> Decision:
        if self.knocker is None:
            return super().decision(seat)
        if self.phase == "draw":  # End of a deal: with the stock empty, draw nothing (pass) or take the top discard
            options: list[Op] = [Draw("stock")] if self.stock else [Pass()]
            options += [Draw("discard")] if self.piles[0] else []
        else:
            options = self.discard_options(seat)
        constraints = {
            "knock_limit": self.limit(),
            "final_round": True,
            "knocker": self.knocker,
            "layoff_melds": self.reachable(seat),
        }
        return Decision("turn", self.phase, options, constraints)

    def view(self, seat: int) -> dict[str, Any]:
        """Plus the deck, the knocker and his free cards, the final turns to come and who is out (Ambiguity 9)."""
        knocker = self.knocker
        return {
            **super().view(seat),
            "packs": self.packs,
            "knocker": knocker,
            "knocker_free": None if knocker is None else sorted(self.hands[knocker]),
            "eliminated": [d is not None for d in self.out_deal],
        }

    def hidden_zones(self, seat: int) -> list[list[str]]:
        return [h for i, h in enumerate(self.hands) if i not in (seat, self.knocker)] + [self.stock]

    # --- plays ------------------------------------------------------------------------------------
    def do(self, seat: int, op: Op) -> None:
        knocker = self.knocker
        final = knocker is not None
        match op:
            case LayOff() if knocker is None:
                raise IllegalAction("layoff.final-round-only", "lay-offs only in the final round (Ambiguity 1)")
            case LayOff() if knocker is not None and not self.hands[knocker]:
                raise IllegalAction("layoff.knocker-has-no-free-cards", "the knocker has no free card: nobody adds")
            case Meld() if final:
                raise IllegalAction("final.layoff-only", "the final round allows lay-offs on the knocker's melds only")
            case Exchange():
                raise IllegalAction("exchange.none", "a wild deuce on the table is never exchanged")
            case Knock() if final:
                raise IllegalAction("knock.final-round", "nobody else may knock in the final round")
            case Pass() if final and self.phase == "draw" and not self.stock:  # End of a deal: draw nothing
                self.emit({"type": "pass", "seat": seat})
                self.phase, self.drew_nothing = "play", True
                return
            case Pass() if final and self.phase == "draw":
                raise IllegalAction("final.must-draw", "the stock is not empty: draw a card")
            case Discard() if self.drew_nothing:
                raise IllegalAction("final.no-draw-no-discard", "who draws nothing discards nothing")
        super().do(seat, op)

    def knock_deadwood(self, seat: int) -> int:
        """The free cards of the spread declared in the knock's play (its melds), else of the best arrangement."""
        hand = self.hands[seat]
        return sum(map(self.penalty, hand)) if self.table else best_split(hand, self.meld_rules, self.penalty).points

    def showdown(self, knocker: int) -> None:
        """Spread the knocker's hand (as declared, or the referee's best arrangement) and begin the final round."""
        if not self.table:
            for m in best_split(self.hands[knocker], self.meld_rules, self.penalty).melds:
                wild_ids = [x for c, x in zip(m.cards, m.ids) if c in DEUCES]
                self.table_op(knocker, Meld(list(m.cards), wild_ids or None, m.kind))
        self.knocker = knocker
        self.emit({"type": "spread", "seat": knocker, "free": sorted(self.hands[knocker])})
        self.begin_final_round(self.order_from(knocker)[1:], knocker=knocker)

    def end_play(self, seat: int, was_opened: bool) -> None:
        if self.knocker is None:
            if self.placed_now:  # Ambiguity 1; a spread is declared as [meld..., knock] in one play
                raise IllegalAction("meld.knock-only", "nothing is melded during play, only spread with a knock")
            if self.phase == "over":
                self.end_turn()
        elif self.turn == seat and (self.phase == "over" or self.drew_nothing or not self.hands[seat]):
            self.next_final_turn()

    def next_final_turn(self) -> None:
        self.drew_nothing = False
        super().next_final_turn()

    def final_round_over(self) -> None:
        self.end_deal(self.knocker)

    # --- the end of a deal ---------------------------------------------------------------------
    def end_deal(self, winner: int | None) -> None:
        """Scoring: free cards (the knocker's as spread, everyone else's best arrangement), the knocker doubled
        unless strictly lowest (Ambiguity 5). Without a knock (stock out, or the turn cap: Ambiguity 12) the
        same count, or nothing with `stock_out_is_draw`. The deal's winner is the one lowest score, if any."""
        self.phase = "over"
        seats, knocker = self.seats_in(), self.knocker
        free = [0] * self.n
        for s in seats:
            hand = self.hands[s]
            free[s] = (
                sum(map(self.penalty, hand)) if s == knocker else best_split(hand, self.meld_rules, self.penalty).points
            )
        doubled = knocker is not None and any(free[s] <= free[knocker] for s in seats if s != knocker)
        drawn = knocker is None and self.opts["stock_out_is_draw"]
        scores: list[float] = [0 if drawn else f * (2 if s == knocker and doubled else 1) for s, f in enumerate(free)]
        lowest = [s for s in seats if scores[s] == min(scores[t] for t in seats)]
        kind = "knock" if knocker is not None else "stock-out" if not self.stock else "turn-cap"
        self.finish = {
            "kind": kind,
            "knocker": knocker,
            "free": free,
            "doubled": doubled,
            "drawn": drawn,
            "spread": [list(m.cards) for m in self.table],
        }
        self.finish_deal(
            scores, lowest[0] if len(lowest) == 1 else None, hands=[sorted(h) for h in self.hands], finish=self.finish
        )


class TwoPackHands(Tonk):
    """Tonk's meld rules with two packs, for valuing a hand that shows them (`Tonk.evaluate`); not a variant."""

    meld_rules = TWO_PACKS
