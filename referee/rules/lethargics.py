"""Victoria's bank and match (rules/victoria.md; trump uses the same): a main bank of stakes, a quarter of it to
each deal's declarer, penalty totals above 100 "beyond rummy" (lethargics, *letargai*, with a carry counter for the
next game), a game won by the last player not beyond rummy (he takes the rest of the bank), buy-downs and
re-entries between deals, and an optional side bank of the lethargics.

`VictoriaBank` is a mixin placed before the family engine (`class Victoria(VictoriaBank, AllAtOnce)`), on
`BetweenDeals` and `ChipsGame`: the match totals are the net chips, and the penalty totals are a separate public
list (`points`). The family plays a deal however it likes and ends it with one call:
`settle_victoria(declarer, penalties, bonus, **detail)`, every seat's penalty for the deal (the declarer's too)
and the declarer's bonus; `penalties=None` for an annulled deal, which changes nothing.

Between deals (Ambiguity 22) the seats are asked one at a time in playing order from the deal's first player:
first re-entries (`reentry {bid: reenter}`, option `reentry_by_average`), then the game-end check, then buy-downs
(`buydown {bid: buydown}`); each price and target is taken at that moment. The side bank's chips lie in the
ledger's bank beside the main bank (`side_bank` says how many are the side bank's), so chips still only move
between seats and one bank.
"""

from typing import Any

from referee.rules.between import PHASE, Ask, BetweenDeals
from referee.rules.chips import BANK, ChipsGame, Move
from referee.rules.describe import Field, Phase
from referee.rules.engine import Option
from referee.rules.errors import ConfigError

LIMIT = 100  # beyond rummy: a total above this (Special rules)
BUYDOWN_LOW, BUYDOWN_HIGH = 80, 98  # the buy-down window, inclusive (Ambiguity 12)
NO_STAKE, HALF_STAKE = -101, -80  # the game winner's discount bands for the next game's stake (Ambiguity 14)


def ceil_div(a: int, b: int) -> int:
    """`a / b` rounded up (the bank's quarter and half: Ambiguity 2)."""
    return -(-a // b)


def round_half_up(total: int, count: int) -> int:
    """The average `total / count` rounded to the nearest integer, .5 up (Optional re-entry)."""
    return (2 * total + count) // (2 * count)


class VictoriaBank(BetweenDeals, ChipsGame):
    """Mixin: victoria's bank, lethargics, games, buy-downs, re-entries and side bank over any way of playing a
    deal (the family calls `settle_victoria`)."""

    refund_at_end = False  # Ambiguity 19: at the deal cap the bank is not paid out; the ranking is by net chips
    # romis check: a re-entry is asked only with its option on; ten deals a playout find a buy-down there too
    CHECK_TABLES: tuple[dict[str, Any], ...] = (
        {"kinds": [f"reentry/{PHASE}", f"buydown/{PHASE}"], "options": {"reentry_by_average": True, "max_deals": 10}},
    )
    OPTIONS = {
        "stake": Option(4, help="chips each player pays into the main bank at the start of each game"),
        "games": Option(1, help="games (partija) in the match; a game that ends with everyone over 100 does not count"),
        "letarg_side_bank": Option(
            False, help="lethargics form a side bank (one stake each once there are two); the lowest total takes it"
        ),
        "reentry_by_average": Option(
            False, help="a player going over 100 may pay half the bank to stay in at the others' average total"
        ),
    }
    PHASES: dict[tuple[str, str], Phase | None] = {
        ("reentry", PHASE): Phase(
            "between deals (option reentry_by_average), your total has just gone over 100: re-enter "
            "(`bid {value: reenter}`, paying `price`, half the main bank, and taking the others' average `total`) or "
            "`pass` (beyond rummy for the rest of the game). Asked one seat at a time in playing order, answers public",
            ("bid", "pass"),
            rare=True,
        ),
        ("buydown", PHASE): Phase(
            "between deals, your total is 80-98 and a lower one exists among the others not beyond rummy: buy down "
            "(`bid {value: buydown}`, paying `price`, half the main bank, for the `total` of the nearest lower player) "
            "or `pass`; after a buy-down you are asked again while you may. One seat at a time in playing order",
            ("bid", "pass"),
            rare=True,
        ),
    }
    CONSTRAINTS: dict[str, Field | None] = {
        "price": Field("int", "in phase between-deals: the chips the re-entry or buy-down costs", rare=True),
        "total": Field("int", "in phase between-deals: your penalty total after it", rare=True),
    }
    VIEW: dict[str, Field | None] = {
        "points": Field("int[]", "each seat's penalty total in the current game (above 100: beyond rummy)"),
        "beyond": Field("bool[]", "which seats are beyond rummy (lethargics) in the current game"),
        "carry": Field("int[]", "each lethargic's points collected for the next game (0 for the others)"),
        "main_bank": Field("int", "the chips in the main bank (bank less side_bank)"),
        "side_bank": Field("int", "the chips in the lethargics' side bank (letarg_side_bank)"),
        "game": Field("int", "the game (partija) being played, 0-based; a restart after all went over counts"),
    }

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        zero = (0,) * players
        self.points: tuple[int, ...] = zero
        self.beyond: tuple[bool, ...] = (False,) * players
        self.carry: tuple[int, ...] = zero
        self.side = 0
        self.side_in: tuple[bool, ...] = (False,) * players
        self.game_no = 0
        self.games_won = 0
        self.over_now: tuple[int, ...] = ()  # went over 100 in the deal just played, re-entry not yet decided
        self.bank_step = ""  # the between-deals step: reentry, buydown, or none
        self.asked: tuple[int, ...] = ()  # seats that have answered no (or were settled) in the current step
        super().__init__(players, options, seed)

    @classmethod
    def parse_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        """The options, with at least one game in the match."""
        opts = super().parse_options(given)
        if opts["games"] < 1:
            raise ConfigError(f"option games: {opts['games']!r} must be at least 1")
        return opts

    # --- the bank -------------------------------------------------------------------------------------------
    @property
    def main_bank(self) -> int:
        """The chips in the main bank."""
        return self.ledger.bank - self.side

    def start_deal(self) -> None:
        super().start_deal()
        if self.deal_no == 0:  # Players, deck and deal: every player stakes before the first deal
            self.ante(range(self.n), self.opts["stake"], "stake")

    def chips_view(self) -> dict[str, Any]:
        return {
            **super().chips_view(),
            "points": list(self.points),
            "beyond": list(self.beyond),
            "carry": list(self.carry),
            "main_bank": self.main_bank,
            "side_bank": self.side,
            "game": self.game_no,
        }

    def view(self, seat: int) -> dict[str, Any]:
        return {**super().view(seat), **self.chips_view()}

    def match_ended(self) -> bool:
        """End of the match: `games` games have been won (Ambiguity 19)."""
        return self.games_won >= self.opts["games"]

    # --- the family's hook ----------------------------------------------------------------------------------
    def settle_victoria(self, declarer: int | None, penalties: list[int] | None, bonus: int = 0, **detail: Any) -> None:
        """End the deal: the declarer takes his quarter (unless beyond rummy), every seat's total moves by its
        penalty (less the declarer's bonus), and the questions between deals follow. `penalties=None`: the deal is
        annulled, and nothing changes (End of a deal)."""
        if penalties is None:
            self.bank_step = ""
            return self.finish_chips_deal(None, **detail, annulled=True)
        change = list(penalties)
        if declarer is not None:
            change[declarer] -= bonus
            if not self.beyond[declarer]:  # The bank share
                self.pay_bank(declarer, ceil_div(self.main_bank, 4), "quarter")
        self.points = tuple(p + c for p, c in zip(self.points, change))
        self.carry = tuple(k + c if b else k for k, c, b in zip(self.carry, change, self.beyond))
        self.over_now = tuple(s for s in range(self.n) if not self.beyond[s] and self.points[s] > LIMIT)
        self.restake_if_empty()
        self.bank_step, self.asked = "reentry", ()
        self.finish_chips_deal(declarer, **detail, penalties=list(penalties), bonus=bonus, change=change)

    def restake_if_empty(self) -> None:
        """Bank runs out: with the main bank at 0 and no winner yet, every player pays the stake again. A game this
        deal has decided (fewer than two players left who are, or by re-entering could be, not beyond rummy) is not
        restaked: its next game's stakes follow at once."""
        could_stay = len(self.contenders()) + (len(self.over_now) if self.opts["reentry_by_average"] else 0)
        if self.main_bank == 0 and could_stay >= 2:
            self.ante(range(self.n), self.opts["stake"], "stake")

    # --- between deals --------------------------------------------------------------------------------------
    def next_question(self, after: int | None) -> tuple[int, Ask] | None:
        """Re-entries, then the game-end check, then buy-downs (Ambiguity 22)."""
        assert self.pending is not None
        if self.bank_step == "reentry":
            for seat in self.pending.order:
                if seat in self.over_now and seat not in self.asked:
                    ask = self.reentry_ask(seat)
                    if ask is not None:
                        return seat, ask
                    self.asked += (seat,)  # re-entry impossible: nobody else is left to average
            self.go_beyond([s for s in self.pending.order if s in self.over_now])
            self.bank_step, self.asked = ("buydown" if self.game_goes_on() else ""), ()
        if self.bank_step == "buydown":
            for seat in self.pending.order:
                ask = None if seat in self.asked else self.buydown_ask(seat)
                if ask is not None:
                    return seat, ask
        return None

    def reentry_ask(self, seat: int) -> Ask | None:
        """Optional re-entry: half the bank for the others' average total (none left to average: impossible)."""
        if not self.opts["reentry_by_average"]:
            return None
        others = [self.points[s] for s in self.contenders() if s != seat]
        if not others:
            return None
        total = round_half_up(sum(others), len(others))
        return Ask("reentry", "reenter", {"price": ceil_div(self.main_bank, 2), "total": total})

    def buydown_ask(self, seat: int) -> Ask | None:
        """Buying down: 80-98 and not beyond rummy, to the highest lower total of the others not beyond rummy."""
        own = self.points[seat]
        if self.beyond[seat] or not BUYDOWN_LOW <= own <= BUYDOWN_HIGH:
            return None
        lower = [self.points[s] for s in self.contenders() if s != seat and self.points[s] < own]
        if not lower:
            return None
        return Ask("buydown", "buydown", {"price": ceil_div(self.main_bank, 2), "total": max(lower)})

    def between_answer(self, seat: int, ask: Ask, yes: bool) -> None:
        if not yes:
            self.asked += (seat,)
            return
        self.ante([seat], ask.constraints["price"], ask.kind)
        self.points = tuple(ask.constraints["total"] if s == seat else p for s, p in enumerate(self.points))
        if ask.kind == "reentry":
            self.over_now = tuple(s for s in self.over_now if s != seat)
            self.asked += (seat,)

    def between_done(self) -> None:
        assert self.pending is not None
        if not self.pending.detail.get("annulled"):
            self.note(
                penalty_totals=list(self.points), beyond=list(self.beyond), carry=list(self.carry), game=self.game_no
            )

    def contenders(self) -> list[int]:
        """The seats not beyond rummy (those over 100 in this deal who have not re-entered left out)."""
        return [s for s in range(self.n) if not self.beyond[s] and s not in self.over_now]

    # --- lethargics, games and the side bank ----------------------------------------------------------------
    def go_beyond(self, seats: list[int]) -> None:
        """`seats` go beyond rummy: their carry starts at 0, and with the side bank they join it."""
        self.beyond = tuple(b or s in seats for s, b in enumerate(self.beyond))
        self.carry = tuple(0 if s in seats else k for s, k in enumerate(self.carry))
        self.over_now = ()
        self.join_side_bank()

    def join_side_bank(self) -> None:
        """Ambiguity 23: once there are two lethargics, each pays one stake into the side bank, and so does every
        later one when he goes beyond rummy."""
        if not self.opts["letarg_side_bank"] or sum(self.beyond) < 2:
            return
        payers = [s for s in range(self.n) if self.beyond[s] and not self.side_in[s]]
        self.ante(payers, self.opts["stake"], "side-bank")
        self.side += self.opts["stake"] * len(payers)
        self.side_in = tuple(i or s in payers for s, i in enumerate(self.side_in))

    def pay_side_bank(self) -> None:
        """The end of a game: the lethargic with the lowest total takes the side bank; tied players split it,
        the remainder to the first of them in playing order from the last deal's first player (Ambiguity 23)."""
        members = [s for s in self.order_from(self.next_seat(self.dealer)) if self.side_in[s]]
        if self.side and members:
            low = min(self.points[s] for s in members)
            tied = [s for s in members if self.points[s] == low]
            share, extra = divmod(self.side, len(tied))
            for i, s in enumerate(tied):
                self.pay_bank(s, share + (i < extra), "side-bank-win")
        self.side, self.side_in = 0, (False,) * self.n

    def game_goes_on(self) -> bool:
        """The game-end check: one player left not beyond rummy wins the game and the rest of the bank; nobody
        left ends it with no winner (Ambiguity 16). True if the game goes on."""
        left = [s for s in range(self.n) if not self.beyond[s]]
        if len(left) > 1:
            return True
        self.pay_side_bank()
        stakes = [self.opts["stake"]] * self.n
        if left:
            winner = left[0]
            self.pay_bank(winner, self.main_bank, "game")
            self.games_won += 1
            final = self.points[winner]
            stakes[winner] = (
                0 if final <= NO_STAKE else ceil_div(stakes[winner], 2) if final <= HALF_STAKE else stakes[winner]
            )
            self.note(game_winner=winner)
        if not self.match_ended():
            self.new_game(stakes)
        return False

    def new_game(self, stakes: list[int]) -> None:
        """Next game: the stakes are paid, former lethargics start at their carry, everyone else at 0, and a
        starting total above 100 is beyond rummy from the start."""
        self.move_chips_stakes(stakes)
        self.points = tuple(k if b else 0 for k, b in zip(self.carry, self.beyond))
        self.beyond = tuple(p > LIMIT for p in self.points)
        self.carry = (0,) * self.n
        self.game_no += 1
        self.join_side_bank()

    def move_chips_stakes(self, stakes: list[int]) -> None:
        """Each seat pays its stake for the next game (one event)."""
        self.move_chips([Move(s, BANK, k, "stake") for s, k in enumerate(stakes)])
