"""Šeškinė Rummy (rules/seskine.md): every worked example, round-the-corner sequences, the two declarations and the
discard-pile additions, the sequence bonuses, the other players' points, annulled deals, the tie rules, `romis
eval`, and greedy against random."""

import json

import pytest
from rigging import illegal

from protocol.messages import Discard, Draw, LayOff, Meld, Pass
from referee.cli import run
from referee.rules.melds import is_valid
from referee.rules.variants.seskine import SESKINE_MELDS, Seskine, run_bonus
from sample_bots.brain import Brain

LONE = "2C 5D 9S QH KD 7S 3H"  # seven cards without a combination


def H(text: str) -> list[str]:
    return text.split()


def rig(hands, stock=("KC",) * 30, discard=("9D",), turn=0, **options):
    """A game at the start of seat `turn`'s turn; the stock and the pile are drawn from their ends."""
    g = Seskine(len(hands), options, seed=1)
    g.hands = [H(h) for h in hands]
    g.stock, g.piles = list(stock), [list(discard)]
    g.turn, g.phase, g.turns = turn, "draw", len(hands)
    return g


def last(g):
    return g.deal_results[-1]


# --- worked examples --------------------------------------------------------------------------------------------
def test_worked_example_1_the_connecting_ace():
    assert is_valid(H("KC AC 2C 3C"), "run", SESKINE_MELDS)
    assert is_valid(H("QS KS AS 2S"), "run", SESKINE_MELDS)
    assert not is_valid(H("KC AC 2C 4C"), "run", SESKINE_MELDS)


def test_worked_example_2_discard_pile_cards_added_top_down_after_a_declaration_before_drawing():
    g = rig(["4H 5H 6H 7H 9S 9D 9C", LONE], discard=["2S", "3H", "8H"])  # top down: 8H, 3H, 2S
    g.apply(0, [Meld(H("4H 5H 6H 7H")), Meld(H("9S 9D 9C"))])
    d = g.decision(0)
    assert d.phase == "extend" and d.options == [LayOff(0, ["8H"]), Pass()]
    assert illegal(g, 0, [LayOff(0, ["3H"])]) == "extend.top-card"
    assert illegal(g, 0, [LayOff(1, ["8H"])]) == "layoff.invalid"
    assert illegal(g, 0, [Discard("8H")]) == "extend.layoff-or-pass"
    g.apply(0, [LayOff(0, ["8H"])])
    g.apply(0, [LayOff(0, ["3H"])])  # the 2S fits nowhere: he must stop, and the deal ends
    res = last(g)
    assert res["winner"] == 0 and res["finish"] == {"kind": "before-draw", "added": 2, "runs": [6]}
    assert res["scores"] == [25 + 2 * 5 + 6, 0] and g.deal_no == 1


def test_worked_example_3_a_seven_card_sequence_and_an_opponents_points():
    g = rig(["5S 6S 7S 8S 9S TS JS", "KD KC KH 2C 5D 9S 7H"], discard=["2H"])
    g.apply(0, [Meld(H("5S 6S 7S 8S 9S TS JS"))])  # 2H fits nowhere: no additions
    assert last(g)["scores"] == [25 + 10, 3]


@pytest.mark.parametrize("length,bonus", [(3, 0), (4, 0), (5, 3), (6, 6), (7, 10), (9, 10), (13, 10)])
def test_the_long_sequence_bonus_is_tiered(length, bonus):  # Ambiguity 4
    assert run_bonus(length) == bonus


# --- the declarations ----------------------------------------------------------------------------------------------
def test_a_declaration_after_discarding_adds_nothing_from_the_pile():
    g = rig(["4H 5H 6H 7H 9S 9D KC", LONE], stock=["9C"], discard=["8H"])
    g.apply(0, [Draw("stock"), Meld(H("4H 5H 6H 7H")), Meld(H("9S 9D 9C")), Discard("KC")])
    res = last(g)
    assert res["finish"]["kind"] == "after-discard" and res["finish"]["added"] == 0 and res["scores"][0] == 25


def test_several_sequences_each_earn_their_bonus():  # Ambiguity 5
    g = rig(["4H 5H 6H 9S TS JS QS", LONE], discard=["2D", "KS", "8H", "7H"])  # top down: 7H 8H KS 2D
    g.apply(0, [Meld(H("4H 5H 6H")), Meld(H("9S TS JS QS"))])
    for card, meld in (("7H", 0), ("8H", 0), ("KS", 1)):
        g.apply(0, [LayOff(meld, [card])])
    res = last(g)
    assert res["finish"]["runs"] == [3, 3] and res["scores"][0] == 25 + 3 * 5 + 3 + 3


@pytest.mark.parametrize(
    "ops,rule",
    [
        ([Meld(H("4H 5H 6H 7H"))], "rummy.whole-hand"),
        ([Draw("stock"), Meld(H("4H 5H 6H 7H")), Discard("KC")], "rummy.whole-hand"),
        ([Draw("discard"), Meld(H("4H 5H 6H 7H")), Meld(H("9S 9D 9C")), Discard("8H")], "discard.rediscard"),
        ([Draw("stock"), Meld(H("4H 5H 6H 7H 9S 9D 9C"))], "run.invalid"),
        ([Draw("stock"), Draw("stock")], "draw.once"),
        ([Draw("discard", depth=2)], "draw.one-card"),
    ],
)
def test_illegal_declarations_name_their_rule(ops, rule):
    g = rig(["4H 5H 6H 7H 9S 9D 9C", LONE], stock=["KC"], discard=["3S", "8H"])
    assert illegal(g, 0, ops) == rule


def test_eight_cards_may_not_be_declared():  # Ambiguity 2
    g = rig(["4H 5H 6H 7H 9S 9D 9C", LONE], stock=["8H"])
    assert illegal(g, 0, [Draw("stock"), Meld(H("4H 5H 6H 7H 8H")), Meld(H("9S 9D 9C"))]) == "rummy.discard"


def test_pass_ends_the_additions_and_options_list_every_combination_the_top_card_fits():
    g = rig(["2H 3H 4H 5H 6S 6D 6C", LONE], discard=["6H"])
    g.apply(0, [Meld(H("2H 3H 4H 5H")), Meld(H("6S 6D 6C"))])
    assert g.decision(0).options == [LayOff(0, ["6H"]), LayOff(1, ["6H"]), Pass()]
    g.apply(0, [Pass()])
    assert last(g)["scores"][0] == 25 and last(g)["finish"]["added"] == 0


# --- the deal, the stock and the match ---------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_deal(players):
    g = Seskine(players, {}, seed=4)
    assert all(len(h) == 7 for h in g.hands) and len(g.piles[0]) == 1 and "JK" not in g.cards_in_play()
    assert len(g.stock) == 52 - 7 * players - 1 and g.to_act() == [(g.dealer + 1) % players]
    assert g.decision(g.to_act()[0]).constraints["immediate_rummy"]


def test_a_deal_that_cannot_go_on_is_annulled():
    g = rig([LONE, LONE.replace("2C", "4C")], stock=["KC"], discard=())
    g.apply(0, [Draw("stock"), Discard("KC")])  # the stock is empty and the pile holds one card
    assert last(g)["winner"] is None and last(g)["finish"] == {"kind": "annulled"} and last(g)["scores"] == [0, 0]
    g = rig([LONE, LONE.replace("2C", "4C")], max_turns_per_deal=3)
    g.turns = 2
    g.apply(0, [Draw("stock"), Discard("KC")])
    assert last(g)["finish"] == {"kind": "annulled"} and not g.is_over()


def finish_deal_won_by(g, seat):
    """Seat `seat` declares a 7-card run before drawing (35 points); the other seat holds nothing."""
    g.hands = [H(LONE) for _ in range(g.n)]
    g.hands[seat] = H("5S 6S 7S 8S 9S TS JS")
    g.piles, g.turn, g.phase = [["2H"]], seat, "draw"
    g.apply(seat, [Meld(H("5S 6S 7S 8S 9S TS JS"))])


def test_the_match_ends_at_100_with_the_highest_total_first():
    g = Seskine(2, {}, seed=1)
    g.totals = [90, 40]
    finish_deal_won_by(g, 0)
    assert g.is_over() and g.result()["ranks"] == [1, 2]


def test_a_tie_at_the_top_goes_to_the_last_deals_winner():
    g = Seskine(3, {}, seed=1)
    g.totals = [65, 100, 20]
    finish_deal_won_by(g, 0)  # 65 + 35 = 100: tied with seat 1, and seat 0 won the deal
    assert g.is_over() and g.result()["ranks"] == [1, 2, 3]


def test_a_tie_without_the_last_deals_winner_plays_on():  # Ambiguity 7
    g = Seskine(3, {}, seed=1)
    g.totals = [100, 100, 70]
    finish_deal_won_by(g, 2)  # seat 2: 105, alone at the top
    assert g.is_over() and g.result()["ranks"][2] == 1
    g = Seskine(3, {}, seed=1)
    g.totals = [103, 103, 20]
    finish_deal_won_by(g, 2)  # seat 2 reaches 55; seats 0 and 1 tie at 103, neither won the deal
    assert not g.is_over() and g.deal_no == 1


# --- romis eval and the bots ------------------------------------------------------------------------------------
def test_eval_names_the_combinations_and_their_value(capsys, tmp_path):
    assert run(["eval", "seskine", "--hand", "5S 6S 7S 8S 9S TS JS"]) == 0
    assert "laying down: declares: 35 points" in capsys.readouterr().out
    hands = tmp_path / "hands.txt"
    hands.write_text("KC AC 2C 3C 9H 9D 9S\nKD KC KH 2C 5D 9S 7H\n")
    assert run(["eval", "seskine", "--hands-file", str(hands)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["declares"], r["points"]) for r in rows] == [(True, 25), (False, 3)]


def test_greedy_beats_random():
    wins, n = 0, 20
    for seed in range(n):
        g = Seskine(2, {}, seed)
        bots = [Brain("seskine", 2, {}, greedy=s == seed % 2, seed=seed * 10 + s) for s in range(2)]
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
        wins += g.result()["ranks"][seed % 2] == 1
    assert wins / n >= 0.7
