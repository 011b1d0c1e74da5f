"""Carousel (Karuselė): rules/carousel.md."""

from typing import Any

from protocol.messages import Decision, Discard, Draw, Exchange, Knock, Op, Pass
from referee.rules.allatonce import first_lowest
from referee.rules.cards import deck, rank
from referee.rules.describe import Field, Phase
from referee.rules.errors import IllegalAction
from referee.rules.finals import FinalRound
from referee.rules.moves import TableMoves
from referee.rules.solver import best_split

DRAWS = 3  # Turn structure 1-4: a turn draws at most three cards
KNOCK_LIMIT = 5  # Turn structure 5: free points of at most 5
TARGET, TARGET_BONUS, WIN_BONUS, AT_ONCE_BONUS = 150, 100, 10, 25  # Scoring; End of the match


class Carousel(FinalRound, TableMoves):
    """Karuselė: no discard pile, up to three stock draws until a table action, robbing opponents' melds, a knock
    at 5 free points or less, one final turn each after the stock runs out, and only the deal winner scores."""

    slug = "carousel"
    name = "Carousel"
    local_name = "Karuselė"
    min_players, max_players = 2, 5
    hand_size = 10
    starter = False  # no starter and no discard pile
    rebuild_stock = False
    predraw_plays = False
    stock_draw_ends_play = True  # every draw is a play of its own: the card is seen before it is used
    robbing = True  # Special rules 2
    low_wins = False  # only the winner scores: the highest total wins
    unused_options = frozenset({"allow_rediscard"})  # there are no discards
    # romis check: free points above 5 until the third draw brings them to 1, so that draw leaves a knock or a pass
    CHECK_TABLES = ({"kinds": ["turn/last"], "rig": {"hand": "2S 3S 4S 5D 5H 5C 9S 9H KC AD", "draws": "9C KD KH"}},)
    PHASES = {
        ("turn", "draw"): Phase("the start of your turn: draw the top stock card", ("draw",)),
        ("turn", "play"): Phase(
            "after a draw (each draw is a play of its own): meld, lay off on any meld and rob opponents' melds "
            "(a table action ends your drawing and, "
            "with this play, your turn); or draw again (at most three draws; constraint `draws`); or knock when "
            "your free points are 5 or less (`may_knock`); with the stock empty, `pass` ends the turn",
            ("draw", "knock", "pass"),
        ),
        ("turn", "last"): Phase(
            "after your third draw, with 5 free points or less: knock, or pass to end your turn (no table action "
            "after a third draw)",
            ("knock", "pass"),
            rare=True,
        ),
        ("turn", "final"): Phase(
            "your one turn after the stock ran out: meld, lay off and rob (no draw, no knock), or pass",
            ("pass",),
        ),
    }
    CONSTRAINTS = {
        "initial_meld": None,
        "opened": None,
        "draws": Field("int", "the stock cards you have drawn this turn (at most 3)"),
        "free_points": Field("int", "your free points now: the least value of your cards outside combinations"),
        "may_knock": Field("bool", "whether you may knock now (free points 5 or less, after your first draw)"),
    }
    VIEW = {
        "opened": None,
        "taken": None,
        "discard": Field("card[]", "always empty: carousel has no discard pile"),
        "draws": Field("int", "the stock cards the player in turn has drawn this turn"),
    }

    def make_deck(self) -> list[str]:
        """One 52-card pack and a joker; two of them for 4 or 5 players."""
        packs = 1 if self.n <= 3 else 2
        return deck(packs=packs, jokers=packs)

    def penalty(self, card: str) -> int:
        """Special rules 1: joker 25, K Q J 10, 2-10 face value, A 1."""
        return 25 if card == "JK" else min(rank(card), 10)

    def free_points(self, seat: int) -> int:
        """Special rules 4: the least value of the seat's cards outside combinations formed within its hand."""
        return best_split(self.hands[seat], self.meld_rules, self.penalty).points

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """A hand's combinations and free points (what it counts at a showdown, and the knock test)."""
        out = super().evaluate(hand)
        return {**out, "points": out["deadwood_points"], "may_knock": out["deadwood_points"] <= KNOCK_LIMIT}

    # --- deal and decisions -----------------------------------------------------------------
    def start_deal(self) -> None:
        super().start_deal()
        self.draws = 0
        self.knocker: int | None = None
        self.last_drawer: int | None = None  # the seat that drew the last stock card

    def may_knock(self, seat: int) -> bool:
        return self.phase in ("play", "last") and self.free_points(seat) <= KNOCK_LIMIT

    def decision(self, seat: int) -> Decision:
        knock = self.may_knock(seat)
        constraints = {"draws": self.draws, "free_points": self.free_points(seat), "may_knock": knock}
        options: list[Op]
        if self.phase == "draw":
            options = [Draw("stock")]
        elif self.phase == "play":
            options = [Draw("stock")] if self.stock and self.draws < DRAWS else [Pass()]
            options += [Knock()] if knock else []
        elif self.phase == "last":
            options = [Knock(), Pass()]
        else:
            options = [Pass()]
        return Decision("turn", self.phase, options, constraints)

    def view(self, seat: int) -> dict[str, Any]:
        v = super().view(seat)
        for key in ("opened", "taken"):
            v.pop(key, None)
        return {**v, "draws": self.draws}

    def fallback(self, seat: int) -> list[Op]:
        """Draw while it must; pass when it may; never knock or meld."""
        options = self.decision(seat).options or []
        return [next((o for o in options if not isinstance(o, Knock)), options[0])]

    # --- a play -------------------------------------------------------------------------------
    def do(self, seat: int, op: Op) -> None:
        match op:
            case Draw():
                self.stock_draw(seat, op)
            case Knock():
                self.knock(seat)
            case Pass():
                self.pass_turn()
            case Discard():
                raise IllegalAction("discard.no-pile", "carousel has no discard pile: a turn ends without a discard")
            case Exchange():
                raise IllegalAction("exchange.none", "no joker exchange: a joker can only be robbed (Special rules 3)")
            case _:
                if self.phase == "last":
                    raise IllegalAction("play.after-third-draw", "no table action after the third draw")
                super().do(seat, op)

    def can_lay_off(self, seat: int) -> bool:
        """Special rules 3: lay-offs on any meld from the start."""
        return True

    def stock_draw(self, seat: int, op: Draw) -> None:
        """Turn structure 1-4: the top stock card, up to three a turn, none after a table action."""
        if op.source != "stock":
            raise IllegalAction("draw.stock-only", "there is no discard pile: draw from the stock")
        if op.depth != 1:
            raise IllegalAction("draw.one-card", "draw one card at a time")
        if self.phase == "final":
            raise IllegalAction("final.no-draw", "there is no draw in the final round")
        if self.placed_now:
            raise IllegalAction("draw.after-table-action", "your drawing is over once you have put cards on the table")
        if self.phase == "last" or self.draws >= DRAWS:
            raise IllegalAction("draw.three", "at most three draws a turn")
        if not self.stock:
            raise IllegalAction("draw.empty-stock", "the stock is empty: make a table action, knock or pass")
        card = self.stock.pop()
        self.hands[seat].append(card)
        self.emit({"type": "draw", "seat": seat, "source": "stock"}, seat, card=card)
        self.draws += 1
        self.phase = "play"
        if not self.stock:
            self.last_drawer = seat

    def knock(self, seat: int) -> None:
        """Turn structure 5: free points of 5 or less, after the first draw, not in the final round."""
        if self.phase == "final":
            raise IllegalAction("knock.final-round", "nobody may knock in the final round (Ambiguity 3)")
        if self.phase == "draw":
            raise IllegalAction("knock.before-draw", "knock after your first draw")
        free = self.free_points(seat)
        if free > KNOCK_LIMIT:
            raise IllegalAction(
                "knock.too-many-points", f"your free cards count {free}: knock at {KNOCK_LIMIT} or less"
            )
        self.knocker = seat
        self.emit({"type": "knock", "seat": seat, "free_points": free})
        self.showdown("knock", first_lowest(self.all_free(), seat))  # Ambiguity 9: the knocker wins a tie

    def pass_turn(self) -> None:
        """End the turn without a table action: after a third draw, in the final round, or with the stock empty."""
        if self.phase == "draw":
            raise IllegalAction("draw.first", "draw the top stock card first")
        if self.phase == "play" and self.stock and self.draws < DRAWS and not self.placed_now:
            raise IllegalAction("draw.again", "you put nothing on the table: draw another card (up to three)")
        self.phase = "over"

    def end_play(self, seat: int, was_opened: bool) -> None:
        """Going out ends the deal; a table action, a pass or a third draw ends the turn; else the drawing goes on."""
        if self.robbed:
            self.check_robbed()
        if not self.hands[seat]:
            return self.go_out(seat)
        if self.phase in ("over", "final", "last") or self.placed_now:
            return self.turn_done()
        if self.draws >= DRAWS:  # after the third draw only a knock is left, where it is allowed
            if self.free_points(seat) <= KNOCK_LIMIT:
                self.phase = "last"
                return
            return self.turn_done()

    def turn_done(self) -> None:
        """The turn is over: the next player's, a final turn, or the showdown."""
        self.turns += 1
        self.draws = 0
        if self.in_final_round:
            return self.next_final_turn()
        if self.last_drawer is not None:  # End of a deal: one more turn each, the last drawer last
            return self.begin_final_round(self.order_from(self.next_seat(self.turn)), last_drawer=self.last_drawer)
        self.clear_turn()
        if self.turns >= self.opts["max_turns_per_deal"]:  # Ambiguity 15: counted as after a stock exhaustion
            return self.showdown("turn-cap", first_lowest(self.all_free(), self.next_seat(self.turn)))
        self.turn = self.next_seat(self.turn)
        self.phase = "draw"

    def final_round_over(self) -> None:
        """End of a deal: the lowest free points win; ties go to the first in the final round's order."""
        assert self.last_drawer is not None
        self.showdown("stock-out", first_lowest(self.all_free(), self.next_seat(self.last_drawer)))

    # --- the end of a deal -------------------------------------------------------------------
    def all_free(self) -> list[int]:
        return [self.free_points(s) for s in range(self.n)]

    def go_out(self, seat: int) -> None:
        """Going out: the deal ends at once; all at once if the seat made no table action in an earlier turn."""
        self.showdown("out", seat, at_once=not self.placed_before[seat])

    def showdown(self, kind: str, winner: int, at_once: bool = False) -> None:
        """Scoring: only the winner scores the others' free points less his own, plus 10 (and 25 for going out
        all at once); reaching 150 adds 100 and ends the match."""
        self.phase = "over"
        free = self.all_free()
        score = sum(free) - 2 * free[winner] + WIN_BONUS + (AT_ONCE_BONUS if at_once else 0)
        reached = self.totals[winner] + score >= TARGET
        scores: list[float] = [0] * self.n
        scores[winner] = score + (TARGET_BONUS if reached else 0)
        hands = [sorted(h) for h in self.hands]
        detail = {"hands": hands, "free_points": free, "end": kind, "at_once": at_once, "target_bonus": reached}
        self.finish_deal(scores, winner, **detail)

    def match_ended(self) -> bool:
        return max(self.totals) >= TARGET
