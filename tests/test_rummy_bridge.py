"""Rummy Bridge (rules/rummy-bridge.md): every worked example, the deal, rummy and its bonuses, the knock and its
final round, jokers after a rummy, the stock, the match end, `romis eval`, and greedy against random."""

import json

import pytest
from rigging import illegal

from protocol.messages import Discard, Draw, Knock, Meld
from referee.cli import run
from referee.rules.variants.rummy_bridge import RummyBridge
from sample_bots.brain import Brain

JUNK = "2C 4D 6H 8S TC QD KH"  # seven cards that make no combination together
LONE = "2C 5D 9S QC KD 3S 6C"  # seven cards a joker joins nothing with (no pair, no two near in a suit)
OTHERS = [JUNK + " 3D 5S 9H", JUNK + " 3H 5D 9C", JUNK + " 3S 5C 9S"]


def H(text: str) -> list[str]:
    return text.split()


def rig(hands, stock=("KC",) * 30, discard=("9D",), turn=0, **options):
    """A game at the start of seat `turn`'s turn (not the dealer's opening); the stock is drawn from its end."""
    g = RummyBridge(4, options, seed=1)
    g.hands = [H(h) for h in hands]
    g.stock, g.piles = list(stock), [list(discard)]
    g.turn, g.phase, g.turns = turn, "draw", 4
    return g


def last(g):
    return g.deal_results[-1]


# --- worked examples ------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "hand,category,bonus",
    [
        ("3C 4C 5C 6C 7C 8C 9C TC JC QC", "suit-sequence", 40),  # example 1
        ("AS AS 3S 5S 7S 9S JS QS KS KS", "one-suit", 25),  # example 2
        ("AS AH KS KD KC QH QD JS JH JC", "figures", 25),  # example 3
        ("AS 2S 3S 7H 7D 7C 9D TD JD QD", "ordinary", 10),
    ],
)
def test_worked_examples_1_to_3_special_combinations_and_their_bonus(hand, category, bonus):
    assert RummyBridge.hooks_only().category(H(hand)) == category
    cards = H(hand)
    g = rig([" ".join(cards[:-1]) + " 5H", *OTHERS], stock=cards[-1:])
    melds = [Meld(H(hand), kind={"suit-sequence": "run", "ordinary": None}.get(category, category))]
    if category == "ordinary":
        melds = [Meld(H("AS 2S 3S")), Meld(H("7H 7D 7C")), Meld(H("9D TD JD QD"))]
    g.apply(0, [Draw("stock"), *melds, Discard("5H")])
    assert last(g)["finish"]["category"] == category and last(g)["scores"][0] == -bonus


def test_bonuses_do_not_add_up_and_the_best_category_of_the_cards_counts():  # Ambiguity 7, Valid combinations
    g = rig(["AC 2C 3C 5C 6C 7C 9C TC JC 5H", *OTHERS], stock=["QC"])  # ordinary combinations, all clubs
    g.apply(0, [Draw("stock"), Meld(H("AC 2C 3C")), Meld(H("5C 6C 7C")), Meld(H("9C TC JC QC")), Discard("5H")])
    assert last(g)["finish"]["category"] == "one-suit" and last(g)["scores"][0] == -25


def test_worked_example_4_the_knock_needs_a_natural_two_to_five():
    nine = "7H 7D 7C 9D TD JD KS KH KC"
    game = RummyBridge.hooks_only()
    assert game.knock_card(H(nine + " 4D")) == "4D"
    for free in ("6D", "AS", "JK"):  # a joker is never the free card (it joins a combination: that is rummy)
        assert game.knock_card(H(nine + " " + free)) is None
    g = rig([nine + " 4D", *OTHERS], stock=["KD"])
    assert Knock("KD") not in g.decision(0).options  # before the draw: no knock
    g.apply(0, [Draw("stock")])
    assert Knock("KD") in g.decision(0).options
    g2 = rig([nine + " 6D", *OTHERS], stock=["KD"])
    g2.apply(0, [Draw("stock")])
    assert not [o for o in g2.decision(0).options if isinstance(o, Knock)]
    assert illegal(g2, 0, [Knock("KD")]) == "knock.condition"


def test_worked_example_5_penalty_values():
    game = RummyBridge.hooks_only()
    assert sum(map(game.penalty, H("JK AS QH 7C"))) == 20 + 11 + 10 + 7 == 48
    assert RummyBridge.evaluate(H("JK AS QH 7C"))["points"] == 48


def test_worked_example_6_after_a_rummy_the_others_lose_their_jokers():
    loser = "7H 8H JK " + LONE  # 7H 8H JK is a run only while the joker is wild
    g = rig(["3C 4C 5C 6C 7C 8C 9C TC JC 5H", loser, JUNK + " 3H 5D 9C", JUNK + " 3S 5C 9S"], stock=["QC"])
    free = sum(map(g.penalty, H(LONE)))
    assert g.split(H(loser)).points == free
    g.apply(0, [Draw("stock"), Meld(H("3C 4C 5C 6C 7C 8C 9C TC JC QC")), Discard("5H")])
    assert last(g)["scores"][1] == free + 20 + 15


def test_after_a_knock_the_others_keep_their_jokers():  # Ambiguity 5
    loser = "7H 8H JK " + LONE
    g = rig(["AS 2S 3S 7H 7D 7C 9D TD JD 4D", loser, JUNK + " 3H 5D 9C", JUNK + " 3S 5C 9S"], stock=["KS"] * 5)
    g.apply(0, [Draw("stock"), Knock("KS")])
    for seat in (1, 2, 3):
        g.apply(seat, [Draw("stock"), Discard("KS")])
    assert last(g)["finish"]["kind"] == "knock" and last(g)["scores"][:2] == [4, sum(map(g.penalty, H(LONE)))]


# --- the deal and the turn -----------------------------------------------------------------------------------
def test_the_deal_gives_the_dealer_eleven_and_he_opens_by_discarding():
    g = RummyBridge(4, {}, seed=3)
    sizes = [len(h) for h in g.hands]
    assert sizes[g.dealer] == 11 and sorted(sizes) == [10, 10, 10, 11]
    assert g.piles == [[]] and len(g.stock) == 108 - 41 and g.cards_in_play().count("JK") == 4
    assert g.to_act() == [g.dealer] and g.decision(g.dealer).phase == "play"
    assert illegal(g, g.dealer, [Draw("stock")]) == "draw.dealer-opens"
    card = g.hands[g.dealer][0]
    g.apply(g.dealer, [Discard(card)])
    assert g.piles == [[card]] and g.to_act() == [(g.dealer + 1) % 4] and g.decision(g.to_act()[0]).phase == "draw"


def test_the_dealer_may_declare_rummy_on_his_opening_turn():  # Ambiguity 10
    g = RummyBridge(4, {}, seed=3)
    d = g.dealer
    g.hands[d] = H("3C 4C 5C 6C 7C 8C 9C TC JC QC 5H")
    g.apply(d, [Meld(H("3C 4C 5C 6C 7C 8C 9C TC JC QC")), Discard("5H")])
    assert last(g)["winner"] == d and last(g)["finish"]["category"] == "suit-sequence"


@pytest.mark.parametrize(
    "ops,rule",
    [
        ([Draw("stock"), Meld(H("3C 4C 5C 6C 7C 8C 9C TC JC QC"))], "rummy.whole-hand"),
        ([Draw("stock"), Meld(H("3C 4C 5C 6C 7C 8C 9C TC JC QC KC"))], "rummy.discard"),
        ([Draw("stock"), Meld(H("3C 4C 5C 6C 7C")), Meld(H("8C 9C TC JC QC KC"))], "rummy.discard"),
        ([Draw("discard"), Meld(H("3C 4C 5C 6C 7C 8C 9C TC JC QC")), Discard("9D")], "discard.rediscard"),
        ([Draw("stock"), Meld(H("3C 4C 5C")), Discard("KC")], "rummy.whole-hand"),
        ([Knock("QC")], "knock.draw-first"),
        ([Meld(H("3C 4C 5C 6C 7C 8C 9C TC JC QC"))], "rummy.draw-first"),
        ([Draw("stock"), Knock()], "knock.discard"),
    ],
)
def test_illegal_declarations_name_their_rule(ops, rule):
    g = rig(["3C 4C 5C 6C 7C 8C 9C TC JC QC", *OTHERS])  # the stock's top card is KC
    assert illegal(g, 0, ops) == rule


def test_a_one_suit_combination_needs_ten_cards_of_one_suit():
    g = rig(["AS 3S 5S 7S 9S JS QS KS KS 4H", *OTHERS], stock=["2D"])
    assert illegal(g, 0, [Draw("stock"), Meld(H("AS 3S 5S 7S 9S JS QS KS KS 2D"), kind="one-suit"), Discard("4H")]) == (
        "whole.suit"
    )
    assert illegal(g, 0, [Draw("stock"), Meld(H("AS 3S 5S 7S 9S JS QS KS KS"), kind="one-suit")]) == "whole.size"
    g.hands[0][-1] = "JK"  # a joker stands for a spade
    g.apply(0, [Draw("stock"), Meld(H("AS 3S 5S 7S 9S JS QS KS KS JK"), kind="one-suit"), Discard("2D")])
    assert last(g)["finish"]["category"] == "one-suit"


# --- the knock and its final round -------------------------------------------------------------------------------
def knocked():
    g = rig(
        ["AS 2S 3S 7H 7D 7C 9D TD JD 4D", *OTHERS],
        stock=["2H", "8D", "6C", "KS"],
    )
    g.apply(0, [Draw("stock"), Knock("KS")])
    return g


def test_a_knock_shows_the_hand_and_every_other_player_has_one_draw_and_discard():
    g = knocked()
    assert g.knocker == 0 and g.view(2)["knocker_hand"] == sorted(H("AS 2S 3S 7H 7D 7C 9D TD JD 4D"))
    assert g.to_act() == [1] and g.decision(1).constraints["final_round"]
    g.apply(1, [Draw("stock"), Discard("6C")])
    d = g.decision(2)
    assert not [o for o in g.decision(2).options if isinstance(o, Knock)] and d.phase == "draw"
    g.apply(2, [Draw("discard")])
    assert not [o for o in g.decision(2).options if isinstance(o, Knock)]
    assert illegal(g, 2, [Knock("KC")]) == "knock.final-round"
    g.apply(2, [Discard("KH")])
    assert illegal(g, 3, [Draw("stock"), Meld(H("3S 4S 5S"))]) == "rummy.final-round"
    g.apply(3, [Draw("stock"), Discard("8D")])
    res = last(g)
    assert res["winner"] == 0 and res["finish"]["kind"] == "knock" and res["scores"][0] == 4
    assert g.deal_no == 1 and len(g.deal_results) == 1


def test_a_stock_that_cannot_be_rebuilt_ends_the_final_round_and_the_knock_is_scored():
    g = rig(
        ["AS 2S 3S 7H 7D 7C 9D TD JD 4D", *OTHERS],
        stock=["KS"],
        discard=(),
    )
    g.apply(0, [Draw("stock"), Knock("KS")])  # stock now empty, pile of 1: no rebuild possible
    assert last(g)["finish"]["kind"] == "knock" and last(g)["scores"][0] == 4


def test_the_stock_is_turned_over_and_a_deal_that_cannot_go_on_is_a_stalemate():
    g = rig([JUNK + " 3D 5S 9H"] * 4, stock=["KS"], discard=("AH", "AD"))
    g.apply(0, [Draw("stock"), Discard("KS")])
    assert g.stock == ["AD", "AH"] and g.piles == [["KS"]] and g.rebuilds == 1  # AH, discarded first, is on top
    for pile, options in (((), {}), (("AH", "AD"), {"max_stock_rebuilds": 0})):
        g = rig([JUNK + " 3D 5S 9H"] * 4, stock=["KS"], discard=pile, **options)
        g.apply(0, [Draw("stock"), Discard("KS")])
        res = last(g)
        assert res["winner"] is None and res["finish"]["kind"] == "stalemate" and res["finish"]["bonus"] == 0
        assert res["scores"] == [67] * 4  # every card unmatched: 2+4+6+8+10+10+10 + 3+5+9


def test_the_match_ends_once_a_net_total_reaches_100_and_the_lowest_wins():
    g = rig(["3C 4C 5C 6C 7C 8C 9C TC JC 5H", *OTHERS], stock=["QC"])
    g.totals = [0, 40, 90, 10]
    g.apply(0, [Draw("stock"), Meld(H("3C 4C 5C 6C 7C 8C 9C TC JC QC")), Discard("5H")])
    assert g.is_over() and g.result()["ranks"][0] == 1 and g.totals[0] == -40


# --- romis eval and the bots ---------------------------------------------------------------------------------------
def test_eval_names_the_rummy_the_knock_or_the_penalty(capsys, tmp_path):
    assert run(["eval", "rummy-bridge", "--hand", "3C 4C 5C 6C 7C 8C 9C TC JC QC"]) == 0
    assert "laying down: rummy (suit sequence), bonus 40" in capsys.readouterr().out
    hands = tmp_path / "hands.txt"
    hands.write_text(
        "AS AS 3S 5S 7S 9S JS QS KS KS\nAS AH KS KD KC QH QD JS JH JC\nAS 2S 3S 7H 7D 7C 9D TD JD 4D\n"
        "AS 2S 3S 7H 7D 7C 9D TD JD 6D\nJK AS QH 7C\n"
    )
    assert run(["eval", "rummy-bridge", "--hands-file", str(hands)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["category"], r["bonus"], r["knock"], r["points"]) for r in rows] == [
        ("one-suit", 25, None, 0),
        ("figures", 25, None, 0),
        (None, 0, "4D", 4),
        (None, 0, None, 6),
        (None, 0, None, 48),
    ]


def play(seed: int, greedy_seat: int) -> list[int]:
    g = RummyBridge(4, {}, seed)
    bots = [Brain("rummy-bridge", 4, {}, greedy=s == greedy_seat, seed=seed * 10 + s) for s in range(4)]
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
    return g.result()["ranks"]


def test_greedy_beats_random():
    n = 16
    wins = sum(play(seed, seed % 4)[seed % 4] == 1 for seed in range(n))
    assert wins / n >= 0.6  # one greedy against three random: a fair share would be 0.25


def test_a_losers_whole_hand_combination_leaves_him_nothing_unmatched():  # End of a deal, Penalty arrangement
    loser = "AD 3D 5D 7D 9D JD QD KD KD 2D"
    g = rig(["3C 4C 5C 6C 7C 8C 9C TC JC 5H", loser, *OTHERS[1:]], stock=["QC"])
    g.apply(0, [Draw("stock"), Meld(H("3C 4C 5C 6C 7C 8C 9C TC JC QC")), Discard("5H")])
    assert last(g)["scores"][1] == 0


def test_the_turn_cap_ends_the_final_round_and_the_knock_is_scored():  # Ambiguity 13
    g = rig(["AS 2S 3S 7H 7D 7C 9D TD JD 4D", *OTHERS], stock=["KS"] * 5, max_turns_per_deal=6)
    g.apply(0, [Draw("stock"), Knock("KS")])
    g.apply(1, [Draw("stock"), Discard("KS")])  # the sixth turn of the deal: the cap
    assert last(g)["finish"]["kind"] == "knock" and last(g)["scores"][0] == 4 and g.deal_no == 1
