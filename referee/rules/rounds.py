"""Simultaneous sealed rounds with no turns (elimination: rules/elimination.md).

Each round every active seat is asked at once (one `Sealed` round, referee/rules/sealed.py) to turn up cards
(`meld {cards}`) or to say it cannot (`pass`). Nothing is revealed before every answer is in. If someone showed,
the seats that could not are asked, sealed again, whether they take an auxiliary card (`claim`) or decline
(`pass`: eliminated); after a take they must show if they now can. Then all shows are revealed together. If
nobody showed, every active seat gets one more card and the round is repeated.

The family supplies the round machinery: dealing, the sealed steps, handing out cards (with the stock rebuilt
from the eliminated seats' cards and the hands re-dealt once all cards are in use, each a keyed chance step:
docs/architecture.md, section 6), the reveal, the view. The variant supplies what a legal show is
(`legal_shows`, `check_show`), the refills and the scores (`refill`, `winner_score`).
"""

import random
from typing import Any

from protocol.messages import Bid, Claim, Decision, Meld, Op, Pass
from referee.rules.cards import shuffled
from referee.rules.describe import Field, Phase
from referee.rules.engine import Game, Option, derive_seed
from referee.rules.errors import IllegalAction
from referee.rules.sealed import Sealed

COUNTS = ("hand_sizes", "reserved_counts", "auxiliary_counts")  # public card counts, as of the last reveal
RESIGN = "resign"  # the fallback's answer: a faulted seat is treated as "cannot" (rules/elimination.md, Amb. 15)


class Rounds(Game):
    """Deals played as simultaneous sealed rounds; the last active seat wins the deal."""

    family = "rounds"
    low_wins = False
    hand_size = 5
    aux_size = 2
    OPTIONS = {
        "max_turns_per_deal": Option(1000, help="safety cap: a deal that reaches this many rounds ends as a stalemate"),
        "max_redeals": Option(10, help="safety cap: a deal that needs more re-deals of hand cards than this ends"),
    }
    PHASES = {
        ("show", "round"): Phase(
            "a round: turn up cards that meet the round's requirement (constraints), `meld {cards}` (with "
            '`kind: "new-group"` the first card is turned up and the rest are reserved face down), or `pass` '
            '("cannot": legal only when no legal show exists). Answers are sealed: nobody sees yours before all '
            "are in",
            ("meld", "pass"),
        ),
        ("show", "auxiliary"): Phase(
            "you could not show and someone can: take one of your auxiliary cards into your hand (`claim`) or "
            "decline (`pass`: you are eliminated from the deal). Sealed like the round",
            ("claim", "pass"),
            rare=True,
        ),
        ("show", "after-auxiliary"): Phase(
            "you took an auxiliary card and can now show: `meld {cards}` as in the round (a show is compulsory)",
            ("meld",),
            rare=True,
        ),
    }
    VIEW = {
        "phase": Field("str", "the phase of that turn (the decision's phase)"),
        "round": Field("int", "the round number of the deal (it stays while a round is repeated)"),
        "reserved": Field("card[]", "your reserved cards (face down on the table; only you know them)"),
        "auxiliary": Field("int", "how many auxiliary cards you still have (nobody knows them, you neither)"),
        "auxiliary_taken": Field(
            "card[]", "the auxiliary cards you took in this round's auxiliary step (not public yet)"
        ),
        "face_up": Field("card[][]", "every seat's face-up cards, in the order they were turned up"),
        "hand_sizes": Field("int[]", "every seat's hand size, as of the last reveal"),
        "reserved_counts": Field("int[]", "every seat's reserved card count, as of the last reveal"),
        "auxiliary_counts": Field("int[]", "every seat's unused auxiliary cards, as of the last reveal"),
        "eliminated": Field("int[]", "the seats eliminated from this deal, in the order they went out"),
        "set_aside": Field("int", "the eliminated seats' cards, face down (they rebuild an empty stock)"),
        "bonus": Field(
            "int",
            "the bonus multiplier B of this deal's winner (1, and 1 more per deal just before "
            "that ended with everything turned up)",
        ),
    }
    _mutable = ("hands", "aux", "reserved", "up", "stock", "dead", "deal_scores")

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        self.bonus = 1  # rules/elimination.md, Scoring: B
        self.resigned: tuple[int, ...] = ()  # seats whose fallback answers "cannot" for the rest of the match
        super().__init__(players, options, seed)

    # --- hooks of the variant -------------------------------------------------------------------------------
    def make_deck(self) -> list[str]:
        """The deck of a deal."""
        raise NotImplementedError

    def legal_shows(self, seat: int) -> list[Meld]:
        """Every legal show of `seat` now (a representative set where there are very many)."""
        raise NotImplementedError

    def check_show(self, seat: int, meld: Meld) -> tuple[list[str], list[str]]:
        """The cards a show turns up and those it reserves; raises IllegalAction naming the rule broken."""
        raise NotImplementedError

    def requirement(self, seat: int) -> dict[str, Any]:
        """The round's requirement for `seat` (the decision's constraints)."""
        raise NotImplementedError

    def refill(self, round_no: int) -> int:
        """How many cards each active seat gets after round `round_no` is revealed."""
        return 0

    def winner_score(self, seat: int) -> int:
        """The deal's winner's score."""
        raise NotImplementedError

    def lay_down(self, seat: int) -> list[str]:
        """The winner's final lay-down: the cards it turns up (already moved); none by default."""
        return []

    # --- the deal ---------------------------------------------------------------------------------------------
    def start_deal(self) -> None:
        n = self.n
        deck = shuffled(self.make_deck(), self.deal_rng())
        order = [(self.dealer + 1 + i) % n for i in range(n)]  # one at a time, from the dealer's left
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.aux: list[list[str]] = [[] for _ in range(n)]
        for zone, size in ((self.hands, self.hand_size), (self.aux, self.aux_size)):
            for _ in range(size):
                for s in order:
                    zone[s].append(deck.pop())
        self.stock: list[str] = deck
        self.reserved: list[list[str]] = [[] for _ in range(n)]
        self.up: list[list[str]] = [[] for _ in range(n)]
        self.dead: list[str] = []
        self.deal_scores: list[int] = [0] * n
        self.active: tuple[int, ...] = tuple(range(n))
        self.out: tuple[int, ...] = ()
        self.round_no, self.rounds_played, self.rebuilds, self.redeals = 1, 0, 0, 0
        self.sealed: Sealed | None = None
        self.publish()
        self.start_round()

    def publish(self) -> None:
        """Make the current card counts public (they stay as they are while a round is sealed)."""
        self.counts = tuple((len(self.hands[s]), len(self.reserved[s]), len(self.aux[s])) for s in range(self.n))

    def start_round(self) -> None:
        """Ask every active seat at once, or end the deal at the round cap."""
        if self.rounds_played and self.rounds_played >= self.opts["max_turns_per_deal"]:  # one round at least
            self.no_winner("max_turns_per_deal", 1)
            return
        asked = tuple(s for s in self.active if s not in self.resigned)
        if not asked:  # every seat left has resigned: nobody can ever show
            self.no_winner("resigned", 1)
            return
        self.rounds_played += 1
        self.shows: tuple[tuple[int, tuple[str, ...], tuple[str, ...]], ...] = ()
        self.falling: tuple[int, ...] = ()  # seats to eliminate at the reveal
        self.pending: tuple[int, ...] = ()  # seats that took an auxiliary card and still cannot show
        self.taken: tuple[tuple[str, ...], ...] = ((),) * self.n
        self.sealed = Sealed("show", "round", asked)
        self.emit({"type": "round", "round": self.round_no, "seats": list(asked)})

    # --- the interface ----------------------------------------------------------------------------------------
    def to_act(self) -> list[int]:
        if self.over or self.sealed is None:
            return []
        return self.sealed.waiting()

    def decision(self, seat: int) -> Decision:
        assert self.sealed is not None
        phase = self.sealed.phase
        if phase == "auxiliary":
            options: list[Op] = [Claim(), Pass()]
        else:
            shows: list[Op] = list(self.legal_shows(seat))
            options = shows or [Pass()]
        return Decision("show", phase, options, self.requirement(seat))

    def fallback(self, seat: int) -> list[Op]:
        """A faulted seat is treated as "cannot" from now on (rules/elimination.md, Ambiguities 15 and 17)."""
        return [Bid(RESIGN)]

    def view(self, seat: int) -> dict[str, Any]:
        return {
            **self.view_head(seat),
            "phase": self.phase_of(seat),
            "hand": sorted(self.hands[seat]),
            "stock": len(self.stock),
            "scores": list(self.totals),
            "round": self.round_no,
            "reserved": sorted(self.reserved[seat]),
            "auxiliary": len(self.aux[seat]),
            "auxiliary_taken": list(self.taken[seat]),
            "face_up": [list(u) for u in self.up],
            **{k: [c[i] for c in self.counts] for i, k in enumerate(COUNTS)},
            "eliminated": list(self.out),
            "set_aside": len(self.dead),
            "bonus": self.bonus,
        }

    def phase_of(self, seat: int) -> str:
        """The phase `seat` is asked in; "round" for a seat not asked now (it must not learn that others are in
        the auxiliary step: rules/elimination.md, Ambiguity 18)."""
        if self.sealed is not None and seat in self.sealed.seats:
            return self.sealed.phase
        return "round"

    def cards_in_play(self) -> list[str]:
        """Every card of the current deal, wherever it lies."""
        zones = [*self.hands, *self.aux, *self.reserved, *self.up, self.stock, self.dead]
        return [c for z in zones for c in z]

    def hidden_zones(self, seat: int) -> list[list[str]]:
        """The card lists `seat` must not see: other hands and reserves, every auxiliary card (its own too:
        rules/elimination.md, Ambiguity 1), the stock and the set-aside cards."""
        others = [z for zones in (self.hands, self.reserved) for i, z in enumerate(zones) if i != seat]
        return [*others, *self.aux, self.stock, self.dead]

    # --- answers ------------------------------------------------------------------------------------------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        assert self.sealed is not None
        if len(ops) == 1 and isinstance(ops[0], Bid) and ops[0].value == RESIGN:
            self.resigned = (*self.resigned, seat)
            ops = [Pass()]
        elif self.sealed.phase == "auxiliary":
            self.check_auxiliary(seat, ops)
        else:
            self.check_answer(seat, ops)
        self.sealed = self.sealed.add(seat, ops)
        if self.sealed.complete:
            self.resolve(self.sealed)

    def check_auxiliary(self, seat: int, ops: list[Op]) -> None:
        """An auxiliary-step answer is one `claim` or one `pass`."""
        if len(ops) != 1 or not isinstance(ops[0], Claim | Pass):
            raise IllegalAction("auxiliary.answer", "take an auxiliary card (`claim`) or decline (`pass`)")

    def check_answer(self, seat: int, ops: list[Op]) -> None:
        """A show answer is one legal `meld`, or one `pass` when no legal show exists (rules/elimination.md,
        Ambiguity 17)."""
        if len(ops) != 1 or not isinstance(ops[0], Meld | Pass):
            raise IllegalAction("show.answer", "answer with one `meld` (your show) or one `pass` (cannot)")
        op = ops[0]
        if isinstance(op, Meld):
            self.check_show(seat, op)
        elif self.legal_shows(seat):
            raise IllegalAction("show.cannot", "you can show, so you must: `pass` is only for when you cannot")

    # --- resolution -----------------------------------------------------------------------------------------------
    def resolve(self, done: Sealed) -> None:
        """Every answer of a sealed step is in: go on to the next step, or reveal."""
        self.sealed = None
        showing = [s for s in done.seats if isinstance(done.answer(s)[0], Meld)]
        cannot = [s for s in done.seats if s not in showing]
        if done.phase == "round" and not showing:
            self.nobody_shows()
            return
        for s in showing:
            meld = done.answer(s)[0]
            assert isinstance(meld, Meld)
            up, kept = self.check_show(s, meld)
            self.shows = (*self.shows, (s, tuple(up), tuple(kept)))
        if done.phase == "round":
            self.falling = tuple(s for s in self.active if s in self.resigned)
        if done.phase == "auxiliary":
            self.take_auxiliary(done, [s for s in done.seats if not isinstance(done.answer(s)[0], Claim)])
        else:
            self.next_auxiliary(cannot)

    def take_auxiliary(self, done: Sealed, declined: list[int]) -> None:
        """Those who took an auxiliary card must show if they now can; those who declined are out."""
        takers = [s for s in done.seats if s not in declined]
        for s in takers:
            card = self.aux[s].pop()
            self.hands[s].append(card)
            self.taken = tuple((*t, card) if i == s else t for i, t in enumerate(self.taken))
        self.falling = (*self.falling, *declined)
        again = tuple(s for s in takers if self.legal_shows(s))
        self.pending = (*self.pending, *(s for s in takers if s not in again))
        if again:
            self.sealed = Sealed("show", "after-auxiliary", again)
        else:
            self.next_auxiliary([])

    def next_auxiliary(self, cannot: list[int]) -> None:
        """Ask the seats that cannot show and still have an auxiliary card; the rest are out; or reveal."""
        cannot = [s for s in (*self.pending, *cannot) if s not in self.falling]
        self.pending = ()
        asked = tuple(s for s in cannot if self.aux[s] and s not in self.resigned)
        self.falling = (*self.falling, *(s for s in cannot if s not in asked))
        if asked:
            self.sealed = Sealed("show", "auxiliary", asked)
        else:
            self.reveal()

    def nobody_shows(self) -> None:
        """Every active seat gets one more card (an auxiliary card where it has one, else a stock card), and the
        round is repeated (rules/elimination.md, Turn structure, step 3)."""
        self.emit({"type": "no_show", "round": self.round_no})
        deal = self.deal_no
        for s in self.order():
            if self.aux[s]:
                card = self.aux[s].pop()
                self.hands[s].append(card)
                self.emit({"type": "draw", "seat": s, "source": "auxiliary", "count": 1}, s, cards=[card])
            elif not self.give(s):
                break
        if self.deal_no == deal and not self.over:
            self.publish()
            self.start_round()

    def reveal(self) -> None:
        """All shows turned up together; eliminations scored; then the deal's end, or the refill and the next
        round."""
        for s, up, kept in self.shows:
            for c in (*up, *kept):
                (self.hands[s] if c in self.hands[s] else self.reserved[s]).remove(c)
            self.up[s] += up
            self.reserved[s] += kept
        for s in self.falling:
            self.eliminate(s)
        self.emit(
            {
                "type": "shows",
                "round": self.round_no,
                "shows": [{"seat": s, "cards": list(up), "reserved": len(kept)} for s, up, kept in self.shows],
                "auxiliary_taken": [len(t) for t in self.taken],
                "eliminated": list(self.falling),
            }
        )
        self.taken = ((),) * self.n
        self.publish()
        if len(self.active) == 1:
            self.win(self.active[0])
        elif sum(len(self.up[s]) for s in self.active) == len(self.make_deck()):
            self.no_winner("everything-up", self.bonus + 1)
        else:
            self.after_round()

    def after_round(self) -> None:
        """The refill after rounds 1 and 2, then the next round."""
        deal, seats = self.deal_no, self.order()
        all(self.give(s) for _ in range(self.refill(self.round_no)) for s in seats)  # stops at a re-deal
        if self.deal_no == deal and not self.over:
            self.round_no += 1
            self.publish()
            self.start_round()

    def eliminate(self, seat: int) -> None:
        """`seat` scores its face-up cards and its cards are set aside face down (rules/elimination.md, step 2)."""
        self.deal_scores[seat] = len(self.up[seat])
        for zone in (self.hands, self.aux, self.reserved, self.up):
            self.dead += zone[seat]
            zone[seat] = []
        self.active = tuple(s for s in self.active if s != seat)
        self.out = (*self.out, seat)

    def order(self) -> list[int]:
        """The active seats from the dealer's left."""
        return [s for s in ((self.dealer + 1 + i) % self.n for i in range(self.n)) if s in self.active]

    # --- handing out cards ----------------------------------------------------------------------------------------
    def give(self, seat: int) -> bool:
        """A stock card to `seat`, rebuilding an empty stock from the eliminated seats' cards; False when it
        cannot be given: the hands are re-dealt instead, or the deal ended at `max_redeals`."""
        if not self.stock and not self.rebuild():
            self.redeal()
            return False
        card = self.stock.pop()
        self.hands[seat].append(card)
        self.emit({"type": "draw", "seat": seat, "source": "stock", "count": 1}, seat, cards=[card])
        return True

    def chance(self, step: str, k: int) -> random.Random:
        """The generator of one chance step of the deal, keyed by its identity (docs/architecture.md, 6)."""
        return random.Random(derive_seed(self.seed, "deal", self.deal_no, step, k))

    def rebuild(self) -> bool:
        """The eliminated seats' cards, shuffled, become the stock (rules/elimination.md, Ambiguity 9)."""
        if not self.dead:
            return False
        self.stock = shuffled(self.dead, self.chance("rebuild", self.rebuilds))
        self.dead = []
        self.rebuilds += 1
        self.emit({"type": "rebuild", "stock": len(self.stock)})
        return True

    def redeal(self) -> None:
        """All 52 cards are in use: the active hands are shuffled and dealt out again equally, the remainder to
        the stock, and the round goes on (Ambiguity 10); past `max_redeals` the deal ends instead (Ambiguity 12)."""
        if self.redeals >= self.opts["max_redeals"]:
            self.no_winner("max_redeals", 1)
            return
        pool = shuffled([c for s in self.active for c in self.hands[s]], self.chance("redeal", self.redeals))
        self.redeals += 1
        seats = self.order()
        each = len(pool) // len(seats)
        for s in seats:
            self.hands[s] = [pool.pop() for _ in range(each)]
        self.stock = pool
        self.emit({"type": "redeal", "each": each, "stock": len(pool)})
        for s in seats:
            self.emit({"type": "redeal_hand", "seat": s}, s, hand=list(self.hands[s]))

    # --- the end of a deal ----------------------------------------------------------------------------------------
    def win(self, seat: int) -> None:
        """The last active seat lays down what it can, scores, and the bonus multiplier resets."""
        laid = self.lay_down(seat)
        if laid:
            self.emit({"type": "lay_down", "seat": seat, "cards": laid})
        self.deal_scores[seat] = self.winner_score(seat)
        self.bonus = 1
        self.close_deal(seat, "winner")

    def no_winner(self, end: str, bonus: int) -> None:
        """A deal without a winner: each active seat scores its face-up cards; `bonus` is the next deal's B (one
        more after everything turned up; 1 after a safety cap, Ambiguities 11, 12 and 16)."""
        for s in self.active:
            self.deal_scores[s] = len(self.up[s])
        self.bonus = bonus
        self.close_deal(None, end)

    def match_ended(self) -> bool:
        return len(set(self.resigned)) == self.n  # every seat has resigned: nobody will ever show again

    def close_deal(self, winner: int | None, end: str) -> None:
        """Record the deal and start the next one (or end the match)."""
        self.sealed = None
        face_up = [list(u) for u in self.up]
        self.finish_deal(list(self.deal_scores), winner, end=end, face_up=face_up, eliminated_order=list(self.out))
