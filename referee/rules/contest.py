"""The contest for suit bonuses before ordinary play (rules/orija.md, Phase 1), on sealed rounds (sealed.py).

After the deal every seat is asked at once whether it declares four simple quartets (kind `bid`, phase
`grand`). If nobody does, the suits are contested one at a time: a sealed buy round (`bid {value: 1|3|6}` or
`pass`, phase `buy`) of the seats that have not bought this deal, purchases served from Pirmasis while the
stock lasts, then a sealed show round (`meld {cards, identities}` or `pass`, kind `show`, phase `suit`). Answers
are only stored until the round is complete; then one event reveals them and the round is resolved: purchases,
or the award, the buyers' settlement and the failed buyers' discards (phase `settle`, asked in turn). Shown
jokers stay on the table until the four suits are settled. The variant then plays its draw-meld-discard phase.
"""

from collections import Counter
from functools import cache
from itertools import combinations
from typing import Any

from protocol.cards import JOKER, RANKS, SUITS
from protocol.messages import Bid, Decision, Discard, Meld, Op, Pass
from referee.rules.cards import rank, suit
from referee.rules.describe import Field, Phase
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.errors import IllegalAction
from referee.rules.sealed import Sealed

SIZES = (4, 8, 12, 16)  # simple, double, triple, quadruple quartet
BONUS = {4: 40, 8: 160, 12: 360, 16: 640}
FAILED_BONUS = {4: 20, 8: 80, 12: 180}  # won by a buyer who missed his target
TARGET = {1: 8, 3: 12, 6: 16}  # cards bought -> the showing they aim at
GRAND = 640
COMBOS = 3000  # subsets tried when the referee looks for the best showing of a size


def card_value(card: str) -> int:
    """Phase 1 card values: joker 15, ace 11, K/Q/J 10, 2-10 face value."""
    return 15 if card == JOKER else 11 if rank(card) == 1 else min(rank(card), 10)


def high(card: str) -> int:
    """The rank of a card with the ace high (2..14)."""
    return 14 if rank(card) == 1 else rank(card)


@cache
def _moves(runs: tuple[int, ...], c: int) -> tuple[tuple[tuple[int, ...], int], ...]:
    """From open runs of the lengths `runs` (3: three or more), a rank of `c` cards: every set of open runs after
    it, with the most cards the move adds to runs of 3+ (the open runs are extended, closed, or new ones started)."""
    out: dict[tuple[int, ...], int] = {}
    for k in range(min(c, len(runs)) + 1):
        for ext in set(combinations(runs, k)):
            gain = sum(3 if n == 2 else n >= 3 for n in ext)
            grown = [min(n + 1, 3) for n in ext]
            for fresh in range(c - k + 1):
                key = tuple(sorted(grown + [1] * fresh))
                out[key] = max(out.get(key, -1), gain)
    return tuple(out.items())


@cache
def run_cards(counts: tuple[int, ...]) -> int:
    """The most cards that disjoint runs of 3+ consecutive ranks can hold, given how many cards of each rank
    2..A there are (Ambiguity 6): the best of every way of extending, closing and starting runs rank by rank."""
    states: dict[tuple[int, ...], int] = {(): 0}
    for c in counts:
        new: dict[tuple[int, ...], int] = {}
        for runs, val in states.items():
            for key, gain in _moves(runs, c):
                if val + gain > new.get(key, -1):
                    new[key] = val + gain
        states = new
    return max(states.values())


def rank_counts(ids: list[str]) -> list[int]:
    """How many of `ids` there are of each rank, indexed by `high` (0..14; runs use 2..14)."""
    counts = [0] * 15
    for x in ids:
        counts[high(x)] += 1
    return counts


def showing_value(cards: list[str], ids: list[str]) -> int:
    """Turn structure, Phase 1: the card values plus 10 for each card in runs (jokers at their declared rank)."""
    return sum(map(card_value, cards)) + 10 * run_cards(tuple(rank_counts(ids)[2:]))


def check_showing(cards: list[str], ids: list[str], s: str) -> None:
    """Raise IllegalAction unless `cards` (standing as `ids`) are a quartet of suit `s` (of 4, 8, 12 or 16)."""
    if len(cards) not in SIZES:
        raise IllegalAction("show.size", f"a showing holds 4, 8, 12 or 16 cards, not {len(cards)}")
    if any(suit(x) != s for x in ids):
        raise IllegalAction("show.wrong-suit", f"every card of this showing must be a {s} (or a joker as one)")
    most = max(Counter(ids).values())
    if len(cards) == 4 and most > 1:
        raise IllegalAction("show.duplicate-in-quartet", "a simple quartet may not hold two identical cards")
    if most > 2:
        raise IllegalAction("show.identities", "no card can be shown more than twice (two packs)")


def joker_ids(naturals: list[str], jokers: int, s: str, size: int) -> list[str]:
    """Identities for `jokers` jokers joining `naturals` of suit `s`: one at a time where the value grows most
    (the cards in runs; a tie to the higher rank)."""
    ids = list(naturals)
    cap = 1 if size == 4 else 2
    counts = rank_counts(ids)
    for _ in range(jokers):
        best, best_key = "", (-1, -1)
        for x in [r + s for r in RANKS if ids.count(r + s) < cap]:
            h = high(x)
            counts[h] += 1
            key = (run_cards(tuple(counts[2:])), h)
            counts[h] -= 1
            if key > best_key:
                best, best_key = x, key
        ids.append(best)
        counts[best_key[1]] += 1
    return ids[len(naturals) :]


def can_show(pool: list[str], s: str, size: int) -> bool:
    """Whether `pool` holds a showing of `size` cards of suit `s` (a simple quartet: no identical cards)."""
    naturals = [c for c in pool if c != JOKER and suit(c) == s]
    return len(set(naturals) if size == 4 else naturals) + pool.count(JOKER) >= size


def best_showing(pool: list[str], s: str, size: int) -> Meld | None:
    """A showing of `size` cards of suit `s` from `pool` with the highest value the search finds (every joker
    first: it is worth more than any natural and can stand anywhere), or None if `pool` cannot form one."""
    if not can_show(pool, s, size):
        return None
    jokers = min(pool.count(JOKER), size)
    naturals = sorted(c for c in pool if c != JOKER and suit(c) == s)
    if size == 4:
        naturals = sorted(set(naturals))
    best: tuple[int, list[str], list[str]] | None = None
    seen: set[tuple[str, ...]] = set()
    for chosen in combinations(naturals, size - jokers):
        if chosen in seen:
            continue
        seen.add(chosen)
        ids = joker_ids(list(chosen), jokers, s, size)
        cards = list(chosen) + [JOKER] * jokers
        value = showing_value(cards, list(chosen) + ids)
        if best is None or value > best[0]:
            best = (value, cards, ids)
        if len(seen) >= COMBOS:
            break
    assert best is not None
    return Meld(best[1], best[2] or None)


class Contest(DrawMeldDiscard):
    """Phase 1 of orija before the draw-meld-discard play; `stage` says which step is asked."""

    family = "contest"

    _mutable = DrawMeldDiscard._mutable + ("bought", "table_jokers", "bonuses", "shows", "dues")
    PHASES = {
        ("bid", "grand"): Phase(
            "before the suits are contested: declare four simple quartets, one per suit, using your whole hand "
            "(a play of four `meld {cards, identities}` of 4 cards each; jokers with their identities), or `pass`. "
            "Sealed: nobody sees an answer before all are in",
            ("pass",),
        ),
        ("bid", "buy"): Phase(
            "the suit in `constraints.suit` is contested: buy 1, 3 or 6 cards for it (`bid {value}`; once per "
            "deal, refused if the stock is short, served from Pirmasis) or `pass`. Sealed",
            ("pass", "bid"),
        ),
        ("show", "suit"): Phase(
            "show 4, 8, 12 or 16 cards of the suit (`meld {cards, identities}`, jokers with their identities) or "
            "`pass`; a buyer must show his target if he can, else a smaller showing if he can. Sealed",
            ("meld", "pass"),
        ),
        ("discard", "settle"): Phase(
            "you missed the target you bought for: discard as many cards as you bought, one `discard` per play "
            "(constraints `discards_due` says how many are left)",
            ("discard",),
            rare=True,
        ),
    }
    CONSTRAINTS = {
        "grand_possible": Field("bool", "in the grand declaration: whether your hand makes four simple quartets"),
        "suit": Field("str", "the suit contested now (S, H, D or C)"),
        "target": Field("int", "the showing you bought for (8, 12 or 16; 0: you did not buy for this suit)"),
        "bought": Field("card[]", "your bought cards (face down, yours only); those of this suit and jokers count"),
        "usable": Field("card[]", "the cards you may show now: your hand's cards of the suit and jokers, and bought"),
        "must_show": Field("int[]", "the sizes you must show one of (empty: you may pass)"),
        "discards_due": Field("int", "how many cards you must still discard", rare=True),
    }
    VIEW = {
        "stage": Field("str", "the step of the deal: grand, buy, show, settle (phase 1) or play (phase 2)"),
        "suit": Field("str|null", "the suit contested in phase 1 (null: none)"),
        "bought": Field("card[]", "your bought cards, face down before you (not in your hand)"),
        "purchases": Field("object[]", "this deal's purchases as made public: {seat, suit, count}"),
        "table_jokers": Field("card[][]", "what each seat's jokers left on the table in phase 1 stand for"),
        "shows": Field("object[]", "the phase-1 showings revealed this deal: {suit, seat, cards, identities, value}"),
        "bonuses": Field("int[]", "each seat's bonuses this deal so far (phase 1 and open suits)"),
        "open_suits": Field("str[]", "suits whose bonus was not awarded: 20 to the first with 4 in sequences"),
    }

    # --- the deal ---------------------------------------------------------------------------------------------
    def start_deal(self) -> None:
        super().start_deal()
        n = self.n
        self.bought: list[list[str]] = [[] for _ in range(n)]
        self.buy_suit: tuple[str | None, ...] = (None,) * n  # the suit each seat bought for this deal
        self.buy_count: tuple[int, ...] = (0,) * n  # and how many cards
        self.table_jokers: list[list[str]] = [[] for _ in range(n)]  # identities of jokers left on the table
        self.bonuses = [0] * n
        self.shows: list[dict] = []
        self.purchases: tuple[dict, ...] = ()
        self.dues = [0] * n
        self.open_suits: tuple[str, ...] = ()
        self.suit: str | None = None
        self.stage = "grand"
        self.round: Sealed | None = Sealed("bid", "grand", tuple(self.order_from(self.turn)))

    def to_act(self) -> list[int]:
        if self.over:
            return []
        if self.stage == "settle":
            return [next(s for s in self.order_from(self.turn) if self.dues[s])]
        if self.round is not None:
            return self.round.waiting()
        return super().to_act()

    def usable(self, seat: int) -> list[str]:
        """What `seat` may show for the contested suit: hand cards of it, hand jokers, bought ones of it."""
        bought = [c for c in self.bought[seat] if c == JOKER or suit(c) == self.suit]
        return sorted(c for c in self.hands[seat] + bought if c == JOKER or suit(c) == self.suit)

    def target(self, seat: int) -> int:
        """The showing `seat` bought for in the contested suit (0: none)."""
        return TARGET[self.buy_count[seat]] if self.buy_suit[seat] == self.suit else 0

    def must_show(self, seat: int) -> list[int]:
        """The sizes `seat` must show one of: the target if he can form it, else any smaller he can form."""
        aim = self.target(seat)
        if not aim:
            return []
        pool, s = self.usable(seat), self.suit or ""
        return [aim] if can_show(pool, s, aim) else [k for k in SIZES if k < aim and can_show(pool, s, k)]

    def grand_possible(self, seat: int) -> bool:
        """Step 0: the whole hand splits into four simple quartets, one per suit."""
        hand = [c for c in self.hands[seat] if c != JOKER]
        return len(self.hands[seat]) == 16 and all(
            len(set(s_cards)) == len(s_cards) <= 4 for s_cards in ([c for c in hand if suit(c) == s] for s in SUITS)
        )

    def contest_decision(self, seat: int) -> Decision:
        """The decision of a phase-1 step."""
        if self.stage == "grand":
            return Decision("bid", "grand", [Pass()], {"grand_possible": self.grand_possible(seat)})
        if self.stage == "settle":
            options: list[Op] = [Discard(c) for c in sorted(set(self.hands[seat]))]
            return Decision("discard", "settle", options, {"discards_due": self.dues[seat]})
        cons = {"suit": self.suit, "target": self.target(seat), "bought": sorted(self.bought[seat])}
        if self.stage == "buy":
            return Decision("bid", "buy", [Pass(), Bid(1), Bid(3), Bid(6)], cons)
        must = self.must_show(seat)
        pool = self.usable(seat)
        shows = [m for k in (must or SIZES) if (m := best_showing(pool, self.suit or "", k))]
        answers: list[Op] = [] if must else [Pass()]
        answers += shows
        return Decision("show", "suit", answers, {**cons, "usable": pool, "must_show": must})

    def contest_view(self, seat: int) -> dict[str, Any]:
        """The phase-1 fields of the view."""
        return {
            "stage": self.stage,
            "suit": self.suit,
            "bought": sorted(self.bought[seat]),
            "purchases": list(self.purchases),
            "table_jokers": [list(j) for j in self.table_jokers],
            "shows": list(self.shows),
            "bonuses": list(self.bonuses),
            "open_suits": list(self.open_suits),
        }

    def contest_fallback(self, seat: int) -> list[Op]:
        """Pass where that is legal, else the first legal showing; a settlement discards the highest card."""
        if self.stage == "settle":
            return [Discard(max(self.hands[seat], key=lambda c: (card_value(c), c)))]
        return [self.contest_decision(seat).options[0]]  # type: ignore[index]

    # --- answers ----------------------------------------------------------------------------------------------
    def contest_apply(self, seat: int, ops: list[Op]) -> None:
        """Check one phase-1 answer and store it (a settlement discard is applied at once)."""
        if self.stage == "settle":
            return self.settle_discards(seat, ops)
        assert self.round is not None
        if self.stage == "grand":
            self.check_grand(seat, ops)
        elif len(ops) != 1:
            raise IllegalAction("play.one-answer", "answer with one operation")
        elif self.stage == "buy":
            if not isinstance(ops[0], (Bid, Pass)):
                raise IllegalAction("buy.answer", "answer `bid {value: 1|3|6}` or `pass`")
            if isinstance(ops[0], Bid) and ops[0].value not in TARGET:
                raise IllegalAction("buy.size", "buy exactly 1, 3 or 6 cards")
        else:
            self.check_show(seat, ops[0])
        self.round = self.round.add(seat, ops)
        if self.round.complete:
            self.resolve()

    def check_grand(self, seat: int, ops: list[Op]) -> None:
        """Step 0: `pass`, or four melds of four cards, one per suit, no identical cards, the whole hand."""
        if len(ops) == 1 and isinstance(ops[0], Pass):
            return
        melds = [op for op in ops if isinstance(op, Meld)]
        cards = [c for m in melds for c in m.cards]
        if len(melds) != 4 or len(ops) != 4 or Counter(cards) != Counter(self.hands[seat]):
            raise IllegalAction("grand.not-four-quartets", "declare four melds of 4 cards using your whole hand")
        suits = set()
        for m in melds:
            ids = self.show_ids(m)
            if len(m.cards) != 4:
                raise IllegalAction("grand.not-four-quartets", "each quartet holds exactly 4 cards")
            check_showing(m.cards, ids, suit(ids[0]))
            suits.add(suit(ids[0]))
        if len(suits) != 4:
            raise IllegalAction("grand.one-per-suit", "the four quartets must be of the four suits")

    def show_ids(self, meld: Meld) -> list[str]:
        """The identities of a showing's cards; jokers need one each, of a card (no joker)."""
        jokers = meld.cards.count(JOKER)
        given = meld.identities or []
        if len(given) != jokers or JOKER in given:
            raise IllegalAction("show.identities", f"name the card each of the {jokers} joker(s) stands for")
        it = iter(given)
        return [next(it) if c == JOKER else c for c in meld.cards]

    def check_show(self, seat: int, op: Op) -> None:
        """Step 2: a legal showing of the contested suit, or a legal pass."""
        must = self.must_show(seat)
        if isinstance(op, Pass):
            if must:
                raise IllegalAction(self.must_rule(seat), f"you must show {' or '.join(map(str, must))} cards")
            return
        if not isinstance(op, Meld):
            raise IllegalAction("show.answer", "answer `meld {cards, identities}` or `pass`")
        ids = self.show_ids(op)
        check_showing(op.cards, ids, self.suit or "")
        left = Counter(self.usable(seat))
        left.subtract(op.cards)
        if min(left.values(), default=0) < 0:  # jokers left on the table by an earlier suit are not held
            raise IllegalAction("hand.missing-card", "you do not hold every card of that showing")
        if must and len(op.cards) not in must:
            raise IllegalAction(self.must_rule(seat), f"you must show {' or '.join(map(str, must))} cards")

    def must_rule(self, seat: int) -> str:
        return "show.must-show-target" if self.must_show(seat) == [self.target(seat)] else "show.must-show-smaller"

    # --- resolution -------------------------------------------------------------------------------------------
    def resolve(self) -> None:
        """Every answer of the round is in: reveal and resolve it, then ask the next step."""
        assert self.round is not None
        answers = {s: self.round.answer(s) for s in self.round.seats}
        self.round = None
        {"grand": self.resolve_grand, "buy": self.resolve_buys, "show": self.resolve_shows}[self.stage](answers)

    def resolve_grand(self, answers: dict[int, list[Op]]) -> None:
        declared = [s for s, ops in answers.items() if not isinstance(ops[0], Pass)]
        each = GRAND // len(declared) if declared else 0
        shown = []
        for s in declared:
            self.bonuses[s] += each
            melds = [m for m in answers[s] if isinstance(m, Meld)]
            shown.append(
                {"seat": s, "quartets": [m.cards for m in melds], "identities": [self.show_ids(m) for m in melds]}
            )
        self.emit({"type": "grand", "declared": shown, "bonus": each})
        if declared:  # Ambiguity 8: no suit contests, no open-suit bonuses
            return self.start_play()
        self.open_suits = tuple(SUITS)
        self.next_suit()

    def next_suit(self) -> None:
        """Contest the next suit (♠ ♥ ♦ ♣), or begin play once all four are settled."""
        done = SUITS.index(self.suit) + 1 if self.suit else 0
        if done == len(SUITS):
            return self.start_play()
        self.suit = SUITS[done]
        buyers = tuple(s for s in self.order_from(self.turn) if self.buy_suit[s] is None)
        self.emit({"type": "contest", "suit": self.suit, "buyers": list(buyers)})
        if buyers:
            self.stage, self.round = "buy", Sealed("bid", "buy", buyers)
        else:
            self.ask_shows()

    def ask_shows(self) -> None:
        self.stage, self.round = "show", Sealed("show", "suit", tuple(self.order_from(self.turn)))

    def resolve_buys(self, answers: dict[int, list[Op]]) -> None:
        """Purchases in turn order from Pirmasis; a purchase the stock cannot pay is refused (Ambiguity 25)."""
        made: list[dict[str, Any]] = []
        for s in self.order_from(self.turn):
            op = answers.get(s, [Pass()])[0]
            if isinstance(op, Bid):
                k = int(op.value)
                refused = len(self.stock) < k
                made.append({"seat": s, "suit": self.suit, "count": k, "refused": refused})
                if not refused:
                    self.bought[s] = [self.stock.pop() for _ in range(k)]
                    self.buy_suit = tuple(self.suit if i == s else b for i, b in enumerate(self.buy_suit))
                    self.buy_count = tuple(k if i == s else b for i, b in enumerate(self.buy_count))
        self.purchases = self.purchases + tuple(m for m in made if not m["refused"])
        self.emit({"type": "buys", "suit": self.suit, "buys": made, "stock": len(self.stock)})
        for m in made:
            if not m["refused"]:
                self.emit(
                    {"type": "bought", "seat": m["seat"], "count": m["count"]}, m["seat"], cards=self.bought[m["seat"]]
                )
        self.ask_shows()

    def resolve_shows(self, answers: dict[int, list[Op]]) -> None:
        """Award the suit (ties split), return shown naturals, keep shown jokers out, settle the purchases."""
        shown: list[dict[str, Any]] = []
        for s in self.order_from(self.turn):
            op = answers[s][0]
            if isinstance(op, Meld):
                ids = self.show_ids(op)
                shown.append(
                    {
                        "suit": self.suit,
                        "seat": s,
                        "cards": op.cards,
                        "identities": ids,
                        "value": showing_value(op.cards, ids),
                    }
                )
        best = max((x["value"] for x in shown), default=None)
        tied = [x for x in shown if x["value"] == best]
        awards = []
        for x in tied:
            s, size = x["seat"], len(x["cards"])
            failed = self.target(s) and size != self.target(s)
            bonus = (FAILED_BONUS if failed else BONUS)[size] // len(tied)
            awards.append({"seat": s, "bonus": bonus})
            self.bonuses[s] += bonus
        if tied:
            self.open_suits = tuple(x for x in self.open_suits if x != self.suit)
        self.shows = self.shows + shown
        self.emit({"type": "shows", "suit": self.suit, "shows": shown, "awards": awards})
        for x in shown:  # naturals go back to the hand, jokers stay on the table (Take back)
            s = x["seat"]
            for c, ident in zip(x["cards"], x["identities"]):
                if c == JOKER:
                    (self.bought[s] if JOKER in self.bought[s] else self.hands[s]).remove(JOKER)
                    self.table_jokers[s].append(ident)
        for s in range(self.n):
            aim = self.target(s)
            if aim:
                ok = any(x["seat"] == s and len(x["cards"]) == aim for x in shown)
                self.dues[s] = 0 if ok else self.buy_count[s]  # as many as he bought, whatever he showed
                self.hands[s] += self.bought[s]
                self.bought[s] = []
                self.emit({"type": "settle", "seat": s, "target": aim, "made": ok, "discards": self.dues[s]})
        self.end_settle()

    def end_settle(self) -> None:
        if any(self.dues):
            self.stage = "settle"
        else:
            self.next_suit()

    def settle_discards(self, seat: int, ops: list[Op]) -> None:
        """Step 4: a failed buyer discards, face up, as many cards as he bought, one card per play (he is asked
        again while he owes more)."""
        op = ops[0]
        if len(ops) != 1 or not isinstance(op, Discard):
            raise IllegalAction("settle.discard", "discard one of the cards you owe (`discard {card}`) per play")
        if op.card not in self.hands[seat]:
            raise IllegalAction("hand.missing-card", f"{op.card} is not in your hand")
        self.hands[seat].remove(op.card)
        self.piles[0].append(op.card)
        self.dues[seat] -= 1
        self.emit({"type": "discard", "seat": seat, "card": op.card})
        if not any(self.dues):
            self.next_suit()

    def start_play(self) -> None:
        """Take back: the jokers left on the table return to their owners; phase 2 begins (the variant's)."""
        for s in range(self.n):
            self.hands[s] += [JOKER] * len(self.table_jokers[s])
            self.table_jokers[s] = []
        self.stage, self.suit = "play", None
        self.emit({"type": "play", "stock": len(self.stock)})
        self.begin_play()

    def begin_play(self) -> None:
        """Hook: phase 2 starts (the variant sets its turn state)."""
