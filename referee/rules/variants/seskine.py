"""Šeškinė Rummy (Šeškinės romis): rules/seskine.md. Seven cards, nothing melded during play: a player declares all
seven at once in sequences (round the corner too) and sets, before drawing (then he may add discard-pile cards
from the top down, +5 each) or after discarding. Everyone scores; 100 wins, with the tie rules."""

from typing import Any

from protocol.messages import Decision, LayOff, Op, Pass
from referee.rules.allatonce import AllAtOnce, is_one_run
from referee.rules.cards import pack
from referee.rules.describe import Field, Phase
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, lay_off, new_meld
from referee.rules.solver import Split, best_split

SESKINE_MELDS = MeldRules(wrap=True, wilds=frozenset(), set_max=4)  # Valid combinations: 3-2-A-K; sets of 3-4
WIN, PER_ADDED = 25, 5  # Scoring: the declarer's 25, and 5 for each discard-pile card added


def run_bonus(length: int) -> int:
    """Special rules, long-sequence bonus (Ambiguity 4): 5 cards 3, 6 cards 6, 7 or more 10."""
    return 10 if length >= 7 else 3 * max(length - 4, 0)


def arrangement(hand: list[str]) -> Split:
    """The arrangement of `hand` with the most cards in combinations, as one sequence where the cards are one
    (for its long-sequence bonus)."""
    if len(hand) >= SESKINE_MELDS.min_size and is_one_run(hand, SESKINE_MELDS):
        return Split([new_meld(sorted(hand), SESKINE_MELDS, kind="run")], [], 0)
    return best_split(hand, SESKINE_MELDS, lambda c: 1)


def used_cards(hand: list[str]) -> int:
    """Cards of `hand` in the arrangement that puts the most of them in combinations (Scoring, Ambiguity 6)."""
    return len(hand) - len(best_split(hand, SESKINE_MELDS, lambda c: 1).deadwood)


class Seskine(AllAtOnce):
    """Šeškinės romis: 7 cards, round-the-corner sequences, declaration before drawing (with discard-pile
    additions) or after discarding; points for the declarer and for every other player's combinations."""

    slug = "seskine"
    name = "Šeškinė Rummy"
    local_name = "Šeškinės romis"
    min_players, max_players = 2, 6
    hand_size = 7
    low_wins = False
    meld_rules = SESKINE_MELDS
    interruption = False  # End of a deal: the classic turn-over of the discard pile
    rebuild_stock = True
    rummy_discards = True  # Ambiguity 2: after the draw, 7 cards are shown and the 8th discarded
    # romis check: a dealt 3 + 4 and a top discard that fits it, so a declaration before drawing goes on to extend
    CHECK_TABLES = ({"kinds": ["turn/extend"], "rig": {"hand": "2H 3H 4H 5H 9C 9D 9S", "discard": "6H"}},)
    OPTIONS = {
        "target": Option(100, help="the match ends after a deal in which a total reaches this"),
        "max_turns_per_deal": Option(500, help="safety cap: a deal that reaches this many turns is annulled"),
        "max_stock_rebuilds": Option(20, help="safety cap: stock rebuilds per deal before the deal is annulled"),
    }
    PHASES = {
        ("turn", "draw"): Phase(
            "the start of your turn: draw one card; or declare before drawing: meld all 7 cards (3 + 4, or one run "
            "of 7) in one play, after which you may add discard-pile cards (phase extend)",
            ("draw",),
        ),
        ("turn", "play"): Phase(
            "after the draw: discard; or declare: meld 7 cards (3 + 4, or a run of 7), then discard the 8th (no "
            "discard-pile cards are added then)",
            ("discard",),
        ),
        ("turn", "extend"): Phase(
            "you declared before drawing: add the top discard to one of your combinations (layoff {meld, cards: "
            "[top]}: +5), or pass to end the deal; it ends by itself at the first card that fits nowhere",
            ("layoff", "pass"),
            rare=True,
        ),
    }
    CONSTRAINTS = {
        "immediate_rummy": Field("bool", "whether you may declare now, before drawing: always true in the draw phase")
    }
    CARD_VALUES = {"penalty": None}  # cards have no values: combinations score (Scoring)

    def make_deck(self) -> list[str]:
        """Players, deck and deal: one 52-card pack, no jokers."""
        return pack(52)

    def penalty(self, card: str) -> int:
        """Every card counts alike: the best arrangement puts the most cards in combinations."""
        return 1

    def may_declare_before_draw(self) -> bool:
        return True  # Turn structure 1: at the start of any turn

    # --- the deal ------------------------------------------------------------------------------------
    def start_deal(self) -> None:
        self.added = 0  # discard-pile cards added after a declaration before drawing
        self.tie_winner: int | None = None
        super().start_deal()

    def decision(self, seat: int) -> Decision:
        if self.phase != "extend":
            return super().decision(seat)
        options: list[Op] = [LayOff(i, [self.piles[0][-1]]) for i in self.fitting()]
        return Decision("turn", "extend", [*options, Pass()], {"whole_hand": True, "immediate_rummy": False})

    def fitting(self) -> list[int]:
        """The seat's shown combinations the top discard fits (none once the pile is empty)."""
        if not self.piles[0]:
            return []
        top, out = self.piles[0][-1], []
        for i, meld in enumerate(self.table):
            try:
                lay_off(meld, [top], self.meld_rules)
                out.append(i)
            except IllegalAction:
                continue
        return out

    def fallback(self, seat: int) -> list[Op]:
        if self.phase == "extend":
            return [self.decision(seat).options[0]]  # type: ignore[index]  # add what fits: +5 each
        return super().fallback(seat)

    # --- plays -----------------------------------------------------------------------------------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        if self.phase != "extend":
            return super()._apply(seat, ops)
        for op in ops:  # Special rules: one card at a time from the top down
            if self.phase != "extend":
                raise IllegalAction("play.after-end", "nothing may follow the pass or the end of the deal")
            match op:
                case Pass():
                    self.emit({"type": "pass", "seat": seat})
                    self.settle("declaration", seat)
                case LayOff():
                    self.add_from_pile(seat, op)
                case _:
                    raise IllegalAction(
                        "extend.layoff-or-pass",
                        "after a declaration add the top discard (layoff {meld, cards: [top]}) or pass",
                    )

    def add_from_pile(self, seat: int, op: LayOff) -> None:
        """Add the top discard to one of the seat's combinations (Special rules, Ambiguity 3)."""
        pile = self.piles[0]
        if op.cards != pile[-1:]:
            raise IllegalAction("extend.top-card", f"only the top discard ({pile[-1]}) may be added, one at a time")
        if not 0 <= op.meld < len(self.table):
            raise IllegalAction("layoff.no-such-meld", f"there is no meld {op.meld} on the table")
        self.table[op.meld] = lay_off(self.table[op.meld], op.cards, self.meld_rules, op.identities, op.end)
        pile.pop()
        self.added += 1
        self.declared[seat] += op.cards
        self.emit({"type": "layoff", "seat": seat, "meld": op.meld, "cards": op.cards, "source": "discard"})
        if not self.fitting():  # he must stop at the first card that does not fit
            self.settle("declaration", seat)

    def end_deal(self, winner: int | None) -> None:
        """A declaration before drawing goes on to the additions while the top discard fits (Turn structure 1)."""
        if winner is not None and self.phase == "draw" and self.fitting():
            self.phase = "extend"
            return
        super().end_deal(winner)

    # --- scoring and the end of the match --------------------------------------------------------------
    def settle(self, kind: str, winner: int | None) -> None:
        """Scoring: the declarer 25 + 5 per added card + the sequence bonuses, everyone else 1 per card in
        combinations; an annulled deal (a stalemate: End of a deal) scores nothing."""
        self.phase = "over"
        if winner is None:
            scores: list[float] = [0] * self.n
            finish: dict[str, Any] = {"kind": "annulled"}
        else:
            bonuses = [run_bonus(len(m.cards)) for m in self.table if m.kind == "run"]
            before = kind != "rummy"
            scores = [used_cards(h) for h in self.hands]
            scores[winner] = WIN + PER_ADDED * self.added + sum(bonuses)
            finish = {"kind": "before-draw" if before else "after-discard", "added": self.added, "runs": bonuses}
        self.finish_deal(scores, winner, hands=[sorted(h) for h in self.hands], finish=finish)

    def match_ended(self) -> bool:
        """End of the match: someone has 100; a tie at the top goes to the last deal's winner if he is in it,
        otherwise another deal is played (Ambiguity 7)."""
        top = max(self.totals)
        leaders = [s for s, t in enumerate(self.totals) if t == top]
        if top < self.opts["target"]:
            return False
        if len(leaders) == 1:
            return True
        winner = self.deal_results[-1]["winner"]
        self.tie_winner = winner if winner in leaders else None
        return self.tie_winner is not None

    def ranks(self, totals: list[float], seats: list[int] | None = None) -> list[int]:
        """Highest total first; the last deal's winner ahead of those he ties with at the top (End of the match)."""
        seats = list(range(len(totals))) if seats is None else seats
        keys = [(-t, s != self.tie_winner) for s, t in zip(seats, totals)]
        return [1 + sum(u < k for u in keys) for k in keys]

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """A hand's combinations (the most cards used), what they are worth to a player who did not declare,
        and, for 7 cards all in combinations, what declaring them scores (without added cards)."""
        split = arrangement(hand)
        declares = len(hand) == cls.hand_size and not split.deadwood
        runs = [run_bonus(len(m.cards)) for m in split.melds if m.kind == "run"]
        value = WIN + sum(runs) if declares else len(hand) - len(split.deadwood)
        verdict = f"declares: {value} points" if declares else f"no declaration: {value} points in combinations"
        return {
            "melds": [list(m.cards) for m in split.melds],
            "kinds": [m.kind for m in split.melds],
            "deadwood": list(split.deadwood),
            "points": value,
            "declares": declares,
            "verdict": verdict,
        }
