"""Boathouse Rummy (rules/boathouse.md): the worked examples, the run of discards, the final turns and the scoring."""

import pytest
import rigging
from rigging import illegal

from protocol.messages import Discard, Draw, Exchange, LayOff, Meld, Pass
from referee.rules.errors import IllegalAction
from referee.rules.melds import new_meld
from referee.rules.variants.boathouse import Boathouse
from referee.rules.variants.classic import Classic


def rig(hands, table=(), stock=("2C",) * 20, discard=("9D",), opened=None, turn=0, placed=None, **options):
    """A Boathouse game with one hand per string, in a chosen position (start of seat `turn`'s turn)."""
    return rigging.rig(
        Boathouse,
        hands,
        table=table,
        stock=stock,
        discard=discard,
        opened=opened,
        turn=turn,
        placed=placed,
        owner=0,
        **options,
    )


# Worked examples: ace placements (rule 2: the ace may be in any combination)
@pytest.mark.parametrize("cards", ["AH KH QH JH", "AH 2H 3H 4H", "JH QH KH AH 2H", "KS AS 2S"])
def test_ace_high_low_and_round_the_corner(cards):
    meld = new_meld(cards.split(), Boathouse.meld_rules)
    assert sorted(meld.ids) == sorted(cards.split())


def test_round_the_corner_is_boathouse_only():
    with pytest.raises(IllegalAction):
        new_meld(["JH", "QH", "KH", "AH", "2H"], Classic.meld_rules)


def test_joker_identity_is_inferred_round_the_corner():
    meld = new_meld(["KH", "JK", "2H"], Boathouse.meld_rules)
    assert meld.ids == ("KH", "AH", "2H")


# Derived check: ♥J ♥Q ♥K ♥A ♥2 is worth 43, a legal opening
def test_round_the_corner_opening_worth_43():
    g = rig(["JH QH KH AH 2H 7C 9S", "3C 4C 5C"])
    assert g.meld_points(new_meld(["JH", "QH", "KH", "AH", "2H"], g.meld_rules)) == 43
    g.apply(0, [Draw("stock"), Meld(["JH", "QH", "KH", "AH", "2H"])])
    assert g.opened[0]


# Derived check: the run of discards ♣9, ♦2, ♠K (top first) with ♣10 ♣J in hand
PILE = ("KS", "2D", "9C")  # bottom to top


def test_run_of_one_card_melded_at_once():
    g = rig(["TC JC 5H 8S", "3C 4C 5C"], discard=PILE, opened=(True, False))
    g.apply(0, [Draw("stock")])
    g.apply(0, [Draw("discard", depth=1), Meld(["9C", "TC", "JC"])])
    assert g.piles[0] == ["KS", "2D"] and g.table[-1].ids == ("9C", "TC", "JC")
    assert "9C" not in g.hands[0]


@pytest.mark.parametrize("depth", [2, 3])
def test_run_may_not_skip_a_card_that_does_not_fit(depth):
    g = rig(["TC JC KD KH 5H", "3C 4C 5C"], discard=PILE, opened=(True, False))
    g.apply(0, [Draw("stock")])
    hand, pile = list(g.hands[0]), list(g.piles[0])
    ops = [Draw("discard", depth=depth), Meld(["9C", "TC", "JC"])] + ([Meld(["KS", "KD", "KH"])] if depth == 3 else [])
    assert illegal(g, 0, ops) == "draw.run-unused"
    assert g.hands[0] == hand and g.piles[0] == pile and len(g.table) == 0


def test_run_needs_a_stock_draw_first():
    g = rig(["TC JC 5H", "3C 4C 5C"], discard=PILE, opened=(True, False))
    assert illegal(g, 0, [Draw("discard", depth=2)]) == "draw.run-after-stock"
    g.apply(0, [Draw("discard")])  # the single top card, classic rule 3a: no obligation
    assert illegal(g, 0, [Draw("discard", depth=1), Meld(["2D", "3D", "4D"])]) == "draw.run-after-stock"


# Turn structure 3b: one optional run of discards per turn, taken with the play that uses it (Ambiguity 13)
def test_a_second_run_in_the_same_turn_is_rejected():
    g = rig(["TC JC 3D 4D 5H 8S", "3C 4C 5C QC"], discard=PILE, opened=(True, False))
    g.apply(0, [Draw("stock")])
    assert g.decision(0).constraints["pile_take"] == "all"
    second = [Draw("discard", depth=1), Meld(["2D", "3D", "4D"])]
    assert illegal(g, 0, [Draw("discard", depth=1), Meld(["9C", "TC", "JC"]), *second]) == "draw.one-run"
    g.apply(0, [Draw("discard", depth=1), Meld(["9C", "TC", "JC"])])  # the run, in a play of its own
    table, pile = list(g.table), list(g.piles[0])
    assert illegal(g, 0, second) == "draw.one-run"  # another run in a later play of the same turn
    assert g.table == table and g.piles[0] == pile and "2D" not in g.hands[0]
    assert "pile_take" not in g.decision(0).constraints
    g.apply(0, [Discard("8S")])
    g.apply(1, [Draw("stock"), Discard("QC")])
    g.apply(0, [Draw("stock"), Draw("discard", depth=1), LayOff(0, ["QC"])])  # a new turn, a new run
    assert g.table[0].ids == ("9C", "TC", "JC", "QC")


def test_one_run_may_take_the_cards_for_several_melds():
    g = rig(["TC JC 3D 4D 5H 8S", "3C 4C 5C"], discard=PILE, opened=(True, False))
    g.apply(0, [Draw("stock"), Draw("discard", depth=2), Meld(["9C", "TC", "JC"]), Meld(["2D", "3D", "4D"])])
    assert g.piles[0] == ["KS"] and len(g.table) == 2


def test_unopened_player_may_take_a_run_only_into_a_valid_initial_meld():
    g = rig(["TC JC 5H 8S", "3C 4C 5C"], discard=PILE)
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Draw("discard"), Meld(["9C", "TC", "JC"])]) == "initial-meld.minimum"  # 29 < 40


def test_run_card_may_not_be_discarded_even_as_its_twin():
    g = rig(["TC JC 9C 8S", "3C 4C 5C"], discard=PILE, opened=(True, False))
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Draw("discard"), Meld(["9C", "TC", "JC"]), Discard("9C")]) == "discard.rediscard"
    g.apply(0, [Draw("discard"), Meld(["9C", "TC", "JC"]), Discard("8S")])
    assert g.turn == 1


def test_run_emptying_the_pile_then_the_discard_starts_a_new_one():
    g = rig(["TC JC 8S 4H", "3C 4C 5C"], discard=("9C",), opened=(True, False))
    g.apply(0, [Draw("stock"), Draw("discard"), Meld(["9C", "TC", "JC"]), Discard("8S")])
    assert g.piles[0] == ["8S"]


# Final turns (Special rules 4; Ambiguities 6-8, 10, 14)
def going_out(g):
    g.apply(0, [Draw("stock"), Meld(["2H", "3H", "4H"]), Discard("9S")])


def test_final_turns_go_clockwise_and_allow_melds_and_layoffs_below_40():
    g = rig(
        ["2H 3H 4H", "5C 6C 7C 5H QD", "8C KS"],
        table=["8D 9D TD"],
        stock=("9S",),
        opened=(True, False, True),
        placed=(True, True, True),
    )
    going_out(g)
    assert g.phase == "declare" and g.to_act() == [1] and g.decision(1).options == [Pass()]
    g.apply(1, [Meld(["5C", "6C", "7C"]), LayOff(1, ["5H"])])  # the run 2H-4H just melded by the winner
    assert g.to_act() == [2]
    g.apply(2, [LayOff(2, ["8C"])])
    scores = g.deal_results[0]["scores"]
    assert scores == [0, 10 * 2, 10]  # QD doubled: seat 1 was not opened when the winner went out


@pytest.mark.parametrize(
    "op,rule",
    [(Draw("stock"), "final.no-draw"), (Discard("5H"), "final.no-discard"), (Exchange(0, "9D"), "final.no-exchange")],
)
def test_final_turn_allows_only_melds_and_layoffs(op, rule):
    meld = new_meld(["8D", "JK", "TD"], Boathouse.meld_rules, owner=1, identities=["9D"])
    g = rig(["2H 3H 4H", "5H 9D"], table=[meld], stock=("9S",), opened=(True, True), placed=(True, True))
    going_out(g)
    assert illegal(g, 1, [op]) == rule


def test_loser_emptying_his_hand_in_the_final_turn_scores_0_and_the_others_still_play():
    g = rig(["2H 3H 4H", "5H 6H", "KC"], stock=("9S",), opened=(True, True, True), placed=(True, True, True))
    going_out(g)
    g.apply(1, [LayOff(0, ["5H", "6H"])])
    assert g.to_act() == [2]
    g.apply(2, [Pass()])
    assert g.deal_results[0]["winner"] == 0 and g.deal_results[0]["scores"] == [0, 0, 10]


# Derived check: a loser left with {♥5, JKR} pays 25; per-card scoring: 2, and no final turn
def test_default_scoring_counts_what_is_left_after_the_final_turn():
    g = rig(["2H 3H 4H", "5H JK 7C 8C 9C"], stock=("9S",), opened=(True, True), placed=(True, True))
    going_out(g)
    g.apply(1, [Meld(["7C", "8C", "9C"])])
    assert g.deal_results[0]["scores"] == [0, 25]


def test_per_card_scoring_has_no_final_turn():
    g = rig(["2H 3H 4H", "5H JK"], stock=("9S",), opened=(True, True), placed=(True, True), per_card_scoring=True)
    going_out(g)
    assert g.deal_results[0]["scores"] == [0, 2]


def test_per_card_scoring_keeps_the_doublings():
    g = rig(["2H 3H 4H", "5H JK"], stock=("9S",), per_card_scoring=True)
    going_out(g)
    assert g.deal_results[0]["scores"] == [0, 2 * 2 * 2]  # all at once, and not opened


def test_stalemate_has_no_final_turns():
    g = rig(["2H 3H 4H 8S", "5H JK"], stock=("9S",), discard=("KD",), max_stock_rebuilds=0)
    g.apply(0, [Draw("stock"), Discard("8S")])
    assert g.deal_results[0]["winner"] is None and g.deal_results[0]["scores"] == [2 + 3 + 4 + 9, 25]
