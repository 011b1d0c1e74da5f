"""Victoria's bank and match rules (referee/rules/lethargics.py) on a test-only variant built on classic: each deal
is played normally, and the tests settle it with the penalties they choose (`force`), as a family would."""

from typing import Any

import pytest

from protocol.messages import Bid, Pass
from referee.rules.errors import IllegalAction
from referee.rules.lethargics import VictoriaBank, round_half_up
from referee.rules.variants.classic import Classic
from sample_bots.brain import Brain


class Banked(VictoriaBank, Classic):
    """Classic played for victoria's bank: the deal's penalties are classic's, the declarer its winner."""

    slug = "classic"

    def end_deal(self, winner: int | None) -> None:
        self.phase = "over"
        self.settle_victoria(winner, [int(p) for p in self.score_deal(winner)])

    def force(self, declarer: int | None, penalties: list[int] | None, bonus: int = 0) -> None:
        """End the current deal at once with these results (what a family's scoring would give)."""
        self.phase = "over"
        self.settle_victoria(declarer, penalties, bonus)


def answer(game: Banked, *yes: int) -> list[tuple[str, int, dict[str, Any]]]:
    """Answer every question between deals, yes for the seats in `yes` (once each); return what was asked."""
    asked = []
    while game.between and not game.is_over():
        (seat,) = game.to_act()
        d = game.decision(seat)
        asked.append((d.kind, seat, dict(d.constraints)))
        game.apply(seat, [Bid(d.options[0].value)] if seat in yes else [Pass()])  # type: ignore[union-attr]
        yes = tuple(s for s in yes if s != seat)
    return asked


def test_every_player_stakes_and_the_declarer_takes_a_quarter_rounded_up():
    game = Banked(4, {"stake": 25}, 1)
    assert game.main_bank == 100 and game.ledger.chips == (-25,) * 4
    game.force(2, [10, 20, 0, 30])  # worked example 9: 100 -> 25 taken, 75 left
    assert game.main_bank == 75 and game.ledger.chips[2] == 0
    game.force(0, [0, 5, 5, 5])  # ceil(75/4) = 19, 56 left
    assert game.main_bank == 56 and game.ledger.chips[0] == -6
    assert game.points == (10, 25, 5, 35)


def test_a_bonus_is_subtracted_and_an_annulled_deal_changes_nothing():
    game = Banked(3, {}, 2)
    game.force(1, [7, 0, 9], bonus=50)
    assert game.points == (7, -50, 9)
    chips, bank = game.ledger, game.main_bank
    game.force(None, None)
    assert game.points == (7, -50, 9) and game.ledger == chips and game.main_bank == bank
    assert game.deal_results[-1]["annulled"] is True and game.deal_results[-1]["scores"] == [0, 0, 0]


def test_a_lethargic_declarer_takes_nothing_and_collects_a_carry():
    game = Banked(3, {}, 3)
    game.force(1, [101, 0, 0])
    assert game.beyond == (True, False, False) and game.carry == (0, 0, 0)
    bank = game.main_bank
    game.force(0, [0, 12, 4], bonus=25)
    assert game.main_bank == bank  # beyond rummy: no quarter
    assert game.points == (76, 12, 4) and game.carry == (-25, 0, 0) and game.beyond[0]  # stays beyond


def test_the_last_player_not_beyond_rummy_wins_the_game_and_the_bank():
    game = Banked(3, {"games": 2}, 4)
    game.force(2, [101, 50, 0])
    game.force(2, [0, 60, 0])  # seat 1 goes over too: seat 2 wins the game and the rest of the bank
    result = game.deal_results[-1]
    assert result["game_winner"] == 2 and game.games_won == 1 and not game.is_over()
    assert game.game_no == 1 and game.points == (0, 0, 0) and game.beyond == (False,) * 3
    # the next game's stakes are paid at once (12 chips), and chips and bank still sum to zero
    assert game.main_bank == 12 and game.ledger.total() == 0
    assert game.ledger.chips[2] == -4 + 3 + 3 + 6 - 4  # stake, two quarters, the rest, the next stake


def test_the_match_ends_after_the_games_are_won_and_ranks_by_net_chips():
    game = Banked(2, {}, 5)
    game.force(0, [0, 101])
    assert game.is_over() and game.ledger.bank == 0
    assert game.result()["ranks"] == [1, 2] and game.result()["totals"] == [4, -4]


def test_everyone_over_at_once_starts_a_new_game_with_the_bank_kept_and_carries():
    game = Banked(3, {"games": 1}, 6)
    game.force(1, [101, 0, 10])
    game.force(1, [30, 0, 10])  # seat 0 carries 30
    bank = game.main_bank
    game.force(0, [5, 101, 101])  # nobody is left: no winner, everyone stakes again, a new game
    assert not game.is_over() and game.games_won == 0 and game.game_no == 1
    assert game.main_bank == bank + 12 and game.points == (35, 0, 0)


def test_a_winner_with_more_than_100_bonus_points_pays_no_stake_next_game():
    game = Banked(2, {"games": 2}, 7)
    game.force(0, [0, 60], bonus=100)
    game.force(0, [5, 50], bonus=10)  # seat 0 at -105, seat 1 over 100
    assert game.games_won == 1 and game.deal_results[-1]["moved"]["stake"] == [0, -4]
    game.force(0, [0, 101], bonus=80)  # -80: half the stake, rounded up
    assert game.is_over()


def test_the_main_bank_running_out_makes_everyone_stake_again():
    game = Banked(2, {"stake": 1}, 8)
    game.force(0, [0, 0])  # 2 -> 1 left
    game.force(1, [0, 0])  # ceil(1/4) = 1: the bank is empty, both pay 1 again
    assert game.main_bank == 2 and game.deal_results[-1]["moved"]["stake"] == [-1, -1]


def test_a_bank_emptied_by_the_deal_that_ends_the_game_is_not_restaked_twice():
    game = Banked(2, {"stake": 1, "games": 2}, 8)
    game.force(0, [0, 0])  # 2 -> 1 left
    game.force(1, [101, 0])  # seat 1 takes the last chip and wins the game: only the next game's stakes follow
    assert game.deal_results[-1]["moved"]["stake"] == [-1, -1] and game.main_bank == 2


def test_buying_down_takes_half_the_bank_and_the_nearest_lower_total():
    game = Banked(3, {"stake": 10}, 9)
    game.force(2, [90, 60, 0])  # 30 -> 8 to seat 2, 22 left
    asked = answer(game, 0)
    assert asked == [("buydown", 0, {"price": 11, "total": 60})]  # worked example 10: A 90 -> 60
    assert game.points == (60, 60, 0) and game.main_bank == 33


def test_buy_down_windows_and_repeats():
    game = Banked(3, {}, 10)
    game.force(2, [99, 85, 80])  # 99 may not; 85 may, to 80; 80 may not (nobody lower)
    assert [(k, s) for k, s, _ in answer(game)] == [("buydown", 1)]
    game = Banked(4, {}, 11)
    game.force(3, [95, 85, 40, 0])  # seat 0 buys down to 85, then again to 40
    asked = answer(game, 0)
    assert asked[0][:2] == ("buydown", 0) and asked[0][2]["total"] == 85


def test_questions_follow_playing_order_from_the_first_player_and_are_public():
    game = Banked(4, {}, 12)
    first = game.next_seat(game.dealer)
    pens = [88] * 4
    pens[first] = 10
    game.force(first, pens)
    order = game.order_from(first)
    asked = answer(game)
    assert [s for _, s, _ in asked] == order[1:]
    assert [e.data["seat"] for e in game.log if e.data.get("type") == "buydown"] == order[1:]


def test_reentry_is_asked_first_at_the_average_of_the_others():
    game = Banked(4, {"reentry_by_average": True}, 13)
    game.force(3, [101, 20, 31, 0])
    asked = answer(game, 0)
    assert asked[0] == ("reentry", 0, {"price": 6, "total": 17})  # (20 + 31 + 0) / 3 = 17
    assert game.points[0] == 17 and not game.beyond[0]


def test_a_declined_reentry_goes_beyond_and_the_average_leaves_out_the_undecided():
    game = Banked(3, {"reentry_by_average": True}, 14)
    first = game.next_seat(game.dealer)
    second, third = game.order_from(first)[1:]
    pens = [0] * 3
    pens[first] = pens[second] = 101
    pens[third] = 5
    game.force(third, pens)
    asked = answer(game)
    assert [(k, s, c["total"]) for k, s, c in asked] == [("reentry", first, 5), ("reentry", second, 5)]
    assert game.games_won == 1  # both declined: only the third seat is left


def test_the_side_bank_forms_with_two_lethargics_and_goes_to_the_lowest():
    game = Banked(4, {"letarg_side_bank": True, "games": 2}, 15)
    game.force(3, [101, 0, 0, 0])
    assert game.side == 0
    game.force(3, [0, 120, 0, 0])
    assert game.side == 8 and game.main_bank + game.side == game.ledger.bank
    game.force(3, [30, 0, 101, 0])  # a third joins; seat 3 wins the game; seat 2 has the lowest total (101)
    moved = game.deal_results[-1]["moved"]
    assert moved["side-bank"] == [0, 0, -4, 0] and moved["side-bank-win"] == [0, 0, 12, 0] and game.side == 0


def test_a_bad_answer_is_rejected_and_changes_nothing():
    game = Banked(2, {}, 16)
    game.force(1, [90, 10])
    (seat,) = game.to_act()
    before = (game.points, game.ledger, len(game.log))
    with pytest.raises(IllegalAction) as e:
        game.apply(seat, [Bid("reenter")])
    assert e.value.rule == "buydown.answer"
    assert (game.points, game.ledger, len(game.log)) == before


def test_round_half_up():
    assert [round_half_up(t, c) for t, c in ((5, 2), (4, 3), (-5, 2), (51, 3))] == [3, 1, -2, 17]


@pytest.mark.parametrize("seed", range(3))
def test_whole_matches_keep_the_chips_balanced(seed):
    game = Banked(3, {"max_deals": 40, "reentry_by_average": True, "letarg_side_bank": True}, seed)
    brains = [Brain("classic", 3, {"max_deals": 40}, greedy=False, seed=seed + s) for s in range(3)]
    while not game.is_over():
        for seat in game.to_act():
            game.apply(seat, brains[seat].choose(game.decision(seat), game.view(seat)))
        assert game.ledger.total() == 0
    assert game.result()["totals"] == list(game.ledger.chips)
