"""Carpathian Rummy (Karpatų romis): rules/carpathian.md, based on rules/hungarian.md. Fourteen cards, melds during
play: a 51-point first meld, the discard pile closed until then (except for a rummy from the hand) and a taken
discard used at once; bonuses 5, 10 or 25 for going out; the low cards' pips rounded to ten, plus one a card."""

from collections import Counter
from typing import Any

from protocol.cards import RANKS, SUITS
from protocol.messages import Decision, Draw, Exchange, LayOff, Meld, Op
from referee.rules.cards import rank
from referee.rules.describe import Field, Phase
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.melds import TableMeld, new_meld
from referee.rules.solver import Split
from referee.rules.variants.hungarian import HUNGARIAN_MELDS, LIMIT, arrange, card_value, check_groups, hungarian_deck

BONUS = {"out": 5, "rummy-from-hand": 10, "carpathian": 25}  # Special rules, going-out bonuses (a, b, c)
ALL_RANKS = 13  # a Carpathian rummy: a sequence of one suit from 2 to ace


def hand_penalty(hand: list[str]) -> int:
    """Scoring (Ambiguities 1, 7): the pips of the 2s, 3s and 4s rounded to the nearest ten (halves up), the other
    cards their hungarian values, plus one a card."""
    low = sum(rank(c) for c in hand if c != "JK" and 2 <= rank(c) <= 4)
    high = sum(card_value(c) for c in hand if c == "JK" or not 2 <= rank(c) <= 4)
    return (low + 5) // 10 * 10 + high + len(hand)


class Carpathian(DrawMeldDiscard):
    """Karpatų romis: hungarian's deck and combinations, 14 cards dealt in twos and Pirmasis's 15th, a 51 opening,
    the discard taken only to be used at once; −5/−10/−25 for going out; the match ends when a total reaches 101."""

    slug = "carpathian"
    name = "Carpathian Rummy"
    local_name = "Karpatų romis"
    min_players, max_players = 2, 6
    hand_size = 14
    packet = 2  # Players, deck and deal: two cards at a time
    meld_rules = HUNGARIAN_MELDS
    initial_meld = 51
    starter = False  # Pirmasis's opening discard begins the pile
    predraw_plays = False  # Ambiguity 10: every turn starts with the draw
    unused_options = frozenset({"allow_rediscard"})  # a taken discard is always used at once (Turn structure 4)
    OPTIONS = {"max_stock_rebuilds": Option(20, help="safety cap: stock rebuilds per deal before a stalemate")}
    PHASES = {
        ("turn", "draw"): Phase(
            "the start of your turn: draw from the stock; or take the top discard in one play with its use: once "
            "you have melded, a meld or lay-off holding it; before that, only a rummy from the hand (every card in "
            "new combinations of yours, the last one discarded)",
            ("draw",),
        ),
        ("turn", "play"): Phase(
            "after the draw (Pirmasis's opening turn has none): meld (the first meld 51 points in one play), then lay "
            "off and exchange jokers, then discard; or go out by emptying your hand",
            ("discard",),
        ),
    }
    CONSTRAINTS = {
        "discard_needs_placing": Field(
            "bool",
            "always true: the top discard is taken only in a play that puts it on the table (unopened: a rummy from "
            "the hand); the draw options list only the stock",
        )
    }
    CARD_VALUES = {
        "penalty": Field(
            "int",
            "a card's value in hand; the penalty is the 2s, 3s and 4s together rounded to ten, the others' values, "
            "plus 1 a card",
        ),
        "meld": Field(
            "int",
            "what a card counts towards the 51, by the card it stands for; an ace in a sequence of all 13 ranks "
            "counts 11 (the Carpathian 2-A)",
        ),
    }

    def make_deck(self) -> list[str]:
        return hungarian_deck()

    def penalty(self, card: str) -> int:
        return card_value(card)

    def points_at(self, meld: TableMeld, i: int) -> int:
        """Special rules, 51 points; worked example 4: the ace of a 13-card sequence is the high end of 2-A."""
        if meld.kind == "run" and len(meld.ids) == ALL_RANKS and rank(meld.ids[i]) == 1:
            return 11
        return super().points_at(meld, i)

    def split(self, cards: list[str]) -> Split:
        """The best arrangement, its same-rank sets showing all four suits (Valid combinations), with a suit's
        13 natural cards kept together as a Carpathian rummy (for its bonus)."""
        for s in SUITS:
            suit_ = [r + s for r in RANKS]
            if all(c in cards for c in suit_):
                rest = list((Counter(cards) - Counter(suit_)).elements())
                split = arrange(rest, self.meld_rules, self.penalty)
                return Split([new_meld(suit_, self.meld_rules), *split.melds], split.deadwood, split.points)
        return arrange(cards, self.meld_rules, self.penalty)

    # --- the deal and decisions --------------------------------------------------------------------------------
    def start_deal(self) -> None:
        super().start_deal()
        self.hands[self.turn].append(self.stock.pop())  # Pirmasis's 15th; he opens by discarding
        self.phase = "play"
        self.shared: frozenset[int] = frozenset()  # table melds another player has laid off on (Ambiguity 17)
        self.turn_laid = False  # a lay-off or joker exchange this turn (not a rummy from the hand then)

    def draw_options(self, seat: int) -> list[Op]:
        return [Draw("stock")]  # Turn structure 1: the discard travels with the play that uses it

    def decision(self, seat: int) -> Decision:
        d = super().decision(seat)
        d.constraints["discard_needs_placing"] = True
        return d

    # --- plays ------------------------------------------------------------------------------------------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        self.pile_card: str | None = None  # the discard taken in this play
        self.play_placed: tuple[str, ...] = ()  # cards this play put into melds and lay-offs
        super()._apply(seat, ops)

    def draw(self, seat: int, op: Draw) -> None:
        if self.phase == "play" and self.turns == 0:
            raise IllegalAction("draw.first-opens", "Pirmasis opens the deal with a discard, without drawing")
        super().draw(seat, op)
        if op.source == "discard":
            self.pile_card = self.taken

    def after_table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        if isinstance(op, Meld):
            self.play_placed += tuple(op.cards)
            return
        self.turn_laid = True
        if isinstance(op, LayOff):
            self.play_placed += tuple(op.cards)
            if self.table[op.meld].owner != seat:
                self.shared |= {op.meld}

    def end_play(self, seat: int, was_opened: bool) -> None:
        """The taken discard used at once (Ambiguity 14) and one seat's same-rank sets showing four suits
        (Ambiguity 5), then the family's checks."""
        card = self.pile_card
        if card and not was_opened and (self.hands[seat] or self.turn_laid):
            raise IllegalAction(
                "draw.discard-closed",
                "until you have melded, the discard may be taken only for a rummy from the hand: all your other "
                "cards in new combinations of yours, the last one discarded",
            )
        if card and card not in self.play_placed:  # either copy will do (_general.md, Ambiguity 11)
            raise IllegalAction(
                "draw.discard-unused", f"{card} taken from the discard pile must go into a meld or lay-off of this play"
            )
        check_groups([m for m in self.table if m.owner == seat])
        super().end_play(seat, was_opened)

    def clear_turn(self) -> None:
        super().clear_turn()
        self.turn_laid = False

    # --- scoring and the end of the match -----------------------------------------------------------------------
    def going_out(self, seat: int) -> str:
        """Which bonus going out earns (the highest only, Ambiguity 2): a Carpathian rummy of one's own, a rummy
        from the hand, or plain going out."""
        for i, m in enumerate(self.table):
            if m.owner == seat and m.kind == "run" and len(m.ids) == ALL_RANKS and i not in self.shared:
                return "carpathian"
        from_hand = not self.placed_before[seat] and not self.turn_laid
        return "rummy-from-hand" if from_hand else "out"

    def end_deal(self, winner: int | None) -> None:
        """Scoring: the going-out player −5, −10 or −25, every other player his hand's penalty; a stalemate: every
        player his penalty."""
        self.phase = "over"
        scores: list[float] = [hand_penalty(h) for h in self.hands]
        kind = "stalemate" if winner is None else self.going_out(winner)
        if winner is not None:
            scores[winner] = -BONUS[kind]
        hands = [sorted(h) for h in self.hands]
        self.finish_deal(scores, winner, hands=hands, finish={"kind": kind, "bonus": BONUS.get(kind, 0)})

    def match_ended(self) -> bool:
        """End of the match: after the deal in which any total reaches 101; the lowest wins."""
        return max(self.totals) >= LIMIT

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """A hand's best combinations, what they count towards the 51, and what the hand (and what it leaves
        unmelded) would cost if another player went out now."""
        game = cls.hooks_only()
        split = game.split(hand)
        worth = sum(game.meld_points(m) for m in split.melds)
        return {
            "melds": [list(m.cards) for m in split.melds],
            "identities": [list(m.ids) for m in split.melds],
            "kinds": [m.kind for m in split.melds],
            "deadwood": list(split.deadwood),
            "deadwood_points": split.points,
            "meld_points": worth,
            "points": hand_penalty(hand),
            "verdict": (
                "all in combinations"
                if not split.deadwood
                else f"opens: {worth} points in melds"
                if worth >= cls.initial_meld
                else f"cannot open: {worth} points in melds"
            )
            + f"; penalty {hand_penalty(hand)} now, {hand_penalty(list(split.deadwood))} after melding",
        }
