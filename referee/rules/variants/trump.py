"""Trump Rummy (Kozirinis romis): rules/trump.md, based on rules/victoria.md. Victoria's pack, deal, bank and
lethargics, with melding during play (a 30-point opening, additions to one's own melds), the starter's rank as
trump (trump cards hang from a natural trump card in any meld), joker exchange by anyone, and a declaration after
the discard: open (0, 1, or 2 cards worth at most 5 left) or concealed (a Victoria pattern)."""

from dataclasses import replace
from math import ceil
from typing import Any

from protocol.cards import JOKER, RANKS
from protocol.messages import Decision, Discard, Exchange, Knock, LayOff, Meld, Op, Pass
from referee.rules.cards import deck, rank
from referee.rules.describe import Field, Phase
from referee.rules.dmd import PIP_VALUES, DrawMeldDiscard
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.lethargics import VictoriaBank
from referee.rules.melds import TableMeld, lay_off
from referee.rules.patterns import VICTORIA_MELDS, fewest_left_out, victoria_pattern
from referee.rules.solver import best_split


def packs_for(players: int) -> int:
    """rules/victoria.md, Players, deck and deal: 2 packs for 2-8 players, one more per further group of up to 4."""
    return 2 + ceil(max(0, players - 8) / 4)


class Trump(VictoriaBank, DrawMeldDiscard):
    """Kozirinis romis: 10 cards, a 30 opening, trump hanging, joker exchange, open or concealed rummy."""

    slug = "trump"
    name = "Trump Rummy"
    local_name = "Kozirinis romis"
    min_players, max_players = 2, 16
    initial_meld = 30
    meld_rules = VICTORIA_MELDS  # as victoria: sets of 5+ have every suit, then suits repeat as the deck allows
    OPTIONS = {
        "joker_penalty": Option(20, help="what a joker left in hand counts (rules/trump.md, Ambiguity 11)"),
        "max_turns_per_deal": Option(500, help="safety cap: turns in one deal before it is annulled"),
    }
    PHASES = {
        ("turn", "draw"): Phase(
            "the start of your turn: draw one card, the top of the stock or of the discard pile (nothing may be "
            "played before the draw)",
            ("draw",),
        ),
        ("turn", "play"): Phase(
            "after the draw: meld (the first meld of a deal reaches 30 in one play), add to your own melds, hang "
            "trump-rank cards on a natural trump card in any meld (a layoff of trump cards), exchange a joker, then "
            "discard (or empty your hand, which declares rummy)",
            ("discard",),
        ),
        ("turn", "rummy"): Phase(
            "after your discard, when you may declare: knock to declare rummy (open, or concealed if you laid "
            "nothing this deal), or pass",
            ("knock", "pass"),
        ),
    }
    CONSTRAINTS = {
        "layoff_melds": Field("int[]", "the melds you may add to: your own, once you have opened"),
        "hang_melds": Field("int[]", "the melds holding a natural trump card, which any player may hang trumps on"),
        "trump": Field("str", "the trump rank of this deal (a rank code: Q)"),
        "declaration": Field(
            "object|null",
            "in phase rummy: {kind: open|concealed, penalty, bonus, pattern} of the rummy you may declare",
        ),
    }
    VIEW = {
        "trump": Field("str", "the trump rank of this deal (the starter's rank)"),
        "laid": Field("bool[]", "whether each seat has laid cards on the table this deal (no concealed rummy then)"),
        "table": Field(
            "object[]",
            "the melds on the table, each {id, owner, kind, cards, identities, hung}: id is the index in this list, "
            "cards the physical cards and identities what each stands for, both in table order (runs low to high); "
            "hung the trump cards hanging from its trump card, not part of the meld",
        ),
    }

    @property
    def hand_size(self) -> int:
        return 10

    @property
    def predraw_plays(self) -> bool:
        return False  # Turn structure: draw first

    def make_deck(self) -> list[str]:
        packs = packs_for(self.n)
        return deck(packs=packs, jokers=packs)

    def penalty(self, card: str) -> int:
        """Scoring, card values: A 11, figures 10, others face value, joker `joker_penalty`."""
        return self.opts["joker_penalty"] if card == JOKER else PIP_VALUES.get(rank(card), rank(card))

    def card_points(self, card: str, ident: str, low_ace: bool) -> int:
        """The ace counts 11 in the opening, low or high (Ambiguity 6); a joker what it stands for."""
        return PIP_VALUES.get(rank(ident), rank(ident))

    def can_lay_off(self, seat: int) -> bool:
        return True  # exchanges and hangings need no opening (Ambiguity 5); additions are checked per meld

    # --- the deal ---------------------------------------------------------------------
    def deal_cards(self) -> list[str]:
        """A joker that would be turned as the starter goes to the bottom of the stock; the next card is turned
        instead, as often as needed (Ambiguity 17)."""
        cards = super().deal_cards()
        at = len(cards) - 1 - self.hand_size * len(self.seats_in())
        self.turned_jokers = 0
        while cards[at] == JOKER:
            cards.insert(0, cards.pop(at))
            self.turned_jokers += 1
        return cards

    def start_deal(self) -> None:
        super().start_deal()
        self.trump = rank(self.piles[0][-1])
        self.declaration: dict[str, Any] | None = None
        self.emit({"type": "trump", "rank": RANKS[self.trump - 1], "jokers_to_bottom": self.turned_jokers})

    def laid(self, seat: int) -> bool:
        """Whether `seat` has laid cards on the table this deal (melded, added, hung or exchanged)."""
        return self.placed_before[seat] or (seat == self.turn and self.placed_now)

    def is_trump_card(self, card: str) -> bool:
        return card != JOKER and rank(card) == self.trump

    def hangable(self, meld: TableMeld) -> bool:
        """Whether `meld` holds a natural trump card (a joker standing for one is none: Ambiguity 7)."""
        return any(c == x and self.is_trump_card(c) for c, x in zip(meld.cards, meld.ids))

    # --- decisions and views ------------------------------------------------------------
    def decision(self, seat: int) -> Decision:
        if self.between:
            return super().decision(seat)
        base = super().decision(seat) if self.phase != "rummy" else Decision("turn", "rummy", [Knock(), Pass()])
        own = [i for i, m in enumerate(self.table) if m.owner == seat and m.cards]
        constraints = {
            **base.constraints,
            "initial_meld": self.initial_meld,
            "opened": self.opened[seat],
            "layoff_melds": own if self.opened[seat] else [],
            "hang_melds": [i for i, m in enumerate(self.table) if self.hangable(m)],
            "trump": RANKS[self.trump - 1],
            "declaration": self.declaration if self.phase == "rummy" else None,
        }
        return Decision(base.kind, base.phase, base.options, constraints)

    def table_view(self) -> list[dict[str, Any]]:
        entries = super().table_view()
        for entry, meld in zip(entries, self.table):
            entry["hung"] = list(meld.hung)
        return entries

    def view(self, seat: int) -> dict[str, Any]:
        return {
            **super().view(seat),
            "trump": RANKS[self.trump - 1],
            "laid": [self.laid(s) for s in range(self.n)],
        }

    def fallback(self, seat: int) -> list[Op]:
        return [Pass()] if self.phase == "rummy" else super().fallback(seat)

    # --- plays ---------------------------------------------------------------------
    def do(self, seat: int, op: Op) -> None:
        if self.phase == "discarded":  # after a discard that allows no rummy
            if isinstance(op, Knock):
                raise self.no_rummy(seat)
            raise IllegalAction("play.after-end", "nothing may follow the discard but a declaration of rummy")
        if isinstance(op, Knock) and op.discard is not None and self.phase == "play":  # as victoria's knock
            self.discard(seat, Discard(op.discard))
            if not self.hands[seat]:
                return  # the last card: the empty hand declares by itself (end_play)
            if self.phase != "rummy":
                raise self.no_rummy(seat)
            return self.declare(seat)
        if isinstance(op, Knock) and self.phase != "rummy":
            raise IllegalAction("rummy.after-discard", "rummy is declared after your discard")
        if self.phase == "rummy":
            match op:
                case Knock(discard=None):
                    return self.declare(seat)
                case Pass():
                    self.emit({"type": "pass", "seat": seat})
                    self.phase = "over"
                    return
            raise IllegalAction("rummy.knock-or-pass", "after your discard: knock to declare rummy, or pass")
        super().do(seat, op)

    def table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        if isinstance(op, LayOff) and 0 <= op.meld < len(self.table):
            meld = self.table[op.meld]
            if meld.owner != seat or not self.opened[seat] or not self.fits(meld, op):
                return self.hang(seat, op)
        super().table_op(seat, op)

    def fits(self, meld: TableMeld, op: LayOff) -> bool:
        """Whether the lay-off is an ordinary addition to the meld (else, with trump cards, it is a hanging)."""
        try:
            lay_off(meld, op.cards, self.meld_rules, op.identities, op.end)
        except IllegalAction:
            return not all(self.is_trump_card(c) for c in op.cards)  # not trumps: let the addition's error stand
        return True

    def hang(self, seat: int, op: LayOff) -> None:
        """Special rules, trump hanging: trump-rank natural cards on a natural trump card of any meld."""
        meld = self.table[op.meld]
        if JOKER in op.cards:
            raise IllegalAction("hang.joker", "jokers cannot be hung")
        if not op.cards or not all(self.is_trump_card(c) for c in op.cards):
            if meld.owner != seat:
                raise IllegalAction(
                    "layoff.own-melds-only",
                    "you may add cards only to your own melds; on others' melds only trump cards may be hung",
                )
            raise IllegalAction("hang.not-trump", f"only cards of the trump rank {RANKS[self.trump - 1]} hang")
        if not self.hangable(meld):
            raise IllegalAction(
                "hang.no-trump-card", f"meld {op.meld} holds no natural trump card (a joker standing for one is none)"
            )
        self.take_from_hand(seat, op.cards)
        self.table[op.meld] = replace(meld, hung=meld.hung + tuple(op.cards))
        self.emit({"type": "hang", "seat": seat, "meld": op.meld, "cards": list(op.cards)})
        self.placed_now = True

    def discard(self, seat: int, op: Discard) -> None:
        super().discard(seat, op)
        if self.hands[seat]:
            self.declaration = self.best_declaration(seat)
            self.phase = "discarded" if self.declaration is None else "rummy"

    def end_play(self, seat: int, was_opened: bool) -> None:
        # Special rules: the opening reaches 30 in one play, even one that empties the hand
        if self.play_melded and not was_opened and not self.opened[seat]:
            raise IllegalAction(
                "initial-meld.minimum",
                f"the initial meld must reach {self.initial_meld} points in one play (this play's make "
                f"{self.play_melded})",
            )
        if not self.hands[seat]:  # an empty hand must declare, with penalty 0 (Ambiguities 10, 16)
            self.declaration = {"kind": "open", "penalty": 0, "bonus": 0, "pattern": None}
            return self.declare(seat)
        if self.phase == "discarded":
            self.phase = "over"
        if self.phase != "rummy":
            super().end_play(seat, was_opened)

    def declare(self, seat: int) -> None:
        """Knock: the declaration found after the discard ends the deal (Special rules, going out)."""
        assert self.declaration is not None
        self.emit({"type": "rummy", "seat": seat, "hand": sorted(self.hands[seat]), **self.declaration})
        self.end_deal(winner=seat)

    # --- declarations ----------------------------------------------------------------
    def best_declaration(self, seat: int) -> dict[str, Any] | None:
        """The rummy `seat` may declare now, best for him, or None: open if he laid cards this deal, else
        concealed."""
        hand = self.hands[seat]
        if self.laid(seat):
            penalty = self.open_penalty(hand)
            return None if penalty is None else {"kind": "open", "penalty": penalty, "bonus": 0, "pattern": None}
        return self.concealed(hand)

    def no_rummy(self, seat: int) -> IllegalAction:
        """Why `seat` may not declare rummy after this discard."""
        if self.laid(seat):
            return IllegalAction(
                "rummy.open-deadwood",
                "an open rummy leaves outside combinations no card, one card, or two cards worth at most 5",
            )
        return IllegalAction("rummy.no-pattern", "a concealed rummy needs one of Victoria's seven patterns")

    def open_penalty(self, hand: list[str]) -> int | None:
        """Special rules (A), Ambiguity 16: 0 if every card is in combinations, else the lower of one card left
        out and two left out worth at most 5; None if neither fits."""
        if not best_split(hand, self.meld_rules, self.penalty).deadwood:
            return 0
        found = fewest_left_out(hand, self.meld_rules, self.penalty)
        return None if found is None else found.penalty

    def concealed(self, hand: list[str]) -> dict[str, Any] | None:
        """Special rules (B): the best Victoria pattern of the whole 10-card hand, the ace at 11 (rules/victoria.md,
        Special rules)."""
        found = victoria_pattern(hand, self.meld_rules, self.penalty)
        if found is None:
            return None
        return {"kind": "concealed", "penalty": found.penalty, "bonus": found.bonus, "pattern": found.number}

    # --- the end of a deal --------------------------------------------------------------
    def end_deal(self, winner: int | None) -> None:
        """Scoring: the declarer's penalty (his bonus apart); every other seat the deadwood of his best arrangement
        (melded and hung cards are not counted); then victoria's bank. A deal without a declarer is annulled."""
        self.phase = "over"
        hands = [sorted(h) for h in self.hands]
        if winner is None:
            return self.settle_victoria(None, None, hands=hands)
        assert self.declaration is not None
        penalties = [
            self.declaration["penalty"] if s == winner else best_split(h, self.meld_rules, self.penalty).points
            for s, h in enumerate(self.hands)
        ]
        self.settle_victoria(winner, penalties, self.declaration["bonus"], hands=hands, declaration=self.declaration)

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """A hand's best combinations and deadwood (what it costs when another seat declares), and the open and
        concealed declarations it would allow after the discard."""
        game, out = cls.hooks_only(), super().evaluate(hand)
        return {
            **out,
            "points": out["deadwood_points"],
            "open": game.open_penalty(hand),
            "concealed": game.concealed(hand) if len(hand) == 10 else None,
        }
