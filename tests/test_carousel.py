"""Carousel (rules/carousel.md): every worked example, the three draws, knocking, robbing, the final round after
the stock runs out, the tie rules, the winner-only scoring and the match to 150, and greedy against random."""

import json
import subprocess
import sys

import pytest
from rigging import illegal
from rigging import rig as base_rig

from protocol.messages import Discard, Draw, Exchange, Knock, LayOff, Meld, Pass, Take
from referee.rules.variants.carousel import Carousel
from sample_bots.brain import Brain


def rig(hands, table=(), stock=("2C",) * 20, **kw):
    return base_rig(Carousel, hands, table=table, stock=stock, discard=(), **kw)


def cards(g, meld):
    return " ".join(g.table[meld].cards)


# --- Worked examples (derived in the rules file) --------------------------------------------------------------
def test_worked_example_showdown_after_a_knock_pays_the_knocker_the_others_free_points_less_his_own_plus_10():
    # A's free cards AS 3D = 4; B's free points 12 (QC 2H), C's 30 (KC QD TH)
    g = rig(["4H 5H 6H AS 3D", "QC 2H 7S 7H 7D", "KC QD TH"], stock=("9C", "8C"))
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Knock()]) == "knock.too-many-points"  # the 8C drawn makes AS 3D 8C = 12
    g = rig(["4H 5H 6H AS 3D 8D 8S", "QC 2H 7S 7H 7D", "KC QD TH"], stock=("9C", "8C"))
    g.apply(0, [Draw("stock")])
    g.apply(0, [Knock()])  # 8C makes a set of 8s: free AS 3D = 4
    deal = g.deal_results[0]
    assert deal["free_points"] == [4, 12, 30] and deal["winner"] == 0
    assert deal["scores"] == [(12 + 30) - 4 + 10, 0, 0] == [48, 0, 0]


def test_worked_example_going_out_all_at_once_adds_25():
    g = rig(["4H 5H 6H 9S 9D", "JK", "2C 3D 4S"], stock=("9C",))
    g.apply(0, [Draw("stock")])
    g.apply(0, [Meld(["4H", "5H", "6H"]), Meld(["9S", "9D", "9C"])])
    deal = g.deal_results[0]
    assert deal["free_points"] == [0, 25, 9] and deal["at_once"]
    assert deal["scores"] == [34 - 0 + 10 + 25, 0, 0] == [69, 0, 0]


def test_going_out_after_an_earlier_table_action_gets_no_at_once_bonus():
    g = rig(["9S 9D", "JK", "2C 3D 4S"], table=[(0, "4H 5H 6H")], stock=("9C",), placed=[True, False, False])
    g.apply(0, [Draw("stock")])
    g.apply(0, [Meld(["9S", "9D", "9C"])])
    assert g.deal_results[0]["scores"] == [44, 0, 0] and not g.deal_results[0]["at_once"]


def test_worked_example_rob_keeps_three_valid_cards_in_the_robbed_meld():
    g = rig(["TH JH 2C 5S", "KD"], table=[(1, "6H 7H 8H 9H")], stock=("3D", "KC"))
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Take(0, ["7H"]), Meld(["7H", "TH", "JH"])]) == "rob.remainder"
    g.apply(0, [Take(0, ["9H"]), Meld(["9H", "TH", "JH"])])
    assert cards(g, 0) == "6H 7H 8H" and cards(g, 1) == "9H TH JH" and g.table[1].owner == 0


def test_worked_example_the_first_to_150_gets_100_more_and_the_match_ends():
    g = rig(["4H 5H 6H 9S 9D", "5C", "2C 3D"], stock=("9C",))
    g.totals = [140, 0, 0]
    g.apply(0, [Draw("stock")])
    g.apply(0, [Meld(["4H", "5H", "6H"]), Knock()])  # free 9S 9D 9C: none; knock at 0
    deal = g.deal_results[0]
    assert deal["scores"][0] == (5 + 5) - 0 + 10 + 100 and deal["target_bonus"]
    assert g.is_over() and g.result()["ranks"][0] == 1


def test_worked_example_match_a_player_at_140_winning_25_reaches_265():
    g = rig(["4H 5H 6H AS 3D 8D 8S", "QC 2H 7S 7H 7D", "7C"], stock=("9C", "8C"))
    g.totals = [140, 0, 0]
    g.apply(0, [Draw("stock")])
    g.apply(0, [Knock()])  # free AS 3D = 4; the others 12 and 7: 19 - 4 + 10 = 25
    assert g.deal_results[0]["scores"] == [25 + 100, 0, 0]
    assert g.totals[0] == 265 and g.is_over()


def test_the_lowest_free_total_wins_a_showdown_not_necessarily_the_knocker():
    g = rig(["4H 5H 6H AS 3D 8D 8S", "QC 2H 7S 7H 7D", "3C"], stock=("9C", "8C"))
    g.apply(0, [Draw("stock")])
    g.apply(0, [Knock()])  # knocker 4; C has 3
    assert g.deal_results[0]["winner"] == 2 and g.deal_results[0]["scores"] == [0, 0, (4 + 12) - 3 + 10]


# --- Turn structure: up to three draws, table actions end the drawing -----------------------------------------
def test_a_player_who_puts_nothing_down_must_draw_again_up_to_three_times_then_his_turn_ends():
    g = rig(["2S 5D 9C KH", "3S"], stock=["4C"] * 10)
    g.apply(0, [Draw("stock")])
    d = g.decision(0)
    assert (d.phase, d.options, d.constraints["draws"]) == ("play", [Draw("stock")], 1)
    assert illegal(g, 0, [Pass()]) == "draw.again"
    g.apply(0, [Draw("stock")])
    g.apply(0, [Draw("stock")])
    assert (g.turn, g.phase, len(g.hands[0])) == (1, "draw", 7)  # the third draw ended the turn


def test_a_table_action_ends_the_drawing_and_the_turn():
    g = rig(["4H 5H 6H 2S 9D", "3S"], stock=["KC"] * 10)
    g.apply(0, [Draw("stock")])
    g.apply(0, [Meld(["4H", "5H", "6H"])])
    assert (g.turn, g.phase) == (1, "draw")
    g = rig(["4H 5H 6H 2S 9D", "3S"], stock=["KC"] * 10)
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["4H", "5H", "6H"]), Draw("stock")]) == "draw.after-table-action"


def test_after_a_third_draw_only_a_knock_or_a_pass_and_no_table_action():
    g = rig(["4H 5H 6H 2S", "3S"], stock=["AC", "7D", "9D"])
    assert illegal(g, 0, [Draw("stock"), Draw("stock")]) == "draw.ends-play"  # each card is seen first
    for _ in range(3):
        g.apply(0, [Draw("stock")])
    assert g.turn == 1  # free 2S 9D 7D AC = 19: no knock, so the third draw ended the turn
    g = rig(["4H 5H 6H 2S 7S 8S", "3S"], stock=["KC", "AC", "2C", "9S"])
    for _ in range(3):
        g.apply(0, [Draw("stock")])  # 9S joins 7S 8S; free 2S 2C AC = 5
    d = g.decision(0)
    assert (g.turn, d.phase, d.options, d.constraints["free_points"]) == (0, "last", [Knock(), Pass()], 5)
    assert illegal(g, 0, [Meld(["4H", "5H", "6H"])]) == "play.after-third-draw"
    assert illegal(g, 0, [Draw("stock")]) == "draw.three"
    g.apply(0, [Pass()])
    assert (g.turn, g.phase) == (1, "draw")


def test_variant_specific_illegal_plays_are_rejected_with_their_rules_and_change_nothing():
    g = rig(["4H 5H 6H 2S KD", "3S 3D 3H"], table=[(1, "9C 9D 9S")], stock=["KC"] * 5)
    assert illegal(g, 0, [Draw("discard")]) == "draw.stock-only"
    assert illegal(g, 0, [Knock()]) == "knock.before-draw"
    assert illegal(g, 0, [Meld(["4H", "5H", "6H"])]) == "play.before-draw"
    assert illegal(g, 0, [Draw("stock"), Meld(["4H", "5H", "6H"])]) == "draw.ends-play"  # the card is seen first
    g.apply(0, [Draw("stock")])
    before = (list(map(list, g.hands)), list(g.stock), list(g.table), g.draws)
    assert illegal(g, 0, [Discard("KD")]) == "discard.no-pile"
    assert illegal(g, 0, [Knock()]) == "knock.too-many-points"
    assert illegal(g, 0, [Exchange(0, "2S")]) == "exchange.none"
    assert illegal(g, 0, [Meld(["4H", "5H", "6H"]), Discard("KD")]) == "discard.no-pile"
    assert (list(map(list, g.hands)), list(g.stock), list(g.table), g.draws) == before
    g2 = rig(["4H 5H 6H 9H", "3S"], table=[(0, "7C 7D 7S 7H")], stock=["KC"] * 5)
    g2.apply(0, [Draw("stock")])
    assert illegal(g2, 0, [Take(0, ["7H"]), Meld(["4H", "5H", "6H", "7H"])]) == "rob.own-meld"
    g3 = rig(["TH JH 2C 5S", "KD"], table=[(1, "6H 7H 8H 9H")], stock=["KC"] * 5)
    g3.apply(0, [Draw("stock")])
    assert illegal(g3, 0, [Take(0, ["9H"]), LayOff(0, ["9H"])]) == "rob.unplaced"


def test_lay_offs_on_any_meld_from_the_start_count_as_a_table_action():
    g = rig(["KH 2S 5D", "3S"], table=[(1, "9H TH JH QH")], stock=["8C"] * 5)
    g.apply(0, [Draw("stock")])
    g.apply(0, [LayOff(0, ["KH"])])
    assert cards(g, 0) == "9H TH JH QH KH" and g.turn == 1


# --- the end of a deal: the final round, ties --------------------------------------------------------------
def test_after_the_last_stock_card_everyone_has_one_more_turn_from_the_next_player_ending_with_the_drawer():
    g = rig(["2S 5D", "3S 4C", "KD QD"], stock=["9C"], turn=1)
    g.apply(1, [Draw("stock")])  # the last stock card, nothing put down: the turn goes on until it ends
    d = g.decision(1)
    assert (g.turn, d.phase, d.options) == (1, "play", [Pass()])
    g.apply(1, [Pass()])
    assert (g.turn, g.phase, g.view(0)["finals_left"]) == (2, "final", [0, 1])
    assert illegal(g, 2, [Knock()]) == "knock.final-round"
    assert illegal(g, 2, [Draw("stock")]) == "final.no-draw"
    g.apply(2, [Pass()])
    g.apply(0, [Pass()])
    g.apply(1, [Pass()])
    deal = g.deal_results[0]
    assert deal["end"] == "stock-out" and deal["free_points"] == [7, 16, 20] and deal["winner"] == 0
    assert deal["scores"] == [16 + 20 - 7 + 10, 0, 0]


def test_a_stock_out_tie_goes_to_the_first_in_the_final_rounds_order():
    g = rig(["2S 5D", "3S 4C", "4D 3D"], stock=["9C"], turn=1)  # seats 0 and 2 tie at 7; order 2, 0, 1
    g.apply(1, [Draw("stock")])
    g.apply(1, [Pass()])
    for s in (2, 0, 1):
        g.apply(s, [Pass()])
    assert g.deal_results[0]["winner"] == 2


def test_a_knock_tie_goes_to_the_knocker_else_nearest_to_his_left():
    g = rig(["4H 5H 6H 3S", "AS 2D", "3C"], stock=["KC", "AD"])
    g.apply(0, [Draw("stock")])
    g.apply(0, [Knock()])  # knocker 0: free 3S AD = 4; seat 1 free 3; seat 2 free 3
    assert g.deal_results[0]["winner"] == 1  # seats 1 and 2 tie below the knocker: nearest his left
    g = rig(["4H 5H 6H 2S", "AS 2D", "3C"], stock=["KC", "AD"])
    g.apply(0, [Draw("stock")])
    g.apply(0, [Knock()])  # knocker free 2S AD = 3, tied with both
    assert g.deal_results[0]["winner"] == 0


def test_going_out_in_the_final_round_ends_the_deal_at_once():
    g = rig(["2S 5D", "3S 4C", "KD QD JD"], stock=["9C"], turn=1)
    g.apply(1, [Draw("stock")])
    g.apply(1, [Pass()])
    g.apply(2, [Meld(["JD", "QD", "KD"])])
    deal = g.deal_results[0]
    assert deal["winner"] == 2 and deal["end"] == "out" and deal["scores"][2] == 7 + 16 + 10 + 25


# --- deck, deal, eval, the sample bots ------------------------------------------------------------------
@pytest.mark.parametrize(("n", "deck", "stock"), [(2, 53, 33), (3, 53, 23), (4, 106, 66), (5, 106, 56)])
def test_the_pack_and_the_stock_by_player_count(n, deck, stock):
    g = Carousel(n, {}, 3)
    assert len(g.make_deck()) == deck and len(g.stock) == stock and not g.piles[0]
    assert g.make_deck().count("JK") == (1 if n <= 3 else 2)
    assert all(len(h) == 10 for h in g.hands)


def romis_eval(*args):
    out = subprocess.run([sys.executable, "-m", "referee", "eval", "carousel", *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_eval_names_the_free_points_and_whether_the_hand_may_knock():
    result = json.loads(romis_eval("--hand", "4H 5H 6H AS 3D 8D 8S 8C", "--json"))
    assert result["points"] == 4 and result["may_knock"] and sorted(result["deadwood"]) == ["3D", "AS"]
    text = romis_eval("--hand", "4H 5H 6H AS 3D 8D 8S JK KD")  # the joker joins the 8s; AS 3D KD are free
    assert "points: 14" in text and "may knock: no" in text


def play(n, seed, greedy_seat):
    g = Carousel(n, {}, seed)
    brains = [Brain("carousel", n, g.opts, greedy=s == greedy_seat, seed=seed * 11 + s) for s in range(n)]
    while not g.is_over():
        for s in g.to_act():
            g.apply(s, brains[s].choose(g.decision(s), g.view(s)))
    return g


def test_greedy_beats_random_at_two_players():
    wins = sum(play(2, seed, seed % 2).result()["ranks"][seed % 2] == 1 for seed in range(12))
    assert wins >= 10, f"greedy won {wins} of 12"


def test_greedy_comes_first_well_above_chance_at_four_players():
    wins = sum(play(4, seed, seed % 4).result()["ranks"][seed % 4] == 1 for seed in range(20))
    assert wins >= 9, f"greedy came first in {wins} of 20 (chance: 5)"
