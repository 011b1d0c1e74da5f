"""Mississippi Rummy (Misisipės romis): rules/mississippi.md."""

from typing import Any

from protocol.messages import Exchange, Op
from referee.rules.between import Ask, BetweenDeals
from referee.rules.cards import deck, rank
from referee.rules.chips import ChipsGame, Move
from referee.rules.describe import Field, Phase
from referee.rules.engine import Option
from referee.rules.errors import ConfigError, IllegalAction
from referee.rules.kinds import WholeHand
from referee.rules.knock import KnockGame
from referee.rules.melds import MeldRules
from referee.rules.solver import best_split

DEUCES = frozenset({"2S", "2H", "2D", "2C"})
# Valid combinations: ace high only, deuces wild or themselves, one pack; the Mississippi is ten or more cards of
# one suit in any ranks, each really of that suit (Ambiguity 4), and takes a lay-off of any card of the suit
RULES = MeldRules(
    ace_low=False,
    wilds=DEUCES,
    set_max=4,
    wholes=(WholeHand("mississippi", 10, one_suit=True, at_least=True, wild=False),),
)
LIMIT = 102  # End of the match: out at 102 penalty points
DANGER = 80  # Special rules: a buy-back needs more than 80
BONUS = {"rummy": 10, "from-hand": 20, "mississippi": 20}  # Scoring: the highest one applies (Ambiguity 12)
PERCENT = {"rummy": 10, "from-hand": 20, "mississippi": 20, "knock": 5, "underknock": 20, "others": 5}


class Mississippi(BetweenDeals, ChipsGame, KnockGame):
    """Misisipės romis: 10 cards, wild deuces, melds and lay-offs in play, knock at 5 free points or less,
    bonuses off the penalties, out at 102 unless bought back above 80; or, with money_mode, a bank paid out in
    percentages until it is empty."""

    slug = "mississippi"
    name = "Mississippi Rummy"
    local_name = "Misisipės romis"
    min_players, max_players = 2, 4
    hand_size = 10
    knock_limit = 5
    meld_rules = RULES
    starter_offer = False
    rebuild_stock = True  # End of a deal: the "Klasikinis romis" turn-over
    stock_floor = 0
    elimination_limit = LIMIT
    unit, low_wins = "points", True  # money_mode: net chips, the highest wins (unit_for, low_wins_for)
    refund_at_end = False  # End of the match: the net money stands, whatever is left in the bank
    OPTIONS = {
        "money_mode": Option(
            False,
            help="play for money: a bank of stakes paid out in percentages until it is empty; the totals are then "
            "net chips, and the most wins",
        ),
        "stake": Option(100, help="money_mode: what every player pays into the bank before the match"),
        "max_buybacks": Option(1, (1, 2), help="buy-backs each player may make in a match (points version)"),
        "buyback_fee": Option(30, help="what a buy-back costs, paid into the bank that goes to the match winner"),
    }
    PHASES = {
        ("turn", "play"): Phase(
            "after the draw: meld (a Mississippi: kind mississippi) and lay off on any meld as you like, then "
            "discard, or knock with your discard: what you have put down is your declared arrangement and the cards "
            "left after the discard are your free cards, 5 or less; the knock options are the discards that leave "
            "5 or less as the hand is now (meld first, in the same play, to knock with more)",
            ("discard", "knock"),
        ),
        ("buyback", "between-deals"): Phase(
            "after a deal, a player above 80 with a buy-back left may pay `fee` into the bank to bring his total "
            "down to `target` (the nearest lower total of the others still in, below 102): bid {value: buyback} "
            "or pass. Asked one at a time from the deal's first player; at 102 or more, a pass is elimination",
            ("bid", "pass"),
        ),
    }
    CONSTRAINTS = {
        "knock_limit": Field("int", "the most your free cards may count after a knock's discard (5)"),
        "total": Field("int", "buyback: your total after the deal"),
        "target": Field("int", "buyback: the total a buy-back gives you"),
        "fee": Field("int", "buyback: what it costs, paid into the bank"),
        "buybacks_left": Field("int", "buyback: the buy-backs you have left after this one"),
    }
    VIEW = {
        "eliminated": Field("bool[]", "whether each seat is out of the match (102 or more, not bought back)"),
        "buybacks": Field("int[]", "the buy-backs each seat has made in the match"),
        "penalties": Field("number[]", "each seat's penalty points so far (the scores, unless money_mode)"),
    }
    CARD_VALUES = {"penalty": Field("int", "what a free card counts: A 15, K Q J 10, 2-10 face value")}

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        self.buybacks: tuple[int, ...] = (0,) * players
        self.pens: tuple[float, ...] = (0,) * players  # penalty points, kept apart from the chips in money_mode
        self.declined: tuple[int, ...] = ()  # who passed at 102 or more after the deal just played
        super().__init__(players, options, seed)

    @classmethod
    def parse_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        opts = super().parse_options(given)
        if opts["money_mode"] and opts["stake"] < 1:
            raise ConfigError("option stake: money_mode needs a stake of at least 1")
        return opts

    @classmethod
    def unit_for(cls, options: dict[str, Any]) -> str:
        return "chips" if cls.parse_options(options)["money_mode"] else "points"

    @classmethod
    def low_wins_for(cls, options: dict[str, Any]) -> bool:
        return cls.unit_for(options) == "points"

    @property
    def money(self) -> bool:
        """Whether this match is the money version."""
        return bool(self.opts["money_mode"])

    def make_deck(self) -> list[str]:
        return deck(packs=1)

    def penalty(self, card: str) -> int:
        """Scoring: ace 15; K, Q, J 10; 2-10 face value (a deuce counts 2)."""
        r = rank(card)
        return 15 if r == 1 else min(r, 10)

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """The family's evaluation, with rummy (no free cards) in place of gin and whether a Mississippi forms."""
        out = super().evaluate(hand)
        if "gin" in out:
            out["rummy"] = out.pop("gin")
        kept = [c for c in hand if c != out.get("discard")]
        out["mississippi"] = any(
            m.kind == "mississippi" for m in best_split(kept, RULES, cls.hooks_only().penalty).melds
        )
        return out

    def start_deal(self) -> None:
        super().start_deal()
        if self.deal_no == 0 and self.money:  # Players, deck and deal: the stakes, before the game
            self.ante(range(self.n), self.opts["stake"], "stake")

    # --- turns: knock on the declared arrangement, no exchange ------------------------------------------------------
    def do(self, seat: int, op: Op) -> None:
        if isinstance(op, Exchange):
            raise IllegalAction("exchange.none", "a wild deuce on the table stays there (Ambiguity 6)")
        super().do(seat, op)

    def knocks(self, seat: int, discards: list[str]) -> list[str]:
        """The discards after which the cards left, as they are, count 5 or less (melds go down before the knock)."""
        hand = self.hands[seat]
        points = sum(map(self.penalty, hand))
        return [c for c in discards if points - self.penalty(c) <= self.limit()]

    def knock_deadwood(self, seat: int) -> int:
        """The knocker's declared arrangement: what he melded and laid off is down; the cards left are free."""
        return sum(map(self.penalty, self.hands[seat]))

    def showdown(self, knocker: int) -> None:
        """The deal ends at the knock (Ambiguity 3); a knock with no free cards is rummy (Ambiguity 5)."""
        if self.hands[knocker]:
            self.finish = {"kind": "knock", "finisher": knocker}
        self.end_deal(knocker)

    def end_play(self, seat: int, was_opened: bool) -> None:
        if not self.between:  # a knock or rummy ended the deal, and its buy-backs are being asked
            super().end_play(seat, was_opened)

    # --- the end of a deal ---------------------------------------------------------------------------------------
    def end_deal(self, winner: int | None) -> None:
        """Free cards for all but a rummy winner, the rummy bonus off his total, or the money payouts."""
        self.phase = "over"
        seats, finish = self.seats_in(), self.finish or {}
        free = [0] * self.n
        for s in seats:
            hand = self.hands[s]
            known = finish.get("finisher") == s  # the knocker's revealed arrangement counts as he declared it
            free[s] = sum(map(self.penalty, hand)) if known else best_split(hand, RULES, self.penalty).points
        kind = finish.get("kind") or ("rummy" if winner is not None else "stalemate")
        bonus = self.bonus(winner) if kind == "rummy" and winner is not None else None
        pens: list[float] = list(free)
        if bonus is not None and winner is not None:
            pens[winner] = -BONUS[bonus]
        under = self.underknocker(winner, free) if kind == "knock" and winner is not None else None
        winner = winner if under is None else under
        self.finish = {"kind": kind, "finisher": finish.get("finisher", winner), "free": free, "bonus": bonus}
        self.pens = tuple(p + d for p, d in zip(self.pens, pens))
        self.declined = ()
        hands = [sorted(h) for h in self.hands]
        if self.money:
            self.pay_out(kind, bonus, free)
            totals = list(self.pens)  # the penalty points still recorded, as may-i's second column shows them
            self.finish_chips_deal(winner, hands=hands, finish=self.finish, penalties=pens, penalty_totals=totals)
        else:
            self.finish_deal(pens, winner, hands=hands, finish=self.finish)

    def bonus(self, seat: int) -> str:
        """The rummy winner's one bonus, the highest that applies (Ambiguity 12)."""
        if any(m.owner == seat and m.kind == "mississippi" for m in self.table):
            return "mississippi"
        return "rummy" if self.placed_before[seat] else "from-hand"

    def underknocker(self, knocker: int, free: list[int]) -> int | None:
        """The player with strictly fewer free points than the knocker, the fewest (ties: the first after him)."""
        others = self.order_from(knocker)[1:]
        low = min(others, key=lambda s: free[s])
        return low if free[low] < free[knocker] else None

    def share(self, percent: int) -> int:
        """⌊percent × B⌋, at least 1 while B > 0, never more than B (Scoring, money version)."""
        bank = self.ledger.bank
        return min(bank, max(1, bank * percent // 100)) if bank else 0

    def pay_out(self, kind: str, bonus: str | None, free: list[int]) -> None:
        """The money version's payments for the deal just ended (none after a stalemate)."""
        finisher = self.finish["finisher"] if self.finish else None
        if finisher is None:
            return
        if bonus is not None:
            return self.pay_bank(finisher, self.share(PERCENT[bonus]), bonus)
        under = self.underknocker(finisher, free)
        if under is None:  # the knocker is lowest, ties included (Ambiguity 11)
            return self.pay_bank(finisher, self.share(PERCENT["knock"]), "knock")
        others = [s for s in self.seats_in() if s not in (finisher, under)]
        moves = [Move(finisher, under, self.share(PERCENT["underknock"]), "underknock")]
        moves += [Move(s, under, self.share(PERCENT["others"]), "underknock") for s in others]  # Ambiguity 10
        self.move_chips(moves)

    # --- buy-backs between deals (Special rules; Ambiguities 8, 9, 18) ---------------------------------------------
    def target(self, seat: int) -> float | None:
        """The nearest total: the highest of the others still in below both `seat`'s total and 102."""
        total = self.total_after(seat)
        others = [o for o in self.seats_in() if o != seat and o not in self.declined]
        below = [self.total_after(o) for o in others if self.total_after(o) < min(total, LIMIT)]
        return max(below) if below else None

    def between_question(self, seat: int) -> Ask | None:
        left = self.opts["max_buybacks"] - self.buybacks[seat]
        target = self.target(seat)
        if self.money or left < 1 or self.total_after(seat) <= DANGER or target is None:
            return None
        fee = self.opts["buyback_fee"]
        limits = {"total": self.total_after(seat), "target": target, "fee": fee, "buybacks_left": left - 1}
        return Ask("buyback", "buyback", limits)

    def between_answer(self, seat: int, ask: Ask, yes: bool) -> None:
        if yes:
            self.set_total(seat, ask.constraints["target"])
            self.buybacks = tuple(b + (s == seat) for s, b in enumerate(self.buybacks))
            self.ante([seat], ask.constraints["fee"], "buyback")
        elif self.total_after(seat) >= LIMIT:
            self.declined = (*self.declined, seat)

    def between_done(self) -> None:
        """Points version: the buy-backs' fees are in the deal's detail; at the match's end the bank goes to its
        winner (Ambiguity 14; co-winners share it, any odd chip to the first of them in playing order)."""
        if self.money:
            return
        assert self.pending is not None
        order = self.pending.order
        staying = [s for s in order if self.total_after(s) < LIMIT]
        if len(staying) <= 1 or self.deal_no + 1 >= self.opts["max_deals"]:
            pool = staying or list(order)
            best = min(self.total_after(s) for s in pool)
            winners = [s for s in pool if self.total_after(s) == best]
            bank, k = self.ledger.bank, len(winners)
            self.move_chips([Move("bank", s, bank // k + (i < bank % k), "bank") for i, s in enumerate(winners)])
        self.note(bank=self.ledger.bank, chips=list(self.ledger.chips), moved=self.moved_by_reason())

    def eliminations(self) -> list[int]:
        return [] if self.money else super().eliminations()

    def match_ended(self) -> bool:
        """The money version ends when the bank is empty; the points version when one player is left."""
        return self.money and self.ledger.bank == 0

    def view(self, seat: int) -> dict[str, Any]:
        return {
            **super().view(seat),
            **self.chips_view(),
            "eliminated": [d is not None for d in self.out_deal],
            "buybacks": list(self.buybacks),
            "penalties": list(self.pens) if self.money else list(self.totals),
        }
