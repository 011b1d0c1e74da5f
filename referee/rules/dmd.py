"""The draw-meld-discard family: draw, table plays (melds, lay-offs, joker exchanges), discard.

Variants of the family are declarative subclasses of `DrawMeldDiscard` (see variants/classic.py);
the hooks below have the classic behaviour as their default.
"""

import random
from collections.abc import Collection
from typing import Any, Self

import msgspec

from protocol.messages import Decision, Discard, Draw, Exchange, LayOff, Meld, Op, Pass
from referee.rules.cards import deck, rank, shuffled
from referee.rules.describe import Field, Phase
from referee.rules.engine import Game, Option, derive_seed
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, TableMeld, exchange, lay_off, new_meld
from referee.rules.solver import best_split

PIP_VALUES = {1: 11, 11: 10, 12: 10, 13: 10}


class _Discards(dict[str, Discard]):
    """The Discard op of each card, made at its first use: ops are frozen values, so one object serves every
    decision that offers that discard (a decision offers a dozen)."""

    def __missing__(self, card: str) -> Discard:
        op = self[card] = Discard(card)
        return op


DISCARDS = _Discards()
DRAW_STOCK, DRAW_DISCARD, PASS = Draw("stock"), Draw("discard"), Pass()


class DrawMeldDiscard(Game):
    """Engine of the draw-meld-discard family (rules/_general.md, Turn structure)."""

    family = "draw-meld-discard"
    meld_rules = MeldRules()
    starter = True  # a card is turned up to start the discard pile
    rebuild_stock = True  # the stock is rebuilt from the discard pile when it reaches `stock_floor`
    packet = 1  # cards dealt to a seat at a time (continental: three)
    stock_draw_ends_play = False  # a stock draw is the last op of its play: the card is shown in the next request,
    #                               before any use of it (conquian's turned card; carousel's extra draws)
    empty_hand_phases: tuple[str, ...] = ("draw",)  # phases in which a seat with an empty hand still plays
    ban_lapses = True  # the re-discard ban lapses when a seat holds only banned cards (`legal_discards`)
    distinct_cards = False  # set for each deal: whether its cards are all different (legal_discards need no set)
    _mutable: tuple[str, ...] = ("hands", "stock", "piles", "table", "opened", "placed_before")
    OPTIONS = {
        "max_stock_rebuilds": Option(20, help="safety cap: stock rebuilds per deal before a stalemate"),
        "shuffle_on_rebuild": Option(False, help="shuffle the discard pile when it becomes the new stock"),
        "allow_rediscard": Option(False, help="allow discarding the card taken from the pile in the same turn"),
    }
    # what the family's decisions and views mean (referee/rules/describe.py; docs/reference.md is made from them)
    PHASES: dict[tuple[str, str], Phase | None] = {
        ("turn", "draw"): Phase(
            "the start of your turn: draw one card. Melds, lay-offs and exchanges may come before the draw (where the "
            "variant allows plays before the draw) and after it in the same play, up to the discard",
            ("draw",),
        ),
        ("turn", "play"): Phase(
            "after the draw: meld, lay off and exchange as you like, then discard to end the turn (or go out by "
            "emptying your hand)",
            ("discard",),
        ),
    }
    CONSTRAINTS: dict[str, Field | None] = {
        "initial_meld": Field(
            "int", "points the melds of one play must reach to open (your first meld); 0: no minimum, any meld opens"
        ),
        "opened": Field("bool", "whether you have opened this deal (lay-offs and exchanges need it)"),
    }
    VIEW: dict[str, Field | None] = {
        "turn": Field("int", "the seat whose turn it is"),
        "phase": Field("str", "the phase of that turn (the decision's phase)"),
        "table": Field(
            "object[]",
            "the melds on the table, each {id, owner, kind, cards, identities}: id is the index in this list, cards "
            "the physical cards and identities what each stands for, both in table order (runs low to high)",
        ),
        "discard": Field("card[]", "the discard pile, bottom first, top last"),
        "hand_sizes": Field("int[]", "the number of cards in each seat's hand"),
        "opened": Field("bool[]", "whether each seat has opened this deal"),
        "taken": Field("card|null", "the card you took from the discard pile this turn (null: none, or not your turn)"),
    }
    CARD_VALUES: dict[str, Field | None] = {
        "penalty": Field("int", "what a card left in hand counts at the end of a deal"),
        "meld": Field(
            "int", "what a card counts towards the initial meld, by the card it stands for", requires="initial_meld"
        ),
    }

    # read-only properties, so that a variant may set a value or derive one from its options or player count
    @property
    def hand_size(self) -> int:
        """Cards dealt to each seat."""
        return 13

    @property
    def initial_meld(self) -> int:
        """Points the first meld must reach (0: none)."""
        return 0

    @property
    def predraw_plays(self) -> bool:
        """Whether table plays are allowed before the draw (rules/classic.md, Turn structure 2)."""
        return True

    @property
    def stock_floor(self) -> int:
        """The deal ends drawn when a turn ends with this many stock cards or fewer, unless `rebuild_stock`."""
        return 0

    @property
    def hand_cards_count(self) -> bool:
        """Whether the cards left in a hand count (against their holder, or for the winner) when the deal ends."""
        return True

    @classmethod
    def all_options(cls) -> dict[str, Option]:
        """The family's options, without the stock-rebuild ones where the stock is never rebuilt."""
        out = super().all_options()
        if not cls.rebuild_stock:
            out.pop("max_stock_rebuilds", None)
            out.pop("shuffle_on_rebuild", None)
        return out

    # --- declarative hooks ------------------------------------------------------
    def make_deck(self) -> list[str]:
        """The unshuffled cards of one deal."""
        return deck(packs=2, jokers=self.opts.get("jokers", 0))

    def penalty(self, card: str) -> int:
        """What a card left in hand costs at the end of a deal."""
        return 20 if card == "JK" else PIP_VALUES.get(rank(card), rank(card))

    def meld_points(self, meld: TableMeld) -> int:
        """A meld's value towards the initial meld (rules/classic.md, Special rules 1)."""
        return sum(self.points_at(meld, i) for i in range(len(meld.ids)))

    def points_at(self, meld: TableMeld, i: int) -> int:
        """What the card at position `i` of `meld` counts towards the initial meld."""
        # the ace is low only at the bottom of a run
        low = i == 0 and meld.kind == "run" and len(meld.ids) > 1 and rank(meld.ids[0]) == 1 and rank(meld.ids[1]) == 2
        return self.card_points(meld.cards[i], meld.ids[i], low)

    def card_points(self, card: str, ident: str, low_ace: bool) -> int:
        """What `card`, placed in a meld as `ident`, counts towards the initial meld (`low_ace`: it is the ace
        at the bottom of a low run); by default the value of the card it stands for (rules/classic.md, Special
        rules 1)."""
        r = rank(ident)
        if r == 1:
            return 1 if low_ace else 11
        return min(r, 10)

    def can_lay_off(self, seat: int) -> bool:
        """Whether `seat` may lay off and exchange now."""
        return self.opened[seat] or self.opts.get("layoff_before_opening", False)

    def layoff_allowed(self, seat: int, meld: int) -> bool:
        """Whether `seat` may lay off on (or exchange in) table meld `meld` in its turn: every meld by default."""
        return True

    def reachable(self, seat: int) -> list[int]:
        """Indices of the table melds `seat` may lay off on in its turn."""
        return [i for i in range(len(self.table)) if self.layoff_allowed(seat, i)]

    def meld_rules_for(self, view: dict[str, Any]) -> MeldRules:
        """The meld rules in force in the deal `view` shows (for bots; a variant whose rules change from
        deal to deal, e.g. with the size of the deck, overrides this)."""
        return self.meld_rules

    def score_deal(self, winner: int | None) -> list[float]:
        """Per-seat deal scores (penalties for the cards left in hand)."""
        return [sum(self.penalty(c) for c in hand) for hand in self.hands]

    @classmethod
    def hooks_only(cls) -> Self:
        """An instance with the default options and no deal, for calling the value hooks (eval)."""
        game = cls.__new__(cls)
        game.opts = cls.parse_options({})
        return game

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """End-of-deal value of a hand: the best melds, the cards left over, and what the hand would cost
        if the deal ended now (in Classic every card held counts, melded or not; rules/classic.md, Scoring)."""
        game = cls.hooks_only()
        split = best_split(hand, game.meld_rules, game.penalty)
        return {
            "melds": [list(m.cards) for m in split.melds],
            "identities": [list(m.ids) for m in split.melds],
            "deadwood": list(split.deadwood),
            "deadwood_points": split.points,
            "points": sum(game.penalty(c) for c in hand),
        }

    # --- deal and turn state ---------------------------------------------------------
    def deal_cards(self) -> list[str]:
        """The shuffled cards the deal is dealt from (the last card first); by default the whole deck, shuffled."""
        return shuffled(self.make_deck(), self.deal_rng())

    def start_deal(self) -> None:
        cards = self.deal_cards()
        self.distinct_cards = len(set(cards)) == len(cards)  # one pack without jokers: no hand holds a card twice
        n, k = self.n, self.hand_size
        seats = self.order_from(self.next_seat(self.dealer))  # Pirmasis first; eliminated seats get no cards
        self.hands: list[list[str]] = [[] for _ in range(n)]
        for i in range(k * len(seats)):  # `packet` at a time (usually one), clockwise, from Pirmasis
            self.hands[seats[i // self.packet % len(seats)]].append(cards.pop())
        self.piles: list[list[str]] = [[cards.pop()] if self.starter else []]
        self.stock = cards
        self.table: list[TableMeld] = []
        self.opened = [False] * n
        self.placed_before = [False] * n
        self.placed_now = False
        self.turn = seats[0]
        self.phase = "draw"
        self.taken: str | None = None
        self.taken_cards: tuple[str, ...] = ()  # every card taken from the discard pile this turn
        self.turns = 0
        self.rebuilds = 0
        self.emit({"type": "deal", "deal": self.deal_no, "dealer": self.dealer, "starter": self.piles[0][-1:]})

    def to_act(self) -> list[int]:
        return [] if self.over else [self.turn]

    def legal_discards(self, seat: int) -> list[str]:
        """Cards `seat` may discard now: its cards but the banned ones (`ban_lapses`: unless nothing else is left)."""
        hand = sorted(self.hands[seat]) if self.distinct_cards else sorted(set(self.hands[seat]))
        banned = self.banned_discards(seat)
        if not banned:
            return hand
        others = [c for c in hand if c not in banned]
        return others if others or not self.ban_lapses else hand

    def banned_discards(self, seat: int) -> Collection[str]:
        """The cards `seat` may not discard now: those taken from the discard pile this turn (the re-discard ban),
        none with `allow_rediscard`."""
        if (self.taken is None and not self.taken_cards) or self.opts.get("allow_rediscard", False):
            return ()  # nothing taken from the pile this turn (most turns)
        return {c for c in (self.taken, *self.taken_cards) if c is not None}

    def may_discard(self, seat: int, card: str) -> bool:
        """Whether `seat` may discard `card`, a card it holds: what legal_discards says, without listing them
        (the check of every discard)."""
        banned = self.banned_discards(seat)
        return card not in banned or (self.ban_lapses and set(self.hands[seat]) <= set(banned))

    def decision(self, seat: int) -> Decision:
        constraints = {"initial_meld": self.initial_meld, "opened": self.opened[seat]}
        if self.phase == "draw":
            options: list[Op] = self.draw_options(seat)
        else:
            options = self.discard_options(seat)
        return Decision("turn", self.phase, options, constraints)

    def discard_options(self, seat: int) -> list[Op]:
        """The discards `seat` may make now, as the options of a decision."""
        return list(map(DISCARDS.__getitem__, self.legal_discards(seat)))

    def draw_options(self, seat: int) -> list[Op]:
        """The draws `seat` may make as a play of their own at the start of its turn."""
        return [DRAW_STOCK, DRAW_DISCARD] if self.piles[0] else [DRAW_STOCK]

    def view(self, seat: int) -> dict[str, Any]:
        return {
            **self.view_head(seat),
            "turn": self.turn,
            "phase": self.phase,
            "hand": sorted(self.hands[seat]),
            "table": self._encoded_table() if self._for_request else self.table_view(),
            "discard": list(self.piles[0]),
            "stock": len(self.stock),
            "hand_sizes": [len(h) for h in self.hands],
            "opened": list(self.opened),
            "scores": list(self.totals),
            "taken": self.taken if seat == self.turn else None,
        }

    def table_view(self) -> list[dict[str, Any]]:
        """The view's `table`: each meld as {id, owner, kind, cards, identities}. A function of the melds alone
        (variants extend the entries from their melds' fields): a request's copy is encoded once per table."""
        return [
            {"id": i, "owner": m.owner, "kind": m.kind, "cards": list(m.cards), "identities": list(m.ids)}
            for i, m in enumerate(self.table)
        ]

    _for_request = False  # set while request_view builds the view
    _table_json: tuple[tuple[TableMeld, ...], msgspec.Raw] = ((), msgspec.Raw(b"[]"))

    def request_view(self, seat: int) -> dict[str, Any]:
        """The view with the table pre-encoded: it changes at a meld or a lay-off, not at most requests, and its
        cards and identities are a good part of a request's strings to encode."""
        self._for_request = True
        try:
            return self.view(seat)
        finally:
            self._for_request = False

    def _encoded_table(self) -> msgspec.Raw:
        """`table_view` encoded, cached by the table's melds (immutable values: equal melds, equal entries)."""
        key = tuple(self.table)
        if key != self._table_json[0]:
            self._table_json = (key, msgspec.Raw(msgspec.json.encode(self.table_view())))
        return self._table_json[1]

    def fallback(self, seat: int) -> list[Op]:
        """Draw from the stock; discard the costliest legal card."""
        if self.phase == "draw":
            return [Draw("stock")] if self.stock else super().fallback(seat)
        return [Discard(max(self.legal_discards(seat), key=self.penalty))]

    # --- applying a play ----------------------------------------------------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        hand = self.hands[seat]
        self.play_melded = 0
        was_opened = self.opened[seat]
        deal = self.deal_no
        drawn = False  # a stock draw that ends the play (`stock_draw_ends_play`)
        for op in ops:
            # an empty hand at the draw is a seat that discarded its last card (rules/panguingue.md, Ambiguity 13)
            idle = not hand and self.phase not in self.empty_hand_phases
            if idle or self.phase == "over" or self.turn != seat or self.deal_no != deal:
                raise IllegalAction(
                    "play.after-end", "nothing may follow going out, the discard or the end of your turn"
                )
            if drawn:
                raise IllegalAction("draw.ends-play", "nothing may follow a stock draw: the card is shown next request")
            self.do(seat, op)
            drawn = self.stock_draw_ends_play and isinstance(op, Draw) and op.source == "stock"
        if self.deal_no != deal:
            return  # the play ended the deal (a knock)
        self.end_play(seat, was_opened)

    def end_play(self, seat: int, was_opened: bool) -> None:
        """Check a play as a whole once its last operation is applied, then end the deal or the turn."""
        hand = self.hands[seat]
        # rules/classic.md, Ambiguity 27: the initial meld must be complete within one play
        short = self.play_melded and not was_opened and not self.opened[seat]
        if short and (hand or self.opts.get("hand_out_needs_40", False)):
            raise IllegalAction(
                "initial-meld.minimum",
                f"the initial meld must reach {self.initial_meld} points in one play "
                f"(this play's melds make {self.play_melded}); below that only a play that "
                "empties the hand (final discard included) may meld",
            )
        if not hand:
            self.end_deal(winner=seat)
        elif self.phase == "over":
            self.end_turn()

    def do(self, seat: int, op: Op) -> None:
        """Apply one operation of a play (families extend with their own ops)."""
        match op:
            case Draw():
                self.draw(seat, op)
            case Meld() | LayOff() | Exchange():
                if self.phase == "draw" and not self.predraw_plays:
                    raise IllegalAction("play.before-draw", "draw before you meld or lay off")
                self.table_op(seat, op)
            case Discard():
                self.discard(seat, op)
            case _:
                raise IllegalAction("op.unsupported", f"{type(op).__name__.lower()} is not an operation of {self.slug}")

    def draw(self, seat: int, op: Draw) -> None:
        """Take one card from the stock or the discard pile (the draw of a turn)."""
        if self.phase != "draw":
            raise IllegalAction("draw.once", "you have already drawn this turn")
        if op.depth != 1 or op.pile != 0:
            raise IllegalAction("draw.one-card", "draw exactly one card from the stock or the discard pile")
        if op.source == "stock":
            if not self.stock:
                raise IllegalAction("draw.empty-stock", "the stock is empty")
            card = self.stock.pop()
            self.emit({"type": "draw", "seat": seat, "source": "stock"}, seat, card=card)
        else:
            if not self.piles[0]:
                raise IllegalAction("draw.empty-pile", "the discard pile is empty")
            card = self.taken = self.piles[0].pop()
            self.taken_cards = (card,)
            self.emit({"type": "draw", "seat": seat, "source": "discard", "card": card})
        self.hands[seat].append(card)
        self.phase = "play"

    def take_discards(self, seat: int, depth: int) -> list[str]:
        """Move the top `depth` cards of the discard pile into the seat's hand, as one public take; they count as
        taken from the pile this turn (the re-discard ban). Returns them top card first, so the deepest last."""
        pile = self.piles[0]
        if not 1 <= depth <= len(pile):
            raise IllegalAction("draw.depth", f"the discard pile holds {len(pile)} card(s): cannot take {depth}")
        cards = pile[-depth:][::-1]
        del pile[-depth:]
        self.hands[seat] += cards
        self.taken_cards = self.taken_cards + tuple(cards)
        self.emit({"type": "draw", "seat": seat, "source": "discard", "depth": depth, "cards": cards})
        return cards

    def take_from_hand(self, seat: int, cards: list[str]) -> None:
        """Remove `cards` from the seat's hand, or raise if it does not hold them all."""
        hand = self.hands[seat]
        left = list(hand)
        for c in cards:
            if c not in left:
                raise IllegalAction("hand.missing-card", f"{c} is not in your hand")
            left.remove(c)
        hand[:] = left

    def table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        """Put cards on the table: a new meld, a lay-off, or a joker exchange (which takes the joker to hand)."""
        if isinstance(op, Meld):
            self.take_from_hand(seat, op.cards)
            meld = new_meld(op.cards, self.meld_rules, seat, op.identities, op.kind)
            self.table.append(meld)
            if not self.opened[seat]:
                self.opened[seat] = self.opens_with(seat, meld)
            self.emit(
                {
                    "type": "meld",
                    "seat": seat,
                    "meld": len(self.table) - 1,
                    "cards": list(meld.cards),
                    "identities": list(meld.ids),
                }
            )
        else:
            if not self.can_lay_off(seat):
                raise IllegalAction("initial-meld.first", "lay-offs and joker exchanges need a completed initial meld")
            if not 0 <= op.meld < len(self.table) or not self.table[op.meld].cards:  # emptied: a placeholder
                raise IllegalAction("layoff.no-such-meld", f"there is no meld {op.meld} on the table")
            if not self.layoff_allowed(seat, op.meld):
                raise IllegalAction("layoff.not-allowed", self.layoff_refusal(op.meld))
            if isinstance(op, LayOff):
                self.take_from_hand(seat, op.cards)
                self.table[op.meld] = lay_off(self.table[op.meld], op.cards, self.meld_rules, op.identities, op.end)
                self.emit(
                    {
                        "type": "layoff",
                        "seat": seat,
                        "meld": op.meld,
                        "cards": op.cards,
                        "identities": list(self.table[op.meld].ids),
                    }
                )
            else:
                self.take_from_hand(seat, [op.card])
                self.table[op.meld], freed = exchange(self.table[op.meld], op.card, self.meld_rules.wilds)
                self.hands[seat].append(freed)
                self.emit({"type": "exchange", "seat": seat, "meld": op.meld, "card": op.card})
        self.placed_now = True
        self.after_table_op(seat, op)

    def layoff_refusal(self, meld: int) -> str:
        """Why a lay-off on meld `meld` that `layoff_allowed` refuses is illegal (the variant may say its rule)."""
        return f"you may not add to meld {meld} in this turn"

    def opens_with(self, seat: int, meld: TableMeld) -> bool:
        """Whether the new meld `meld` completes the unopened seat's opening: by default once the new melds of
        this play reach `initial_meld` points (rules/classic.md, Special rules 1)."""
        self.play_melded += self.meld_points(meld)
        return self.play_melded >= self.initial_meld

    def after_table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        """Hook: `seat` has just made the table operation `op` (cards from hand to the table); no-op by default."""

    def discard(self, seat: int, op: Discard) -> None:
        """Put a legal card on the discard pile; ends the turn."""
        if self.phase != "play":
            raise IllegalAction("discard.before-draw", "draw before you discard")
        if op.card not in self.hands[seat]:
            raise IllegalAction("hand.missing-card", f"{op.card} is not in your hand")
        if not 0 <= op.pile < len(self.piles):
            raise IllegalAction("discard.no-such-pile", f"there is no discard pile {op.pile}")
        if not self.may_discard(seat, op.card):
            raise IllegalAction("discard.rediscard", f"{op.card} was just taken from the discard pile")
        self.hands[seat].remove(op.card)
        self.piles[op.pile].append(op.card)
        self.emit({"type": "discard", "seat": seat, "card": op.card})
        self.phase = "over"

    def end_turn(self) -> None:
        """Pass the turn on; rebuild the stock or end the deal in a stalemate."""
        self.clear_turn()
        self.turns += 1
        if len(self.stock) <= self.stock_floor and not self.rebuild():
            return self.stock_out()
        if self.turns >= self.opts["max_turns_per_deal"]:
            return self.end_deal(winner=None)
        self.turn = self.next_turn(self.turn)
        self.phase = "draw"

    def next_turn(self, seat: int) -> int:
        """Who plays after `seat`: the next seat still in (a variant may skip seats sitting out a deal)."""
        return self.next_seat(seat)

    def rebuild_yield(self, pile: int) -> int:
        """The stock cards a rebuild would bring from a discard pile of `pile` cards now: all but its top card
        (_general.md, Stock exhaustion), 0 where no rebuild is allowed."""
        allowed = self.rebuild_stock and self.rebuilds < self.opts["max_stock_rebuilds"] and pile >= 2
        return pile - 1 if allowed else 0

    def can_rebuild(self) -> bool:
        """Whether the stock may be rebuilt from the discard pile now."""
        return self.rebuild_yield(len(self.piles[0])) > 0

    def rebuild(self) -> bool:
        """Rebuild the stock from the discard pile (all but its top card, turned over; shuffled with the option:
        _general.md, Stock exhaustion); False where that is not allowed (the caller ends the deal)."""
        if not self.can_rebuild():
            return False
        pile = self.piles[0]
        self.stock = pile[-2::-1] + self.stock  # turned over: the earliest discard is on top of the new stock
        if self.opts["shuffle_on_rebuild"]:
            random.Random(derive_seed(self.seed, "deal", self.deal_no, "rebuild", self.rebuilds)).shuffle(self.stock)
        self.piles[0] = pile[-1:]
        self.rebuilds += 1
        self.emit({"type": "rebuild", "stock": len(self.stock)})
        return True

    def clear_turn(self) -> None:
        """Close the bookkeeping of the turn just ended: its table plays, the cards it took from the pile."""
        self.placed_before[self.turn] = self.placed_before[self.turn] or self.placed_now
        self.placed_now = False
        self.taken = None
        self.taken_cards = ()

    def stock_out(self) -> None:
        """The stock is down to `stock_floor` and is not rebuilt: by default the deal ends without a winner."""
        self.end_deal(winner=None)

    def end_deal(self, winner: int | None) -> None:
        """Score the deal, reveal the hands and go on to the next deal."""
        self.phase = "over"
        hands = [sorted(h) for h in self.hands]
        self.finish_deal(self.score_deal(winner), winner, hands=hands)

    # --- for the conformance suite --------------------------------------------------
    def cards_in_play(self) -> list[str]:
        """Every card of the current deal, wherever it lies."""
        return (
            [c for h in self.hands for c in h]
            + self.stock
            + [c for p in self.piles for c in p]
            + [c for m in self.table for c in m.cards + m.hung]
        )

    def hidden_zones(self, seat: int) -> list[list[str]]:
        """The card lists `seat` must not see (their contents may be permuted without changing its view)."""
        return [h for i, h in enumerate(self.hands) if i != seat] + [self.stock]
