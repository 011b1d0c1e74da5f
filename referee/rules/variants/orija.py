"""Orija Rummy (Orijos romis): rules/orija.md. Phase 1 is the contest for suit bonuses (referee/rules/contest.py);
phase 2 builds same-suit sequences only, drawing again while each drawn card is used at once, with jokers put into
and taken out of anyone's sequences, until nobody can act after the stock is gone."""

import random
from collections import Counter
from typing import Any

from protocol.cards import JOKER, SUITS
from protocol.messages import Decision, Discard, Draw, Exchange, LayOff, Meld, Op, Pass, Rearrange
from referee.rules.cards import deck, suit
from referee.rules.contest import Contest, best_showing, showing_value
from referee.rules.describe import Field, Phase
from referee.rules.engine import Option, derive_seed
from referee.rules.errors import ConfigError, IllegalAction
from referee.rules.melds import MeldRules, TableMeld, emptied, join, put_wild
from referee.rules.solver import best_split

DEFAULT_POINTS = "30,40,50,60,70,80,90,100,110,120,130;15,20,25,30,35,40,45,50,55,60,65"  # Ambiguity 1
COMPLETE = {2: 200, 3: 500, 4: 1000}  # own 13-card sequences (Scoring; Ambiguity 17)


def sequence_table(text: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The `sequence_points` option: 11 pure then 11 impure values for lengths 3..13 ("p3,...,p13;i3,...,i13"),
    or two per-card values ("pure,impure"). ConfigError for anything else."""
    try:
        parts = [[int(x) for x in p.split(",")] for p in text.replace(" ", "").split(";")]
    except ValueError:
        parts = []
    if len(parts) == 1 and len(parts[0]) == 2:
        pure, impure = parts[0]
        return tuple(pure * n for n in range(3, 14)), tuple(impure * n for n in range(3, 14))
    if len(parts) != 2 or any(len(p) != 11 for p in parts):
        raise ConfigError(
            f"option sequence_points: {text!r} is not 11 pure and 11 impure values for lengths 3..13 "
            '("30,40,...,130;15,20,...,65") or two per-card values ("10,5")'
        )
    return tuple(parts[0]), tuple(parts[1])


def deal_score(hand: list[str], runs: list[TableMeld], table: tuple[tuple[int, ...], ...]) -> dict[str, int]:
    """The end-of-deal score of a seat holding `hand` with its own sequences `runs` (Scoring; Ambiguities 15-17)."""
    seq = sum(table[m.cards != m.ids][len(m.cards) - 3] for m in runs)  # pure first
    complete = COMPLETE.get(min(sum(len(m.cards) == 13 for m in runs), 4), 0)
    suits = 0
    for s in SUITS:
        mine = [m for m in runs if suit(m.ids[0]) == s]
        in_hand = sum(suit(c) == s for c in hand)
        naturals = in_hand + sum(c != JOKER and suit(c) == s for m in mine for c in m.cards)
        if not naturals:
            suits -= 300
        elif not mine:
            suits -= 100 if in_hand >= 4 else 200
        elif in_hand + sum(len(m.cards) for m in mine) == 3:
            suits -= 50
    melded = Counter(c for m in runs for c in m.cards)
    held = Counter(c for c in hand if c != JOKER)
    pairs = sum(1 for c, k in held.items() if k + melded[c] >= 2)
    parts = {"sequences": seq, "complete": complete, "unused": -10 * len(hand), "suits": suits, "pairs": -200 * pairs}
    return {**parts, "total": sum(parts.values())}


class Orija(Contest):
    """Orijos romis: 16 cards dealt in twos, a contest for suit bonuses, then same-suit sequences only."""

    slug = "orija"
    name = "Orija Rummy"
    local_name = "Orijos romis"
    low_wins = False
    hand_size = 16
    packet = 2
    starter = False
    rebuild_stock = False
    predraw_plays = False
    unused_options = frozenset({"allow_rediscard"})  # Ambiguity 22: a pile card is used at once, never discarded
    OPTIONS = {
        "jokers": Option(4, (4, 6), "jokers in the deck"),
        "max_jokers_per_sequence": Option(1, (1, 2, 3, 4, 5, 6), "the most jokers in one sequence (Ambiguity 2)"),
        "sequence_points": Option(DEFAULT_POINTS, help="points per sequence length 3..13: pure values;impure values"),
        "target": Option(3000, help="the match ends after a deal in which the highest total reaches this alone"),
        "max_actions_per_turn": Option(200, help="safety cap: table actions in one turn"),
    }
    PHASES = {
        ("turn", "draw"): Phase(
            "the start of your turn: draw the top stock card (the play ends there), or take the top discard "
            "(`draw {source: discard}`) in one play with the table actions that place it",
            ("draw",),
        ),
        ("turn", "play"): Phase(
            "after a draw: meld sequences, lay off on your own, join your own (`rearrange`), exchange jokers, put a "
            "joker in place of a natural (`layoff` of JK as a card the sequence holds); draw again when the card "
            "drawn was placed in this play (constraints `draw_again`), then discard; `pass` with an empty hand",
            ("discard", "draw", "pass"),
        ),
        ("turn", "after-stock"): Phase(
            "the stock is gone: take discards that you place at once and make table actions, then `pass`",
            ("pass",),
        ),
    }
    CONSTRAINTS = {
        "initial_meld": None,
        "opened": None,
        "drawn": Field("card|null", "the stock card you just drew: placed in this play, it lets you draw again"),
        "draw_again": Field("bool", "whether you may draw again now (the card drawn before was used at once)"),
        "layoff_melds": Field("int[]", "your own sequences: the only ones you may add cards to or join"),
        "actions_left": Field("int", "table actions left this turn (max_actions_per_turn)"),
    }
    VIEW = {
        "opened": None,
        "idle_turns": Field("int", "turns in a row without an action since the stock ran out (N ends the deal)"),
    }
    CARD_VALUES = {
        "penalty": Field("int", "what a card left in hand costs at the end of a deal"),
        "meld": None,
    }

    @classmethod
    def parse_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        opts = super().parse_options(given)
        sequence_table(opts["sequence_points"])
        return opts

    @property
    def meld_rules(self) -> MeldRules:  # type: ignore[override]
        """Same-suit sequences 2..A, no sets, at most `max_jokers_per_sequence` jokers (Valid combinations)."""
        return MeldRules(ace_low=False, allow_sets=False, max_wilds=self.opts["max_jokers_per_sequence"])

    def make_deck(self) -> list[str]:
        return deck(packs=2, jokers=self.opts["jokers"])

    def penalty(self, card: str) -> int:
        return 10

    # --- phase 2 turn state -------------------------------------------------------------------------------------
    def start_deal(self) -> None:
        self.out_mode, self.idle = False, 0
        self.reset_turn()
        super().start_deal()

    def reset_turn(self) -> None:
        """A new turn: nothing drawn, placed or released yet."""
        self.may_draw, self.last_card = True, False
        self.drawn: str | None = None  # the stock card just drawn: placed in the next play, it lets him draw again
        self.pile_card: str | None = None  # the discard taken in this play: it must be placed in it
        self.placed: tuple[str, ...] = ()
        self.released: tuple[str, ...] = ()
        self.acted, self.actions = False, 0

    def begin_play(self) -> None:
        self.out_mode = not self.stock  # Ambiguity 5: purchases may leave the stock empty
        self.phase = "after-stock" if self.out_mode else "draw"

    def can_draw(self) -> bool:
        """Whether the seat in turn may draw from the stock now."""
        return bool(self.stock) and not self.last_card and (self.phase == "draw" or self.may_draw)

    def decision(self, seat: int) -> Decision:
        if self.stage != "play":
            return self.contest_decision(seat)
        options: list[Op] = [Draw("stock")] if self.can_draw() else []
        if self.phase == "play" and self.hands[seat] and not self.out_mode:
            options += [Discard(c) for c in sorted(set(self.hands[seat]))]
        if self.phase == "after-stock" or (self.phase == "play" and not self.hands[seat]):
            options.append(Pass())
        mine = [i for i, m in enumerate(self.table) if m.owner == seat and m.cards]
        return Decision(
            "turn",
            self.phase,
            options,
            {
                "drawn": self.drawn,
                "draw_again": self.phase == "play" and self.can_draw(),
                "layoff_melds": mine,
                "actions_left": self.opts["max_actions_per_turn"] - self.actions,
            },
        )

    def view(self, seat: int) -> dict[str, Any]:
        out = {**super().view(seat), **self.contest_view(seat), "idle_turns": self.idle}
        out.pop("opened")
        if self.stage != "play":  # the phase-1 decision's phase
            out["phase"] = "suit" if self.stage == "show" else self.stage
        return out

    def fallback(self, seat: int) -> list[Op]:
        """Ambiguity 21: draw from the stock; then a random card is discarded (none with an empty hand)."""
        if self.stage != "play":
            return self.contest_fallback(seat)
        if self.phase == "draw":
            return [Draw("stock")]
        if self.out_mode or not self.hands[seat]:
            return [Pass()]
        rng = random.Random(derive_seed(self.seed, "fallback", self.deal_no, self.turns))
        return [Discard(rng.choice(sorted(self.hands[seat])))]

    # --- applying a play ----------------------------------------------------------------------------------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        if self.stage != "play":
            return self.contest_apply(seat, ops)
        self.placed, self.ended, self.stock_drawn = (), False, False
        for op in ops:
            if self.ended or self.stock_drawn:
                raise IllegalAction("play.after-end", "nothing may follow a stock draw, the discard or a pass")
            self.do(seat, op)
        self.end_play(seat, True)

    def do(self, seat: int, op: Op) -> None:
        if isinstance(op, (Meld, LayOff, Exchange, Rearrange)) and self.phase == "draw":
            raise IllegalAction("play.before-draw", "draw before you meld or lay off")
        if isinstance(op, Rearrange):
            return self.join(seat, op)
        if isinstance(op, Pass):
            if self.phase == "draw" or (self.hands[seat] and not self.out_mode):
                raise IllegalAction("turn.must-discard", "end your turn with a discard (pass only with no card)")
            self.check_used()
            self.ended = True
            return None
        return super().do(seat, op)

    def used(self, card: str | None) -> bool:
        return card is not None and card in self.placed

    def check_used(self) -> None:
        """Turn structure 2, Ambiguities 13 and 24: a discard taken, and a natural a joker released, are placed
        before any other draw, the discard or the end of the play."""
        if self.pile_card is not None and not self.used(self.pile_card):
            raise IllegalAction("draw.discard-unused", f"{self.pile_card}, taken from the pile, must be placed at once")
        if self.released:
            raise IllegalAction("joker.released-unused", f"{self.released[0]}, freed by your joker, must be used")

    def draw(self, seat: int, op: Draw) -> None:
        if op.depth != 1 or op.pile != 0:
            raise IllegalAction("draw.one-card", "draw one card at a time, from the stock or the top of the pile")
        self.check_used()
        if self.last_card:
            raise IllegalAction("draw.after-last-card", "you drew the last stock card: you draw no more")
        fresh = self.phase == "draw" or self.out_mode or self.may_draw
        if not (fresh or self.used(self.drawn) or self.used(self.pile_card)):
            raise IllegalAction("draw.again-unused", "you may draw again only after placing the card you drew")
        self.placed, self.drawn, self.pile_card, self.may_draw = (), None, None, False
        if op.source == "stock":
            if not self.stock:
                raise IllegalAction("draw.empty-stock", "the stock is empty")
            card = self.drawn = self.stock.pop()
            self.emit({"type": "draw", "seat": seat, "source": "stock"}, seat, card=card)
            self.stock_drawn, self.last_card = True, not self.stock
        else:
            if not self.piles[0]:
                raise IllegalAction("draw.empty-pile", "the discard pile is empty")
            card = self.pile_card = self.piles[0].pop()
            self.emit({"type": "draw", "seat": seat, "source": "discard", "card": card})
            self.acted = True
        self.hands[seat].append(card)
        self.phase = "after-stock" if self.out_mode else "play"

    def discard(self, seat: int, op: Discard) -> None:
        if self.out_mode:
            raise IllegalAction("discard.after-stock", "after the stock is gone nobody discards: pass")
        self.check_used()
        super().discard(seat, op)
        self.ended = True

    def can_lay_off(self, seat: int) -> bool:
        return True

    def opens_with(self, seat: int, meld: TableMeld) -> bool:
        return True

    def table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        if isinstance(op, LayOff) and 0 <= op.meld < len(self.table) and self.table[op.meld].cards:
            meld = self.table[op.meld]
            if op.cards == [JOKER] and op.identities and op.identities[0] in meld.ids:
                return self.put_joker(seat, op.meld, op.identities[0])
            if meld.owner != seat:
                raise IllegalAction("layoff.own-only", "cards may be added only to your own sequences")
        super().table_op(seat, op)

    def put_joker(self, seat: int, i: int, ident: str) -> None:
        """Special rules: a joker from hand takes a natural card's place in any sequence; the natural is freed."""
        self.take_from_hand(seat, [JOKER])
        self.table[i], freed = put_wild(self.table[i], JOKER, ident, self.meld_rules)
        self.hands[seat].append(freed)
        self.released = self.released + (freed,)
        self.emit({"type": "joker", "seat": seat, "meld": i, "card": freed, "identities": list(self.table[i].ids)})
        self.after_table_op(seat, LayOff(i, [JOKER], [ident]))

    def join(self, seat: int, op: Rearrange) -> None:
        """Join two or more of one's own sequences into one, with hand cards between them if needed."""
        ids = sorted(set(op.melds))
        if len(ids) < 2 or len(ids) != len(op.melds) or len(op.into) != 1:
            raise IllegalAction("join.shape", "join two or more of your sequences into one (`into`: one meld)")
        if any(not 0 <= i < len(self.table) or not self.table[i].cards for i in ids):
            raise IllegalAction("layoff.no-such-meld", "there is no such sequence on the table")
        if any(self.table[i].owner != seat for i in ids):
            raise IllegalAction("join.own-only", "only your own sequences may be joined")
        extra = Counter(op.into[0].cards)
        extra.subtract(c for i in ids for c in self.table[i].cards)
        if min(extra.values(), default=0) < 0:
            raise IllegalAction("join.cards", "the joined sequence must hold every card of the sequences joined")
        cards = list(extra.elements())
        self.take_from_hand(seat, cards)
        joined = join([self.table[i] for i in ids], cards, self.meld_rules, op.into[0].identities)
        self.table[ids[0]] = joined
        for i in ids[1:]:
            self.table[i] = emptied(self.table[i])
        self.emit(
            {"type": "join", "seat": seat, "melds": ids, "cards": list(joined.cards), "identities": list(joined.ids)}
        )
        self.after_table_op(seat, LayOff(ids[0], cards))

    def after_table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        """Count the action and the cards placed; the open-suit bonus (Special rules; Ambiguity 9)."""
        placed = [op.card] if isinstance(op, Exchange) else list(op.cards)
        left = list(self.released)
        for c in placed:
            if c in left:
                left.remove(c)
        self.released, self.placed, self.acted = tuple(left), self.placed + tuple(placed), True
        self.actions += 1
        if self.actions > self.opts["max_actions_per_turn"]:
            raise IllegalAction("turn.max-actions", f"at most {self.opts['max_actions_per_turn']} table actions a turn")
        for s in self.open_suits:
            if sum(len(m.cards) for m in self.own_runs(seat) if suit(m.ids[0]) == s) >= 4:
                self.open_suits = tuple(x for x in self.open_suits if x != s)
                self.bonuses[seat] += 20
                self.emit({"type": "open-suit", "seat": seat, "suit": s, "bonus": 20})

    def own_runs(self, seat: int) -> list[TableMeld]:
        return [m for m in self.table if m.owner == seat and m.cards]

    def end_play(self, seat: int, was_opened: bool) -> None:
        self.check_used()
        if self.stock_drawn:
            return None  # the card is shown in the next request
        if self.drawn is not None or self.pile_card is not None:
            self.may_draw = self.used(self.drawn) or self.pile_card is not None
            self.drawn = self.pile_card = None
        if self.ended or (not self.hands[seat] and not self.can_draw() and self.phase == "play"):
            self.end_turn()
        return None

    def end_turn(self) -> None:
        """Pass the turn on; after the stock is gone, N idle turns in a row end the deal (Ambiguity 11)."""
        acted = self.acted
        self.clear_turn()
        self.turns += 1
        if self.out_mode:
            self.idle = 0 if acted else self.idle + 1
        elif not self.stock:  # the turn that drew the last card is not one "after"
            self.out_mode = True
        if (self.out_mode and self.idle >= len(self.seats_in())) or self.turns >= self.opts["max_turns_per_deal"]:
            return self.end_deal(winner=None)
        self.turn = self.next_seat(self.turn)
        self.reset_turn()
        self.phase = "after-stock" if self.out_mode else "draw"
        return None

    # --- scoring ----------------------------------------------------------------------------------------------------
    def score_deal(self, winner: int | None) -> list[float]:
        table = sequence_table(self.opts["sequence_points"])
        self.scored = [deal_score(self.hands[s], self.own_runs(s), table) for s in range(self.n)]
        return [b + x["total"] for b, x in zip(self.bonuses, self.scored)]

    def end_deal(self, winner: int | None) -> None:
        self.phase = "over"
        scores = self.score_deal(winner)
        hands = [sorted(h) for h in self.hands]
        self.finish_deal(scores, winner, hands=hands, bonuses=list(self.bonuses), parts=self.scored)

    def match_ended(self) -> bool:
        """End of the match: the highest total at or above the target, alone (a tie at the top plays on)."""
        top = max(self.totals)
        return top >= self.opts["target"] and self.totals.count(top) == 1

    # --- for the conformance suite and eval ---------------------------------------------------------------------
    def cards_in_play(self) -> list[str]:
        return (
            super().cards_in_play()
            + [c for b in self.bought for c in b]
            + [JOKER for j in self.table_jokers for _ in j]
        )

    def hidden_zones(self, seat: int) -> list[list[str]]:
        return super().hidden_zones(seat) + [b for i, b in enumerate(self.bought) if i != seat]

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """The best arrangement of `hand` into sequences and its end-of-deal score, the score with every card
        unmelded, and each suit's best simple quartet with its showing value."""
        game = cls.hooks_only()
        table = sequence_table(game.opts["sequence_points"])
        split = best_split(hand, game.meld_rules, game.penalty)
        quartets = {}
        for s in SUITS:
            q = best_showing(hand, s, 4)
            if q is not None:
                ids = iter(q.identities or [])
                value = showing_value(q.cards, [next(ids) if c == JOKER else c for c in q.cards])
                quartets[s] = {"cards": q.cards, "identities": q.identities, "value": value}
        score = deal_score(list(split.deadwood), split.melds, table)
        return {
            "melds": [list(m.cards) for m in split.melds],
            "identities": [list(m.ids) for m in split.melds],
            "deadwood": list(split.deadwood),
            "deadwood_points": split.points,
            "points": score["total"],
            "score": score,
            "unmelded": deal_score(list(hand), [], table),
            "quartets": quartets,
        }
