"""French Rummy (Prancūzų romis): rules/french.md. Seven cards from 52 + 1 joker; the discard comes before the
draw from the pile and straight after the draw from the stock; one manipulation per turn; sets of exactly four;
penalty points, bankruptcy at 100 with buy-backs, and a bank that goes to the last player left."""

from typing import Any

from protocol.messages import Decision, Discard, Draw, Exchange, LayOff, Meld, Op, Pass
from referee.rules.between import Ask, BetweenDeals
from referee.rules.cards import deck, rank
from referee.rules.chips import BANK, ChipsGame, Move
from referee.rules.describe import Field, Phase
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, TableMeld

BANKRUPT = 100  # End of the match: a penalty total of 100 or more
BUYBACKS = 3  # buy-backs per player per match (Ambiguity 8)


FRENCH_MELDS = MeldRules(ace_high=False, set_min=4, set_max=4)  # Valid combinations: sets of exactly four


def added_at_one_end(before: TableMeld, after: TableMeld) -> bool:
    """Ambiguity 5: cards laid off together are connected, all at one end of the sequence."""
    k = len(before.ids)
    return after.ids[:k] == before.ids or after.ids[-k:] == before.ids


class French(BetweenDeals, ChipsGame, DrawMeldDiscard):
    """Prancūzų romis: played for a bank staked by everyone; the totals are net money, the penalty points decide
    who goes bankrupt and who is left to take the bank."""

    slug = "french"
    name = "French Rummy"
    local_name = "Prancūzų romis"
    min_players, max_players = 2, 5
    hand_size = 7
    meld_rules = FRENCH_MELDS
    rebuild_stock = False  # End of a deal: the deal ends when the stock runs out
    refund_at_end = False  # the bank goes to the winner (between_done)
    unused_options = frozenset({"allow_rediscard"})  # a set-aside card is never the card taken (Ambiguity 9)
    OPTIONS = {
        "stake": Option(100, help="what every player pays into the bank before the match"),
        "buyback_fee": Option(30, help="what a buy-back costs, paid into the bank (Ambiguity 8)"),
        "deal_win_payment": Option(0, help="by agreement: what each loser of a won deal pays the winner"),
    }
    PHASES = {
        ("turn", "draw"): Phase(
            "the start of your turn: `[draw]` takes the top stock card (then you discard, phase `discard`), or "
            "`[discard X, draw {source: discard}]` sets X aside, takes the top discard and puts X on the pile; "
            "with constraint `eight_card_rummy`, `[draw {source: discard}, meld...]` takes the top discard into a "
            "rummy of all 8 cards. After a pile take the play may go on with your manipulation",
            ("draw",),
        ),
        ("turn", "play"): None,
        ("turn", "discard"): Phase(
            "after a stock draw, 8 cards: discard one (the drawn card too), then in the same play or the next "
            "request your manipulation; or, with constraint `eight_card_rummy`, meld all 8 cards in new combinations",
            ("discard",),
        ),
        ("turn", "manipulate"): Phase(
            "after the draw and discard: one manipulation (one `meld`, one `layoff` of one card or of connected "
            "cards at one end of a sequence, one joker `exchange` in a sequence), or a rummy (melds and lay-offs "
            "that empty your hand), or `pass`. Either ends the turn",
            ("pass",),
        ),
        ("buyback", "between-deals"): Phase(
            "your penalty total reached 100: buy back (`bid {value: buyback}`: pay constraint `fee` into the bank "
            "and go down to `target`, the highest total still below 100) or `pass` (bankrupt: out of the match). "
            "Asked one seat at a time from the deal's first player, answers public",
            ("bid", "pass"),
            rare=True,
        ),
    }
    CONSTRAINTS = {
        "initial_meld": None,
        "opened": Field("bool", "whether you have a combination of your own on the table this deal"),
        "eight_card_rummy": Field("bool", "whether you may declare rummy with 8 cards now (nothing melded yet)"),
        "lay_off_on_others": Field("bool", "whether you may lay off on others' combinations (you have one of yours)"),
        "fee": Field("int", "between deals: what a buy-back costs", rare=True),
        "total": Field("int", "between deals: your penalty total", rare=True),
        "target": Field("int", "between deals: your penalty total after a buy-back", rare=True),
        "buybacks_left": Field("int", "between deals: the buy-backs you have left, this one included", rare=True),
    }
    VIEW = {
        "taken": None,
        "penalties": Field("int[]", "each seat's penalty total (bankrupt at 100)"),
        "bonuses": Field("int[]", "each seat's bonus column (the tie-break)"),
        "buybacks": Field("int[]", "the buy-backs each seat has used"),
        "bankrupt": Field("bool[]", "whether each seat has gone bankrupt (out of the match)"),
    }
    CARD_VALUES = {"meld": None}

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        self.penalties: tuple[int, ...] = (0,) * players
        self.bonuses: tuple[int, ...] = (0,) * players
        self.buybacks: tuple[int, ...] = (0,) * players
        self.winners: tuple[int, ...] = ()  # set when the match is decided (End of the match)
        self.going_out: tuple[int, ...] = ()  # the seats going bankrupt after the deal being settled
        super().__init__(players, options, seed)

    @property
    def predraw_plays(self) -> bool:
        return False

    def make_deck(self) -> list[str]:
        return deck(packs=1, jokers=1)

    def penalty(self, card: str) -> int:
        """Scoring: ace 1, joker 20, K, Q, J 10, 2-10 face value."""
        return 20 if card == "JK" else min(rank(card), 10)

    def start_deal(self) -> None:
        self.set_aside: str | None = None
        self.manipulation: tuple[Op, ...] = ()
        self.had_own = False  # the seat in turn had a combination on the table when its play began
        super().start_deal()
        if self.deal_no == 0:  # Players, deck and deal: the stake, before the game
            self.ante(range(self.n), self.opts["stake"], "stake")

    # --- decisions and views -------------------------------------------------------------------------------------
    def decision(self, seat: int) -> Decision:
        if self.between:
            return super().decision(seat)
        eight = not self.opened[seat] and self.phase in ("draw", "discard")
        constraints = {"opened": self.opened[seat], "eight_card_rummy": eight, "lay_off_on_others": self.opened[seat]}
        options: list[Op] = [Pass()]
        if self.phase == "draw":
            options = [Draw("stock")]
        elif self.phase == "discard":
            options = [Discard(c) for c in sorted(set(self.hands[seat]))]
        return Decision("turn", self.phase, options, constraints)

    def view(self, seat: int) -> dict[str, Any]:
        v = super().view(seat)
        del v["taken"]
        return {
            **v,
            **self.chips_view(),
            "penalties": list(self.penalties),
            "bonuses": list(self.bonuses),
            "buybacks": list(self.buybacks),
            "bankrupt": [d is not None for d in self.out_deal],
        }

    def fallback(self, seat: int) -> list[Op]:
        if self.between or self.phase in ("draw", "discard"):
            return super().fallback(seat)  # draw from the stock; discard the costliest card; buy-back: pass
        return [Pass()]

    # --- the turn (Turn structure; Ambiguities 1, 2, 9, 10) ------------------------------------------------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        self.manipulation = ()
        self.had_own = self.opened[seat]
        super()._apply(seat, ops)

    def do(self, seat: int, op: Op) -> None:
        if isinstance(op, Pass):
            if self.phase != "manipulate":
                raise IllegalAction("pass.not-now", "pass only in place of the manipulation, after draw and discard")
            self.phase = "over"
        elif isinstance(op, Meld | LayOff | Exchange):
            self.manipulate(seat, op)
        else:
            super().do(seat, op)

    def draw(self, seat: int, op: Draw) -> None:
        if self.phase not in ("draw", "set-aside"):
            raise IllegalAction("draw.once", "you have already drawn this turn")
        if op.source == "stock" and self.phase == "set-aside":
            raise IllegalAction("draw.set-aside", "a card set aside beside the pile means you take the top discard")
        if op.source == "stock" or self.phase == "draw":
            if op.source == "discard" and self.opened[seat]:
                raise IllegalAction("rummy.eight-after-meld", "set a card aside first: you have already melded")
            super().draw(seat, op)
            self.phase = "discard" if op.source == "stock" else "eight"  # 1c: the whole 8 cards must follow
            return
        self.phase = "draw"  # 1b: the top card, then the set-aside card goes on the pile
        super().draw(seat, op)
        card, self.set_aside = self.set_aside, None
        assert card is not None
        self.hands[seat].remove(card)
        self.piles[0].append(card)
        self.emit({"type": "discard", "seat": seat, "card": card})
        self.phase = "manipulate"

    def discard(self, seat: int, op: Discard) -> None:
        if self.phase == "eight":
            raise IllegalAction("rummy.eight-cards", "a rummy with 8 cards has no discard: all 8 go into combinations")
        if self.phase not in ("draw", "discard"):
            raise IllegalAction("discard.once", "the discard is made once, with the draw, before the manipulation")
        if op.card not in self.hands[seat]:
            raise IllegalAction("hand.missing-card", f"{op.card} is not in your hand")
        if self.phase == "draw":  # 1b: set aside beside the pile (it leaves the hand with the take)
            self.set_aside, self.phase = op.card, "set-aside"
            return
        self.hands[seat].remove(op.card)
        self.piles[0].append(op.card)
        self.emit({"type": "discard", "seat": seat, "card": op.card})
        self.phase = "manipulate"

    def manipulate(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        """One table operation: part of the turn's one manipulation, or of a rummy with 8 cards."""
        if self.phase in ("discard", "eight"):  # 1c: an 8-card rummy, only new combinations of one's own
            if self.opened[seat] and self.phase == "discard":
                raise IllegalAction("rummy.eight-after-meld", "discard first: 8-card rummy needs no earlier melds")
            if not isinstance(op, Meld):
                raise IllegalAction("rummy.eight-new-melds", "a rummy with 8 cards is made of new combinations only")
            self.phase = "eight"
            return self.table_op(seat, op)
        if self.phase != "manipulate":
            raise IllegalAction("play.before-draw", "draw and discard before you meld or lay off")
        self.manipulation = (*self.manipulation, op)
        if isinstance(op, LayOff | Exchange) and 0 <= op.meld < len(self.table):
            meld = self.table[op.meld]
            if meld.owner != seat and not self.had_own:
                raise IllegalAction(
                    "layoff.own-combination-first", "add to another player's combination only once you have one"
                )
            if meld.kind == "set":
                rule = "exchange.set-joker" if isinstance(op, Exchange) else "layoff.complete-set"
                raise IllegalAction(rule, "a set of four is complete: nothing is added, and its joker stays")
        before = self.table[op.meld] if isinstance(op, LayOff) and 0 <= op.meld < len(self.table) else None
        self.table_op(seat, op)
        if isinstance(op, LayOff) and before is not None and not added_at_one_end(before, self.table[op.meld]):
            raise IllegalAction(
                "layoff.not-connected", "cards laid off together must be connected, at one end of the sequence"
            )

    def can_lay_off(self, seat: int) -> bool:
        return True  # on one's own combinations always; on others' once one has one (`manipulate`)

    def end_play(self, seat: int, was_opened: bool) -> None:
        hand = self.hands[seat]
        if self.phase == "set-aside":
            raise IllegalAction("draw.set-aside", "the card set aside must be followed by the take from the pile")
        if self.phase == "eight" and hand:
            raise IllegalAction("rummy.eight-cards", "without a discard, all 8 cards must go into new combinations")
        if self.manipulation:  # Special rules: one manipulation, unless the play puts the whole hand down
            if len(self.manipulation) > 1 and (hand or any(isinstance(o, Exchange) for o in self.manipulation)):
                raise IllegalAction(
                    "manipulation.one",
                    "one manipulation a turn: one meld, one lay-off or one joker exchange; more only in a rummy "
                    "that puts the whole hand down (a joker exchange stands alone)",
                )
            self.phase = "over"
        if not hand:
            self.end_deal(winner=seat)
        elif self.phase == "over":
            self.end_turn()

    def clear_turn(self) -> None:
        super().clear_turn()
        self.set_aside = None

    # --- scoring and the match (Scoring; End of the match; Ambiguities 6, 7, 8, 14) ---------------------------------
    def end_deal(self, winner: int | None) -> None:
        self.phase = "over"
        pens = [0 if s == winner else sum(map(self.penalty, h)) for s, h in enumerate(self.hands)]
        self.penalties = tuple(t + p for t, p in zip(self.penalties, pens))
        if winner is not None:
            self.bonuses = tuple(b + (sum(pens) if s == winner else 0) for s, b in enumerate(self.bonuses))
            self.collect(winner, self.seats_in(), self.opts["deal_win_payment"], "deal-win")
        self.finish_chips_deal(
            winner,
            hands=[sorted(h) for h in self.hands],
            penalties=pens,
            penalty_totals=list(self.penalties),
            bonuses=list(self.bonuses),
        )

    def buyback_target(self, seat: int) -> int | None:
        """The total a buy-back brings `seat` down to: the highest among opponents still in below 100."""
        below = [self.penalties[s] for s in self.seats_in() if s != seat and self.penalties[s] < BANKRUPT]
        return max(below) if below else None

    def between_question(self, seat: int) -> Ask | None:
        target = self.buyback_target(seat)
        if self.penalties[seat] < BANKRUPT or self.buybacks[seat] >= BUYBACKS or target is None:
            return None
        left = BUYBACKS - self.buybacks[seat]
        fee, total = self.opts["buyback_fee"], self.penalties[seat]
        return Ask("buyback", "buyback", {"fee": fee, "total": total, "target": target, "buybacks_left": left})

    def between_answer(self, seat: int, ask: Ask, yes: bool) -> None:
        if yes:
            self.ante([seat], ask.constraints["fee"], "buyback")
            self.penalties = tuple(ask.constraints["target"] if s == seat else p for s, p in enumerate(self.penalties))
            self.buybacks = tuple(b + (s == seat) for s, b in enumerate(self.buybacks))
            self.note(penalty_totals=list(self.penalties), buybacks=list(self.buybacks))

    def between_done(self) -> None:
        """Who goes bankrupt, and whether the match is decided now: then the winners share the bank."""
        seats = self.seats_in()
        broke = [s for s in seats if self.penalties[s] >= BANKRUPT]
        alive = [s for s in seats if s not in broke]
        if not alive:  # all went bankrupt together: the lowest total, then the higher bonus column
            best = min((self.penalties[s], -self.bonuses[s]) for s in broke)
            self.winners = tuple(s for s in broke if (self.penalties[s], -self.bonuses[s]) == best)
        elif len(alive) == 1 or self.is_last_deal():  # the last player left; the deal cap: the lowest total
            self.winners = tuple(s for s in alive if self.penalties[s] == min(self.penalties[a] for a in alive))
        self.going_out = tuple(s for s in broke if s not in self.winners)
        if self.winners:
            self.share_bank()

    def share_bank(self) -> None:
        """The bank to the winners in equal shares; a remainder one chip each from the deal's first player on."""
        assert self.pending is not None
        order = [s for s in self.pending.order if s in self.winners]
        share, rest = divmod(self.ledger.bank, len(order))
        self.move_chips([Move(BANK, s, share + (i < rest), "bank") for i, s in enumerate(order)])
        self.note(match_winners=order)

    def eliminations(self) -> list[int]:
        return list(self.going_out)

    def match_ended(self) -> bool:
        return bool(self.winners)

    def ranks(self, totals: list[float], seats: list[int] | None = None) -> list[int]:
        """The winners first; then those still in above the bankrupt (later bankruptcies above earlier), each by
        the lower penalty total, then the higher bonus column."""
        seats = list(range(self.n)) if seats is None else seats

        def key(s: int) -> tuple:
            if s in self.winners:
                return (0,)
            return (1, self.out_deal[s] is not None, -(self.out_deal[s] or 0), self.penalties[s], -self.bonuses[s])

        keys = [key(s) for s in seats]
        return [1 + sum(u < k for u in keys) for k in keys]
