"""Carpathian Rummy (rules/carpathian.md): every worked example, the deal and Pirmasis's opening, the 51 opening, the
closed discard pile and the take used at once, the four-suit condition across one player's melds, the going-out
bonuses, the special penalty count, the end at 101, `romis eval`, and greedy against random."""

import json

import pytest
from rigging import illegal, rig

from protocol.messages import Discard, Draw, Exchange, LayOff, Meld
from referee.cli import run
from referee.rules.errors import ConfigError
from referee.rules.melds import new_meld
from referee.rules.variants.carpathian import Carpathian, hand_penalty
from sample_bots.brain import Brain

FILL = "2S 5D 7H 8S QD 3H 4D 6S TH JS AC"  # eleven cards without a combination
DIAMONDS = "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"


def H(text: str) -> list[str]:
    return text.split()


def game(hands, **kw):
    kw.setdefault("stock", ("2C",) * 30)
    g = rig(Carpathian, hands, **kw)
    g.turns = len(hands)
    return g


def last(g):
    return g.deal_results[-1]


def snapshot(g):
    return json.dumps([g.view(s) for s in range(g.n)]), len(g.log)


# --- worked examples --------------------------------------------------------------------------------------------
def test_worked_example_1_the_low_cards_are_rounded_to_ten_plus_one_a_card():
    assert hand_penalty(H("3S 3H 4D 4C")) == 14


def test_worked_example_2_the_first_meld_needs_51_points():
    g = game(["KS KH KD 9C TC JC " + "2S 5D 7H 8S QD 3H 4D 6S", FILL], stock=["9H"])
    g.apply(0, [Draw("stock"), Meld(H("KS KH KD")), Meld(H("9C TC JC")), Discard("9H")])  # 30 + 29 = 59
    assert g.opened[0] and len(g.table) == 2
    g = game(["AS 2S 3S QH QD QC " + "5D 7H 8S 9D 3H 4D 6S TH", FILL], stock=["9H"])
    before = snapshot(g)
    assert illegal(g, 0, [Draw("stock"), Meld(H("AS 2S 3S")), Meld(H("QH QD QC")), Discard("9H")]) == (
        "initial-meld.minimum"
    )  # 1 + 2 + 3 + 30 = 36
    assert snapshot(g) == before


def test_worked_example_3_an_unopened_player_takes_the_discard_only_for_a_rummy_from_the_hand():
    hand = "4H 5H 6H 7H 9S 9D 9C KS KH KD 2C 3C 4C QS"
    ops = [Meld(H("4H 5H 6H 7H 8H")), Meld(H("9S 9D 9C")), Meld(H("KS KH KD")), Meld(H("2C 3C 4C")), Discard("QS")]
    g = game([hand, FILL], discard=["8H"])
    assert g.decision(0).options == [Draw("stock")] and g.decision(0).constraints["discard_needs_placing"]
    g.apply(0, [Draw("discard"), *ops])
    assert last(g)["scores"][0] == -10 and last(g)["finish"] == {"kind": "rummy-from-hand", "bonus": 10}
    g = game([hand, FILL], discard=["8H"])
    before = snapshot(g)
    assert illegal(g, 0, [Draw("discard"), *ops[:3], Discard("QS")]) == "draw.discard-closed"  # 51+, not all
    assert illegal(g, 0, [Draw("discard")]) == "draw.discard-closed"
    assert snapshot(g) == before


def test_worked_example_4_the_carpathian_rummy():
    g = game([DIAMONDS + " 5C", FILL], table=[(1, "6C 7C 8C")], stock=["9C"], opened=[False, True])
    assert g.meld_points(new_meld(H(DIAMONDS), g.meld_rules)) == 95  # 54 + 30 + 11: the ace is the high end of 2-A
    g.apply(0, [Draw("stock"), Meld(H(DIAMONDS)), LayOff(0, ["5C"]), Discard("9C")])
    assert last(g)["scores"][0] == -25 and last(g)["finish"] == {"kind": "carpathian", "bonus": 25}


def test_worked_example_5_penalty_king_joker_seven_four_two_two():
    assert hand_penalty(H("KS JK 7H 4D 2C 2S")) == 10 + 32 + 6
    g = game(["AH 2H 3H", "KS JK 7H 4D 2C 2S"], opened=[True, True], placed=[True, True], stock=["KC"])
    g.apply(0, [Draw("stock"), Meld(H("AH 2H 3H")), Discard("KC")])  # goes out by discarding: bonus a
    assert last(g)["scores"] == [-5, 48] and last(g)["finish"]["kind"] == "out"


@pytest.mark.parametrize("hand,value", [("2S 3S", 12), ("4S 4H 2D 2C", 14), ("3S 3H 3D 3C 3S", 25), ("2S 2H", 2)])
def test_the_low_sum_rounds_half_up(hand, value):  # Ambiguity 7: 5 -> 10, 12 -> 10, 15 -> 20, 4 -> 0
    assert hand_penalty(H(hand)) == value


# --- the deal and Pirmasis's opening ------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 6])
def test_the_deal_gives_pirmasis_fifteen_and_he_opens_by_discarding(players):
    g = Carpathian(players, {}, seed=3)
    first = (g.dealer + 1) % players
    assert [len(h) for h in g.hands] == [15 if s == first else 14 for s in range(players)]
    assert len(g.cards_in_play()) == 106 and g.piles == [[]] and g.decision(first).phase == "play"
    assert illegal(g, first, [Draw("stock")]) == "draw.first-opens"
    g.apply(first, [Discard(g.hands[first][0])])
    assert g.decision(g.turn).phase == "draw" and len(g.piles[0]) == 1


def test_pirmasis_may_go_out_from_the_hand_with_fifteen_or_fourteen_cards():  # Ambiguity 16
    cases = [
        ("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD 4H 5H 6H", []),  # all 15 in combinations, no discard
        ("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD 4H 5H 6H KC", [Discard("KC")]),  # 14 and a discard
    ]
    for hand, tail in cases:
        g = Carpathian(2, {}, seed=3)
        first = g.turn
        g.hands[first] = H(hand)
        diamonds = [c for c in H(hand) if c.endswith("D")]
        g.apply(first, [Meld(diamonds), Meld(H("4H 5H 6H")), *tail])
        assert last(g)["winner"] == first and last(g)["finish"] == {"kind": "rummy-from-hand", "bonus": 10}


# --- the turn ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "ops,rule",
    [
        ([Meld(H("KS KH KD"))], "play.before-draw"),  # Ambiguity 10: every turn starts with the draw
        ([Draw("stock"), LayOff(0, ["9H"])], "initial-meld.first"),
        ([Draw("stock"), Exchange(0, "8H")], "initial-meld.first"),
        ([Draw("discard"), Meld(H("KS KH KD")), Discard("QD")], "draw.discard-closed"),
    ],
)
def test_before_the_first_meld_the_rules_name_what_is_refused(ops, rule):
    g = game(["KS KH KD 8H " + " ".join(H(FILL)[:10]), FILL], table=[(1, "6H 7H JK")], stock=["9H"], discard=["4S"])
    before = snapshot(g)
    assert illegal(g, 0, ops) == rule
    assert snapshot(g) == before


def test_an_opened_player_takes_the_discard_only_to_use_it_in_the_same_play():  # Ambiguities 4, 14
    g = game(["9S 2H 5D", FILL], table=[(1, "6C 7C 8C")], opened=[True, True], discard=["9C"])
    before = snapshot(g)
    assert illegal(g, 0, [Draw("discard")]) == "draw.discard-unused"
    assert illegal(g, 0, [Draw("discard"), Discard("9S")]) == "draw.discard-unused"
    assert snapshot(g) == before
    g.apply(0, [Draw("discard"), LayOff(0, ["9C"]), Discard("9S")])  # on an opponent's combination
    assert g.table[0].ids == ("6C", "7C", "8C", "9C") and g.piles[0] == ["9S"]


def test_a_joker_is_exchanged_once_opened_and_taken_into_the_hand():  # Ambiguity 6
    g = game(["8H 2D 5C QS", FILL], table=[(1, "6H 7H JK")], opened=[True, True], stock=["KC"])
    g.apply(0, [Draw("stock"), Exchange(0, "8H"), Discard("KC")])
    assert g.table[0].cards == ("6H", "7H", "8H") and "JK" in g.hands[0]


def test_a_tercija_takes_only_its_missing_suit_and_a_kvartetas_nothing():
    g = game(["9S 9C 2D 5C", FILL], table=[(1, "9S 9H 9D"), (1, "QS QH QD QC")], opened=[True, True], stock=["KC"])
    assert illegal(g, 0, [Draw("stock"), LayOff(0, ["9S"])]) == "layoff.invalid"
    assert illegal(g, 0, [Draw("stock"), LayOff(1, ["9C"])]) == "layoff.invalid"
    g.apply(0, [Draw("stock"), LayOff(0, ["9C"]), Discard("KC")])
    assert g.table[0].ids == ("9S", "9H", "9D", "9C")


def test_one_players_same_rank_tercijas_show_all_four_suits_whenever_the_second_is_melded():  # Ambiguity 5
    mine = new_meld(H("KS KH KD"), Carpathian.meld_rules, owner=0)
    g = game(["KS KH KD 5C 9D", FILL], table=[mine], opened=[True, True], stock=["2H"])
    assert illegal(g, 0, [Draw("stock"), Meld(H("KS KH KD")), Discard("5C")]) == "set.four-suits"
    theirs = new_meld(H("KS KH KD"), Carpathian.meld_rules, owner=1)
    g = game(["KS KH KD 5C 9D", FILL], table=[theirs], opened=[True, True], stock=["2H"])
    g.apply(0, [Draw("stock"), Meld(H("KS KH KD")), Discard("5C")])  # another player's tercija is independent
    g = game(["KS KH KC 5C 9D", FILL], table=[mine], opened=[True, True], stock=["2H"])
    g.apply(0, [Draw("stock"), Meld(H("KS KH KC")), Discard("5C")])
    assert len(g.table) == 2


# --- bonuses, the end of a deal and of the match -----------------------------------------------------------------
def test_going_out_after_melding_in_an_earlier_turn_earns_five():
    g = game(["9H TH JH 4C", FILL], opened=[True, False], placed=[True, False], stock=["QH"])
    g.apply(0, [Draw("stock"), Meld(H("9H TH JH QH")), Discard("4C")])
    assert last(g)["finish"] == {"kind": "out", "bonus": 5} and last(g)["scores"][1] == hand_penalty(H(FILL))


def test_a_thirteen_card_sequence_with_another_players_card_is_no_carpathian_rummy():  # Ambiguity 17
    run_ = new_meld(H("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD"), Carpathian.meld_rules, owner=0)
    g = game(["AD", "KD " + FILL], table=[run_], opened=[True, True], placed=[True, True], turn=1, stock=["5S", "4H"])
    g.apply(1, [Draw("stock"), LayOff(0, ["KD"]), Discard("4H")])
    assert len(g.table[0].ids) == 12
    g.apply(0, [Draw("stock"), LayOff(0, ["AD"]), Discard("5S")])  # all 13 ranks, but one card is seat 1's
    assert last(g)["finish"] == {"kind": "out", "bonus": 5}


def test_the_match_ends_when_a_total_reaches_101_and_the_lowest_wins():
    g = game(["9H TH JH 4C", FILL], opened=[True, False], placed=[True, False], stock=["QH"])
    g.totals = [40, 101 - hand_penalty(H(FILL))]
    g.apply(0, [Draw("stock"), Meld(H("9H TH JH QH")), Discard("4C")])
    assert g.is_over() and g.totals == [35, 101] and g.result()["ranks"] == [1, 2]


def test_a_deal_that_cannot_go_on_scores_every_hand():
    g = game(["4C 9S", "5C 9D"], stock=["KC"], discard=["AS"], max_stock_rebuilds=0)
    g.apply(0, [Draw("stock"), Discard("KC")])
    assert last(g)["winner"] is None and last(g)["finish"] == {"kind": "stalemate", "bonus": 0}
    assert last(g)["scores"] == [hand_penalty(H("4C 9S")), hand_penalty(H("5C 9D"))]


def test_options_and_bad_values():
    assert "allow_rediscard" not in Carpathian.all_options() and "max_stock_rebuilds" in Carpathian.all_options()
    with pytest.raises(ConfigError, match="max_stock_rebuilds"):
        Carpathian(2, {"max_stock_rebuilds": -1})


def test_eval_gives_the_opening_value_and_the_penalty(capsys, tmp_path):
    assert run(["eval", "carpathian", "--hand", "KS KH KD 9C TC JC 3S 3H 4D 4C"]) == 0
    out = capsys.readouterr().out
    assert "opens: 59 points in melds; penalty 79 now, 14 after melding" in out
    hands = tmp_path / "hands.txt"
    hands.write_text(DIAMONDS + "\n" + "AS 2S 3S QH QD QC\n")
    assert run(["eval", "carpathian", "--hands-file", str(hands)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["meld_points"], r["deadwood"]) for r in rows] == [(95, []), (36, [])]


@pytest.mark.parametrize("players,share", [(2, 0.7), (6, 0.25)])
def test_greedy_beats_random(players, share):
    wins, n = 0, 12
    for seed in range(n):
        g = Carpathian(players, {}, seed)
        bots = [
            Brain("carpathian", players, {}, greedy=s == seed % players, seed=seed * 10 + s) for s in range(players)
        ]
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
        wins += g.result()["ranks"][seed % players] == 1
    assert wins / n >= share
