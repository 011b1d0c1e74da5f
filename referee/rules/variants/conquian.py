"""Conquian (Konkvianas): rules/conquian.md. Two players and the 40-card pack, 7 and J adjacent in sequences; each
stock card is turned face up and either used at once in the turner's own melds (then a hand card is buried face
down) or buried; own melds may be regrouped; 11 cards melded win, and a drawn deal doubles the next."""

from typing import Any

from protocol.messages import Decision, Discard, Draw, Exchange, LayOff, Meld, Op, Pass
from referee.rules.cards import deck, run_order
from referee.rules.describe import Field, Phase
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.engine import Option
from referee.rules.errors import ConfigError, IllegalAction
from referee.rules.melds import MeldRules, is_valid
from referee.rules.moves import TableMoves
from referee.rules.solver import best_discard, best_split, candidate_melds

WIN = 11  # cards in one's melds that win the deal (End of a deal)
# Valid combinations: sets of 3-4, sequences A-2-...-7-J-Q-K (ace low only), no wild cards; by max_sequence_length
RULES = {
    n: MeldRules(ace_high=False, wilds=frozenset(), set_max=4, run_ranks=run_order(40), run_max=n) for n in range(3, 11)
}


class Conquian(TableMoves, DrawMeldDiscard):
    """Konkvianas: turn the stock card up, use it in your own melds or bury it; the first to 11 melded wins."""

    slug = "conquian"
    name = "Conquian"
    local_name = "Konkvianas"
    min_players = max_players = 2
    low_wins = False
    hand_size = 10
    starter = False  # no starter, no discard pile
    rebuild_stock = False  # stock exhausted: a drawn deal (End of a deal)
    predraw_plays = False
    stock_draw_ends_play = True  # the turned card is seen by both before it is used
    empty_hand_phases = ("draw", "turned")  # 10 melded, empty hand: he keeps turning cards (Ambiguity 6)
    rearranging = True
    rearrange_regroup = True  # Special rules: cards may be taken out of own melds and moved between them
    unused_options = frozenset({"allow_rediscard"})  # there is no discard pile
    _mutable = (*DrawMeldDiscard._mutable, "buried")
    OPTIONS = {
        "deal_points": Option(1, help="game points a won deal is worth, times the multiplier"),
        "draw_multiplier_mode": Option(
            "compound", ("compound", "foster"), "after d drawn deals in a row: x2^d (compound) or x(1+d) (foster)"
        ),
        "target": Option(5, help="the match ends after a deal in which a player reaches this many game points"),
        "max_sequence_length": Option(10, tuple(range(3, 11)), "the most cards in a sequence (10: A to K)"),
        "max_deals": Option(50, help="safety cap: the match ends after this many deals, more points first"),
    }
    PHASES = {
        ("turn", "draw"): Phase("the start of your turn: turn up the top stock card (the play ends there)", ("draw",)),
        ("turn", "turned"): Phase(
            "the turned card (constraints `turned`) is face up: use it in your own melds in this play (`meld`, "
            "`layoff` on your own melds, `rearrange` regrouping them; more hand cards may go down too), or `pass` "
            "to bury it. 11 cards melded win at once",
            ("pass", "layoff", "meld"),
        ),
        ("turn", "play"): Phase(
            "you used the turned card: more melds, lay-offs and regroupings of your own melds may follow; then bury "
            "one hand card face down (`discard`), which ends the turn",
            ("discard",),
        ),
    }
    CONSTRAINTS = {
        "initial_meld": None,
        "opened": None,
        "turned": Field("card|null", "the face-up turned card you may use (phase turned)"),
        "layoff_melds": Field("int[]", "your own melds: the only ones you may add to or regroup"),
        "rearrange": Field(
            "bool",
            "whether you may regroup your own melds now (`rearrange {melds, into}`: `into` holds every card of the "
            "melds named plus cards from hand or the turned card, all in valid melds)",
        ),
        "melded": Field("int", "your cards in melds (11 wins)"),
    }
    VIEW = {
        "discard": None,
        "opened": None,
        "taken": None,
        "turned": Field("card|null", "the card turned up this turn, face up for both (null once used or buried)"),
        "dead": Field("card[]", "the turned cards buried unused this deal, in order"),
        "buried": Field("card[]", "the hand cards you buried face down this deal"),
        "buried_sizes": Field("int[]", "how many hand cards each seat has buried face down"),
        "melded": Field("int[]", "each seat's cards in melds"),
        "multiplier": Field("int", "what this deal's win is multiplied by (drawn deals before it)"),
    }
    CARD_VALUES: dict[str, Field | None] = {"penalty": None, "meld": None}

    def __init__(self, players: int, options: dict[str, Any] | None = None, seed: int = 0):
        self.drawn_in_row = 0  # drawn deals immediately before the current one (Scoring)
        super().__init__(players, options, seed)

    @classmethod
    def parse_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        opts = super().parse_options(given)
        for name in ("deal_points", "target"):
            if opts[name] < 1:
                raise ConfigError(f"option {name}: {opts[name]!r} must be at least 1")
        return opts

    @property
    def meld_rules(self) -> MeldRules:  # type: ignore[override]
        return RULES[self.opts["max_sequence_length"]]

    def make_deck(self) -> list[str]:
        return deck(size=40)

    def penalty(self, card: str) -> int:
        """Cards have no value: each one left over is one more to meld (for the solver and the bots)."""
        return 1

    def multiplier(self) -> int:
        """Scoring: 2^d (compound) or 1 + d (foster) after d drawn deals in a row."""
        d = self.drawn_in_row
        return 2**d if self.opts["draw_multiplier_mode"] == "compound" else 1 + d

    def melded(self, seat: int) -> int:
        """The cards in `seat`'s melds."""
        return sum(len(m.cards) for m in self.table if m.owner == seat)

    def own(self, seat: int) -> list[int]:
        """The ids of `seat`'s melds (the only ones it may add to or regroup)."""
        return [i for i, m in enumerate(self.table) if m.owner == seat and m.cards]

    # --- deal, decisions, view ------------------------------------------------------------------------------------
    def start_deal(self) -> None:
        self.turned: str | None = None  # face up, never in the hand (Turn structure 1)
        self.dead: tuple[str, ...] = ()  # turned cards buried unused (public)
        self.buried: list[list[str]] = [[] for _ in range(self.n)]  # hand cards buried face down
        super().start_deal()

    def decision(self, seat: int) -> Decision:
        if self.phase == "draw":
            options: list[Op] = [Draw("stock")]
        elif self.phase == "turned":
            options = [Pass(), *self.uses(seat)]
        else:
            options = [Discard(c) for c in sorted(self.hands[seat])]
        constraints = {
            "turned": self.turned,
            "layoff_melds": self.own(seat),
            "rearrange": self.phase != "draw",
            "melded": self.melded(seat),
        }
        return Decision("turn", self.phase, options, constraints)

    def uses(self, seat: int) -> list[Op]:
        """The one-op plays that put the turned card down: onto an own meld, or in a new meld with hand cards."""
        card, rules = self.turned, self.meld_rules
        assert card is not None
        out: list[Op] = []
        for i in self.own(seat):
            m = self.table[i]
            if is_valid([*m.ids, card], m.kind, rules):
                out.append(LayOff(i, [card]))
        melds = candidate_melds([*self.hands[seat], card], rules)
        return out + [Meld(list(m.cards)) for m in melds if card in m.cards]

    def view(self, seat: int) -> dict[str, Any]:
        out = super().view(seat)
        for key in ("discard", "opened", "taken"):
            out.pop(key)
        return {
            **out,
            "turned": self.turned,
            "dead": list(self.dead),
            "buried": list(self.buried[seat]),
            "buried_sizes": [len(b) for b in self.buried],
            "melded": [self.melded(s) for s in range(self.n)],
            "multiplier": self.multiplier(),
        }

    def fallback(self, seat: int) -> list[Op]:
        """Ambiguity 14: the turned card is buried; after it was used, the hand card the melds need least."""
        if self.phase == "draw":
            return [Draw("stock")]
        if self.phase == "turned":
            return [Pass()]
        return [Discard(best_discard(self.hands[seat], self.meld_rules, self.penalty)[0])]

    # --- what may be moved ------------------------------------------------------------------------------------------
    def can_lay_off(self, seat: int) -> bool:
        return True  # no initial meld (Special rules): own melds, in a play that uses the turned card

    def check_rearrange(self, seat: int) -> None:
        """Special rules: own melds may be regrouped in any play that uses the turned card (end_play checks it)."""

    # --- the ops ---------------------------------------------------------------------------------------------------
    def do(self, seat: int, op: Op) -> None:
        match op:
            case Pass():
                self.bury_turned(seat)
            case Discard():
                self.bury(seat, op)
            case Exchange():
                raise IllegalAction("op.unsupported", "exchange is not an operation of conquian: there are no wilds")
            case LayOff() if 0 <= op.meld < len(self.table) and self.table[op.meld].owner != seat:
                raise IllegalAction("layoff.own-only", "cards may be added only to your own melds (Special rules)")
            case _:
                super().do(seat, op)

    def draw(self, seat: int, op: Draw) -> None:
        """Turn structure 1: the top stock card is turned face up for both players; it never enters the hand."""
        if self.phase != "draw":
            raise IllegalAction("draw.once", "you have already turned up this turn's card")
        if op.source != "stock" or op.depth != 1 or op.pile != 0:
            raise IllegalAction("draw.stock-only", "there is no discard pile: turn up the top stock card")
        self.turned = self.stock.pop()  # a turn starts only with cards in the stock (end_turn)
        self.emit({"type": "turned", "seat": seat, "card": self.turned})
        self.phase = "turned"

    def take_from_hand(self, seat: int, cards: list[str]) -> None:
        """The turned card may go into a meld as if it were held; once placed, the turn is in phase `play`."""
        if self.turned is None or self.turned not in cards:
            return super().take_from_hand(seat, cards)
        rest = list(cards)
        rest.remove(self.turned)
        super().take_from_hand(seat, rest)
        self.turned, self.phase = None, "play"
        return None

    def bury_turned(self, seat: int) -> None:
        """`pass`: the turned card is buried face down beside the stock, dead (Turn structure 2)."""
        card = self.turned
        if self.phase == "draw":
            raise IllegalAction("draw.first", "turn up the top stock card first")
        if card is None:
            raise IllegalAction("bury.hand-card", "you used the turned card: bury a card from your hand (discard)")
        if self.placed_now:  # Ambiguity 2
            raise IllegalAction("meld.without-turned", "you may meld only in a play that uses the turned card")
        self.turned, self.dead = None, (*self.dead, card)
        self.emit({"type": "bury", "seat": seat, "card": card, "turned": True})
        self.phase = "over"

    def bury(self, seat: int, op: Discard) -> None:
        """`discard`: after using the turned card, a hand card is buried face down; only its owner learns which."""
        if self.phase != "play":
            rule = "discard.before-draw" if self.phase == "draw" else "bury.turned-unused"
            raise IllegalAction(rule, "use the turned card in your melds before burying a hand card, or pass")
        if op.card not in self.hands[seat]:
            raise IllegalAction("hand.missing-card", f"{op.card} is not in your hand")
        if op.pile:
            raise IllegalAction("discard.no-such-pile", "there is no discard pile: the card is buried")
        self.hands[seat].remove(op.card)
        self.buried[seat].append(op.card)
        self.emit({"type": "bury", "seat": seat, "turned": False}, seat, card=op.card)
        self.phase = "over"

    def end_play(self, seat: int, was_opened: bool) -> None:
        """Special rules: the turned card ends any play that melds in one of the player's melds; 11 melded win."""
        if self.phase == "turned" and self.placed_now:
            raise IllegalAction("turned.unused", "a play that melds must put the turned card into your melds")
        if self.melded(seat) >= WIN:
            self.end_deal(winner=seat)
        elif self.phase == "over":
            self.end_turn()

    # --- scoring and the match ------------------------------------------------------------------------------------
    def score_deal(self, winner: int | None) -> list[float]:
        """Scoring: the winner scores deal_points x the multiplier, the loser 0; a drawn deal scores nothing."""
        return [self.opts["deal_points"] * self.multiplier() if s == winner else 0 for s in range(self.n)]

    def end_deal(self, winner: int | None) -> None:
        self.phase = "over"
        scores, multiplier = self.score_deal(winner), self.multiplier()
        self.drawn_in_row = 0 if winner is not None else self.drawn_in_row + 1
        melded = [self.melded(s) for s in range(self.n)]
        hands = [sorted(h) for h in self.hands]
        self.finish_deal(scores, winner, hands=hands, multiplier=multiplier, melded=melded)

    def match_ended(self) -> bool:
        return max(self.totals) >= self.opts["target"]

    # --- for the conformance suite and eval -------------------------------------------------------------------------
    def cards_in_play(self) -> list[str]:
        turned = [self.turned] if self.turned else []
        return super().cards_in_play() + turned + list(self.dead) + [c for b in self.buried for c in b]

    def hidden_zones(self, seat: int) -> list[list[str]]:
        return super().hidden_zones(seat) + [b for s, b in enumerate(self.buried) if s != seat]

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """The most cards `hand` can put in melds, and how many more would win (11 melded)."""
        game = cls.hooks_only()
        split = best_split(hand, game.meld_rules, game.penalty)
        melded = len(hand) - len(split.deadwood)
        return {
            "melds": [list(m.cards) for m in split.melds],
            "identities": [list(m.ids) for m in split.melds],
            "deadwood": list(split.deadwood),
            "deadwood_points": split.points,
            "melded": melded,
            "to_win": max(0, WIN - melded),
        }
