"""Decisions between deals (referee/rules/between.py), on two test-only variants built on classic: a points game
where a seat over a limit may buy its total back to 0, and a chips game where the same buy-back costs chips."""

from typing import Any

import pytest

from protocol.messages import Bid, Op, Pass
from referee.rules.between import Ask, BetweenDeals
from referee.rules.chips import ChipsGame
from referee.rules.errors import IllegalAction
from referee.rules.variants.classic import Classic
from sample_bots.brain import Brain


class Buyback(BetweenDeals, Classic):
    """Classic where every seat whose total is over 20 after a deal is asked whether to go back to 0."""

    slug = "classic"

    def between_question(self, seat: int) -> Ask | None:
        return Ask("buyback", "buyback", {"total": self.total_after(seat)}) if self.total_after(seat) > 20 else None

    def between_answer(self, seat: int, ask: Ask, yes: bool) -> None:
        if yes:
            self.set_total(seat, 0)
            self.note(bought=[*self.pending.detail.get("bought", []), seat])  # type: ignore[union-attr]


class PaidBuyback(BetweenDeals, ChipsGame, Classic):
    """The same, played for chips: each seat stakes 10, and a buy-back costs 5 chips into the bank."""

    slug = "classic"

    def start_deal(self) -> None:
        super().start_deal()
        if self.deal_no == 0:
            self.ante(range(self.n), 10)
        self.pens = getattr(self, "pens", (0,) * self.n)

    def end_deal(self, winner: int | None) -> None:
        # the family's penalties go to a counter of their own, and the totals are the chips; the mixin then
        # holds the deal back for its questions
        self.phase = "over"
        self.pens = tuple(p + s for p, s in zip(self.pens, self.score_deal(winner)))
        self.finish_chips_deal(winner, pens=list(self.pens))

    def between_question(self, seat: int) -> Ask | None:
        return Ask("buyback", "buyback", {"fee": 5}) if self.pens[seat] > 20 else None

    def between_answer(self, seat: int, ask: Ask, yes: bool) -> None:
        if yes:
            self.ante([seat], 5, "buyback")
            self.pens = tuple(0 if s == seat else p for s, p in enumerate(self.pens))


def to_between(game: Any, brains: list[Brain]) -> None:
    """Play until a between-deals question is asked."""
    while not game.between:
        assert not game.is_over(), "no question was asked in the whole match"
        for seat in game.to_act():
            game.apply(seat, brains[seat].choose(game.decision(seat), game.view(seat)))


def brains_for(game: Any, seed: int) -> list[Brain]:
    return [Brain("classic", game.n, game.opts, greedy=True, seed=seed + s) for s in range(game.n)]


def test_after_a_deal_the_seats_over_the_limit_are_asked_in_playing_order_and_answers_are_public():
    game = Buyback(3, {}, 5)
    to_between(game, brains_for(game, 5))
    deals = len(game.deal_results)
    order = game.order_from(game.next_seat(game.dealer))
    asked = [s for s in order if game.total_after(s) > 20]
    for seat in asked:  # one seat at a time, from the dealer's left
        assert game.to_act() == [seat]
        d = game.decision(seat)
        assert (d.kind, d.phase, d.options) == ("buyback", "between-deals", [Bid("buyback"), Pass()])
        assert d.constraints == {"total": game.total_after(seat)}
        assert game.view(seat)["phase"] == "between-deals"
        cursor = len(game.log)
        yes = seat == asked[0]
        game.apply(seat, [Bid("buyback") if yes else Pass()])
        for other in range(game.n):  # the answer is public at once, before the deal is recorded
            events, _ = game.events_since(other, cursor)
            assert {"type": "buyback", "seat": seat, "answer": "buyback" if yes else "pass"} in events
    record = game.deal_results[deals]  # recorded only now, with the buy-back in its scores and totals
    assert record["totals"][asked[0]] == 0 and record["bought"] == [asked[0]]
    assert [a["seat"] for a in record["between"]] == asked
    assert all(record["totals"][s] > 20 for s in asked[1:])


def test_a_wrong_answer_is_rejected_with_its_rule_and_changes_nothing_and_the_fallback_passes():
    game = Buyback(2, {}, 5)
    to_between(game, brains_for(game, 5))
    seat = game.to_act()[0]
    before = (game.totals[:], game.pending, len(game.log))
    for ops in ([Bid("yes")], [Bid("buyback"), Pass()], [Bid(3)]):
        with pytest.raises(IllegalAction) as e:
            game.apply(seat, ops)
        assert e.value.rule == "buyback.answer"
        assert (game.totals, game.pending, len(game.log)) == before
    assert game.fallback(seat) == [Pass()]


def test_a_whole_match_with_buy_backs_is_deterministic_and_conserves_chips():
    def play(seed: int) -> Any:
        game = PaidBuyback(3, {"max_deals": 6}, seed)
        brains = brains_for(game, seed)
        while not game.is_over():
            for seat in game.to_act():
                d = game.decision(seat)
                ops: list[Op] = (
                    [Bid("buyback")] if d.phase == "between-deals" else brains[seat].choose(d, game.view(seat))
                )
                game.apply(seat, ops)
                assert game.ledger.total() == 0
        return game

    game = play(11)
    result = game.result()
    assert result == play(11).result()
    bought = [a for d in result["deals"] for a in d.get("between", [])]
    assert bought, "some seat bought back in six deals"
    for deal in result["deals"]:  # the fee is in the deal's own scores, as the chips it moved
        fees = [a["seat"] for a in deal.get("between", [])]
        assert deal["moved"].get("buyback", [0] * 3) == [-5 if s in fees else 0 for s in range(3)]
        assert deal["chips"] == deal["totals"]
    assert sum(result["chips"]) + result["bank"] == 0
