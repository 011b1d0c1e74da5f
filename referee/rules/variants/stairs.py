"""Staircase Rummy (Laiptinis romis): rules/stairs.md, based on rules/classic.md (turn procedure only)."""

from typing import Any

import msgspec

from protocol.messages import Decision, Draw, Exchange, LayOff, Meld
from referee.rules.cards import deck, rank, suit
from referee.rules.describe import Field
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, TableMeld, start_at

STAIRS_MELDS = MeldRules(wrap=True, wilds=frozenset(), set_max=4)  # one pack, no jokers, the ranks a cycle


def ace_value(meld: TableMeld, i: int) -> int:
    """Special rules 1: an ace is worth 15 in a set; in a run 10 next to K only, 1 next to 2 only, 5 between
    them, by its neighbours as laid out (the two ends of a closed 13-card cycle are not neighbours, Ambiguity 15)."""
    if meld.kind == "set":
        return 15
    near = {rank(meld.ids[j]) for j in (i - 1, i + 1) if 0 <= j < len(meld.ids)}
    return 5 if near >= {13, 2} else 10 if 13 in near else 1


def cycle_layout(meld: TableMeld) -> TableMeld:
    """A new meld of all 13 ranks, laid out K-A-2-...-Q whatever the order submitted: a closed cycle has no ends,
    so its ace lies between K and 2 and is connecting (Special rules 1: "next to both K and 2"; Ambiguity 4).
    Only a lay-off that closes a run already on the table puts the ace at an end (Ambiguity 15)."""
    return start_at(meld, "K" + suit(meld.ids[0]))


class Stairs(DrawMeldDiscard):
    """Laiptinis romis: 7 cards from one pack, a spread discard pile whose deeper cards may be taken to meld at
    once, every meld and lay-off scored when made, and the others' hands as the going-out bonus."""

    slug = "stairs"
    name = "Staircase Rummy"
    local_name = "Laiptinis romis"
    rules_version = 2  # 2: a 13-card meld scores its ace as connecting, whatever card comes first
    min_players, max_players = 2, 4
    hand_size = 7
    meld_rules = STAIRS_MELDS
    low_wins = False
    _mutable = DrawMeldDiscard._mutable + ("deal_points",)
    OPTIONS = {
        "target": Option(500, (500, 1000), "the match ends when a total reaches this"),
        "max_stock_rebuilds": Option(3, help="safety cap: stock rebuilds per deal before a stalemate"),
        "initial_meld_min": Option(0, help="points a player's first meld must reach (0: none, Ambiguity 1)"),
        "deep_draw_layoff_ok": Option(False, help="a card dug from the discard pile may be laid off, not only melded"),
        "predraw_actions": Option(True, help="melds and lay-offs are allowed before the draw (Ambiguity 11)"),
        "deduct_hand_cards": Option(False, help="each loser subtracts the value of his hand (as in 500 Rum)"),
    }
    CONSTRAINTS = {
        "pile_take": Field(
            "str",
            'in the draw phase, when the pile holds 2 or more cards: "deepest": you may take a deeper card with '
            "every card above it (draw from the discard pile with depth k); the deepest must go into a new meld in "
            "the same play",
        )
    }
    VIEW = {"deal_points": Field("number[]", "the points each seat has scored this deal by melding and laying off")}
    CARD_VALUES = {
        "penalty": Field(
            "int", "what a card left in hand counts: the going-out bonus, and with deduct_hand_cards a loss"
        ),
        "meld": Field("int", "what a card scores when it is placed on the table (meld or lay-off)"),
    }

    @property
    def initial_meld(self) -> int:
        return self.opts["initial_meld_min"]

    @property
    def predraw_plays(self) -> bool:
        return self.opts["predraw_actions"]

    def make_deck(self) -> list[str]:
        return deck(packs=1)

    def start_deal(self) -> None:
        self.deal_points = [0] * self.n  # meld and lay-off points scored in this deal (Special rules 2)
        self.target_card: str | None = None
        super().start_deal()

    def penalty(self, card: str) -> int:
        """Special rules 3: a card in hand is worth A 15, K/Q/J 10, 2-10 face value."""
        return 15 if rank(card) == 1 else min(rank(card), 10)

    def placed_value(self, meld: TableMeld, card: str) -> int:
        """What `card`, just placed in `meld`, scores (Special rules 1; single pack: each card once)."""
        i = meld.cards.index(card)
        return ace_value(meld, i) if rank(card) == 1 else min(rank(card), 10)

    def meld_points(self, meld: TableMeld) -> int:
        return sum(self.placed_value(meld, c) for c in meld.cards)

    def can_lay_off(self, seat: int) -> bool:
        """Ambiguity 1: lay-offs need no meld of one's own, unless an `initial_meld_min` is agreed."""
        return not self.initial_meld or self.opened[seat]

    def decision(self, seat: int) -> Decision:
        d = super().decision(seat)
        if self.phase == "draw" and len(self.piles[0]) > 1:
            d.constraints["pile_take"] = "deepest"  # a deeper card with those above it, the deepest melded at once
        return d

    def view(self, seat: int) -> dict[str, Any]:
        return {**super().view(seat), "deal_points": list(self.deal_points)}

    # --- the deep draw (Turn structure 1c; Ambiguities 2, 13) ---------------------------------------------------
    def draw(self, seat: int, op: Draw) -> None:
        if op.source != "discard" or op.depth == 1 or self.phase != "draw":
            return super().draw(seat, op)
        if op.pile != 0:
            raise IllegalAction("draw.one-pile", "there is only one discard pile")
        self.target_card = self.take_discards(seat, op.depth)[-1]
        self.phase = "play"

    def table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        if isinstance(op, Exchange):  # no wild cards: the family refuses it, and it would place nothing to score
            return super().table_op(seat, op)
        if isinstance(op, LayOff) and 0 <= op.meld < len(self.table):
            op = msgspec.structs.replace(op, end=self.layoff_end(self.table[op.meld], op))
        super().table_op(seat, op)
        meld = self.table[-1] if isinstance(op, Meld) else self.table[op.meld]
        if isinstance(op, Meld) and len(meld.cards) == 13:  # a closed cycle: see `cycle_layout`
            meld = self.table[-1] = cycle_layout(meld)
        self.deal_points[seat] += sum(self.placed_value(meld, c) for c in op.cards)
        if self.target_card in op.cards and (isinstance(op, Meld) or self.opts["deep_draw_layoff_ok"]):
            self.target_card = None

    def layoff_end(self, meld: TableMeld, op: LayOff) -> str:
        """Ambiguity 15: where lay-offs close a run into all 13 ranks, an ace's value depends on the end the
        player names, so he must name it; otherwise the cards join the high end."""
        closes = meld.kind == "run" and len(meld.cards) + len(op.cards) == 13
        if closes and op.end is None and any(rank(c) == 1 for c in op.cards):
            raise IllegalAction(
                "layoff.end",
                "this ace closes the run into a cycle: name the end (low or high) it goes to, which fixes its value",
            )
        return op.end or "high"

    def end_play(self, seat: int, was_opened: bool) -> None:
        if self.target_card:
            how = "a new meld" if not self.opts["deep_draw_layoff_ok"] else "a meld or a lay-off"
            raise IllegalAction(
                "draw.deep-unused",
                f"{self.target_card}, taken from deep in the discard pile, must go into {how} in the same play",
            )
        super().end_play(seat, was_opened)

    # --- scoring (Scoring; Special rules 3-4; Ambiguities 6, 16) --------------------------------------------------
    def score_deal(self, winner: int | None) -> list[float]:
        hands = [sum(map(self.penalty, h)) for h in self.hands]
        scores: list[float] = list(self.deal_points)
        if winner is not None:
            scores[winner] += sum(hands) * (1 if self.placed_before[winner] else 2)
        if self.opts["deduct_hand_cards"]:
            scores = [s - h for s, h in zip(scores, hands)]
        return scores

    def match_ended(self) -> bool:
        return max(self.totals) >= self.opts["target"]
