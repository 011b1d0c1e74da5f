"""The exchange family: no melds; two discard piles showing their top two cards; each turn a take of exactly
two cards in one declaration, then a put-back of one card on each pile (two-candles).

A take names its sources with `draw` ops: `draw {source: discard, pile p, depth 2}` (both top cards of pile p),
`draw {source: discard, pile p}` (its top card) and `draw {source: stock}` (one stock card; `depth 2`: two). A
play may hold the whole take (two draws, or one draw of two cards), or one draw of one card: then that draw is
only named, nothing moves and nothing is shown, and the next request asks for the second source (phase
`take-second`), so a bot that answers one option at a time still names both sources before any stock card is
revealed. The put-back (`discard {card, pile}`, one per pile) may come in the same play or one card at a time.
Once the stock is exhausted a turn may be declined (`pass`); the deal ends after a full cycle of declines.
"""

from typing import Any

from protocol.messages import Decision, Discard, Draw, Op, Pass, to_builtins
from referee.rules.cards import deck, shuffled
from referee.rules.describe import Field, Phase
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.engine import Game, Option
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules

PILES = 2
VISIBLE = 2  # cards of each pile a player sees (rules/two-candles.md, Players, deck and deal: Visibility)
_SAME_VIEW = ("turn", "phase", "hand_sizes")  # the draw-meld-discard fields this engine sends too


class Exchange(Game):
    """Engine of the exchange family: take two, put back one on each of two piles, score the hands at the end."""

    family = "exchange"
    low_wins = False
    hand_size = 8
    packet = 2  # cards dealt at a time
    starters = 2  # cards laid face up on each pile
    meld_rules = MeldRules(wilds=frozenset(), allow_sets=False, allow_runs=False)  # nothing is ever melded
    _mutable: tuple[str, ...] = ("hands", "stock", "piles")
    OPTIONS = {
        "max_rounds": Option(40, help="safety cap: a deal whose stock lasts this many rounds ends as if declined"),
        "max_post_stock_turns": Option(
            10, help="safety cap: once the stock is exhausted, the deal ends after this many turns per player"
        ),
    }
    PHASES: dict[tuple[str, str], Phase | None] = {
        ("turn", "take"): Phase(
            "take exactly two cards in one declaration: both top cards of a pile (`draw {discard, pile, depth: 2}`), "
            "the top card of each pile, the top card of a pile and of the stock, or two stock cards "
            "(`draw {stock, depth: 2}` or two stock draws). A play may hold both draws and then the put-back; a play "
            "of one one-card draw only names it (nothing is revealed) and the second source is asked next. Once the "
            "stock is exhausted, `pass` declines the turn",
            ("draw", "pass"),
        ),
        ("turn", "take-second"): Phase(
            "the second source of a take whose first draw (`constraints.named`) was sent alone; options are the draws "
            "that complete a legal take. The view is as before the first draw: nothing has moved yet",
            ("draw",),
        ),
        ("turn", "putback"): Phase(
            "put back two cards, one on each pile (`discard {card, pile}`), any of your 10 cards; both in one play or "
            "one at a time",
            ("discard",),
        ),
    }
    CONSTRAINTS: dict[str, Field | None] = {
        "decline_allowed": Field("bool", "whether `pass` (declining the turn) is legal: only once the stock is empty"),
        "named": Field("object[]", "the draw already named this turn (phase take-second), as sent"),
        "putback_piles": Field("int[]", "the piles still waiting for a card of this turn's put-back"),
        "declines": Field("int", "consecutive declines since the last exchange (the deal ends when all decline)"),
    }
    VIEW: dict[str, Field | None] = {
        **{k: DrawMeldDiscard.VIEW[k] for k in _SAME_VIEW},
        "piles": Field("card[][]", "the visible top two cards of each discard pile, bottom first, top last"),
        "pile_sizes": Field("int[]", "the number of cards in each discard pile"),
        "declines": Field("int", "consecutive declines since the last exchange once the stock is exhausted"),
        "deals_won": Field("int[]", "the deals each seat has won so far (tied deal winners all count)"),
    }

    # --- hooks ---------------------------------------------------------------------------------------------------
    def make_deck(self) -> list[str]:
        """The unshuffled cards of one deal (variants choose the pack by player count)."""
        return deck(packs=2)

    def hand_value(self, hand: list[str]) -> int:
        """What an 8-card hand is worth at the end of a deal (the variant's evaluation)."""
        raise NotImplementedError

    def solo_exchanges(self) -> int:
        """How many exchanges in a row the last exchanger gets once all the others have declined in succession
        (0: none, the deal goes on until everyone declines)."""
        return 0

    # --- the deal ------------------------------------------------------------------------------------------------
    def start_deal(self) -> None:
        cards = shuffled(self.make_deck(), self.deal_rng())
        seats = self.order_from(self.next_seat(self.dealer))  # Pirmasis first
        self.hands: list[list[str]] = [[] for _ in range(self.n)]
        for i in range(self.hand_size * len(seats)):
            self.hands[seats[i // self.packet % len(seats)]].append(cards.pop())
        self.piles: list[list[str]] = [[cards.pop() for _ in range(self.starters)] for _ in range(PILES)]
        self.stock = cards
        if self.deal_no == 0:
            self.deals_won: tuple[int, ...] = (0,) * self.n
        self.turns = 0  # turns played this deal
        self.post_stock_turns = 0  # turns begun with the stock exhausted
        self.declines = 0  # consecutive declines once the stock is exhausted
        self.last_exchanger: int | None = None
        self.solo_left: int | None = None  # exchanges left to the lone last exchanger (the option)
        self.emit({"type": "deal", "deal": self.deal_no, "dealer": self.dealer, "piles": [list(p) for p in self.piles]})
        self.begin_turn(seats[0])

    def begin_turn(self, seat: int) -> None:
        """Give `seat` the turn, remembering the cards as they lie (an exchange that changes nothing is a decline)."""
        self.turn = seat
        self.phase = "take"
        self.named: tuple[Draw, ...] = ()
        self.put: tuple[int, ...] = ()  # the piles given a card this turn
        self.before = (tuple(sorted(self.hands[seat])), tuple(tuple(p) for p in self.piles))
        if not self.stock:
            self.post_stock_turns += 1

    def to_act(self) -> list[int]:
        return [] if self.over else [self.turn]

    def current_phase(self) -> str:
        """The phase of the turn: take, take-second (a first draw named alone) or putback."""
        return "take-second" if self.named else self.phase

    # --- what is asked -------------------------------------------------------------------------------------------
    def decision(self, seat: int) -> Decision:
        waiting = [p for p in range(PILES) if p not in self.put]
        constraints = {
            "decline_allowed": self.current_phase() == "take" and not self.stock,
            "named": [to_builtins(d) for d in self.named],
            "putback_piles": waiting,
            "declines": self.declines,
        }
        if self.phase == "putback":
            options: list[Op] = [Discard(c, p) for p in waiting for c in sorted(set(self.hands[seat]))]
            return Decision("turn", "putback", options, constraints)
        if self.named:
            return Decision("turn", self.current_phase(), self.completions(self.named[0]), constraints)
        return Decision("turn", "take", self.take_options(), constraints)

    def take_options(self) -> list[Op]:
        """The one-op plays that open a turn: whole takes, first halves of takes, and the decline where allowed."""
        options: list[Op] = [Draw("discard", p, 2) for p in range(PILES) if len(self.piles[p]) >= 2]
        options += [Draw("stock", depth=2)] if len(self.stock) >= 2 else []
        options += [Draw("discard", p) for p in range(PILES)] + ([Draw("stock")] if self.stock else [Pass()])
        return options

    def completions(self, first: Draw) -> list[Op]:
        """The draws that complete a take whose first source is `first` (rules/two-candles.md, Turn structure 1)."""
        if first.source == "stock":
            return [*(Draw("discard", p) for p in range(PILES))]
        return [Draw("discard", 1 - first.pile), *([Draw("stock")] if self.stock else [])]

    def view(self, seat: int) -> dict[str, Any]:
        return {
            **self.view_head(seat),
            "turn": self.turn,
            "phase": self.current_phase(),
            "hand": sorted(self.hands[seat]),
            "stock": len(self.stock),
            "hand_sizes": [len(h) for h in self.hands],
            "scores": list(self.totals),
            "piles": [p[-VISIBLE:] for p in self.piles],  # Ambiguity 12: only the top two are current state
            "pile_sizes": [len(p) for p in self.piles],
            "declines": self.declines,
            "deals_won": list(self.deals_won),
        }

    def fallback(self, seat: int) -> list[Op]:
        """Decline where allowed (so a forfeited seat lets the deal end), else the first legal option."""
        if self.phase == "take" and not self.named and not self.stock:
            return [Pass()]
        return super().fallback(seat)

    # --- applying a play -----------------------------------------------------------------------------------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        turn, i = (self.deal_no, self.turns), 0
        if self.phase == "take":
            draws: list[Draw] = []
            while i < len(ops) and isinstance(op := ops[i], Draw):
                draws.append(op)
                i += 1
            if draws:
                self.take(seat, draws, more=i < len(ops))
        for op in ops[i:]:
            if (self.deal_no, self.turns) != turn or self.over:
                raise IllegalAction("play.after-end", "nothing may follow the end of your turn")
            self.do(seat, op)

    def do(self, seat: int, op: Op) -> None:
        """Apply one op after the take (or a decline, or a put-back before any take, which is refused)."""
        match op:
            case Pass():
                self.decline(seat)
            case Discard():
                self.put_back(seat, op)
            case Draw():
                raise IllegalAction(
                    "take.after-seeing",
                    "a take is one declaration of two cards, named before any stock card is seen; yours is complete",
                )
            case _:
                raise IllegalAction("op.unsupported", f"{type(op).__name__.lower()} is not an operation of {self.slug}")

    def take(self, seat: int, draws: list[Draw], more: bool) -> None:
        """Name the draws of a take; once two cards are named, move them (`more`: other ops follow in the play)."""
        for d in draws:
            self.check_source(d)
        named = (*self.named, *draws)
        count = sum(d.depth for d in named)
        if count < 2:
            if more:
                raise IllegalAction("take.one-card", "take exactly two cards before the put-back, not one")
            self.named = named  # only named: nothing moves until the second source is named
            return
        self.check_take(named, count)
        for d in named:
            self.move(seat, d)
        self.named, self.phase = (), "putback"

    def check_source(self, d: Draw) -> None:
        """One draw names a pile and a depth that can be taken from at all."""
        if d.source == "discard" and not 0 <= d.pile < PILES:
            raise IllegalAction("take.no-such-pile", f"there is no discard pile {d.pile} (piles are 0 and 1)")
        if not 1 <= d.depth <= VISIBLE:
            raise IllegalAction("take.depth", f"a draw takes 1 or 2 cards from the top, not {d.depth}")
        if d.source == "stock" and not self.stock:
            raise IllegalAction("take.empty-stock", "the stock is exhausted")

    def check_take(self, named: tuple[Draw, ...], count: int) -> None:
        """The named draws form one of the four legal combinations (rules/two-candles.md, Turn structure 1)."""
        if any(d.source == "discard" and d.depth == 2 for d in named) and len(named) > 1:
            raise IllegalAction(
                "take.lower-alone",
                "the lower visible card of a pile comes only with the top card above it, as the whole take "
                "(draw {discard, pile, depth 2} alone)",
            )
        sources = [d.pile if d.source == "discard" else -1 for d in named]
        if len(set(sources)) < len(sources):
            raise IllegalAction(
                "take.same-source",
                "two cards from one source are one draw of depth 2 (the top two of a pile, or two stock cards)",
            )
        if count > 2:
            raise IllegalAction("take.two-cards", f"a take is exactly two cards; this one names {count}")
        for d in named:
            have = len(self.stock) if d.source == "stock" else len(self.piles[d.pile])
            if d.depth > have:
                where = "the stock" if d.source == "stock" else f"pile {d.pile}"
                rule = "take.empty-stock" if d.source == "stock" else "take.pile-of-one"
                raise IllegalAction(rule, f"{where} holds {have} card: two cannot be taken from it")

    def move(self, seat: int, d: Draw) -> None:
        """Move the cards of one draw into the seat's hand, with its event (stock cards shown to the taker only)."""
        source = self.stock if d.source == "stock" else self.piles[d.pile]
        cards = source[-d.depth :][::-1]  # top card first
        del source[-d.depth :]
        self.hands[seat] += cards
        if d.source == "stock":
            self.emit({"type": "draw", "seat": seat, "source": "stock", "count": d.depth}, seat, cards=cards)
        else:
            self.emit({"type": "draw", "seat": seat, "source": "discard", "pile": d.pile, "cards": cards})

    def put_back(self, seat: int, op: Discard) -> None:
        """One card of the put-back onto a pile that has not had one this turn."""
        if self.phase != "putback":
            raise IllegalAction("putback.before-take", "take two cards before you put any back")
        if not 0 <= op.pile < PILES:
            raise IllegalAction("putback.no-such-pile", f"there is no discard pile {op.pile} (piles are 0 and 1)")
        if op.pile in self.put:
            raise IllegalAction("putback.one-each-pile", f"pile {op.pile} already has its card: one goes on each pile")
        if op.card not in self.hands[seat]:
            raise IllegalAction("hand.missing-card", f"{op.card} is not in your hand")
        self.hands[seat].remove(op.card)
        self.piles[op.pile].append(op.card)
        self.put += (op.pile,)
        self.emit({"type": "discard", "seat": seat, "card": op.card, "pile": op.pile})
        if len(self.put) == PILES:
            unchanged = self.before == (tuple(sorted(self.hands[seat])), tuple(tuple(p) for p in self.piles))
            self.end_turn(seat, declined=unchanged and not self.stock)  # Ambiguity 14

    def decline(self, seat: int) -> None:
        """`pass`: decline the turn, which is allowed only once the stock is exhausted (Ambiguity 6)."""
        if self.phase != "take":
            raise IllegalAction("decline.after-take", "you have taken your cards: put one back on each pile")
        if self.named:
            raise IllegalAction("decline.after-naming", "you named the first source of a take: name the second")
        if self.stock:
            raise IllegalAction("decline.stock-not-empty", "an exchange is compulsory while the stock has cards")
        self.emit({"type": "decline", "seat": seat})
        self.end_turn(seat, declined=True)

    # --- the end of a turn and of a deal -------------------------------------------------------------------------
    def end_turn(self, seat: int, declined: bool) -> None:
        """Count the turn, end the deal if it is over, else give the next seat (or the lone exchanger) the turn."""
        self.phase = "over"
        self.turns += 1
        self.declines = self.declines + 1 if declined else 0
        if not declined:
            self.last_exchanger = seat
        if self.deal_done(declined):
            return self.end_deal()
        nxt = self.next_seat(seat)
        if self.solo_left is not None:
            self.solo_left -= 1
            nxt = seat
        elif self.solo_exchanges() and self.all_but_one_declined(nxt):
            self.solo_left = self.solo_exchanges()
        self.begin_turn(nxt)

    def all_but_one_declined(self, nxt: int) -> bool:
        """Whether the stock is exhausted and all but `nxt` have declined in succession since his last exchange."""
        return not self.stock and self.declines == len(self.seats_in()) - 1 and nxt == self.last_exchanger

    def deal_done(self, declined: bool) -> bool:
        """Whether the turn just played ends the deal: everyone declined in a row, the lone exchanger stopped or
        used his exchanges, or a safeguard (rules/two-candles.md, End of a deal)."""
        n = len(self.seats_in())
        if self.solo_left is not None and (declined or self.solo_left <= 1):
            return True
        if not self.stock and self.declines >= n:
            return True
        if self.stock and self.turns >= self.opts["max_rounds"] * n:  # as if exhausted and all declined
            return True
        if self.turns >= self.opts["max_turns_per_deal"]:  # the generic cap: at its default it never binds first
            return True
        return not self.stock and self.post_stock_turns >= self.opts["max_post_stock_turns"] * n

    def end_deal(self) -> None:
        """Score every hand, count the deal's winners (ties all win) and go on to the next deal."""
        scores: list[float] = [self.hand_value(h) for h in self.hands]
        top = max(scores)
        winners = [s for s in range(self.n) if scores[s] == top]
        self.deals_won = tuple(w + (s in winners) for s, w in enumerate(self.deals_won))
        hands = [sorted(h) for h in self.hands]
        self.finish_deal(scores, winners[0] if len(winners) == 1 else None, hands=hands, winners=winners)

    # --- for the conformance suite -------------------------------------------------------------------------------
    def cards_in_play(self) -> list[str]:
        """Every card of the current deal, wherever it lies."""
        return [c for h in self.hands for c in h] + self.stock + [c for p in self.piles for c in p]

    def hidden_zones(self, seat: int) -> list[list[str]]:
        """The card lists `seat` must not see: the other hands and the stock (the covered pile cards are out of
        the view too, but were shown as they were placed)."""
        return [h for i, h in enumerate(self.hands) if i != seat] + [self.stock]
