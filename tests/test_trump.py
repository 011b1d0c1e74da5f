"""Trump Rummy (rules/trump.md): both worked examples, the trump rank and a joker starter, the 30 opening, additions
to one's own melds only, trump hanging, the joker exchange, the open declaration and its penalties, and greedy
against random."""

import json
import sys

import pytest
import rigging
from rigging import illegal

from protocol.messages import Discard, Draw, Exchange, Knock, LayOff, Meld, Pass
from referee.cli import run
from referee.rules.cards import rank
from referee.rules.melds import new_meld
from referee.rules.variants.trump import Trump, packs_for
from sample_bots.brain import Brain


def rig(hands, table=(), stock=("2C",) * 20, discard=("9D",), trump="Q", opened=None, turn=0, **options):
    """A Trump game in a chosen position (start of seat `turn`'s turn), trump rank `trump`."""
    g = rigging.rig(Trump, hands, table=table, stock=stock, discard=discard, opened=opened, turn=turn, **options)
    g.trump = rank(trump + "S")
    return g


def draw_and(g, seat, *ops):
    g.apply(seat, [Draw("stock"), *ops])


# --- worked example 1: trump hanging --------------------------------------------------------------------------
def test_worked_example_1_every_player_hangs_his_queens_on_the_melded_queen():
    g = rig(["QS QD 3C 7D 8H", "QC QH 4C 6D 9S", "5S 6S 7S 8S 9S"], table=[(2, "TH JH QH")], trump="Q")
    draw_and(g, 0, LayOff(0, ["QS", "QD"]), Discard("3C"))
    g.apply(1, [Draw("stock"), LayOff(0, ["QC"]), LayOff(0, ["QH"]), Discard("4C")])
    assert g.table[0].cards == ("TH", "JH", "QH")  # the hearts sequence itself is unchanged
    assert g.table[0].hung == ("QS", "QD", "QC", "QH")
    assert g.view(2)["table"][0]["hung"] == ["QS", "QD", "QC", "QH"]
    assert not any(q in h for h in g.hands for q in ("QS", "QD", "QC", "QH"))


def test_hung_cards_do_not_extend_the_meld_and_are_not_penalised():
    g = rig(
        ["QS KH 3C 8C 6D 9D", "2D 3D 4D 6S 6H 6C KC"],
        table=[(1, "TH JH QH")],
        trump="Q",
        opened=[True, True],
        placed=[False, True],
    )
    draw_and(g, 0, LayOff(0, ["QS"]), Discard("9D"))
    assert "QS" not in g.hands[0] and g.phase == "draw"
    g.apply(1, [Draw("stock"), Discard("KC")])  # 2D 3D 4D, 6S 6H 6C and 2C: an open rummy
    g.apply(1, [Pass()])
    assert illegal(g, 0, [Draw("stock"), LayOff(0, ["KH"])]) == "layoff.own-melds-only"  # KH does not follow QS
    g.apply(0, [Draw("stock"), Discard("KH")])
    g.apply(1, [Draw("stock"), Discard("2C"), Knock()])
    assert g.deal_results[-1]["penalties"] == [3 + 8 + 6 + 2 + 2, 2]  # 3C 8C 6D 2C 2C, without the hung QS


@pytest.mark.parametrize(
    "table,cards,rule",
    [
        ((1, "TH JH QH"), ["KS"], "layoff.own-melds-only"),  # not a trump, and on another's meld
        ((0, "TH JH QH"), ["9S"], "layoff.invalid"),  # not a trump, on one's own meld where it does not fit
        ((1, "TH JH QH"), ["JK"], "hang.joker"),
        ((1, "5S 6S 7S"), ["QS"], "hang.no-trump-card"),  # no trump card in that meld
    ],
)
def test_illegal_hangings_name_their_rule(table, cards, rule):
    g = rig(["QS KS 9S JK 3C", "2D 3D 4D 6S 8S"], table=[table], trump="Q", opened=[True, True])
    before = (list(g.hands[0]), list(g.table))
    assert illegal(g, 0, [Draw("stock"), LayOff(0, cards)]) == rule
    assert (g.hands[0], g.table, g.phase) == (before[0], before[1], "draw")


def test_a_joker_standing_for_a_trump_is_no_trump_card_to_hang_on():  # Ambiguity 7
    meld = new_meld(["TH", "JH", "JK"], Trump.meld_rules, owner=1, identities=["QH"])
    g = rig(["QS 3C 4D 8H", "2D 3D 4D 6S"], table=[meld], trump="Q")
    assert illegal(g, 0, [Draw("stock"), LayOff(0, ["QS"])]) == "hang.no-trump-card"


def test_hanging_needs_no_opening_and_several_trumps_may_go_at_once():  # Ambiguities 3, 4, 5
    g = rig(["7S 7D 7C 2H 9D", "2D 3D 4D 6S 8S"], table=[(1, "7H 8H 9H")], trump="7")
    draw_and(g, 0, LayOff(0, ["7S", "7D"]), Discard("9D"))  # one trump kept back
    assert g.table[0].hung == ("7S", "7D") and "7C" in g.hands[0] and not g.opened[0]


def test_the_owner_adds_a_fitting_trump_to_his_meld_and_hangs_one_that_does_not_fit():
    g = rig(["QS KH QH 3C 9D", "2D 3D 4D 6S 8S"], table=[(0, "TH JH QH")], trump="Q", opened=[True, False])
    draw_and(g, 0, LayOff(0, ["KH"]), LayOff(0, ["QS"]), Discard("3C"))
    assert g.table[0].ids == ("TH", "JH", "QH", "KH") and g.table[0].hung == ("QS",)


# --- worked example 2: the 30 opening -------------------------------------------------------------------------
def test_worked_example_2_an_ace_king_queen_opens_with_31():
    g = rig(["AS KS QS 3D 8C", "2D 3D 4D 6S 8S"])
    draw_and(g, 0, Meld(["AS", "KS", "QS"]), Discard("8C"))
    assert g.opened[0]


def test_worked_example_2_two_melds_worth_24_do_not_open():
    g = rig(["2C 3C 4C 5H 5D 5S 9D KD", "2D 3D 4D 6S 8S"])
    before = list(g.hands[0])
    rule = illegal(g, 0, [Draw("stock"), Meld(["2C", "3C", "4C"]), Meld(["5H", "5D", "5S"])])
    assert rule == "initial-meld.minimum" and g.hands[0] == before and g.table == []


def test_the_ace_counts_11_also_low_and_a_joker_what_it_stands_for():  # Ambiguity 6, Scoring
    g = rig(["AH 2H 3H JK 9D 9S 4C", "2D 3D 4D 6S 8S"])
    draw_and(g, 0, Meld(["AH", "2H", "3H"]), Meld(["JK", "9D", "9S"], ["9C"]), Discard("4C"))  # 16 + 27
    assert g.opened[0]
    g = rig(["AH 2H 3H 8D 9S 4C", "2D 3D 4D 6S 8S"])
    assert illegal(g, 0, [Draw("stock"), Meld(["AH", "2H", "3H"])]) == "initial-meld.minimum"  # 16


def test_melds_of_one_play_open_together_and_later_melds_need_no_minimum():  # Ambiguity 15
    g = rig(["KS KD KC 2H 3H 4H 8D 5C", "2D 3D 4D 6S 8S"])
    draw_and(g, 0, Meld(["KS", "KD", "KC"]), Discard("8D"))
    g.apply(1, [Draw("stock"), Discard("8S")])
    draw_and(g, 0, Meld(["2H", "3H", "4H"]), Discard("5C"))
    assert len(g.table) == 2


def test_the_opening_must_reach_30_even_when_it_empties_the_hand():
    g = rig(["2C 3C 4C 5H 5D 5S", "2D 3D 4D 6S 8S"])
    assert illegal(g, 0, [Draw("stock"), Meld(["2C", "3C", "4C"]), Meld(["5H", "5D", "5S"])]) == (
        "initial-meld.minimum"
    )


# --- additions only to one's own melds (Ambiguity 2) ------------------------------------------------------------
def test_additions_to_another_players_meld_are_illegal_and_to_ones_own_legal():
    g = rig(["8S 5C 9D KD", "2D 3D 4D 6S"], table=[(1, "5S 6S 7S"), (0, "2C 3C 4C")], opened=[True, True])
    assert illegal(g, 0, [Draw("stock"), LayOff(0, ["8S"])]) == "layoff.own-melds-only"
    draw_and(g, 0, LayOff(1, ["5C"]), Discard("9D"))
    assert g.table[1].ids == ("2C", "3C", "4C", "5C")


def test_the_decision_lists_ones_own_melds_and_the_melds_to_hang_on():
    g = rig(["8S 5C 9D KD", "2D 3D 4D 6S"], table=[(1, "QS QD QC"), (0, "2C 3C 4C")], opened=[True, True])
    c = g.decision(0).constraints
    assert (c["layoff_melds"], c["hang_melds"], c["trump"], c["initial_meld"]) == ([1], [0], "Q", 30)


# --- joker exchange ---------------------------------------------------------------------------------------------
def test_anyone_exchanges_a_joker_for_the_exact_card_and_takes_it_to_hand():  # Ambiguity 5
    meld = new_meld(["5S", "JK", "7S"], Trump.meld_rules, owner=1, identities=["6S"])
    g = rig(["6S 6H 3C 8D", "2D 3D 4D 6D"], table=[meld])
    assert illegal(g, 0, [Draw("stock"), Exchange(0, "6H")]) == "exchange.no-wild"
    draw_and(g, 0, Exchange(0, "6S"), Discard("3C"))
    assert g.table[0].cards == ("5S", "6S", "7S") and "JK" in g.hands[0] and not g.opened[0]


# --- the trump rank and the starter ------------------------------------------------------------------------------
def test_the_starters_rank_is_trump_and_a_joker_starter_goes_under_the_stock():  # Ambiguity 17
    seen_joker = False
    for seed in range(300):  # a joker is turned up in about one deal in 50
        g = Trump(2, {}, seed)
        starter = g.piles[0][-1]
        assert starter != "JK" and g.trump == rank(starter) and g.view(0)["trump"] == starter[0]
        if g.turned_jokers:
            seen_joker = True
            assert g.stock[: g.turned_jokers] == ["JK"] * g.turned_jokers  # at the bottom of the stock
        assert sorted(g.cards_in_play()) == sorted(g.make_deck())
    assert seen_joker


@pytest.mark.parametrize("players,packs", [(2, 2), (8, 2), (9, 3), (12, 3), (13, 4), (16, 4)])
def test_the_pack_grows_with_the_table(players, packs):
    g = Trump(players, {}, 3)
    assert packs_for(players) == packs and len(g.make_deck()) == 53 * packs and g.make_deck().count("JK") == packs
    assert [len(h) for h in g.hands] == [10] * players


def test_the_first_player_may_take_the_starter():  # Ambiguity 9
    g = rig(["2H 5C 9S", "3D 4D 8S"], discard=("QD",))
    g.apply(0, [Draw("discard"), Discard("9S")])
    assert "QD" in g.hands[0] and g.trump == rank("QS")


def test_nothing_is_played_before_the_draw():
    g = rig(["AS KS QS 3D 8C", "2D 3D 4D 6S 8S"])
    assert illegal(g, 0, [Meld(["AS", "KS", "QS"])]) == "play.before-draw"


# --- the open declaration ------------------------------------------------------------------------------------------
def opened_game(hand0, table=(0, "KS KD KC"), hand1="2D 5D 9D 6S 8S JC", stock=("2C",) * 5):
    return rig([hand0, hand1], table=[table], stock=stock, opened=[True, False], placed=[True, False])


def test_an_open_declaration_with_one_card_left_costs_its_value():
    g = opened_game("4H 5H 6H 9C 7D", stock=["7H"])
    draw_and(g, 0, Discard("7D"))
    d = g.decision(0)
    assert d.phase == "rummy" and d.constraints["declaration"]["kind"] == "open"
    assert d.constraints["declaration"]["penalty"] == 9
    g.apply(0, [Knock()])
    deal = g.deal_results[-1]
    assert deal["winner"] == 0 and deal["penalties"] == [9, 2 + 5 + 9 + 6 + 8 + 10]


def test_the_declaration_may_travel_in_the_play_of_the_discard_and_two_cards_up_to_5_cost_their_value():
    g = opened_game("4H 5H 6H 2H 7D")  # the draw brings 2C: 2H 2C are left, worth 4
    draw_and(g, 0, Discard("7D"), Knock())
    assert g.deal_results[-1]["penalties"][0] == 4


def test_a_knock_naming_its_discard_discards_and_declares_as_in_victoria():
    g = opened_game("4H 5H 6H 2H 7D")
    draw_and(g, 0, Knock("7D"))
    assert g.deal_results[-1]["penalties"][0] == 4 and g.deal_results[-1]["hands"][0] == ["2C", "2H", "4H", "5H", "6H"]
    g = opened_game("4H 5H 6H 4C 7D")
    assert illegal(g, 0, [Draw("stock"), Knock("7D")]) == "rummy.open-deadwood"


def test_two_cards_over_5_allow_no_open_declaration():
    g = opened_game("4H 5H 6H 4C 7D")  # 4C 2C: 6
    assert illegal(g, 0, [Draw("stock"), Discard("7D"), Knock()]) == "rummy.open-deadwood"
    draw_and(g, 0, Discard("7D"))
    assert g.turn == 1 and g.phase == "draw"


def test_the_lower_penalty_applies_when_one_and_two_cards_both_fit():  # Ambiguity 16
    # 2C 3C JK 5C 7C: 2C 3C JK(4C) 5C leaves 7C out (7); 5C JK(6C) 7C leaves 2C 3C out (5): the lower, 5
    g = opened_game("2C 3C JK 5C 9D", stock=["7C"])
    draw_and(g, 0, Discard("9D"))
    assert g.decision(0).constraints["declaration"]["penalty"] == 5
    assert g.open_penalty(["2C", "3C", "JK", "5C", "7C", "KH"]) is None  # with KH: 7C and KH, or three cards, left out


def test_cards_still_in_combinations_in_hand_count_as_a_zero_declaration():  # Ambiguity 16
    g = opened_game("4H 5H 6H 2S 2D 9C")  # + 2C: 2S 2D 2C is a set
    draw_and(g, 0, Discard("9C"))
    assert g.decision(0).constraints["declaration"]["penalty"] == 0


def test_a_player_may_pass_instead_of_declaring():
    g = opened_game("4H 5H 6H 9C 7D", stock=["7H"])
    draw_and(g, 0, Discard("7D"))
    g.apply(0, [Pass()])
    assert g.turn == 1 and g.phase == "draw" and not g.deal_results


def test_after_the_discard_only_knock_or_pass():
    g = opened_game("4H 5H 6H 9C 7D", stock=["7H"])
    draw_and(g, 0, Discard("7D"))
    assert illegal(g, 0, [Discard("9C")]) == "rummy.knock-or-pass"
    assert illegal(g, 0, [Knock("9C")]) == "rummy.knock-or-pass"


def test_knocking_before_the_discard_is_illegal():
    g = opened_game("4H 5H 6H 9C 7D")
    assert illegal(g, 0, [Draw("stock"), Knock()]) == "rummy.after-discard"


def test_emptying_the_hand_declares_with_penalty_0():  # Ambiguity 10
    g = opened_game("4H 5H 6H 7D 8D")
    g.stock = ["9D"]
    draw_and(g, 0, Meld(["4H", "5H", "6H"]), Meld(["7D", "8D", "9D"]))
    deal = g.deal_results[-1]
    assert deal["winner"] == 0 and deal["penalties"][0] == 0


def test_discarding_the_last_card_declares_with_penalty_0_also_through_a_knock():
    for last in (Discard("9C"), Knock("9C")):
        g = opened_game("4H 5H 9C")
        g.stock = ["6H"]
        g.apply(0, [Draw("stock"), Meld(["4H", "5H", "6H"]), last])
        assert g.deal_results[-1]["winner"] == 0 and g.deal_results[-1]["penalties"][0] == 0


def test_a_player_who_laid_cards_has_no_concealed_declaration():
    g = rig(["7H 8H 9H 4C 7D", "2D 3D 4D 6S"], table=[(1, "5S 6S 7S")], trump="7")
    assert not g.laid(0)
    draw_and(g, 0, LayOff(0, ["7D"]), Discard("4C"))
    assert g.laid(0) and g.view(1)["laid"] == [True, False]


# --- the concealed declaration (Victoria's patterns) ----------------------------------------------------------------
def test_a_concealed_hand_all_in_combinations_declares_zero():
    g = rig(["2H 3H 4H 5S 6S 7S 9C 9D 9H KD", "2D 5D 9D 6S 8S JC 3C 4C 7D 8H"], stock=["5H"])
    draw_and(g, 0, Discard("KD"))
    assert g.decision(0).constraints["declaration"] == {"kind": "concealed", "penalty": 0, "bonus": 0, "pattern": 3}
    g.apply(0, [Knock()])
    assert g.deal_results[-1]["penalties"][0] == 0


def test_a_concealed_minus_gives_the_declarer_a_bonus_of_10():
    g = rig(["2H 3H 4H 5H 6H 7H 8H 9S TS KD", "2D 5D 9D 6S 8S JC 3C 4C 7D 8C"], stock=["JS"])
    draw_and(g, 0, Discard("KD"), Knock())
    deal = g.deal_results[-1]
    assert deal["declaration"]["pattern"] == 4 and deal["change"][0] == -10 and g.points[0] == -10


def test_a_concealed_hand_without_a_pattern_may_not_declare():
    g = rig(["2H 3H 4H 5S 6S 7S 9C 9D KH KD", "2D 5D 9D 6S 8S JC 3C 4C 7D 8H"], stock=["QC"])
    assert illegal(g, 0, [Draw("stock"), Discard("KD"), Knock()]) == "rummy.no-pattern"


def test_a_joker_exchange_ends_the_concealed_option():
    meld = new_meld(["5S", "JK", "7S"], Trump.meld_rules, owner=1, identities=["6S"])
    g = rig(["2H 3H 4H 5H 6S 7C 9C 9D 9H KD", "2D 5D 9D 6D 8S"], table=[meld], stock=["QC"])
    draw_and(g, 0, Exchange(0, "6S"), Discard("QC"))  # 2H-5H, 9C 9D 9H, JK KD 7C: open, 3 cards left: no rummy
    assert g.laid(0) and g.phase == "draw" and g.turn == 1


# --- the bank ---------------------------------------------------------------------------------------------------
def test_the_declarer_takes_a_quarter_of_the_bank_and_everyone_scores_penalty_points():
    g = opened_game("4H 5H 6H 9C 7D", stock=["7H"])
    assert g.view(1)["bank"] == 8  # stake 4 each
    draw_and(g, 0, Discard("7D"), Knock())
    deal = g.deal_results[-1]
    assert deal["moved"]["quarter"] == [2, 0] and deal["bank"] == 6 and deal["chips"] == [-2, -4]
    assert g.view(1)["points"] == [9, 2 + 5 + 9 + 6 + 8 + 10]


def test_a_deal_whose_stock_cannot_be_turned_over_is_annulled():
    g = rig(["4H 5H 6H 9C 7D", "2D 5D 9D 6S 8S"], stock=["KC"], discard=())
    draw_and(g, 0, Discard("7D"))  # the stock is empty and the pile has one card
    deal = g.deal_results[-1]
    assert deal["annulled"] and deal["winner"] is None and g.points == (0, 0) and g.view(0)["bank"] == 8


def test_the_game_ends_when_one_player_is_left_not_beyond_rummy():
    g = opened_game("4H 5H 6H 9C 7D", stock=["7H"])
    g.points = (0, 95)
    draw_and(g, 0, Discard("7D"), Knock())
    assert g.is_over() and g.result()["chips"] == [4, -4]  # seat 0 takes the quarter, then the rest


def test_a_bad_option_is_one_clear_error():
    from referee.rules.errors import ConfigError

    with pytest.raises(ConfigError, match="joker_penalty"):
        Trump(2, {"joker_penalty": "lots"}, 1)
    with pytest.raises(ConfigError):
        Trump(17, {}, 1)


# --- romis eval, play and the sample bots ------------------------------------------------------------------------
def test_eval_gives_the_deadwood_and_the_declarations_a_hand_allows(capsys, tmp_path):
    hands = tmp_path / "hands.txt"
    hands.write_text("2H 3H 4H 5H 6H 7H 8H 9S TS JS\n4H 5H 6H 9C\n4H 5H 6H 9C KD\n")
    assert run(["eval", "trump", "--hands-file", str(hands)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows[0]["concealed"]["pattern"] == 4 and rows[0]["open"] == 0
    assert (rows[1]["open"], rows[1]["deadwood_points"]) == (9, 9)
    assert (rows[2]["open"], rows[2]["deadwood_points"]) == (None, 19)


@pytest.mark.parametrize("players", [2, 16])
def test_romis_play_finishes_by_seed_prints_the_bank_and_replays(players, tmp_path, capsys):
    bots = ["--bot", f"{sys.executable} -m sample_bots.greedy", "--bot", f"{sys.executable} -m sample_bots.random"]
    argv = ["play", "trump", "--seed", "5", *(bots * (players // 2))]
    results = []
    for i in range(2):
        record = tmp_path / f"game{i}.jsonl"
        assert run([*argv, "--record", str(record), "--json"]) == 0
        results.append(json.loads(capsys.readouterr().out))
    chips = [[seat["score"] for seat in r["seats"]] for r in results]
    assert chips[0] == chips[1] and results[0]["deals"] == results[1]["deals"] and results[0]["unit"] == "chips"
    assert sum(chips[0]) + results[0]["bank"] == 0 and all(seat["fault"] is None for seat in results[0]["seats"])
    assert run(["replay", str(tmp_path / "game0.jsonl")]) == 0
    capsys.readouterr()
    assert run(argv) == 0
    text = capsys.readouterr().out
    assert "chips" in text and f"bank: {results[0]['bank']} chip(s) left" in text


def test_greedy_beats_random_on_net_chips():
    firsts, n = 0, 20
    for seed in range(n):
        g = Trump(2, {}, seed)
        bots = [Brain("trump", 2, {}, greedy=s == seed % 2, seed=seed * 10 + s) for s in range(2)]
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
        firsts += g.result()["chips"][seed % 2] > 0
    assert firsts / n >= 0.75
