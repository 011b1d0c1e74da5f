"""Relatives (rules/relatives.md): layouts, laying down 8 or 7, the pile additions, finished seats skipped, the
draw points and the bonuses, the target mid-deal, `romis eval`, and greedy against random."""

import pytest

from protocol.messages import Discard, Draw, Meld, Pass
from referee.cli import run
from referee.rules.errors import IllegalAction
from referee.rules.related import fits, is_layout
from referee.rules.variants.relatives import Relatives, extra_bonus
from sample_bots.brain import Brain


def H(text: str) -> list[str]:
    return text.split()


# --- worked examples 1-6 and the ambiguities on layouts ---------------------------------------------------
@pytest.mark.parametrize("other", H("4D 4S 4C 5D 5S 5C 6D 6S 6C 3H 7H"))
def test_example1_relatives_of_a_sequence_base(other: str) -> None:
    assert is_layout(H("4H 5H 6H") + [other])


def test_example1_unrelated_card_is_illegal() -> None:
    assert not is_layout(H("4H 5H 6H 8H"))
    assert not is_layout(H("4H 5H 6H 7D"))


@pytest.mark.parametrize("other", H("KS AH QH AC QC AD QD"))
def test_example2_relatives_of_three_kings(other: str) -> None:
    assert is_layout(H("KH KC KD") + [other])


@pytest.mark.parametrize("other", H("AS QS"))
def test_example2_no_branch_from_the_fourth_king(other: str) -> None:
    assert not is_layout(H("KH KC KD") + [other])


def test_example3_chains_through_a_base_card() -> None:
    assert is_layout(H("KH KC KD QH JH TH"))
    assert is_layout(H("KH KC KD AD 2D 3D"))  # round the corner (Ambiguity 1)


def test_ambiguity2_four_king_base_carries_queen_of_spades() -> None:
    assert is_layout(H("KH KD KC KS QS"))


def test_example4_and_5_full_layouts() -> None:
    assert is_layout(H("KH KD KS QH JH AH AD"))
    assert is_layout(H("4H 5H 6H 7H 5D 7S 7D"))


def test_example6_no_branch_from_a_relative() -> None:
    assert not is_layout(H("4H 5H 6H 7H 7D 8D"))
    assert is_layout(H("4H 5H 6H 7H 7D"))


def test_two_groups_but_never_three() -> None:
    assert is_layout(H("4H 5H 6H 9C 9D 9S 9H"))
    assert not is_layout(H("4H 5H 6H 9C 9D 9S 2S"))
    assert not is_layout(H("2H 3H 4H 7C 7D 7S JS QS KS"))


def test_ambiguity3_additions_join_existing_groups_only() -> None:
    layout = H("4H 5H 6H 7H 5D 7D 4S")
    assert fits(layout, "8H") and fits(layout, "6C")
    assert not fits(layout, "8D")  # related only to a relative
    assert not fits(H("4H 5H 6H 7H 5D 7S 7D"), "JC")


# --- game flow ---------------------------------------------------------------------------------------------
def staged(players: int, hands: list[str], pile: str = "", stock: str = "", turn: int = 0) -> Relatives:
    """A deal with the given hands, discard pile (bottom first) and stock (top last)."""
    g = Relatives(players, {}, 1)
    g.hands = [H(h) for h in hands]
    g.piles = [H(pile)]
    g.stock = H(stock)
    g.turn, g.phase = turn, "draw"
    return g


LAY7 = "KH KD KS QH JH AH AD"
JUNK = ["2C 4D 6S 8C TD QS 3H", "2D 4S 6C 8D TS QC 5H"]


def test_meld_of_eight_then_additions_and_bonus() -> None:
    g = staged(3, [LAY7, *JUNK], pile="2C 9H TH", stock="5C 6D 7C 8S 2S TC KC")
    g.apply(0, [Draw("stock"), Meld(H(LAY7 + " KC")), Draw("discard")])  # TH fits (K-Q-J-T of hearts)
    assert g.phase == "extend"  # 9H fits too
    g.apply(0, [Draw("discard")])  # then 2C misfits: the turn ends on its own
    assert g.turn == 1 and g.finished == [0]
    assert sorted(g.layouts[0]) == sorted(H(LAY7 + " KC TH 9H"))
    assert g.deal_points[0] == 10 + 1 + 2 + 4  # worked example 7: ten cards score 17


def test_misfit_addition_is_rejected_with_its_rule() -> None:
    g = staged(3, [LAY7, *JUNK], pile="9S TH", stock="5C 6D 7C 8S 2S TC KC")
    g.apply(0, [Draw("stock"), Meld(H(LAY7 + " KC"))])
    with pytest.raises(IllegalAction) as e:
        g.apply(0, [Draw("discard", depth=2)])
    assert e.value.rule == "layout.misfit"


def test_discard_then_lay_down_7_takes_no_pile_cards() -> None:
    g = staged(3, [LAY7, *JUNK], pile="TH", stock="5C 6D 7C 8S 2S TC 2H")
    g.apply(0, [Draw("stock"), Meld(H(LAY7))])  # 2H is the discard
    assert g.piles[0][-1] == "2H" and g.turn == 1 and g.deal_points[0] == 10


@pytest.mark.parametrize(
    ("ops", "rule"),
    [
        ([Meld(H(LAY7))], "play.before-draw"),
        ([Draw("stock"), Meld(H("KH KD KS QH JH"))], "layout.whole-hand"),
        ([Draw("discard"), Meld(H(LAY7))], "discard.rediscard"),
    ],
)
def test_illegal_lay_downs(ops: list, rule: str) -> None:
    g = staged(3, [LAY7, *JUNK], pile="2H", stock="5C 6D 7C 8S 2S TC 3C")
    with pytest.raises(IllegalAction) as e:
        g.apply(0, ops)
    assert e.value.rule == rule


def test_invalid_layout_is_rejected() -> None:
    g = staged(3, ["4H 5H 6H 7H 7D 8D 2C", *JUNK], stock="5C 6D 7C 8S 2S TC 3C")
    with pytest.raises(IllegalAction) as e:
        g.apply(0, [Draw("stock"), Meld(H("4H 5H 6H 7H 7D 8D 2C"))])
    assert e.value.rule == "layout.invalid"


def test_finished_seats_are_skipped_and_score_each_card_taken() -> None:
    # worked example 8's mechanism: P1 finishes, then every card P2 and P3 take pays him 1
    g = staged(3, [LAY7, *JUNK], pile="9C", stock="5C 6D 7C 8S 2S TC 2H")
    g.apply(0, [Draw("stock"), Meld(H(LAY7))])
    for seat in (1, 2, 1, 2):
        assert g.to_act() == [seat]
        g.apply(seat, [Draw("stock")])
        g.apply(seat, [(g.decision(seat).options or [])[0]])
    assert g.to_act() == [2 - 1] and g.deal_points[0] == 10 + 4
    assert g.view(1)["scores"][0] == 14


def test_second_finisher_gets_no_ten_and_scores_only_after_his_turn() -> None:
    g = staged(3, [LAY7, "4H 5H 6H 7H 5D 7S 7D", JUNK[1]], pile="9C", stock="5C 6D 7C 8S 2S TC 2H 3C")
    g.apply(0, [Draw("stock"), Meld(H(LAY7))])  # 3C discarded
    g.apply(1, [Draw("stock"), Meld(H("4H 5H 6H 7H 5D 7S 7D"))])  # his own draw pays P1 only (Ambiguity 15)
    assert g.deal_points[:2] == [11, 0]
    g.apply(2, [Draw("stock")])
    assert g.deal_points[:2] == [12, 1] and g.to_act() == [2]


def test_bonuses() -> None:
    assert [10 + extra_bonus(n) for n in (7, 8, 9, 10)] == [10, 11, 13, 17]


def test_target_reached_mid_deal_ends_the_match() -> None:
    g = staged(2, [LAY7, JUNK[0]], pile="9C", stock="5C 6D 7C 8S 2S TC 2H")
    g.totals = [189, 0]
    g.apply(0, [Draw("stock"), Meld(H(LAY7))])
    assert not g.is_over()
    g.apply(1, [Draw("stock")])  # 189 + 10 + 1 = 200
    assert g.is_over() and g.result()["ranks"] == [1, 2]


def test_options_are_one_op_plays_including_lay_downs() -> None:
    g = staged(3, [LAY7, *JUNK], pile="9C", stock="5C 6D 7C 8S 2S TC 2H")
    g.apply(0, [Draw("stock")])
    opts = g.decision(0).options or []
    assert Meld(sorted(H(LAY7))) in opts and Discard("2H") in opts
    g2 = staged(3, [LAY7, *JUNK], pile="TH", stock="5C 6D 7C 8S 2S TC KC")
    g2.apply(0, [Draw("stock"), Meld(H(LAY7 + " KC"))])
    assert g2.decision(0).options == [Draw("discard"), Pass()]


# --- romis eval and the bots -----------------------------------------------------------------------------------
def test_eval_layable_and_unlayable_hands(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["eval", "relatives", "--hand", LAY7]) == 0
    assert "laying down: yes: base AH JH KH QH + AD KD KS" in capsys.readouterr().out
    assert run(["eval", "relatives", "--hand", "4H 5H 6H 7H 7D 8D 2C"]) == 0
    assert "laying down: no" in capsys.readouterr().out


def test_greedy_beats_random() -> None:
    wins, n = 0, 50
    for seed in range(n):
        g = Relatives(2, {}, seed)
        bots = [Brain("relatives", 2, {}, greedy=g_, seed=seed) for g_ in (True, False)]
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
        wins += g.result()["ranks"] == [1, 2]
    assert wins / n >= 0.8


def test_example8_draw_points() -> None:
    # P1 lays down first; P2 and P3 take 12 cards up to P2's lay-down (his draw and one pile card included);
    # P3 takes 5 more. Draw points: P1 12 + 5 = 17, P2 5 (on top of P1's 10 and P2's 2 extra cards, 1 + 2).
    junk = H("9S TS JS QS JC QC KC 9C TC 2D 3D")
    draws = ["2C", *junk[:9], "3H", "8H", "4D", "6S", "8S", "2S", "3S"]
    g = staged(3, [LAY7, "4H 5H 6H 7H 5D 7S 7D", "2H 4C 6C 8C TD QD AS"], pile="AC", stock=" ".join(draws[::-1]))
    g.apply(0, [Draw("stock"), Meld(H(LAY7))])
    for i in range(10):
        g.apply(1 + i % 2, [Draw("stock"), Discard(draws[1 + i])])  # each discards the card drawn
    g.apply(1, [Draw("stock"), Meld(H("4H 5H 6H 7H 5D 7S 7D 8H")), Draw("discard")])  # 8H, then 3H; TC misfits
    assert g.finished == [0, 1] and g.to_act() == [2]
    for card in draws[-5:]:
        g.apply(2, [Draw("stock"), Discard(card)])
    assert g.deal_points == [10 + 17, 1 + 2 + 5, 0]


def test_after_the_match_the_view_shows_each_total_once() -> None:
    # the running scores add the deal in play to the totals; once the last deal is scored into the totals, not again
    game = Relatives(2, {"target": 60}, 4)
    while not game.is_over():
        seat = game.to_act()[0]
        game.apply(seat, game.fallback(seat))
    totals = game.result()["totals"]
    assert max(totals) >= 60
    assert game.view(0)["scores"] == game.view(1)["scores"] == totals
