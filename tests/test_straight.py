"""Straight Rummy (rules/straight.md): every worked example, whole-hand rummy, the interruption round, multipliers."""

import pytest
from rigging import illegal

from protocol.messages import Discard, Draw, Knock, LayOff, Meld, Pass
from referee.rules.variants.straight import Straight


def rig(hands, stock=(), discard=("9D",), turn=0, turns=None, cls=Straight, **options):
    """A game at the start of seat `turn`'s normal turn (its first turn only if `turns` < players).
    The stock is drawn from its end; seat `turn` is Pirmasis."""
    g = cls(len(hands), options, seed=1)
    g.hands = [h.split() for h in hands]
    g.stock = list(stock) or ["KC"] * 30
    g.piles = [list(discard)]
    g.turn, g.phase, g.dealer = turn, "draw", (turn - 1) % g.n
    g.turns = g.n if turns is None else turns
    return g


def finish(g):
    return g.deal_results[-1]["finish"]


def scores(g):
    return g.deal_results[-1]["scores"]


# --- worked examples ---------------------------------------------------------------------------
def test_worked_example_1_after_the_interruption_the_lowest_wins_the_difference():
    # D (seat 3) plays the last normal turn: the stock is then down to 4 = N and A (seat 0) interrupts
    g = rig(["5S 6S 7S 3D", "8H 8S 8D 5C", "9C TC JC", "4C 2C QH QS QD"], stock=["QC", "2S", "2H", "AC", "KC"], turn=3)
    g.apply(3, [Draw("stock"), Discard("KC")])
    assert g.interrupter == 0 and g.to_act() == [0] and g.decision(0).phase == "last-draw"
    g.apply(0, [Draw("stock")])
    g.apply(0, [Meld(["5S", "6S", "7S"])])  # A: 3D AC = 4
    g.apply(1, [Draw("stock"), Meld(["8H", "8S", "8D"])])  # B: 5C 2H = 7
    g.apply(2, [Draw("stock"), Meld(["9C", "TC", "JC"])])  # C: 2S = 2
    g.apply(3, [Draw("stock"), Meld(["QH", "QS", "QD", "QC"])])  # D: 4C 2C = 6
    assert finish(g)["unused"] == [4, 7, 2, 6] and finish(g)["multiplier"] == 1
    assert g.deal_results[-1]["winner"] == 2 and scores(g) == [0, 0, 15, 0]


def rummy_by_c(**options):
    """C (seat 2) declares rummy; A, B and D hold deadwood 4, 7 and 6 (A's three 2s are a set in hand)."""
    g = rig(["2H 2S 2D 4C", "7C", "5H 6H 7H 9S 9D 9C", "6D"], turn=2, **options)
    g.apply(2, [Draw("stock"), Meld(["5H", "6H", "7H"]), Meld(["9S", "9D", "9C"]), Discard("KC")])
    return g


def test_worked_example_2_a_rummy_before_the_interruption_doubles():
    g = rummy_by_c()
    assert finish(g)["unused"] == [4, 7, 0, 6] and finish(g)["multiplier"] == 2
    assert scores(g) == [0, 0, 34, 0]


def test_rummy_opponents_count_all_cards_counts_combinations_in_hand_too():
    g = rummy_by_c(rummy_opponents_count="all_cards")
    assert finish(g)["unused"] == [10, 7, 0, 6] and scores(g) == [0, 0, 46, 0]


def test_worked_example_3_a_tie_goes_clockwise_from_the_interrupter():
    g = rig(["2H", "2S", "7C", "4D"], stock=["AH", "AD", "AS", "AC", "KH"], turn=2)
    g.apply(2, [Draw("stock"), Discard("KH")])
    assert g.interrupter == 3
    for seat in (3, 0, 1, 2):  # D: 4D AC = 5; A: 2H AS = 3; B: 2S AD = 3; C: 7C AH = 8
        g.apply(seat, [Draw("stock"), Pass()])
    assert finish(g)["unused"] == [3, 3, 8, 5]
    assert g.deal_results[-1]["winner"] == 0 and scores(g) == [13, 0, 0, 0]


# --- deal and turn --------------------------------------------------------------------------------
@pytest.mark.parametrize("players,hand_size", [(2, 7), (4, 7), (6, 7), (4, 6)])
def test_the_deal(players, hand_size):
    g = Straight(players, {"hand_size": hand_size}, seed=4)
    assert all(len(h) == hand_size for h in g.hands) and len(g.piles[0]) == 1
    assert len(g.stock) == 104 - hand_size * players - 1 and "JK" not in g.cards_in_play()
    assert g.to_act() == [(g.dealer + 1) % players]


@pytest.mark.parametrize("run", ["QH KH AH", "KH AH 2H"])
def test_the_ace_is_low_only(run):
    g = rig(["QH KH 2H 5C 5D 5S 9C", "2C"], stock=["AH"] * 30)
    g.apply(0, [Draw("stock")])
    rest = next(c for c in ["QH", "KH", "2H"] if c not in run.split())
    assert illegal(g, 0, [Meld(run.split()), Meld(["5C", "5D", "5S"]), Discard(rest)]) == "run.invalid"


def test_ace_two_three_is_a_sequence():
    g = rig(["2H 3H 5C 5D 5S KH", "2C"], stock=["AH"] * 30)
    g.apply(0, [Draw("stock"), Meld(["AH", "2H", "3H"]), Meld(["5C", "5D", "5S"]), Discard("KH")])
    assert g.deal_results[-1]["winner"] == 0


def test_a_set_of_five_needs_all_four_suits():
    g = rig(["8H 8H 8S 8D 2C 3C 4C", "7C"], stock=["8S"] * 30)
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["8H", "8H", "8S", "8D", "8S"]), Meld(["2C", "3C", "4C"])]) == "set.four-suits-first"
    g = rig(["8H 8H 8S 8D 2C 3C 4C", "7C"], stock=["8C"] * 30)
    g.apply(0, [Draw("stock"), Meld(["8H", "8H", "8S", "8D", "8C"]), Meld(["2C", "3C", "4C"])])
    assert g.deal_results[-1]["winner"] == 0


def test_no_partial_melds_and_a_rejected_play_changes_nothing():
    g = rig(["5H 6H 7H 9S 9D 9C 2D", "7C"])
    g.apply(0, [Draw("stock")])
    hand = list(g.hands[0])
    assert illegal(g, 0, [Meld(["5H", "6H", "7H"])]) == "rummy.whole-hand"
    assert illegal(g, 0, [Meld(["5H", "6H", "7H"]), Meld(["9S", "9D", "9C"]), Discard("KC")]) == "rummy.whole-hand"
    assert g.hands[0] == hand and g.table == [] and g.phase == "play"


def test_no_lay_offs_during_play():
    g = rig(["5H 6H 7H 9S 9D 9C 2D", "7C"])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [LayOff(0, ["2D"])]) == "layoff.interruption-only"


def test_knocking_is_not_an_operation_of_straight():
    g = rig(["5H 6H 7H 9S 9D 9C 2D", "7C"])
    assert illegal(g, 0, [Knock()]) == "op.unsupported"


def test_rummy_with_all_eight_cards_and_no_discard():
    g = rig(["5H 6H 7H 9S 9D 9C KH KD", "7C"], stock=["KS"] * 30)
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["5H", "6H", "7H"]), Meld(["9S", "9D", "9C"])]) == "rummy.whole-hand"
    g.apply(0, [Meld(["5H", "6H", "7H"]), Meld(["9S", "9D", "9C"]), Meld(["KH", "KD", "KS"])])
    assert g.deal_results[-1]["winner"] == 0 and finish(g)["multiplier"] == 2


def test_the_rummy_discard_may_not_be_the_card_taken_from_the_pile():
    g = rig(["5H 6H 7H 9S 9D 9C", "7C"], discard=("KD",))
    g.apply(0, [Draw("discard")])
    assert illegal(g, 0, [Meld(["5H", "6H", "7H"]), Meld(["9S", "9D", "9C"]), Discard("KD")]) == "discard.rediscard"


def test_the_card_taken_from_the_pile_may_not_be_discarded_at_once():
    g = rig(["5H 6H 8C 9S 2D KC", "7C"], discard=("KD",))
    g.apply(0, [Draw("discard")])
    assert illegal(g, 0, [Discard("KD")]) == "discard.rediscard"
    assert "KD" not in [o.card for o in g.decision(0).options]
    g.apply(0, [Discard("KC")])
    assert g.to_act() == [1]


# --- immediate rummy and the x4 cases -----------------------------------------------------------
SEVEN = "AS 2S 3S 8C 8D 8H 8S"


def test_immediate_rummy_in_the_first_turn_quadruples():
    g = rig([SEVEN, "7C 2D"], turns=0)
    assert g.decision(0).constraints["immediate_rummy"]
    g.apply(0, [Meld(["AS", "2S", "3S"]), Meld(["8C", "8D", "8H", "8S"])])
    assert finish(g)["kind"] == "immediate-rummy" and finish(g)["multiplier"] == 4 and scores(g) == [36, 0]


def test_immediate_rummy_for_the_second_player_in_his_first_turn():
    g = rig(["7C 2D", SEVEN], turn=1, turns=1)
    g.apply(1, [Meld(["AS", "2S", "3S"]), Meld(["8C", "8D", "8H", "8S"])])
    assert finish(g)["multiplier"] == 4


def test_a_rummy_before_drawing_after_the_first_turn_is_illegal():
    g = rig([SEVEN, "7C 2D"])
    assert not g.decision(0).constraints["immediate_rummy"]
    assert illegal(g, 0, [Meld(["AS", "2S", "3S"]), Meld(["8C", "8D", "8H", "8S"])]) == "rummy.immediate-first-turn"


def test_rummy_by_pirmasis_after_taking_the_starter_quadruples():
    g = rig(["AS 2S 8C 8D 8H 8S KD", "7C 2D"], discard=("3S",), turns=0)
    g.apply(0, [Draw("discard"), Meld(["AS", "2S", "3S"]), Meld(["8C", "8D", "8H", "8S"]), Discard("KD")])
    assert finish(g)["multiplier"] == 4


def test_a_later_players_first_pickup_doubles_unless_first_discard_any_player():
    hands = ["7C 2D", "AS 2S 8C 8D 8H 8S KD"]
    g = rig(hands, discard=("3S",), turn=1, turns=1)
    g.apply(1, [Draw("discard"), Meld(["AS", "2S", "3S"]), Meld(["8C", "8D", "8H", "8S"]), Discard("KD")])
    assert finish(g)["multiplier"] == 2
    g = rig(hands, discard=("3S",), turn=1, turns=5, first_discard_any_player=True)
    g.apply(1, [Draw("discard"), Meld(["AS", "2S", "3S"]), Meld(["8C", "8D", "8H", "8S"]), Discard("KD")])
    assert finish(g)["multiplier"] == 4
    g = rig(hands, discard=("3S",), turn=1, turns=5, first_discard_any_player=True)
    g.pile_draws[1] = 1  # he took from the pile in an earlier turn
    g.apply(1, [Draw("discard"), Meld(["AS", "2S", "3S"]), Meld(["8C", "8D", "8H", "8S"]), Discard("KD")])
    assert finish(g)["multiplier"] == 2


@pytest.mark.parametrize("melds", [["AH 2H 3H 4H 5H 6H 7H"], ["AH 2H 3H", "4H 5H 6H 7H"]])
def test_a_full_hand_sequence_quadruples_however_it_is_grouped(melds):
    g = rig(["AH 2H 3H 4H 5H 6H 9C", "7C 2D"], stock=["7H"] * 30)
    g.apply(0, [Draw("stock")] + [Meld(m.split()) for m in melds] + [Discard("9C")])
    assert finish(g)["multiplier"] == 4 and scores(g) == [36, 0]


def test_the_full_hand_sequence_is_judged_against_hand_size():
    g = rig(["AH 2H 3H 4H 5H 6H 9C", "7C 2D"], stock=["7H"] * 30, hand_size=6)
    g.apply(0, [Draw("stock"), Meld(["AH", "2H", "3H", "4H", "5H", "6H", "7H"]), Discard("9C")])
    assert finish(g)["multiplier"] == 4  # 7 >= 6
    g = rig(["AH 2H 3H 4H 5H 8S 8D", "7C 2D"], stock=["8H"] * 30)
    g.apply(0, [Draw("stock"), Meld(["AH", "2H", "3H", "4H", "5H"]), Meld(["8S", "8D", "8H"])])
    assert finish(g)["multiplier"] == 2


# --- the interruption round -------------------------------------------------------------------------
def interrupted(hands, stock, players_turn, cls=Straight, **options):
    """Seat `players_turn` plays a last normal turn (draws the stock top and discards it); the round begins."""
    g = rig(hands, stock=stock, turn=players_turn, cls=cls, **options)
    top = g.stock[-1]
    g.apply(players_turn, [Draw("stock"), Discard(top)])
    return g


def test_the_interruption_begins_when_a_turn_leaves_n_stock_cards_or_fewer():
    g = rig(["2H", "2S", "7C"], stock=["AH", "AD", "AS", "AC", "KH"], turn=0)
    g.apply(0, [Draw("discard"), Discard("2H")])  # the stock still holds 5 > 3
    assert g.interrupter is None and g.to_act() == [1]
    g.apply(1, [Draw("stock"), Discard("KH")])  # 4 > 3
    assert g.interrupter is None
    g.apply(2, [Draw("stock"), Discard("AC")])  # 3
    assert g.interrupter == 0 and g.decision(0).phase == "last-draw"


def test_only_the_interrupter_may_take_the_top_discard():
    g = interrupted(["2H", "2S", "7C"], ["AH", "AD", "AS", "KH"], 2)
    assert [o.source for o in g.decision(0).options] == ["stock", "discard"]
    g.apply(0, [Draw("discard")])
    assert "KH" in g.hands[0] and g.decision(0).phase == "declare"
    assert [type(o).__name__ for o in g.decision(0).options] == ["Pass"]
    g.apply(0, [Pass()])
    assert [o.source for o in g.decision(1).options] == ["stock"]
    assert illegal(g, 1, [Draw("discard")]) == "interruption.stock-only"


def test_nobody_discards_or_declares_before_the_last_draw_in_the_round():
    g = interrupted(["2H 3H 4H", "2S", "7C"], ["AH", "AD", "AS", "KH"], 2)
    assert illegal(g, 0, [Meld(["2H", "3H", "4H"])]) == "interruption.draw-first"
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Discard("AS")]) == "interruption.no-discard"


def test_later_players_may_add_to_others_combinations():
    # A interrupts and declares 5S-7S; B lays off on it and empties his hand: U = 0, but no rummy,
    # and the deal goes on (Ambiguities 11, 18); B wins with x1
    g = interrupted(["5S 6S 7S KD", "8S 9S", "2C"], ["3C", "4S", "QD", "KH"], 2)
    g.apply(0, [Draw("stock"), Meld(["5S", "6S", "7S"])])
    g.apply(1, [Draw("stock"), LayOff(0, ["4S", "8S", "9S"])])
    assert g.hands[1] == [] and g.to_act() == [2] and g.table[0].ids[0] == "4S"
    g.apply(2, [Draw("stock"), Pass()])
    assert finish(g)["unused"] == [20, 0, 5] and g.deal_results[-1]["winner"] == 1
    assert finish(g)["multiplier"] == 1 and scores(g) == [0, 25, 0]


def test_a_winner_after_the_interruption_with_all_cards_in_one_sequence_quadruples():
    g = interrupted(["AH 2H 3H 4H 5H 6H 7H", "KS 9H", "9C"], ["TC", "QS", "8H", "KD"], 2)
    g.apply(0, [Draw("stock"), Meld(["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H"])])
    g.apply(1, [Draw("stock"), LayOff(0, ["9H"])])  # B's card in A's sequence does not change A's cards
    g.apply(2, [Draw("stock"), Pass()])
    assert finish(g)["unused"] == [0, 20, 19] and finish(g)["multiplier"] == 4 and scores(g) == [156, 0, 0]


def test_undeclared_combinations_count_in_full():
    g = interrupted(["5S 6S 7S", "2S", "2C"], ["3C", "AD", "AH", "KH"], 2)
    g.apply(0, [Draw("stock"), Pass()])
    g.apply(1, [Draw("stock"), Pass()])
    g.apply(2, [Draw("stock"), Pass()])
    assert finish(g)["unused"] == [19, 3, 5] and g.deal_results[-1]["winner"] == 1


def test_the_fallback_declares_the_best_combinations():
    g = interrupted(["5S 6S 7S KD", "2S", "2C"], ["3C", "AD", "AH", "KH"], 2)
    g.apply(0, [Draw("stock")])
    assert g.fallback(0) == [Meld(["5S", "6S", "7S"], kind="run")]


# --- end of the deal and of the match ------------------------------------------------------------
def test_the_turn_cap_ends_the_deal_with_no_winner_and_the_deal_passes_left():
    g = rig(["5H 6H 8C 9S 2D KC", "7C"], max_turns_per_deal=1)
    dealer = g.dealer
    g.apply(0, [Draw("stock"), Discard("KC")])
    d = g.deal_results[-1]
    assert d["winner"] is None and d["scores"] == [0, 0] and g.dealer == (dealer + 1) % 2


def test_the_match_ends_at_the_target_and_the_highest_total_wins():
    g = rig(["5H 6H 7H 9S 9D 9C", "7C 2D"])
    g.totals = [85, 99]
    g.apply(0, [Draw("stock"), Meld(["5H", "6H", "7H"]), Meld(["9S", "9D", "9C"]), Discard("KC")])
    assert g.is_over() and g.to_act() == [] and g.totals == [103, 99] and g.result()["ranks"] == [1, 2]


def test_the_match_goes_on_below_the_target():
    g = rig(["5H 6H 7H 9S 9D 9C", "7C 2D"], target=200)
    g.totals = [80, 90]
    g.apply(0, [Draw("stock"), Meld(["5H", "6H", "7H"]), Meld(["9S", "9D", "9C"]), Discard("KC")])
    assert not g.is_over() and g.deal_no == 1


def test_eval_reports_deadwood():
    res = Straight.evaluate(["AH", "2H", "3H", "5C", "5D", "5S", "KD"])
    assert res["points"] == 10 and res["deadwood"] == ["KD"] and not res["rummy"]


def test_options_are_the_files():
    assert set(Straight.all_options()) == {
        "hand_size",
        "target",
        "first_discard_any_player",
        "rummy_opponents_count",
        "max_turns_per_deal",
        "max_deals",
        "allow_rediscard",
    }
