"""Panguingue (Pangingas): rules/panguingue.md. Played for chips (referee/rules/chips.py)."""

from collections import Counter
from typing import Any

from protocol.messages import Bid, Decision, Discard, Draw, Exchange, LayOff, Meld, Op, Pass, Rearrange
from referee.rules.cards import deck, rank, run_order, shuffled, suit
from referee.rules.chips import ChipsGame
from referee.rules.describe import Field, Phase
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.engine import Option
from referee.rules.errors import ConfigError, IllegalAction
from referee.rules.melds import MeldRules, TableMeld, lay_off
from referee.rules.moves import TableMoves
from referee.rules.sealed import Sealed
from referee.rules.solver import best_split

VALUABLE = (3, 5, 7)  # Valid combinations: the "vertingos" cards
PANGUINGUE_MELDS = MeldRules(
    ace_high=False, wilds=frozenset(), set_max=11, run_ranks=run_order(40), identical_sets=True
)


def meld_type(meld: TableMeld) -> str:
    """The combination's type (Valid combinations): `run`, `suit-set` (identical cards) or `mixed-set`."""
    if meld.kind != "set":
        return meld.kind
    return "suit-set" if len(set(meld.cards)) == 1 else "mixed-set"


def condition(meld: TableMeld) -> int:
    """The chips each other participant pays for melding `meld` (Special rules, Conditions; Ambiguities 8, 9)."""
    kind, spades, valuable = meld_type(meld), suit(meld.cards[0]) == "S", rank(meld.cards[0]) in VALUABLE
    if kind == "run":
        return 2 if spades else 1
    if kind == "mixed-set":
        return 1 if valuable else 0
    return (4 if spades else 2) if valuable else (2 if spades else 1)


def addition(meld: TableMeld) -> int:
    """The chips each other participant pays per card added to an own meld (Special rules, Addition payment)."""
    return 2 if meld_type(meld) == "suit-set" and meld.cards[0] in ("3S", "5S", "7S") else 1


class Panguingue(ChipsGame, TableMoves, DrawMeldDiscard):
    """Panguingue: 8 x 40 cards with a foot, 2-16 players, counter-clockwise by default; participants ante into a
    bank, collect conditions and additions at once, may be forced to take a fitting discard, and the first to use
    all 11 cards without discarding wins the bank."""

    slug = "panguingue"
    name = "Panguingue"
    local_name = "Pangingas"
    min_players, max_players = 2, 16
    meld_rules = PANGUINGUE_MELDS
    starter = False  # Ambiguity 3
    packet = 5  # dealt 5 + 5
    hand_size = 10
    predraw_plays = False
    rearranging = True  # split and take-out of own melds
    rearrange_hand_card = False  # a split's parts may be made of the meld's own cards
    unused_options = frozenset({"allow_rediscard"})  # Ambiguity 14: never
    # romis check: a forced take needs a discard that fits one of seat 0's melds and a seat that demands it; the
    # sample brains never demand, so the search does
    CHECK_TABLES = ({"kinds": ["turn/forced"], "prefer": {"demand/demand": "bid"}},)
    OPTIONS = {
        "direction": Option("ccw", ("ccw", "cw"), "play direction: counter-clockwise (the book) or clockwise"),
        "ante": Option(2, help="chips each participant pays into the bank"),
        "match_deals": Option(10, help="deals in the match (void and drawn deals count)"),
        "foot_size": Option(160, help="cards of the 320 set aside as the foot, used when the stock runs out"),
    }
    PHASES = {
        ("join", "join"): Phase(
            "the cards are dealt: take part in this deal (`bid {value: join}`, paying the ante into the bank) or "
            "`pass` (sit it out: no turns, no payments). Asked one seat at a time in turn order, answers public",
            ("bid", "pass"),
        ),
        ("demand", "demand"): Phase(
            "the top discard fits one of the active player's own melds (constraints `active`, `card`): demand that "
            "he take it (`bid {value: demand}`) or `pass`. Asked one seat at a time in turn order; one demand "
            "is enough",
            ("bid", "pass"),
            rare=True,
        ),
        ("turn", "forced"): Phase(
            "a demand was made: take the top discard as your draw and add it to one of your own melds "
            "(`layoff {meld, cards: [the card]}`, optionally after `draw {source: discard}`; more ops may follow)",
            ("layoff",),
            rare=True,
        ),
    }
    CONSTRAINTS = {
        "free_take": Field("bool", "the top discard is the previous player's unused stock card: take it freely"),
        "next_player": Field("int", "the seat whose melds you may add your drawn card to (your right-hand opponent)"),
        "ante": Field("int", "in phase join: the chips taking part costs", rare=True),
        "active": Field("int", "in phase demand: the player who would be forced", rare=True),
        "card": Field("card", "in phase demand: the top discard he would have to take", rare=True),
    }
    VIEW = {
        "participants": Field("int[]|null", "the seats taking part in this deal (null while they are being asked)"),
        "foot": Field("int", "cards left in the foot (0 once it has become the stock)"),
        "stage": Field("str|null", "join or demand while seats are asked out of turn, forced, else null"),
        "drawn": Field("card|null", "the card you drew this turn (null: none yet, or not your turn)"),
    }
    CARD_VALUES = {"penalty": None, "meld": None}

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        self.foot: list[str] = []
        super().__init__(players, options, seed)

    def make_deck(self) -> list[str]:
        return deck(packs=8, size=40)

    def penalty(self, card: str) -> int:
        """No card costs anything (Scoring); each left in hand is one more card to use before going out."""
        return 1

    def deal_cards(self) -> list[str]:
        """Deal 0: shuffle all 320 and set the foot aside; later: the cards used in the deal and the part of
        the deck in use (the stock, or the foot once brought in), shuffled; an unused foot stays aside."""
        if self.deal_no == 0:
            cards, k = shuffled(self.make_deck(), self.deal_rng()), self.opts["foot_size"]
            if len(cards) - k < self.hand_size * self.n:
                most = len(cards) - self.hand_size * self.n
                raise ConfigError(f"foot_size {k} is too large: {self.n} players are dealt 10 each, so at most {most}")
            self.foot = cards[:k]
            return cards[k:]
        return shuffled(sorted(super().cards_in_play()), self.deal_rng())  # without the foot (self.cards_in_play)

    # --- participation (Ambiguities 4, 24) -------------------------------------------------
    def start_deal(self) -> None:
        super().start_deal()
        self.stage: str | None = "join"
        self.joined: tuple[int, ...] = ()
        self.order = tuple(self.order_from(self.turn))  # everyone, first player first
        self.asking: Sealed | None = Sealed("join", "join", self.order[:1])
        self.free_top = False  # the top discard is the previous player's stock card, discarded unused
        self.new_turn_state()

    def new_turn_state(self) -> None:
        """The bookkeeping of one turn: the card drawn, whether it went to the next player, a take to use."""
        self.drawn: str | None = None
        self.drawn_source: str | None = None
        self.laid_next = False
        self.use_due: str | None = None  # a discard taken under rule 2(b)(ii): the next op must use it

    def answer(self, seat: int, ops: list[Op], value: str) -> bool:
        """A join or demand answer: True for `bid {value}`, False for `pass`."""
        op = ops[0]
        if len(ops) != 1 or not (isinstance(op, Pass) or (isinstance(op, Bid) and op.value == value)):
            raise IllegalAction(f"{value}.answer", f"answer with one `bid {{value: {value}}}` or one `pass`")
        return isinstance(op, Bid)

    def ask_next(self, kind: str, seats: tuple[int, ...], seat: int) -> bool:
        """Ask the seat after `seat` in `seats` next (a `Sealed` round of one seat); False if `seat` was the last."""
        rest = seats[seats.index(seat) + 1 :]
        self.asking = Sealed(kind, kind, rest[:1]) if rest else None
        return bool(rest)

    def answer_join(self, seat: int, ops: list[Op]) -> None:
        joins = self.answer(seat, ops, "join")
        self.emit({"type": "join", "seat": seat, "joins": joins})
        if joins:
            self.joined += (seat,)
            self.ante([seat], self.opts["ante"])
        if self.ask_next("join", self.order, seat):
            return
        self.stage = None
        if len(self.joined) < 2:  # Ambiguity 4: a void deal, antes returned
            self.return_paid()
            return self.end_deal(winner=None)
        self.turn = self.joined[0]
        self.begin_turn()

    # --- the forcing check (Turn structure 1; Ambiguities 12, 24) -----------------------------
    def next_turn(self, seat: int) -> int:
        """The next participant in play direction."""
        return next(s for s in self.order_from(self.next_seat(seat)) if s in self.joined)

    def begin_turn(self) -> None:
        """Start the active player's turn: bring in the foot or rebuild if the stock is empty, then the forcing
        check; the other participants are asked in turn order if the top discard fits one of his melds."""
        self.new_turn_state()
        if not self.stock and not self.rebuild():
            return self.stock_out()
        if self.forced_melds(self.turn):
            self.askers = tuple(s for s in self.order_from(self.next_seat(self.turn)) if s in self.joined)[:-1]
            self.stage, self.asking = "demand", Sealed("demand", "demand", self.askers[:1])
            self.emit({"type": "forcing", "seat": self.turn, "card": self.piles[0][-1], "asked": list(self.askers)})

    def forced_melds(self, seat: int) -> list[int]:
        """The seat's own melds the top discard could be added to as it lies."""
        if not self.piles[0]:
            return []
        return [i for i, m in enumerate(self.table) if m.owner == seat and self.fits(m, [self.piles[0][-1]])]

    def fits(self, meld: TableMeld, cards: list[str]) -> bool:
        """Whether `cards` could be added to `meld` keeping its type."""
        try:
            return meld_type(lay_off(meld, cards, self.meld_rules)) == meld_type(meld)
        except IllegalAction:
            return False

    def answer_demand(self, seat: int, ops: list[Op]) -> None:
        demands = self.answer(seat, ops, "demand")
        self.emit({"type": "demand", "seat": seat, "demands": demands})
        if demands or not self.ask_next("demand", self.askers, seat):
            self.asking, self.stage = None, "forced" if demands else None

    def forced_take(self, seat: int, ops: list[Op]) -> None:
        """The forced player's play: the top discard onto one of his own melds (the draw implied), then more ops."""
        top, melds = self.piles[0][-1], self.forced_melds(seat)
        first = ops[1] if isinstance(ops[0], Draw) and ops[0].source == "discard" and len(ops) > 1 else ops[0]
        if not (isinstance(first, LayOff) and first.cards == [top] and first.meld in melds):
            raise IllegalAction("force.must-take", f"a demand was made: add {top} to one of your melds {melds}")
        self.stage = None
        rest = ops[ops.index(first) + 1 :]
        super()._apply(seat, [Draw("discard"), first, *rest])

    # --- the interface ---------------------------------------------------------------------
    def to_act(self) -> list[int]:
        if self.asking is not None and not self.over:
            return self.asking.waiting()
        return super().to_act()

    def decision(self, seat: int) -> Decision:
        if self.stage == "join":
            return Decision("join", "join", [Bid("join"), Pass()], {"ante": self.opts["ante"]})
        if self.stage == "demand":
            asked = {"active": self.turn, "card": self.piles[0][-1]}
            return Decision("demand", "demand", [Bid("demand"), Pass()], asked)
        d = super().decision(seat)
        d.constraints.update(free_take=self.free_top, next_player=self.next_turn(seat))
        if self.stage == "forced":
            top = self.piles[0][-1]
            return Decision("turn", "forced", [LayOff(m, [top]) for m in self.forced_melds(seat)], d.constraints)
        return d

    def draw_options(self, seat: int) -> list[Op]:
        return [Draw("stock"), *([Draw("discard")] if self.free_top and self.piles[0] else [])]

    def view(self, seat: int) -> dict[str, Any]:
        v = {**super().view(seat), **self.chips_view()}
        v.update(participants=None if self.stage == "join" else list(self.joined), foot=len(self.foot))
        v["stage"] = self.stage
        v["drawn"] = self.drawn if seat == self.turn and self.stage is None else None
        if self.stage in ("join", "demand", "forced"):
            v["phase"] = self.stage
        return v

    def fallback(self, seat: int) -> list[Op]:
        """Sit out, never demand, take a forced card onto the first fitting meld; else the family's policy."""
        if self.stage in ("join", "demand"):
            return [Pass()]
        if self.stage == "forced":
            return [self.decision(seat).options[0]]  # type: ignore[index]
        return super().fallback(seat)

    # --- applying plays --------------------------------------------------------------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        if self.stage == "join":
            return self.answer_join(seat, ops)
        if self.stage == "demand":
            return self.answer_demand(seat, ops)
        if self.stage == "forced":
            return self.forced_take(seat, ops)
        super()._apply(seat, ops)

    def draw(self, seat: int, op: Draw) -> None:
        taking = op.source == "discard" and self.phase == "draw" and bool(self.piles[0])
        due = self.piles[0][-1] if taking and not self.free_top else None
        super().draw(seat, op)
        self.drawn, self.drawn_source, self.use_due = self.hands[seat][-1], op.source, due
        self.free_top = self.free_top and not taking

    def do(self, seat: int, op: Op) -> None:
        due = self.use_due
        if isinstance(op, Exchange):
            raise IllegalAction("op.unsupported", "panguingue has no wild cards to exchange")
        super().do(seat, op)
        if due is not None and not isinstance(op, Draw):
            if not (isinstance(op, Meld | LayOff) and due in op.cards):
                raise IllegalAction(
                    "take.not-allowed",
                    f"the top discard {due} may be taken only to use it at once (new meld, addition to your meld, "
                    "or the next player's meld), unless it is the previous player's unused stock card",
                )
            self.use_due = None

    def table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        if isinstance(op, LayOff) and 0 <= op.meld < len(self.table):
            meld = self.table[op.meld]
            if meld.owner != seat:
                if meld.owner != self.next_turn(seat):
                    raise IllegalAction("layoff.not-next-player", "add only to your melds and the next player's")
                if self.laid_next or op.cards != [self.drawn] or self.drawn not in self.hands[seat]:
                    raise IllegalAction(
                        "layoff.not-drawn-card", "only the card drawn this turn may go on the next player's melds"
                    )
            if not self.fits(meld, op.cards) and meld_type(meld) == "suit-set":
                raise IllegalAction("extend.changes-type", f"a set of identical {meld.cards[0]} takes only more")
        super().table_op(seat, op)

    def can_lay_off(self, seat: int) -> bool:
        return True  # Ambiguity 7: no meld of one's own is needed first

    def check_rearrange(self, seat: int) -> None:
        """Any own meld may be split or taken from (there is no opening; `rearrange.not-own` guards the rest)."""

    def after_table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        super().after_table_op(seat, op)
        others = [s for s in self.joined if s != seat]  # Ambiguity 11: every other participant pays
        if isinstance(op, Meld):
            meld = self.table[-1]
            self.collect(seat, others, condition(meld), "condition")
        elif isinstance(op, LayOff):
            meld = self.table[op.meld]
            if meld.owner == seat:
                self.collect(seat, others, addition(meld) * len(op.cards), "addition")
            else:
                self.laid_next = True  # Ambiguity 7: no payment

    def rearrange(self, seat: int, op: Rearrange) -> None:
        """Split one own meld in two (its own cards only: no condition) or take one card out of it into a new
        combination with hand cards (its condition is paid); every part keeps the meld's type."""
        if len(op.melds) != 1 or len(op.into) != 2:
            raise IllegalAction("rearrange.shape", "split or take from one meld: name it, then its two parts")
        source = self.live_meld(op.melds[0], "rearrange")
        super().rearrange(seat, op)
        kept, new = self.table[op.melds[0]], self.table[-1]
        from_hand = Counter(new.cards) - (Counter(source.cards) - Counter(kept.cards))
        parts = [kept] if from_hand else [kept, new]
        if any(meld_type(m) != meld_type(source) for m in parts):
            raise IllegalAction("extend.changes-type", "the parts of a meld keep its type (run, suit or mixed set)")
        if from_hand and len(source.cards) - len(kept.cards) != 1:
            raise IllegalAction("takeout.one-card", "take exactly one card out of a meld to start a new one")
        if from_hand:
            self.collect(seat, [s for s in self.joined if s != seat], condition(new), "condition")

    def discard(self, seat: int, op: Discard) -> None:
        if op.card in self.hands[seat] and self.phase == "play" and not self.may_discard(seat, op.card):
            raise IllegalAction("discard.taken-card", f"{op.card} was taken from the discard pile this turn")
        super().discard(seat, op)
        self.free_top = self.drawn_source == "stock" and op.card == self.drawn  # Turn structure 5, for 2(b)(i)

    def end_play(self, seat: int, was_opened: bool) -> None:
        if self.use_due is not None:
            raise IllegalAction("take.not-allowed", f"the top discard {self.use_due} is taken only to use it at once")
        if not self.hands[seat] and self.phase == "over":  # Ambiguity 13: discarding the last card is not out
            return self.end_turn()
        super().end_play(seat, was_opened)

    def end_turn(self) -> None:
        deal = self.deal_no
        super().end_turn()
        if self.deal_no == deal and not self.over and self.phase == "draw":
            self.begin_turn()

    def rebuild(self) -> bool:
        """The foot becomes the stock first (not a rebuild: End of a deal); then the family's rebuild."""
        if self.foot:
            self.stock, self.foot = self.foot + self.stock, []
            self.emit({"type": "foot", "stock": len(self.stock)})
            return True
        return super().rebuild()

    def end_deal(self, winner: int | None) -> None:
        """The winner takes the bank; otherwise it carries over (refunded after the last deal: Ambiguity 22)."""
        self.phase, self.stage, self.asking = "over", None, None
        if winner is not None:
            self.pay_bank(winner)
        hands = [sorted(h) for h in self.hands]
        self.finish_chips_deal(winner, hands=hands, participants=list(self.joined), void=len(self.joined) < 2)

    def next_dealer(self, winner: int | None) -> int:
        """The winner leads the next deal, so his previous player deals; else the deal passes on (Ambiguity 23)."""
        return (winner - self.step) % self.n if winner is not None else self.next_seat(self.dealer)

    def match_ended(self) -> bool:
        return self.deal_no >= self.opts["match_deals"]

    def is_last_deal(self) -> bool:
        return super().is_last_deal() or self.deal_no + 1 >= self.opts["match_deals"]

    def cards_in_play(self) -> list[str]:
        return super().cards_in_play() + self.foot

    def hidden_zones(self, seat: int) -> list[list[str]]:
        return super().hidden_zones(seat) + [self.foot]

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """The best melds of a hand, each with its type and the condition it would collect from each other
        participant, and the cards left over (11 cards all melded: the hand goes out)."""
        split = best_split(hand, PANGUINGUE_MELDS, lambda c: 1)
        return {
            "melds": [list(m.cards) for m in split.melds],
            "types": [meld_type(m) for m in split.melds],
            "conditions": [condition(m) for m in split.melds],
            "condition_chips": sum(condition(m) for m in split.melds),
            "deadwood": list(split.deadwood),
            "goes_out": len(hand) == 11 and not split.deadwood,
        }
