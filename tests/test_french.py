"""French Rummy (rules/french.md): every worked example, the two ways to draw and discard, the 8-card rummy, the one
manipulation per turn, sets of exactly four, the end of a deal at stock-out, penalties and the bonus column,
bankruptcy with buy-backs, the bank, `romis eval`, and greedy against random."""

import json

import pytest
from rigging import illegal, rig

from protocol.messages import Bid, Discard, Draw, Exchange, LayOff, Meld, Pass
from referee.cli import run
from referee.rules.errors import ConfigError
from referee.rules.melds import is_valid, new_meld
from referee.rules.variants.french import FRENCH_MELDS, French
from sample_bots.brain import Brain

FILL = "2D 4C 6H 8D QC"  # five unrelated cards: no combination, no lay-off on the melds used below


def game(hands, table=(), stock=("KD",) * 20, discard=("9D",), **kw):
    return rig(French, hands, table=table, stock=stock, discard=discard, **kw)


def manipulating(g, seat=0, card="KD"):
    """Draw from the stock and discard `card` (the stock's top card by default): the manipulation is next."""
    g.apply(seat, [Draw("stock"), Discard(card)])
    assert (g.turn, g.phase) == (seat, "manipulate")
    return g


def state(g):
    return ([h[:] for h in g.hands], [p[:] for p in g.piles], list(g.table), g.phase, g.turn, len(g.log), g.ledger)


def rejected(g, seat, ops):
    """The rule `ops` break; the game is left exactly as it was."""
    before = state(g)
    rule = illegal(g, seat, ops)
    assert state(g) == before
    return rule


def last(g):
    return g.deal_results[-1]


# --- worked examples --------------------------------------------------------------------------------------------
def connected_layoff_table():
    """Example 1: A (seat 1) has melded ♠J-10-9; B (seat 0) holds ♠Q, ♠8, ♠7 and has a combination of his own."""
    g = game(["QS 8S 7S 2D 4C", "5H 5D"], table=[(1, "9S TS JS"), (0, "3H 4H 5H")], opened=[True, True])
    return manipulating(g)


def test_example_1_the_queen_alone_is_a_valid_lay_off():
    g = connected_layoff_table()
    g.apply(0, [LayOff(0, ["QS"])])
    assert g.table[0].ids == ("9S", "TS", "JS", "QS") and g.turn == 1


def test_example_1_the_eight_and_seven_together_are_a_valid_lay_off():
    g = connected_layoff_table()
    g.apply(0, [LayOff(0, ["8S", "7S"])])
    assert g.table[0].ids == ("7S", "8S", "9S", "TS", "JS") and g.turn == 1


def test_example_1_queen_eight_and_seven_in_one_manipulation_are_rejected():
    g = connected_layoff_table()
    assert rejected(g, 0, [LayOff(0, ["QS", "8S", "7S"])]) == "layoff.not-connected"
    assert rejected(g, 0, [LayOff(0, ["QS"]), LayOff(0, ["8S", "7S"])]) == "manipulation.one"


def test_example_2_a_set_has_exactly_four_cards():
    g = manipulating(game(["KS KH KD KC JK 2D 4C", "5H"]))
    assert rejected(g, 0, [Meld(["KS", "KH", "KD"])]) == "set.min-size"
    g.apply(0, [Meld(["KS", "KH", "KD", "KC"])])
    assert g.table[0].kind == "set" and g.turn == 1
    new_meld(["KS", "KH", "KD", "JK"], FRENCH_MELDS)  # three naturals and the joker: valid


def test_example_2_a_set_with_the_joker_can_never_be_changed_or_added_to():
    table = [(1, "KS KH KD JK"), (0, "3H 4H 5H")]
    g = manipulating(game(["KC 2D 4C", "5H"], table=table, opened=[True, True]))
    assert g.table[0].ids[-1] == "KC"  # the joker stands for the missing king
    assert rejected(g, 0, [Exchange(0, "KC")]) == "exchange.set-joker"
    assert rejected(g, 0, [LayOff(0, ["KC"])]) == "layoff.complete-set"


def test_example_3_eight_card_rummy_with_the_top_discard():
    g = game(["AH 2H 3H 9S 9H 9D 9C", "5H 5D"], discard=("7C", "4H"))
    g.apply(0, [Draw("discard"), Meld(["AH", "2H", "3H", "4H"]), Meld(["9S", "9H", "9D", "9C"])])
    assert last(g)["winner"] == 0 and last(g)["penalties"] == [0, 10] and last(g)["bonuses"] == [10, 0]
    assert g.deal_no == 1  # the deal ended without a discard


def test_example_4_the_ace_is_low_only():
    assert is_valid(["AC", "2C", "3C"], "run", FRENCH_MELDS)
    assert not is_valid(["QC", "KC", "AC"], "run", FRENCH_MELDS)
    g = manipulating(game(["QC KC AC 2D 4C 6H 8D", "5H"]))
    assert rejected(g, 0, [Meld(["QC", "KC", "AC"])]) == "run.invalid"


def test_example_5_penalties_and_the_winners_bonus_column():
    g = game(["5H 6H 7H", "JK 7S", "KD AS", "5C"], stock=("3D",) * 10)
    g.apply(0, [Draw("stock"), Discard("3D"), Meld(["5H", "6H", "7H"])])
    d = last(g)
    assert d["winner"] == 0 and d["penalties"] == [0, 27, 11, 5]
    assert d["penalty_totals"] == [0, 27, 11, 5] and d["bonuses"] == [43, 0, 0, 0]
    assert d["scores"] == [-100] * 4 and set(d["moved"]) == {"stake"}  # no money moves without `deal_win_payment`


# --- drawing and discarding (Turn structure 1; Ambiguities 1, 2, 9, 10) ------------------------------------------
def test_a_pile_take_sets_a_card_aside_takes_the_top_and_puts_the_card_aside_on_the_pile():
    g = game(["2D 4C 6H 8D QC KS 3H", "5H"], discard=("7C", "9D"))
    cursor = len(g.log)
    g.apply(0, [Discard("KS"), Draw("discard")])
    assert g.piles[0] == ["7C", "KS"] and "9D" in g.hands[0] and "KS" not in g.hands[0]
    assert g.phase == "manipulate" and g.turn == 0
    events, _ = g.events_since(1, cursor)
    assert [(e["type"], e.get("card")) for e in events] == [("draw", "9D"), ("discard", "KS")]


def test_a_card_set_aside_must_be_followed_by_the_take():
    g = game(["2D 4C 6H 8D QC KS 3H", "5H"])
    assert rejected(g, 0, [Discard("KS")]) == "draw.set-aside"
    assert rejected(g, 0, [Discard("KS"), Draw("stock")]) == "draw.set-aside"


def test_after_a_stock_draw_the_discard_comes_at_once_and_may_be_the_drawn_card():
    g = game(["2D 4C 6H 8D QC KS 3H", "5H"], stock=("JC",))
    g.apply(0, [Draw("stock")])
    d = g.decision(0)
    assert d.phase == "discard" and Discard("JC") in d.options and len(d.options) == 8
    assert rejected(g, 0, [Pass()]) == "pass.not-now"
    g.apply(0, [Discard("JC")])
    assert g.phase == "manipulate" and g.decision(0).options == [Pass()]
    assert rejected(g, 0, [Discard("KS")]) == "discard.once"
    assert rejected(g, 0, [Draw("stock")]) == "draw.once"


def test_nothing_is_melded_before_the_draw_and_discard():
    g = game(["5H 6H 7H 2D 4C 6S 8D", "5C"])
    assert rejected(g, 0, [Meld(["5H", "6H", "7H"])]) == "play.before-draw"
    g.apply(0, [Draw("stock")])  # 8 cards: a meld now is an 8-card rummy, which this hand is not
    assert rejected(g, 0, [Meld(["5H", "6H", "7H"]), Discard("KD")]) == "rummy.eight-cards"


def test_eight_card_rummy_after_a_stock_draw():
    g = game(["AH 2H 3H 9S 9H 9D 9C", "5H 5D"], stock=("4H",))
    g.apply(0, [Draw("stock")])
    assert g.decision(0).constraints["eight_card_rummy"]
    g.apply(0, [Meld(["AH", "2H", "3H", "4H"]), Meld(["9S", "9H", "9D", "9C"])])
    assert last(g)["winner"] == 0


def test_eight_card_rummy_needs_no_earlier_melds_all_eight_cards_and_new_combinations_only():
    hands = ["AH 2H 3H 9S 9H 9D 9C", "5H 5D"]
    g = game(hands, table=[(0, "5S 6S 7S")], opened=[True, False], discard=("4H",))
    assert not g.decision(0).constraints["eight_card_rummy"]
    assert rejected(g, 0, [Draw("discard"), Meld(["AH", "2H", "3H", "4H"])]) == "rummy.eight-after-meld"
    g = game(hands, discard=("4H",))
    assert rejected(g, 0, [Draw("discard"), Meld(["AH", "2H", "3H", "4H"])]) == "rummy.eight-cards"
    g = game(hands, table=[(1, "5S 6S 7S")], discard=("8S",))
    assert rejected(g, 0, [Draw("discard"), LayOff(0, ["8S"])]) == "rummy.eight-new-melds"


# --- one manipulation (Turn structure 2; Special rules; Ambiguities 3, 4) ---------------------------------------
def test_one_meld_a_turn_and_two_only_in_a_rummy():
    g = manipulating(game(["5H 6H 7H 9S 9H 9D 9C 2D", "5C"]))
    assert rejected(g, 0, [Meld(["5H", "6H", "7H"]), Meld(["9S", "9H", "9D", "9C"])]) == "manipulation.one"
    g.apply(0, [Meld(["5H", "6H", "7H"])])
    assert g.turn == 1 and g.hands[0] == ["9S", "9H", "9D", "9C", "2D"]


def test_a_rummy_puts_the_whole_hand_down_at_once():
    g = manipulating(game(["5H 6H 7H 9S 9H 9D 9C", "5C"]))
    g.apply(0, [Meld(["5H", "6H", "7H"]), Meld(["9S", "9H", "9D", "9C"])])
    assert last(g)["winner"] == 0


def test_a_rummy_after_earlier_melds_mixes_new_combinations_and_lay_offs_on_others():
    table = [(1, "9S TS JS"), (0, "3H 4H 5H")]
    g = manipulating(game(["QS KS 6H 2C 3C 4C", "5D"], table=table, opened=[True, True]))
    g.apply(0, [LayOff(0, ["QS", "KS"]), LayOff(1, ["6H"]), Meld(["2C", "3C", "4C"])])
    assert last(g)["winner"] == 0


def test_lay_offs_on_another_players_combination_need_one_of_ones_own():
    g = manipulating(game(["QS 2D 4C 6H 8D QC", "5D"], table=[(1, "9S TS JS")]))
    assert not g.decision(0).constraints["lay_off_on_others"]
    assert rejected(g, 0, [LayOff(0, ["QS"])]) == "layoff.own-combination-first"
    # melding first in the same play does not count: the combination must already be on the table
    g = manipulating(game(["QS 5H 6H 7H", "5D"], table=[(1, "9S TS JS")]))
    assert rejected(g, 0, [Meld(["5H", "6H", "7H"]), LayOff(0, ["QS"])]) == "layoff.own-combination-first"


def test_lay_off_on_ones_own_combination_needs_nothing_more():
    g = manipulating(game(["8H 2D 4C 6H 8D QC", "5D"], table=[(0, "5H 6H 7H")]))
    g.apply(0, [LayOff(0, ["8H"])])
    assert g.table[0].ids[-1] == "8H" and g.turn == 1


def test_the_joker_in_a_sequence_may_be_replaced_and_goes_to_the_hand():
    table = [(1, "9S JK JS"), (0, "3H 4H 5H")]
    g = manipulating(game(["TS 2D 4C 6H 8D QC", "5D"], table=table, opened=[True, True]))
    g.apply(0, [Exchange(0, "TS")])
    assert g.table[0].cards == ("9S", "TS", "JS") and "JK" in g.hands[0] and g.turn == 1


def test_a_joker_exchange_is_a_manipulation_of_its_own():
    table = [(1, "9S JK JS"), (0, "3H 4H 5H")]
    g = manipulating(game(["TS 2D 4C 6H 8D QC", "5D"], table=table, opened=[True, True]))
    assert rejected(g, 0, [Exchange(0, "TS"), LayOff(1, ["6H"])]) == "manipulation.one"
    g = manipulating(game(["TS 7H 8H", "5D"], table=table, opened=[True, True]))
    assert rejected(g, 0, [Exchange(0, "TS"), Meld(["JK", "7H", "8H"])]) == "manipulation.one"
    g = manipulating(game(["TS 2D 4C", "5D"], table=[(1, "9S JK JS")]))
    assert rejected(g, 0, [Exchange(0, "TS")]) == "layoff.own-combination-first"


def test_pass_ends_the_turn_without_a_manipulation():
    g = manipulating(game(["5H 6H 7H 2D 4C 6S 8D", "5C"]))
    g.apply(0, [Pass()])
    assert g.turn == 1 and g.phase == "draw" and len(g.hands[0]) == 7


# --- the end of a deal (End of a deal; Ambiguity 6, 13) ----------------------------------------------------------
def test_the_deal_ends_after_the_turn_that_draws_the_last_stock_card_and_nobody_wins():
    g = game(["5H 6H 7H 2D 4C 6S 8D", "AC"], stock=("KD",))
    manipulating(g).apply(0, [Meld(["5H", "6H", "7H"])])
    d = last(g)
    assert d["winner"] is None and d["penalties"] == [20, 1] and d["bonuses"] == [0, 0]


def test_a_deal_that_reaches_the_turn_cap_ends_like_a_stock_exhaustion():
    g = game(["2D 4C 6H 8D QC KS 3H", "AC 5S"], max_turns_per_deal=1)
    g.apply(0, [Discard("KS"), Draw("discard"), Pass()])
    assert last(g)["winner"] is None and last(g)["penalties"] == [42, 6]


def test_the_deal_win_payment_by_agreement():
    g = game(["5H 6H 7H", "JK 7S", "KD AS"], stock=("3D",) * 10, deal_win_payment=5)
    g.apply(0, [Draw("stock"), Discard("3D"), Meld(["5H", "6H", "7H"])])
    assert last(g)["moved"]["deal-win"] == [10, -5, -5] and g.result()["chips"] == [-90, -105, -105]


# --- bankruptcy, buy-backs and the bank (End of the match; Ambiguities 8, 14) ------------------------------------
def going_out(hands, penalties, dealer=None, buybacks=None, **options):
    """Seat 0 goes out at once; the others keep `hands` (their penalties), after `penalties` so far."""
    g = game(["5H 6H 7H", *hands], stock=("3D",) * 10, **options)
    g.penalties = tuple(penalties)
    g.buybacks = tuple(buybacks or (0,) * g.n)
    g.dealer = g.n - 1 if dealer is None else dealer
    g.apply(0, [Draw("stock"), Discard("3D"), Meld(["5H", "6H", "7H"])])
    return g


def stock_out(penalties, bonuses=(0, 0)):
    """Two players; seat 0 draws the last stock card and passes: both hands score (50 and 20 points)."""
    g = game(["KS QS 2C 4D 6H 8C TD", "KD KH"], stock=("3D",))
    g.penalties, g.bonuses, g.dealer = tuple(penalties), tuple(bonuses), 1
    g.apply(0, [Draw("stock"), Discard("3D"), Pass()])
    return g


def test_a_player_at_100_may_buy_back_to_the_highest_total_below_100_for_the_fee():
    g = going_out(["KD KH", "2C"], (40, 85, 60))
    assert g.to_act() == [1] and g.deal_no == 0  # the deal is held back while the question is open
    d = g.decision(1)
    assert (d.kind, d.phase) == ("buyback", "between-deals")
    assert d.constraints == {"fee": 30, "total": 105, "target": 62, "buybacks_left": 3}
    assert rejected(g, 1, [Bid("yes")]) == "buyback.answer"
    g.apply(1, [Bid("buyback")])
    assert g.penalties == (40, 62, 62) and g.buybacks == (0, 1, 0) and g.ledger.bank == 330
    assert last(g)["moved"]["buyback"] == [0, -30, 0] and g.seats_in() == [0, 1, 2]


def test_a_player_who_passes_goes_bankrupt_and_the_last_one_left_takes_the_bank():
    g = going_out(["KD KH"], (0, 85))
    g.apply(1, [Pass()])
    assert g.is_over() and g.result()["ranks"] == [1, 2]
    assert g.result()["chips"] == [100, -100] and g.result()["bank"] == 0
    assert last(g)["moved"]["bank"] == [200, 0]


def test_after_three_buy_backs_a_player_goes_bankrupt():
    g = going_out(["KD KH", "2C"], (40, 85, 60), buybacks=(0, 3, 0))
    assert g.deal_no == 1 and g.decision(g.to_act()[0]).kind == "turn"  # no question was asked
    assert g.seats_in() == [0, 2] and last(g)["eliminated"] == [1]


def test_several_bankrupt_players_decide_one_at_a_time_in_playing_order():
    g = going_out(["KD KH", "2C", "KC QC"], (90, 85, 60, 95), dealer=2)  # seat 3 plays first, then 0, 1, 2
    assert g.to_act() == [3] and g.decision(3).constraints["target"] == 90
    g.apply(3, [Pass()])
    assert g.to_act() == [1] and g.decision(1).constraints["target"] == 90
    g.apply(1, [Bid("buyback")])
    assert g.penalties == (90, 90, 62, 115) and last(g)["eliminated"] == [3]
    assert [(a["seat"], a["answer"]) for a in last(g)["between"]] == [(3, "pass"), (1, "buyback")]


def test_without_an_opponent_below_100_there_is_no_buy_back_and_the_lowest_total_wins():
    g = stock_out((60, 85))
    assert g.is_over() and "between" not in last(g)
    assert g.penalties == (110, 105) and g.result()["ranks"] == [2, 1]
    assert last(g)["match_winners"] == [1] and g.result()["chips"] == [-100, 100]


def test_equal_lowest_totals_go_to_the_higher_bonus_column_then_split_the_bank():
    g = stock_out((55, 85), bonuses=(20, 0))
    assert g.penalties == (105, 105) and g.result()["ranks"] == [1, 2] and g.result()["chips"] == [100, -100]
    g = stock_out((55, 85), bonuses=(20, 20))
    assert g.result()["ranks"] == [1, 1] and last(g)["match_winners"] == [0, 1]
    assert g.result()["chips"] == [0, 0] and g.result()["bank"] == 0


def test_at_the_deal_cap_the_lowest_total_still_in_wins_the_bank():
    g = going_out(["KD", "KC QC QD"], (40, 10, 60), max_deals=1)
    assert g.is_over() and g.penalties == (40, 20, 90)
    assert g.result()["ranks"] == [2, 1, 3] and g.result()["chips"] == [-100, 200, -100]


# --- options, eval, the bots -----------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{"stake": "lots"}, {"buyback_fee": -1}, {"deal_win_payment": "five"}])
def test_a_bad_option_value_is_one_clear_config_error(options):
    with pytest.raises(ConfigError) as e:
        French(2, options, 0)
    assert str(e.value).startswith(f"option {next(iter(options))}:")


def test_every_player_stakes_the_bank_before_the_first_deal():
    g = French(4, {"stake": 25}, 3)
    assert g.ledger.bank == 100 and list(g.ledger.chips) == [-25] * 4
    stake = next(e.data for e in g.log if e.data["type"] == "chips")
    assert {m["reason"] for m in stake["moves"]} == {"stake"} and len(stake["moves"]) == 4


def test_eval_values_a_hand_by_its_penalty_points(capsys):
    assert run(["eval", "french", "--json", "--hand", "AH 2H 3H JK 9S 9H 9D 9C"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["deadwood"] == [] and res["points"] == 62 and len(res["melds"]) == 2
    assert run(["eval", "french", "--json", "--hand", "KS KH KD 2C"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["melds"] == [] and res["points"] == 32  # three kings are no set here


def play(n, seed, greedy_seat):
    g = French(n, {}, seed)
    bots = [Brain("french", n, {}, greedy=s == greedy_seat, seed=seed * 10 + s) for s in range(n)]
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
        assert g.ledger.total() == 0
    return g.result()


@pytest.mark.parametrize(("players", "matches", "needed"), [(2, 10, 8), (5, 5, 3)])
def test_greedy_beats_random(players, matches, needed):
    wins = sum(play(players, seed, seed % players)["ranks"][seed % players] == 1 for seed in range(matches))
    assert wins >= needed


def test_romis_play_prints_each_deals_penalties_beside_the_chips():
    from referee.play import deal_line

    g = game(["5H 6H 7H", "JK 7S", "KD AS", "5C"], stock=("3D",) * 10)
    g.apply(0, [Draw("stock"), Discard("3D"), Meld(["5H", "6H", "7H"])])
    line = deal_line(last(g))
    assert "seat 0 won" in line and "penalties [0, 27, 11, 5] -> [0, 27, 11, 5]" in line and "bank 400" in line
