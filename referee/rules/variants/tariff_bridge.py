"""Tariff Rummy Bridge (Tarifinis romis – bridžas): rules/tariff-bridge.md. Rummy Bridge played for chips: every
seat stakes S into a bank, the bank pays each deal's winner a multiple of the tariff T times the players in the
deal, and the penalty points (without the base game's bonuses) are a separate public record; at 100 a seat drops
out or re-enters for 3T. The play is rummy-bridge's (`RummyBridge.outcome`); this module settles it."""

from typing import Any

from referee.rules.between import Ask, BetweenDeals
from referee.rules.chips import BANK, ChipsGame, Move
from referee.rules.describe import Field, Phase
from referee.rules.engine import Option
from referee.rules.errors import ConfigError
from referee.rules.variants.rummy_bridge import RummyBridge

LIMIT = 100  # Special rules, reaching the limit: "pasiekia 100" (Ambiguity 4)
LINES = {"suit-sequence": 4, "one-suit": 2, "figures": 2, "ordinary": 1}  # the settlement table, rummy lines
REENTRY = 3  # a re-entry costs 3 × T


class TariffBridge(BetweenDeals, ChipsGame, RummyBridge):
    """Tarifinis romis – bridžas: rummy-bridge for chips; bank payouts by tariff, drop out or re-enter at 100."""

    slug = "tariff-bridge"
    name = "Tariff Rummy Bridge"
    local_name = "Tarifinis romis – bridžas"
    min_players, max_players = 3, 4  # Ambiguity 1
    refund_at_end = False  # the bank goes to a player at the end (End of the match), never back to the stakers
    unused_options = frozenset({"target"})  # the limit is the rules' 100; the match ends on drop-outs
    OPTIONS = {
        "stake": Option(100, help="what each player pays into the bank before the first deal (and on a shortfall)"),
        "tariff": Option(10, help="the tariff T: a rummy pays T × players in the deal, a re-entry costs 3T"),
    }
    PHASES = {
        ("reenter", "between-deals"): Phase(
            "after a deal that took your penalty total to 100 or more: re-enter (`bid {value: reenter}`, paying "
            "`fee` = 3 × tariff into the bank; your penalty total becomes `total`, the highest below 100) or `pass` "
            "(drop out of the match; the fallback). Asked one seat at a time from the deal's first player, each "
            "answer public",
            ("bid", "pass"),
        ),
    }
    CONSTRAINTS = {
        "fee": Field("int", "in phase between-deals: the chips re-entering costs (3 × tariff)"),
        "penalty_total": Field("int", "in phase between-deals: your penalty total after the deal (100 or more)"),
        "total": Field("int", "in phase between-deals: the penalty total you re-enter with (the highest below 100)"),
    }
    VIEW = {
        "penalty_totals": Field("int[]", "each seat's cumulative penalty points (the 100 limit; not the chips)"),
        "dropped": Field("bool[]", "whether each seat has dropped out of the match"),
    }

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        self.pens: tuple[int, ...] = (0,) * players
        super().__init__(players, options, seed)

    @classmethod
    def parse_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        opts = super().parse_options(given)
        if opts["stake"] < 1 and opts["tariff"] > 0:  # a shortfall re-ante could never fill the bank
            raise ConfigError("option stake: must be at least 1 when the tariff is not 0")
        return opts

    def start_deal(self) -> None:
        self.final = False  # the deal ends the match by the limit (all but one, or all, over it)
        self.dropping: tuple[int, ...] = ()
        super().start_deal()
        if self.deal_no == 0:
            self.ante(range(self.n), self.opts["stake"])  # Players, deck and deal: S each before the first deal

    def view(self, seat: int) -> dict[str, Any]:
        dropped = [d is not None for d in self.out_deal]
        return {**super().view(seat), **self.chips_view(), "penalty_totals": list(self.pens), "dropped": dropped}

    # --- settlement -----------------------------------------------------------------------------------
    def payout(self, kind: str, category: str | None) -> int:
        """What the bank owes the deal's winner (the settlement table; the highest line only, Ambiguities 8, 10)."""
        line = self.opts["tariff"] * len(self.seats_in())  # T × n, n the players in this deal (Ambiguity 2)
        if kind == "rummy":
            return LINES[category or "ordinary"] * line
        return line // 2 if kind == "knock" else 0

    def pay_out(self, seat: int, amount: int) -> int:
        """Pay `seat` `amount` from the bank, the seats in re-anteing S as often as a shortfall needs (Ambiguities 5,
        14); the number of re-antes."""
        seats, stake = self.seats_in(), self.opts["stake"]
        short = max(0, amount - self.ledger.bank)
        times = -(-short // (stake * len(seats))) if short else 0
        self.ante(seats, times * stake, "re-ante")
        self.pay_bank(seat, amount, "payout")
        return times

    def split_bank(self, seats: list[int]) -> None:
        """The bank to the lowest penalty total among `seats`; ties split, the remainder to the first tied in
        playing order from Pirmasis (Ambiguity 6)."""
        low = min(self.pens[s] for s in seats)
        tied = [s for s in self.order_from(self.next_seat(self.dealer)) if s in seats and self.pens[s] == low]
        share, rest = divmod(self.ledger.bank, len(tied))
        self.move_chips([Move(BANK, s, share + (rest if i == 0 else 0), "bank") for i, s in enumerate(tied)])

    def settle(self, kind: str, winner: int | None) -> None:
        """Settlement after each deal, then the limit check (End of a deal): pay the winner, add the penalties,
        and either end the match (all but one, or all, at the limit) or ask those at the limit."""
        res = self.outcome(kind, winner)
        due = self.payout(kind, res["category"]) if winner is not None else 0
        reantes = self.pay_out(winner, due) if winner is not None and due else 0
        self.pens = tuple(p + q for p, q in zip(self.pens, res["penalties"]))
        seats = self.seats_in()
        under = [s for s in seats if self.pens[s] < LIMIT]
        self.final = len(under) < len(seats) and len(under) <= 1
        if self.final:  # rules/tariff-bridge.md, End of the match: no re-entry; one player, or the lowest, wins
            self.split_bank(under or seats)
        self.reentry_total = max((self.pens[s] for s in under), default=0)  # Ambiguities 7, 13
        detail = {"kind": kind, "category": res["category"], "payout": due, "reantes": reantes}
        hands = [sorted(h) for h in self.hands]
        pens = {"penalties": res["penalties"], "penalty_totals": list(self.pens)}
        self.finish_deal(self.deal_chips(), winner, hands=hands, finish=detail, **pens)

    # --- between deals: drop out or re-enter --------------------------------------------------------
    def between_question(self, seat: int) -> Ask | None:
        if self.final or self.pens[seat] < LIMIT:
            return None
        fee = REENTRY * self.opts["tariff"]
        return Ask("reenter", "reenter", {"fee": fee, "penalty_total": self.pens[seat], "total": self.reentry_total})

    def between_answer(self, seat: int, ask: Ask, yes: bool) -> None:
        """Re-enter: 3T into the bank and the total set to the highest below 100; otherwise drop out."""
        if yes:
            self.ante([seat], ask.constraints["fee"], "reenter")
            self.pens = tuple(self.reentry_total if s == seat else p for s, p in enumerate(self.pens))
        else:
            self.dropping = (*self.dropping, seat)

    def between_done(self) -> None:
        """The match ends with one player left, or at `max_deals`: the lowest total still in takes the bank."""
        left = [s for s in self.seats_in() if s not in self.dropping]
        if not self.final and (len(left) == 1 or self.is_last_deal()):
            self.split_bank(left)
        self.note(penalty_totals=list(self.pens))  # after the re-entries

    def eliminations(self) -> list[int]:
        return list(self.dropping)

    def match_ended(self) -> bool:
        return self.final

    def ranks(self, totals: list[float], seats: list[int] | None = None) -> list[int]:
        """By net chips only: a seat that dropped out keeps what it won (Scoring: each player's net money)."""
        return [1 + sum(u > t for u in totals) for t in totals]

    def result(self) -> dict[str, Any]:
        """The chips result with each seat's final penalty total beside it."""
        return {**super().result(), "penalty_totals": list(self.pens)}

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """rummy-bridge's evaluation with the tariff line the hand would be paid instead of a bonus."""
        out = super().evaluate(hand)
        times = LINES[out["category"]] if out["rummy"] else 0.5 if out["knock"] else 0
        del out["bonus"]
        verdict = out["verdict"].split(", bonus")[0]
        if times:
            verdict += f": the bank pays {times:g} × T × players"
        return {**out, "tariff_times": times, "verdict": verdict}
