"""New Oklahoma (Naujoji Oklahoma): rules/new-oklahoma.md."""

from collections import Counter
from typing import Any

from protocol.cards import JOKER
from protocol.messages import Decision, Draw, Exchange, LayOff, Meld, Op
from referee.rules.cards import deck, rank
from referee.rules.describe import Field, Phase
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, TableMeld
from referee.rules.solver import best_split

WILDS = frozenset({JOKER, "2S", "2H", "2D", "2C"})  # Players, deck and deal: the eight 2s and the joker
SPADE_QUEEN = "QS"
BONUS_AT, BONUS, CONCEALED, TARGET = 1000, 200, 250, 2000  # Scoring; End of the match


def natural_rank(meld: TableMeld) -> None:
    """A set is of a natural rank, 3 through A: the 2s are always wild, so there is no set of 2s.

    (rules/new-oklahoma.md, Valid combinations; Ambiguity 4)"""
    if rank(meld.ids[0]) == 2:
        raise IllegalAction("set.no-deuces", "2s are always wild: a set must be of a rank 3 through A")


OKLAHOMA_MELDS = MeldRules(wilds=WILDS, allow_runs=False, meld_check=natural_rank)


def plain_value(card: str) -> int:
    """Scoring: A 20, 8 to K 10, 3 to 7 nothing (the natural cards other than the ♠Q)."""
    r = rank(card)
    return 20 if r == 1 else 10 if r >= 8 else 0


class NewOklahoma(DrawMeldDiscard):
    """Naujoji Oklahoma: 105 cards, sets only with the 2s and the joker wild, the top discard taken only into a new
    set together with the whole pile, own melds only, a compulsory final discard, melds scoring plus and hands minus,
    a 1000-point bonus and 2000 to win."""

    slug = "new-oklahoma"
    name = "New Oklahoma"
    local_name = "Naujoji Oklahoma"
    min_players, max_players = 2, 5
    meld_rules = OKLAHOMA_MELDS
    low_wins = False
    predraw_plays = False  # Turn structure: the draw comes first
    OPTIONS = {
        "allow_rediscard": Option(
            False, help="allow discarding a copy of the top discard just taken (and melded) in the same turn"
        ),
    }
    PHASES = {
        ("turn", "draw"): Phase(
            "the start of your turn: draw from the stock, or take the whole discard pile in a play whose next "
            "operation melds its top card in a new set (top_needs_set); then, in the same play or the next, meld, lay "
            "off on your own sets, replace wild cards in them and discard",
            ("draw",),
        ),
        ("turn", "play"): Phase(
            "after the draw: meld, lay off on your own sets (layoff_melds), replace wild cards in them, then discard: "
            "the discard is compulsory, and you go out when it empties your hand",
            ("discard",),
        ),
    }
    CONSTRAINTS = {
        "initial_meld": None,
        "opened": None,
        "top_needs_set": Field(
            "bool",
            "in the draw phase, always true: the top discard may be taken only in one play [draw {source: discard, "
            "depth: the pile's size}, meld {the top card and at least two cards of your hand}, ...]: the whole pile "
            "comes into your hand and the meld must be the play's next operation; the draw options list only the stock",
        ),
        "locked": Field(
            "card[]",
            "in the play phase: the pile cards taken this turn (the melded top card not among them); until your next "
            "turn your hand must keep at least as many copies of each as listed through every meld, lay-off and "
            "replacement; they may be discarded",
        ),
        "layoff_melds": Field("int[]", "the ids of your own sets: the only melds you may lay off on or replace in"),
    }
    VIEW = {
        "opened": None,
        "bonus_1000": Field("int|null", "the seat that has had the once-a-match 1000-point bonus (null: nobody yet)"),
    }
    CARD_VALUES = {
        "penalty": Field("int", "what a card left in hand subtracts from its holder's score at the end of a deal"),
        "meld": Field("int", "what a card in one of your sets adds to your score at the end of a deal"),
    }

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        self.bonus_seat: int | None = None  # who has had the 1000-point bonus (once a match)
        super().__init__(players, options, seed)

    def make_deck(self) -> list[str]:
        return deck(packs=2, jokers=1)

    def start_deal(self) -> None:
        self.top: str | None = None  # the top discard taken, until the play's next operation melds it
        self.locked: tuple[str, ...] = ()  # the other pile cards taken this turn (Ambiguity 15: by count)
        super().start_deal()

    # --- card values (Scoring; Ambiguity 6) -----------------------------------------------------------------
    def penalty(self, card: str) -> int:
        """A card left in hand: joker 200, ♠Q 100, a 2 20, A 20, 8 to K 10, 3 to 7 nothing."""
        if card == JOKER:
            return 200
        return 100 if card == SPADE_QUEEN else 20 if rank(card) == 2 else plain_value(card)

    def card_points(self, card: str, ident: str, low_ace: bool) -> int:
        """A card in a set: joker 100; a 2 10 as A or 8 to K, 5 as 3 to 7; ♠Q 50; others by `plain_value`."""
        if card == JOKER:
            return 100
        if card in WILDS:
            return 10 if plain_value(ident) else 5
        return 50 if card == SPADE_QUEEN else plain_value(card)

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """The hand's best sets and the cards left over: `points` is what the hand scores if the deal ended with it
        all in hand, `value` what it scores with those sets on the table (`meld_values`) and the rest in hand."""
        game = cls.hooks_only()
        split = best_split(hand, game.meld_rules, game.penalty)
        values = [game.meld_points(m) for m in split.melds]
        return {
            "melds": [list(m.cards) for m in split.melds],
            "identities": [list(m.ids) for m in split.melds],
            "deadwood": list(split.deadwood),
            "deadwood_points": split.points,
            "meld_values": values,
            "value": sum(values) - split.points,
            "points": -sum(map(game.penalty, hand)),
        }

    # --- own melds only (Ambiguity 2) ---------------------------------------------------------------------
    def can_lay_off(self, seat: int) -> bool:
        return True  # no initial meld: a player with a set of his own may add to it (`layoff_allowed`)

    def layoff_allowed(self, seat: int, meld: int) -> bool:
        return self.table[meld].owner == seat

    def decision(self, seat: int) -> Decision:
        d = super().decision(seat)
        for key in ("initial_meld", "opened"):
            del d.constraints[key]
        if self.phase == "draw":
            d.constraints["top_needs_set"] = True
        else:
            d.constraints.update(locked=sorted(self.locked), layoff_melds=self.reachable(seat))
        return d

    def draw_options(self, seat: int) -> list[Op]:
        return [Draw("stock")]  # the top discard only in a play that melds it (top_needs_set)

    def view(self, seat: int) -> dict[str, Any]:
        out = super().view(seat)
        del out["opened"]
        return {**out, "bonus_1000": self.bonus_seat}

    # --- taking the discard pile (Turn structure 1; Ambiguities 1, 3, 15) ---------------------------------------
    def draw(self, seat: int, op: Draw) -> None:
        if op.source != "discard" or self.phase != "draw":
            return super().draw(seat, op)
        size = len(self.piles[0])
        if op.pile != 0 or not size:
            raise IllegalAction("draw.empty-pile", "there is one discard pile, and it must not be empty")
        if op.depth != size:
            raise IllegalAction(
                "draw.whole-pile", f"taking the top discard takes the whole pile: draw from it with depth {size}"
            )
        cards = self.take_discards(seat, size)
        self.top, self.locked = cards[0], tuple(cards[1:])
        self.taken, self.taken_cards = cards[0], (cards[0],)  # the pile cards may be discarded (Ambiguity 3)
        self.phase = "play"

    def do(self, seat: int, op: Op) -> None:
        if self.top is not None and not (isinstance(op, Meld) and self.top in op.cards):
            raise self.top_unmelded()
        super().do(seat, op)

    def top_unmelded(self) -> IllegalAction:
        """The rejection of a take whose top card does not go at once into a new set (Turn structure 1)."""
        return IllegalAction(
            "draw.top-into-set",
            f"{self.top}, the top discard taken, must go at once into a new set with at least two cards of your "
            "hand: the operation after the draw must be that meld",
        )

    def table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        if not isinstance(op, Meld) and 0 <= op.meld < len(self.table) and self.table[op.meld].owner != seat:
            area = "layoff" if isinstance(op, LayOff) else "exchange"
            raise IllegalAction(f"{area}.own-sets-only", f"meld {op.meld} is not yours: add to and replace in your own")
        super().table_op(seat, op)
        self.top = None
        hand = Counter(self.hands[seat])
        short = sorted(c for c, k in Counter(self.locked).items() if hand[c] < k)
        if short:
            raise IllegalAction(
                "pile.locked",
                f"{' '.join(short)} came with the discard pile this turn: pile cards may be melded, laid off or used "
                "to replace a wild card only from your next turn",
            )
        if not hand:
            raise IllegalAction("out.final-discard", "you may not empty your hand on the table: keep a card to discard")

    def end_play(self, seat: int, was_opened: bool) -> None:
        if self.top is not None:
            raise self.top_unmelded()
        super().end_play(seat, was_opened)

    def clear_turn(self) -> None:
        super().clear_turn()
        self.locked = ()

    # --- scoring and the match (Scoring; End of the match; Ambiguities 7-9, 11) -------------------------------
    def end_deal(self, winner: int | None) -> None:
        self.phase = "over"
        melds = [0] * self.n
        for m in self.table:
            melds[m.owner] += self.meld_points(m)
        hands = [sum(map(self.penalty, h)) for h in self.hands]
        scores: list[float] = [m - h for m, h in zip(melds, hands)]
        concealed = winner is not None and not self.placed_before[winner]  # melded nothing in an earlier turn
        detail: dict[str, Any] = {"melds": melds, "in_hand": hands, "concealed": concealed}
        if self.bonus_seat is None:
            self.bonus_seat = self.first_to_1000(scores, winner)
            if self.bonus_seat is not None:
                scores[self.bonus_seat] += BONUS
                detail["bonus_1000"] = self.bonus_seat
        if concealed and winner is not None:
            scores[winner] += CONCEALED
        self.finish_deal(scores, winner, hands=[sorted(h) for h in self.hands], **detail)

    def first_to_1000(self, scores: list[float], winner: int | None) -> int | None:
        """Who gets the 1000-point bonus after this deal's `scores` (the 250 not yet in them): of those reaching
        1000, the highest total, then the player who went out, then the first in playing order from Pirmasis."""
        order = self.order_from(self.next_seat(self.dealer))
        reached = [s for s in order if self.totals[s] + scores[s] >= BONUS_AT]
        return max(reached, key=lambda s: (self.totals[s] + scores[s], s == winner, -order.index(s)), default=None)

    def next_dealer(self, winner: int | None) -> int:
        """The winner deals the next deal; after a deal without a winner the deal passes to the left (Ambiguity 9)."""
        return self.next_seat(self.dealer) if winner is None else winner

    def match_ended(self) -> bool:
        return max(self.totals) >= TARGET
