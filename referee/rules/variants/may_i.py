"""May I? (Ar galima?): rules/may-i.md. A contract per deal, a spread discard pile with deep takes, and sealed
out-of-turn claims of the just-discarded card."""

from typing import Any

from protocol.messages import Decision, Draw, Op
from referee.rules.cards import deck, rank
from referee.rules.claims import Claims
from referee.rules.contracts import Requirement, contract, find_contract
from referee.rules.describe import Field
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules
from referee.rules.solver import candidate_melds

# rules/may-i.md, Valid combinations: the ace low or high, a sequence may have an ace at both ends; no wild cards
MAY_I_MELDS = MeldRules(ace_both_ends=True, wilds=frozenset())
SCHEDULE = (
    contract("set", "set"),
    contract("set", "run"),
    contract("run", "run"),
    contract("set", "set", "set"),
    contract("set", "set", "run"),
    contract("run", "run", "set"),  # the optional sixth deal
)
VALUES = {1: 15, 11: 10, 12: 10, 13: 10}  # Scoring


def contracts_met(hand: list[str], schedule: tuple[Requirement, ...], rules: MeldRules) -> list[dict[str, Any]]:
    """Deal by deal, the melds with which `hand` could go down (using the most cards), or None (`romis eval`)."""
    candidates = candidate_melds(hand, rules)
    out = []
    for deal, req in enumerate(schedule, 1):
        found = find_contract(hand, req, candidates)
        melds = None if found is None else [list(m.cards) for m in found]
        ids = None if found is None else [list(m.ids) for m in found]
        out.append({"deal": deal, "contract": req.describe()["name"], "melds": melds, "identities": ids})
    return out


class MayI(Claims):
    """Ar galima?: five deals (six by agreement), only the contract is melded, then lay-offs only."""

    slug = "may-i"
    name = "May I?"
    local_name = "Ar galima?"
    min_players, max_players = 3, 5
    low_wins = False  # the most bonus points win
    meld_rules = MAY_I_MELDS
    melds_after = False  # Special rules, Contract: no other combination in this deal
    deep_claims = True
    last_deal_no_final_discard = True
    schedule = SCHEDULE
    _mutable = Claims._mutable + ("penalties",)
    OPTIONS = {
        "sixth_deal": Option("off", ("off", "always", "if_tied"), "the optional sixth deal (End of the match)"),
    }
    CONSTRAINTS = {
        "pile_take": Field(
            "str",
            '"spread": you may take a deeper discard with every card above it (draw {source: discard, depth: k}); '
            "k >= 2 brings k - 1 stock cards and no discard this turn",
        ),
    }
    VIEW = {
        "penalties": Field("int[]", "each seat's penalty points so far (`scores` holds the bonus points)"),
    }

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        self.penalties = [0] * players
        super().__init__(players, options, seed)

    @property
    def hand_size(self) -> int:
        return 11 if self.deal_no == 5 else 10

    @property
    def deals(self) -> int:
        sixth = self.opts["sixth_deal"]
        if sixth == "always" or (sixth == "if_tied" and self.deal_no >= 5):
            return 6
        return 5

    @property
    def last_deal(self) -> bool:
        return self.deal_no >= 4  # Special rules, Last deal: deal 5, and deal 6 when played

    def match_ended(self) -> bool:
        if self.deal_no == 5 and self.opts["sixth_deal"] == "if_tied":
            best = max(self.totals)
            return self.totals.count(best) < 2  # the sixth deal is played only when the leaders are tied
        return self.deal_no >= self.deals

    def make_deck(self) -> list[str]:
        return deck(packs=2)

    def penalty(self, card: str) -> int:
        return VALUES.get(rank(card), rank(card))

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """What the hand costs if the deal ends now (every card held counts), and deal by deal whether it can go
        down (`contracts`)."""
        return {**super().evaluate(hand), "contracts": contracts_met(hand, SCHEDULE, MAY_I_MELDS)}

    # --- the spread pile --------------------------------------------------------------
    def draw_options(self, seat: int) -> list[Op]:
        return [Draw("stock"), *(Draw("discard", depth=k) for k in self.own_depths())]

    def own_depths(self) -> list[int]:
        """Taking several cards, k >= 2, brings k - 1 stock cards (Ambiguity 9) that the stock must pay for."""
        return [k for k in range(1, len(self.piles[0]) + 1) if k == 1 or self.stock_reach(k) >= k - 1]

    def decision(self, seat: int) -> Decision:
        d = super().decision(seat)
        d.constraints["pile_take"] = "spread"
        return d

    def draw(self, seat: int, op: Draw) -> None:
        if op.source != "discard" or op.depth == 1:
            return super().draw(seat, op)
        if self.phase != "draw":
            raise IllegalAction("draw.once", "you have already drawn this turn")
        if op.pile != 0 or op.depth not in self.own_depths():
            raise IllegalAction("draw.depth", f"you may not take {op.depth} cards from the discard pile here")
        self.take_discards(seat, op.depth)
        self.draw_stock(seat, op.depth - 1)
        self.discard_due = False  # Turn structure 1c: no discard this turn
        self.phase = "play"

    def view(self, seat: int) -> dict[str, Any]:
        v = super().view(seat)
        v["penalties"] = list(self.penalties)
        return v

    # --- scoring -------------------------------------------------------------------------
    def end_deal(self, winner: int | None) -> None:
        """Scoring: 20 bonus points to the winner, penalty points for each other hand, in two columns."""
        self.phase = "over"
        hands = [sorted(h) for h in self.hands]
        pens = [0 if s == winner else sum(map(self.penalty, h)) for s, h in enumerate(self.hands)]
        self.penalties = [a + b for a, b in zip(self.penalties, pens)]
        bonus: list[float] = [20 if s == winner else 0 for s in range(self.n)]
        self.finish_deal(bonus, winner, hands=hands, penalties=pens, penalty_totals=list(self.penalties))

    def ranks(self, totals: list[float], seats: list[int] | None = None) -> list[int]:
        """End of the match: the most bonus points, then the fewest penalty points; still tied, shared."""
        seats = list(range(len(totals))) if seats is None else seats
        keys = [(-t, self.penalties[s]) for s, t in zip(seats, totals)]
        return [1 + sum(1 for u in keys if u < k) for k in keys]

    def result(self) -> dict[str, Any]:
        return {**super().result(), "penalties": list(self.penalties)}
