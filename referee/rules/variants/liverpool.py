"""Liverpool Rummy (Liverpulio romis): rules/liverpool.md, based on rules/contract.md. Red and black runs, high and
low sets, melded freely; going out needs the combinations of the seat's place from the dealer; six deals, zero-sum."""

import random
from typing import Any

from protocol.messages import Draw, Exchange, LayOff, Meld
from referee.rules.cards import deck, rank
from referee.rules.claims import Claims
from referee.rules.contracts import Requirement, contract, match
from referee.rules.describe import Field, Phase
from referee.rules.engine import Option, derive_seed
from referee.rules.errors import IllegalAction
from referee.rules.kinds import MeldKind, find, find_requirement
from referee.rules.melds import MeldRules, TableMeld, exchange_to_end
from referee.rules.solver import best_split

DEUCES = frozenset("2" + s for s in "SHDC")  # Ambiguity 1: all eight 2s are wild, never natural
ORDER = (1, *range(3, 14))  # Valid combinations: A, 3, 4, ..., K; the ace only low, 2 never a rank
KINDS = (
    MeldKind("red-run", "run", "HD", ORDER),
    MeldKind("black-run", "run", "SC", ORDER),
    MeldKind("high-set", "set", "SHDC", tuple(range(8, 14))),
    MeldKind("low-set", "set", "SHDC", (1, 3, 4, 5, 6, 7), wild=False),
)
LIVERPOOL_MELDS = R = MeldRules(wilds=DEUCES, kinds=KINDS, allow_sets=False, allow_runs=False)


def _req(name: str, *kinds: str) -> Requirement:
    # Ambiguity 7: sets are free mixes, so two sets of one requirement may share a rank
    return contract(*kinds, name=name, distinct_set_ranks=False)


# Special rules, Seat requirement: by the seat's place counted from the dealer's left (the dealer is place n)
ROWS = (
    _req("one high set + one low set", "high-set", "low-set"),
    _req("one red sequence + one black sequence", "red-run", "black-run"),
    _req("one high set + one black sequence", "high-set", "black-run"),
    _req("one low set + one black sequence", "low-set", "black-run"),
    _req("three sequences of any colour", "run", "run", "run"),
    _req("three sets of any kind", "set", "set", "set"),
)
SEATS: tuple[Requirement, ...] = ROWS + ROWS[:2]  # places 7 and 8 as 1 and 2


def colour_span(meld: TableMeld) -> tuple[str, int, int]:
    """Where a colour run lies: its kind (the colour) and the places of its ends in the order A, 3, ..., K, for
    the rule that runs of one colour counting towards a requirement are not joinable (Ambiguity 7)."""
    kind = find(LIVERPOOL_MELDS, meld.kind)
    return meld.kind, kind.place(meld.ids[0]) or 0, kind.place(meld.ids[-1]) or 0


class Liverpool(Claims):
    """Liverpulio romis: any combination at any time, going out on the seat's requirement, "May I?" claims."""

    slug = "liverpool"
    name = "Liverpool Rummy"
    local_name = "Liverpulio romis"
    min_players, max_players = 2, 8
    low_wins = False  # End of the match: the highest total wins
    meld_rules = LIVERPOOL_MELDS
    free_melding = True
    predraw_plays = False  # Turn structure: the draw comes first; then melds, lay-offs, exchanges (Ambiguity 14)
    hand_size = 10
    unused_options = frozenset({"shuffle_on_rebuild"})  # Ambiguity 5: the whole pile is always shuffled
    # romis check: claims need a third seat (neither the discarder nor the next player); a granted claim needs a
    # claimant and a next player who lets it go, which the sample brains seldom are; greedy seats go out on their
    # first turn (sets are free mixes), before anyone discards, so every seat plays at random
    CHECK_TABLES = (
        {
            "kinds": ["claim/claim", "claim/priority", "claim/discard"],
            "players": 3,
            "random": True,
            "prefer": {"claim/claim": "claim", "claim/priority": "pass"},
        },
    )
    OPTIONS = {
        "max_stock_rebuilds": Option(20, help="stock rebuilds per deal before a stalemate (Ambiguity 16)"),
    }
    PHASES = {
        ("turn", "play"): Phase(
            "after the draw: meld any combinations (`meld {kind}`: red-run, black-run, high-set, low-set), lay off "
            "once you have a meld of your own, replace a wild deuce in your own melds (`exchange`: it moves to an "
            "end), then discard; your hand may become empty only once your own melds meet your seat's requirement",
            ("discard",),
        ),
    }
    CONSTRAINTS = {
        "opened": Field("bool", "whether you have a meld of your own this deal (lay-offs and exchanges need one)"),
        "contract": Field(
            "object",
            "your seat's requirement this deal, {name, parts: [{kind, min_size}], min_cards}: your own melds must "
            'meet it before your hand may become empty (a part of kind "set" or "run" is met by either colour or '
            "range)",
        ),
    }

    @property
    def deals(self) -> int:
        return 6

    def make_deck(self) -> list[str]:
        return deck(packs=2)

    def penalty(self, card: str) -> int:
        """Scoring: ace and wild deuce 15, K, Q, J 10, 3-10 face value (Ambiguity 2)."""
        r = rank(card)
        return 15 if r in (1, 2) else min(r, 10)

    # --- the seat requirement -----------------------------------------------------------------
    def place(self, seat: int) -> int:
        """The seat's place counted clockwise from the dealer: 1 for Pirmasis ... n for the dealer."""
        return (seat - self.dealer - 1) % self.n + 1

    def requirements(self, seat: int) -> tuple[Requirement, ...]:
        return (SEATS[self.place(seat) - 1],)  # Ambiguity 12: rows 1..n, the dealer has row n

    def span(self, meld: TableMeld) -> tuple[str, int, int]:
        return colour_span(meld)

    def may_go_out(self, seat: int) -> bool:
        """Going out: the seat's own melds meet its requirement (extra melds allowed: Ambiguity 8)."""
        own = [m for m in self.table if m.owner == seat and m.cards]
        return not isinstance(match(self.requirements(seat)[0], own, exact=False, span=self.span), str)

    def go_out_message(self, seat: int) -> str:
        name = self.requirements(seat)[0].describe()["name"]
        return f"you may go out only once your own melds hold {name} (seat {self.place(seat)} from the dealer)"

    # --- the wild deuce exchange ------------------------------------------------------------------
    def table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        if not isinstance(op, Exchange) or not self.can_lay_off(seat):
            return super().table_op(seat, op)  # an exchange before the seat's first meld: contract.first
        if not 0 <= op.meld < len(self.table) or not self.table[op.meld].cards:
            raise IllegalAction("layoff.no-such-meld", f"there is no meld {op.meld} on the table")
        meld = self.table[op.meld]
        if meld.owner != seat:  # Special rules, Exchanging a wild deuce: only in the player's own combinations
            raise IllegalAction("exchange.owner", "a wild deuce can be replaced only in your own melds")
        self.take_from_hand(seat, [op.card])
        # the deuce never returns to a hand: it moves to an end (in a high set it stays, as after a lay-off)
        self.table[op.meld] = exchange_to_end(meld, op.card, self.meld_rules)
        self.emit({"type": "exchange", "seat": seat, "meld": op.meld, "card": op.card, "moved": True})
        self.placed_now = True

    # --- the stock ----------------------------------------------------------------------------------
    def rebuild_yield(self, pile: int) -> int:
        """Ambiguity 5: a rebuild brings the whole pile, its top card included."""
        return pile if self.rebuilds < self.opts["max_stock_rebuilds"] else 0

    def rebuild(self) -> bool:
        """Ambiguity 5: the whole discard pile, shuffled, becomes the stock; the pile is then empty."""
        if not self.can_rebuild():
            return False
        self.stock = self.piles[0] + self.stock
        random.Random(derive_seed(self.seed, "deal", self.deal_no, "rebuild", self.rebuilds)).shuffle(self.stock)
        self.piles[0] = []
        self.rebuilds += 1
        self.emit({"type": "rebuild", "stock": len(self.stock)})
        return True

    def draw(self, seat: int, op: Draw) -> None:
        super().draw(seat, op)
        # End of a deal, Stock exhausted: rebuilt as soon as the last card is drawn, else a stalemate at once
        if op.source == "stock" and not self.stock and not self.rebuild():
            self.end_deal(winner=None)

    def draw_stock(self, seat: int, count: int) -> None:
        super().draw_stock(seat, count)
        if not self.stock:
            self.rebuild()  # a claim's penalty card was the last: no rebuild left ends the deal as the claim closes

    # --- scoring --------------------------------------------------------------------------------------
    def score_deal(self, winner: int | None) -> list[float]:
        """Scoring: each loser minus his hand, the winner plus all of it; a stalemate scores the hands only."""
        lost: list[float] = [-sum(map(self.penalty, h)) for h in self.hands]
        if winner is not None:
            lost[winner] = -sum(lost)
        return lost

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """The best melds (with their kinds), the deadwood, and the seat places whose requirement the hand holds."""
        out = super().evaluate(hand)
        out["kinds"] = [m.kind for m in best_split(hand, R, cls.hooks_only().penalty).melds]
        out["requirements"] = [
            {"place": i + 1, "name": r.describe()["name"], "met": find_requirement(hand, r, R, colour_span) is not None}
            for i, r in enumerate(ROWS)
        ]
        return out
