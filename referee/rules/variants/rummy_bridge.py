"""Rummy Bridge (Romis bridžas): rules/rummy-bridge.md. Ten cards, nothing melded during play: rummy with all ten
in combinations (three special whole-hand ones earn more), or a knock with nine and a natural 2-5, after which
the others have one last draw and discard. Built so that a chip variant (tariff-bridge) can subclass it and
settle the same deal results (`outcome`) in its own way."""

from dataclasses import replace
from typing import Any

from protocol.messages import Decision, Discard, Draw, Knock, LayOff, Meld, Op
from referee.rules.allatonce import AllAtOnce
from referee.rules.cards import deck, rank
from referee.rules.describe import Field, Phase
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.kinds import WholeHand
from referee.rules.melds import MeldRules, new_meld
from referee.rules.solver import Split, best_split

FIGURES = (1, 11, 12, 13)  # ace, jack, queen, king
BRIDGE_MELDS = MeldRules(  # Valid combinations: ace low or high, never round the corner; jokers wild; sets up to 8
    wholes=(WholeHand("one-suit", 10, one_suit=True), WholeHand("figures", 10, ranks=FIGURES)),
)
BONUSES = {"suit-sequence": 40, "one-suit": 25, "figures": 25, "ordinary": 10}  # Scoring; Ambiguities 2, 7
KNOCK_MOST = 5  # Special rules, knock condition: the tenth card is a natural 2, 3, 4 or 5


def forms(cards: list[str], rules: MeldRules, kind: str) -> bool:
    """Whether `cards` make one combination of `kind` (wild cards standing where they fit)."""
    try:
        new_meld(list(cards), rules, kind=kind)
        return True
    except IllegalAction:
        return False


class RummyBridge(AllAtOnce):
    """Romis bridžas: four players, ten cards, rummy (bonus 10, 25 or 40) or a knock with a final round;
    net penalty totals, the match ends at 100."""

    slug = "rummy-bridge"
    name = "Rummy Bridge"
    local_name = "Romis bridžas"
    min_players = max_players = 4
    hand_size = 10
    meld_rules = BRIDGE_MELDS
    immediate_rummy = False  # every rummy follows a draw (the dealer's opening turn has none: Ambiguity 10)
    interruption = False  # End of a deal: the stock is turned over ("Klasikinis romis")
    rebuild_stock = True
    rummy_discards = True  # Ambiguity 1: discard one card and show exactly 10
    dealer_opens = True  # Players, deck and deal; Ambiguity 9
    starter = False
    OPTIONS = {"target": Option(100, help="the match ends after a deal in which a net total reaches this")}
    PHASES = {
        ("turn", "draw"): Phase(
            "the start of your turn (in the final round after a knock too): draw one card", ("draw",)
        ),
        ("turn", "play"): Phase(
            "after the draw (the dealer's opening turn has none): discard; or knock {discard} (9 of the other 10 "
            "cards in combinations and a natural 2-5; options list the legal knocks); or declare rummy: meld 10 "
            "cards (sets, runs, or one whole-hand combination of kind one-suit or figures), then discard the 11th. "
            "In the final round after a knock: discard only",
            ("discard", "knock"),
        ),
    }
    CONSTRAINTS = {
        "immediate_rummy": Field("bool", "always false: every rummy follows a draw (or is the dealer's opening turn)"),
        "final_round": Field("bool", "the final round after a knock: only draw and discard, no rummy, no knock"),
    }
    VIEW = {
        "knocker": Field("int|null", "the seat that knocked this deal (null: nobody yet)"),
        "knocker_hand": Field("card[]", "the knocker's 10 cards, shown at his knock (empty: nobody knocked)"),
    }

    def make_deck(self) -> list[str]:
        """Players, deck and deal: two packs plus 4 jokers."""
        return deck(packs=2, jokers=4)

    # --- values and arrangements -------------------------------------------------------------------
    def split(self, cards: list[str], jokers: bool = True) -> Split:
        """The least-penalty arrangement (Ambiguity 8); `jokers` False after a rummy (Special rules)."""
        rules = self.meld_rules if jokers else replace(self.meld_rules, wilds=frozenset())
        return best_split(cards, rules, self.penalty)

    def category(self, cards: list[str]) -> str | None:
        """The best category 10 cards all in combinations satisfy (Scoring), or None if they are not."""
        if len(cards) != self.hand_size or self.split(cards).deadwood:
            return None
        if forms(cards, self.meld_rules, "run"):
            return "suit-sequence"
        return next((w.name for w in self.meld_rules.wholes if forms(cards, self.meld_rules, w.name)), "ordinary")

    def knock_card(self, cards: list[str]) -> str | None:
        """The lowest natural 2-5 that 10 cards may leave out with the other 9 in combinations, or None."""
        if len(cards) != self.hand_size:
            return None
        for card in sorted({c for c in cards if c != "JK" and 2 <= rank(c) <= KNOCK_MOST}, key=self.penalty):
            rest = list(cards)
            rest.remove(card)
            if not self.split(rest).deadwood:
                return card
        return None

    # --- deal and decisions ------------------------------------------------------------------------
    def start_deal(self) -> None:
        self.knocker: int | None = None
        self.knocker_hand: list[str] = []
        super().start_deal()

    def decision(self, seat: int) -> Decision:
        d = super().decision(seat)
        options = list(d.options or [])
        if self.phase == "play" and self.knocker is None:
            options += self.knocks(seat)
        return Decision(d.kind, d.phase, options, {**d.constraints, "final_round": self.knocker is not None})

    def knocks(self, seat: int) -> list[Op]:
        """The legal knocks, one per discard that leaves a knocking hand (a cheap bound first)."""
        hand = self.hands[seat]
        if self.split(hand).points > 20 + KNOCK_MOST:  # the discard and the free card hold all the deadwood
            return []
        out: list[Op] = []
        for card in self.legal_discards(seat):
            rest = list(hand)
            rest.remove(card)
            if self.knock_card(rest):
                out.append(Knock(card))
        return out

    def view(self, seat: int) -> dict[str, Any]:
        return {**super().view(seat), "knocker": self.knocker, "knocker_hand": list(self.knocker_hand)}

    def hidden_zones(self, seat: int) -> list[list[str]]:
        """The knocker's hand is shown at his knock (Ambiguity 12)."""
        return [h for i, h in enumerate(self.hands) if i not in (seat, self.knocker)] + [self.stock]

    # --- plays ----------------------------------------------------------------------------------------
    def do(self, seat: int, op: Op) -> None:
        if isinstance(op, Knock):
            return self.knock(seat, op)
        if self.knocker is not None and isinstance(op, (Meld, LayOff)):
            raise IllegalAction("rummy.final-round", "no rummy in the final round after a knock: draw and discard")
        super().do(seat, op)

    def draw(self, seat: int, op: Draw) -> None:
        if self.phase == "play" and self.turns == 0:
            raise IllegalAction("draw.dealer-opens", "the dealer opens the deal with a discard, without drawing")
        super().draw(seat, op)

    def knock(self, seat: int, op: Knock) -> None:
        """Turn structure 2b: discard one card and show the other 10 (9 in combinations and a natural 2-5)."""
        if self.knocker is not None:
            raise IllegalAction("knock.final-round", "nobody else may knock in the final round (Ambiguity 6)")
        if self.phase != "play":
            raise IllegalAction("knock.draw-first", "draw first: a knock discards one card of 11")
        if self.placed_now:
            raise IllegalAction(
                "rummy.whole-hand", "no partial melds: a knock shows the hand, it does not follow melds"
            )
        if op.discard is None:
            raise IllegalAction("knock.discard", "a knock discards one card: name it in knock {discard}")
        rest = list(self.hands[seat])
        if op.discard in rest:
            rest.remove(op.discard)
        if op.discard in self.hands[seat] and self.knock_card(rest) is None:
            raise IllegalAction(
                "knock.condition",
                "a knock needs 9 of the other 10 cards in combinations and the tenth a natural 2, 3, 4 or 5",
            )
        self.discard(seat, Discard(op.discard))
        self.knocker, self.knocker_hand = seat, sorted(self.hands[seat])
        self.emit({"type": "knock", "seat": seat, "discard": op.discard, "hand": list(self.knocker_hand)})

    def end_turn(self) -> None:
        """The final round after a knock: each other player draws and discards once (Special rules); a stock
        that cannot be rebuilt, or the turn cap, ends it early (End of a deal, Ambiguity 13)."""
        if self.knocker is None:
            return super().end_turn()
        self.turns += 1
        if self.turns >= self.opts["max_turns_per_deal"] or (not self.stock and not self.rebuild()):
            return self.final_round_over()
        if self.in_final_round:
            return self.next_final_turn()
        self.begin_final_round(self.order_from(self.knocker)[1:], "draw", knocker=self.knocker)

    def final_round_over(self) -> None:
        if self.knocker is None:  # the interruption round of the family
            return super().final_round_over()
        self.phase = "over"
        self.settle("knock", self.knocker)

    # --- scoring ----------------------------------------------------------------------------------------------
    def outcome(self, kind: str, winner: int | None) -> dict[str, Any]:
        """What the deal gives each seat: penalties (unmatched cards), the winner's bonus and its category."""
        jokers = kind != "rummy"  # Special rules: after a rummy the others may not use jokers
        penalty = [self.split(h, jokers).points for h in self.hands]
        category, bonus = None, 0
        if kind == "rummy" and winner is not None:
            category = self.category(self.declared[winner])
            bonus, penalty[winner] = BONUSES[category or "ordinary"], 0
        elif kind == "knock" and winner is not None:
            penalty[winner] = self.penalty(self.knock_card(self.knocker_hand) or "JK")
        return {"kind": kind, "penalties": penalty, "category": category, "bonus": bonus}

    def settle(self, kind: str, winner: int | None) -> None:
        """Scoring: penalties minus the rummy bonus, added to net totals (Ambiguity 3)."""
        res = self.outcome(kind, winner)
        scores: list[float] = list(res["penalties"])
        if winner is not None:
            scores[winner] -= res["bonus"]
        self.finish_deal(scores, winner, hands=[sorted(h) for h in self.hands], finish=res)

    def match_ended(self) -> bool:
        return max(self.totals) >= self.opts["target"]

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """A hand's best arrangement and penalty; for 10 cards, whether they make rummy (its category and
        bonus) or a knock (its free card), else the penalty."""
        game = cls.hooks_only()
        split = game.split(hand)
        category, free = game.category(hand), game.knock_card(hand)
        if category:
            verdict = f"rummy ({category.replace('-', ' ')}), bonus {BONUSES[category]}"
        elif free:
            verdict = f"knock: 9 in combinations and {free}, penalty {game.penalty(free)}"
        else:
            verdict = f"no rummy and no knock: penalty {split.points}"
        return {
            "melds": [list(m.cards) for m in split.melds],
            "kinds": [m.kind for m in split.melds],
            "deadwood": list(split.deadwood),
            "points": split.points,
            "rummy": category is not None,
            "category": category,
            "bonus": BONUSES[category] if category else 0,
            "knock": free,
            "verdict": verdict if len(hand) == cls.hand_size else f"not a 10-card hand: penalty {split.points}",
        }
