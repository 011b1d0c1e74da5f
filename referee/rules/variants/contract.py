"""Contract Rummy (Kontraktinis romis): rules/contract.md, based on rules/may-i.md. Seven contracts, sequences of
four or more, further melds once down, a joker to win back from sequences, optional wild deuces."""

from typing import Any

from protocol.cards import JOKER
from protocol.messages import Exchange, LayOff, Meld
from referee.rules.cards import deck, rank
from referee.rules.claims import Claims
from referee.rules.contracts import contract
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, TableMeld, exchange, exchange_to_end
from referee.rules.variants.may_i import contracts_met

DEUCES = frozenset(r + s for r in "2" for s in "SHDC")


def contract_melds(deuces_wild: bool) -> MeldRules:
    """The ace high or low or at both ends (14 cards at most), the joker wild, and with the option every 2."""
    wilds = frozenset({JOKER}) | (DEUCES if deuces_wild else frozenset())
    return MeldRules(ace_both_ends=True, wilds=wilds, run_min=4)  # Valid combinations: sequences of 4+


SCHEDULE = tuple(
    contract(*kinds, run_min=4)
    for kinds in (
        ("set", "set"),
        ("set", "run"),
        ("run", "run"),
        ("set", "set", "set"),
        ("set", "set", "run"),
        ("set", "run", "run"),
        ("run", "run", "run"),
    )
)


class Contract(Claims):
    """Kontraktinis romis: seven deals, the contract in one play, then anything; penalties only."""

    slug = "contract"
    name = "Contract Rummy"
    local_name = "Kontraktinis romis"
    min_players, max_players = 3, 8
    low_wins = True
    last_deal_no_final_discard = True
    schedule = SCHEDULE
    OPTIONS = {
        "deuces_wild": Option(False, help="all eight 2s are wild too (Optional wild deuces)"),
    }

    @property
    def meld_rules(self) -> MeldRules:  # type: ignore[override]
        return contract_melds(self.opts["deuces_wild"])

    @property
    def hand_size(self) -> int:
        return 10 if self.deal_no < 4 else 12

    def make_deck(self) -> list[str]:
        return deck(packs=2, jokers=1)

    def penalty(self, card: str) -> int:
        """Scoring: ace, joker and (with the option) deuce 15; K, Q, J 10; pips face value."""
        if card == JOKER or rank(card) == 1 or (self.opts["deuces_wild"] and card in DEUCES):
            return 15
        return min(rank(card), 10)

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """What the hand costs if the deal ends now (every card held counts), and deal by deal whether it can go
        down (`contracts`; default options, so deuces are not wild)."""
        rules = cls.hooks_only().meld_rules
        return {**super().evaluate(hand), "contracts": contracts_met(hand, SCHEDULE, rules)}

    def table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        if not isinstance(op, Exchange) or not self.can_lay_off(seat):
            return super().table_op(seat, op)
        if not 0 <= op.meld < len(self.table):
            raise IllegalAction("layoff.no-such-meld", f"there is no meld {op.meld} on the table")
        meld = self.table[op.meld]
        wild = next((c for c, x in zip(meld.cards, meld.ids) if x == op.card and c != x), None)
        if wild is None:
            return super().table_op(seat, op)  # no wild card stands for it: the shared exchange says why
        if wild == JOKER:
            self.win_back_joker(seat, op, meld)
        else:
            self.move_deuce(seat, op, meld)
        self.placed_now = True
        self.after_table_op(seat, op)

    def win_back_joker(self, seat: int, op: Exchange, meld: TableMeld) -> None:
        """The joker: won back from a sequence only (Ambiguity 3), by the natural card it stands for. A deuce
        given as itself is natural there too (Ambiguity 14), which the shared exchange, treating every wild
        code as wild, would refuse."""
        if meld.kind == "set":
            raise IllegalAction("exchange.set", "a joker in a set cannot be won back (Ambiguity 3)")
        self.take_from_hand(seat, [op.card])
        self.table[op.meld], freed = exchange(meld, op.card)
        self.hands[seat].append(freed)
        self.emit({"type": "exchange", "seat": seat, "meld": op.meld, "card": op.card})

    def move_deuce(self, seat: int, op: Exchange, meld: TableMeld) -> None:
        """A wild deuce: only its meld's owner may replace it, and it moves to an end (Optional wild deuces)."""
        if meld.owner != seat:
            raise IllegalAction("exchange.deuce", "a wild deuce can be replaced only by the owner of its meld")
        self.take_from_hand(seat, [op.card])
        self.table[op.meld] = exchange_to_end(meld, op.card, self.meld_rules)
        self.emit({"type": "exchange", "seat": seat, "meld": op.meld, "card": op.card, "moved": True})
