"""Victoria (Viktorija): rules/victoria.md. Ten cards from two or more packs with jokers, nothing melded during
play: after his discard a player may show his ten cards and call rummy if they meet one of seven graded patterns
(the referee applies the best). The declarer takes a quarter of the bank; everyone else scores his deadwood. Played
for a common bank: above 100 a player is beyond rummy, and the last one not beyond rummy wins the game and the
rest of the bank (referee/rules/lethargics.py)."""

from functools import lru_cache
from typing import Any

from protocol.messages import Decision, Discard, Knock, LayOff, Meld, Op
from referee.rules.allatonce import AllAtOnce
from referee.rules.cards import deck
from referee.rules.describe import Field, Phase
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.lethargics import VictoriaBank, ceil_div
from referee.rules.patterns import VICTORIA_MELDS, Pattern, can_declare, card_value, victoria_pattern
from referee.rules.solver import best_split


def packs_for(players: int) -> int:
    """Players, deck and deal: two packs for up to 8 players, one more for each further group of up to four."""
    return 2 + ceil_div(max(0, players - 8), 4)


@lru_cache(maxsize=4096)
def pattern_of(hand: tuple[str, ...], joker: int) -> Pattern | None:
    """The best pattern of a sorted 10-card hand with jokers worth `joker` (cached: the options list them)."""
    return victoria_pattern(list(hand), VICTORIA_MELDS, lambda c: card_value(c, joker=joker))


class Victoria(VictoriaBank, AllAtOnce):
    """Viktorija: draw, discard, then optionally declare a rummy pattern (`knock {discard}`); the bank's quarter
    to the declarer, deadwood to the others, lethargics, games, buy-downs and re-entries between deals."""

    slug = "victoria"
    name = "Victoria"
    local_name = "Viktorija"
    min_players, max_players = 2, 16
    hand_size = 10
    meld_rules = VICTORIA_MELDS
    immediate_rummy = False  # Ambiguity 4: only after drawing and discarding
    interruption = False  # End of a deal: the discard pile is turned over
    rebuild_stock = True
    OPTIONS = {
        "joker_penalty": Option(20, help="what a joker left out of combinations counts (Ambiguity 3)"),
        "max_turns_per_deal": Option(500, help="safety cap: a deal that reaches this many turns is annulled"),
        "max_stock_rebuilds": Option(20, help="safety cap: stock rebuilds per deal before the deal is annulled"),
    }
    PHASES = {
        ("turn", "draw"): Phase("the start of your turn: draw one card (stock or discard pile)", ("draw",)),
        ("turn", "play"): Phase(
            "after the draw: discard; or discard and declare rummy, knock {discard}, when the other 10 cards meet "
            "one of the seven patterns (options list the legal declarations; the referee applies the best pattern)",
            ("discard", "knock"),
        ),
    }
    CONSTRAINTS = {
        "immediate_rummy": Field("bool", "always false: a declaration follows the draw and the discard"),
        "lay_off_on_others": None,
    }
    CARD_VALUES = {"penalty": Field("int", "deadwood points: K, Q, J 10, pips face value, ace 1, joker 20")}

    def make_deck(self) -> list[str]:
        """Players, deck and deal: `packs` 52-card packs and as many jokers."""
        packs = packs_for(self.n)
        return deck(packs=packs, jokers=packs)

    def penalty(self, card: str) -> int:
        return card_value(card, joker=self.opts["joker_penalty"])

    def pattern(self, cards: list[str]) -> Pattern | None:
        """The best rummy pattern of 10 cards, or None."""
        return pattern_of(tuple(sorted(cards)), self.opts["joker_penalty"])

    # --- decisions ---------------------------------------------------------------------------------------
    def decision(self, seat: int) -> Decision:
        d = super().decision(seat)
        if self.phase != "play" or self.between:
            return d
        return Decision(d.kind, d.phase, [*(d.options or []), *self.declarations(seat)], d.constraints)

    def declarations(self, seat: int) -> list[Op]:
        """The legal declarations: one knock per legal discard that leaves a rummy pattern."""
        hand = self.hands[seat]
        if not can_declare(hand, self.meld_rules):
            return []
        out: list[Op] = []
        for card in self.legal_discards(seat):
            rest = list(hand)
            rest.remove(card)
            if self.pattern(rest):
                out.append(Knock(card))
        return out

    # --- plays ---------------------------------------------------------------------------------------
    def do(self, seat: int, op: Op) -> None:
        match op:
            case Knock():
                self.declare_rummy(seat, op)
            case Meld() | LayOff():
                raise IllegalAction(
                    "rummy.knock", "nothing is melded in victoria: declare rummy with knock {discard} after the draw"
                )
            case _:
                super().do(seat, op)

    def declare_rummy(self, seat: int, op: Knock) -> None:
        """Turn structure 3: discard, then show all 10 cards; they must meet a pattern (Special rules)."""
        if self.phase != "play":
            raise IllegalAction("rummy.draw-first", "draw first: rummy is declared after the draw and the discard")
        if op.discard is None:
            raise IllegalAction("rummy.discard", "a declaration follows a discard: name it in knock {discard}")
        rest = list(self.hands[seat])
        if op.discard in rest:
            rest.remove(op.discard)
            if self.pattern(rest) is None:
                raise IllegalAction(
                    "rummy.pattern",
                    "these 10 cards meet none of the seven rummy patterns (at least 8 in combinations and the "
                    "other 2 at most 5 pips, 9 in combinations, or 8 cards of one suit, ...)",
                )
        self.discard(seat, Discard(op.discard))
        pattern = self.pattern(self.hands[seat])
        assert pattern is not None
        self.emit(
            {
                "type": "knock",
                "seat": seat,
                "discard": op.discard,
                "hand": sorted(self.hands[seat]),
                "pattern": pattern.as_dict(),
            }
        )
        self.settle("rummy", seat)

    # --- scoring -----------------------------------------------------------------------------------------
    def settle(self, kind: str, winner: int | None) -> None:
        """Scoring: the declarer's pattern penalty and bonus, every other seat's least deadwood; a deal that
        ends without a declarer is annulled (End of a deal)."""
        self.phase = "over"
        hands = [sorted(h) for h in self.hands]
        if winner is None:
            return self.settle_victoria(None, None, hands=hands, finish={"kind": "annulled"})
        pattern = self.pattern(self.hands[winner])
        assert pattern is not None
        penalties = [best_split(h, self.meld_rules, self.penalty).points for h in self.hands]
        penalties[winner] = pattern.penalty
        self.settle_victoria(
            winner, penalties, pattern.bonus, hands=hands, finish={"kind": "rummy", **pattern.as_dict()}
        )

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """A hand's best rummy pattern (number, name, penalty, bonus; 10 cards) and its least deadwood, which is
        what it costs after another player's rummy."""
        game = cls.hooks_only()
        split = best_split(hand, game.meld_rules, game.penalty)
        pattern = game.pattern(hand) if len(hand) == cls.hand_size else None
        out: dict[str, Any] = {
            "pattern": None,
            "name": None,
            "penalty": split.points,
            "bonus": 0,
            "declares": pattern is not None,
            "melds": [list(m.cards) for m in split.melds],
            "deadwood": list(split.deadwood),
            "points": split.points,
        }
        if pattern is not None:
            out.update(pattern.as_dict())
            out["verdict"] = f"rummy: pattern {pattern.number} {pattern.name}".rstrip() + (
                f", penalty {pattern.penalty}, bonus {pattern.bonus}"
            )
        else:
            out["verdict"] = f"no rummy pattern: deadwood {split.points}"
        return out
