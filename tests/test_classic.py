"""Classic rummy (rules/classic.md): every worked example, the turn structure and the scoring."""

import pytest
import rigging
from rigging import illegal

from protocol.messages import Discard, Draw, Exchange, LayOff, Meld
from referee.rules.melds import new_meld
from referee.rules.variants.classic import Classic


def rig(hands, table=(), stock=("2C",) * 20, discard=("9D",), opened=(False, False), turn=0, **options):
    """A two-player Classic game in a chosen position (start of seat `turn`'s turn)."""
    return rigging.rig(
        Classic, hands, table=table, stock=stock, discard=discard, opened=opened, turn=turn, owner=0, **options
    )


# Worked example 1: lay-offs onto ♥5-♥8
@pytest.mark.parametrize(
    "cards,result", [("4H", "4H 5H 6H 7H 8H"), ("9H", "5H 6H 7H 8H 9H"), ("9H TH JH", "5H 6H 7H 8H 9H TH JH")]
)
def test_lay_off_onto_a_run(cards, result):
    g = rig(["4H 9H TH JH KC KD", "3C 4C 5C"], table=["5H 6H 7H 8H"], opened=(True, False))
    g.apply(0, [LayOff(0, cards.split())])
    assert " ".join(g.table[0].ids) == result


def test_lay_off_with_a_gap_is_illegal():
    g = rig(["TH KC KD", "3C 4C 5C"], table=["5H 6H 7H 8H"], opened=(True, False))
    assert illegal(g, 0, [LayOff(0, ["TH"])]) == "layoff.invalid"


# Worked example 2: four suits before a repeated suit
def test_set_needs_all_four_suits_before_a_repeat():
    g = rig(["QH QD KC KD", "3C 4C 5C"], table=["QH QC QS"], opened=(True, False))
    assert illegal(g, 0, [LayOff(0, ["QH"])]) == "layoff.invalid"
    g.apply(0, [LayOff(0, ["QD"]), LayOff(0, ["QH"])])
    assert sorted(g.table[0].ids) == ["QC", "QD", "QH", "QH", "QS"]


# Worked example 3: joker exchange
def test_joker_exchange_puts_the_joker_in_hand():
    meld = new_meld(["KS", "QS", "JK", "TS", "9S"], Classic.meld_rules, owner=1, identities=["JS"])
    g = rig(["JS 3D 8C", "3C 4C 5C"], table=[meld], opened=(True, True))
    g.apply(0, [Exchange(0, "JS")])
    assert g.table[0].cards == ("9S", "TS", "JS", "QS", "KS")
    assert "JK" in g.hands[0] and "JS" not in g.hands[0]


def test_unopened_player_may_not_exchange_or_lay_off():
    meld = new_meld(["KS", "QS", "JK", "TS", "9S"], Classic.meld_rules, owner=1, identities=["JS"])
    g = rig(["JS 3D 8C", "3C 4C 5C"], table=[meld], opened=(False, True))
    assert illegal(g, 0, [Exchange(0, "JS")]) == "initial-meld.first"


# Worked example 4 and the derived checks: the 40-point initial meld
def test_initial_meld_of_exactly_40_is_enough():
    g = rig(["TH JH QH KH 9C 9D 3S 8D", "3C 4C 5C"])  # 40 + 9 + 9 = hearts run 40 alone
    g.apply(0, [Draw("stock"), Meld(["TH", "JH", "QH", "KH"])])
    assert g.opened[0]


def test_initial_meld_below_40_is_rejected_and_nothing_changes():
    g = rig(["QS KS AS 2H 3H 4H 8D 9C", "3C 4C 5C"])
    g.apply(0, [Draw("stock")])
    hand = list(g.hands[0])
    assert illegal(g, 0, [Meld(["QS", "KS", "AS"])]) == "initial-meld.minimum"  # 31
    assert g.hands[0] == hand and g.table == []
    g.apply(0, [Meld(["QS", "KS", "AS"]), Meld(["2H", "3H", "4H"])])  # 31 + 9 = 40
    assert g.opened[0]


@pytest.mark.parametrize("cards,points", [("AD 2D 3D", 6), ("AC AH AS", 33), ("QS KS AS", 31)])
def test_meld_points(cards, points):
    g = rig(["3C", "4C"])
    assert g.meld_points(new_meld(cards.split(), g.meld_rules)) == points


def test_layoffs_do_not_count_towards_the_40():
    g = rig(["QS KS AS 9H 8D 4C", "3C 4C 5C"], table=["6H 7H 8H"])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [LayOff(0, ["9H"]), Meld(["QS", "KS", "AS"])]) == "initial-meld.first"


def test_going_out_all_at_once_needs_no_40():
    g = rig(["2H 3H 4H 5C 5D 5S", "3C 4C 5C"], stock=("9S",))
    g.apply(0, [Draw("stock"), Meld(["2H", "3H", "4H"]), Meld(["5C", "5D", "5S"]), Discard("9S")])
    assert g.deal_results[0]["winner"] == 0


def test_going_out_before_drawing():
    g = rig(["2H 3H 4H 5C 5D 5S", "3C 4C 5C"])
    g.apply(0, [Meld(["2H", "3H", "4H"]), Meld(["5C", "5D", "5S"])])
    assert g.deal_results[0]["winner"] == 0


# Derived check: the deal-end penalty and its doublings
def test_penalty_doubles_for_unopened_and_for_going_out_all_at_once():
    g = rig(["2H 3H 4H 5C 5D 5S", "AD JK 7C"], stock=("9S",), opened=(False, False))
    g.apply(0, [Draw("stock"), Meld(["2H", "3H", "4H"]), Meld(["5C", "5D", "5S"]), Discard("9S")])
    assert g.deal_results[0]["scores"] == [0, 38 * 2 * 2]


def test_penalty_single_for_opened_loser_when_winner_had_melded_before():
    g = rig(["2H 3H 4H", "AD JK 7C"], table=["5C 5D 5S"], stock=("9S",), opened=(True, True))
    g.placed_before = [True, True]
    g.apply(0, [Draw("stock"), Meld(["2H", "3H", "4H"]), Discard("9S")])
    assert g.deal_results[0]["scores"] == [0, 38]


def test_unopened_loser_pays_double():
    g = rig(["2H 3H 4H", "AD JK 7C"], table=["5C 5D 5S"], stock=("9S",), opened=(True, False))
    g.placed_before = [True, False]
    g.apply(0, [Draw("stock"), Meld(["2H", "3H", "4H"]), Discard("9S")])
    assert g.deal_results[0]["scores"] == [0, 76]


def test_card_taken_from_the_pile_may_not_be_discarded_at_once():
    g = rig(["9D 3C 8S", "3C 4C 5C"], discard=("9D",))
    g.apply(0, [Draw("discard")])
    assert illegal(g, 0, [Discard("9D")]) == "discard.rediscard"  # the identical copy is banned too
    assert [o.card for o in g.decision(0).options] == ["3C", "8S"]


def test_rediscard_ban_lapses_when_nothing_else_is_left():
    g = rig(["9D", "3C 4C 5C"], discard=("9D",))
    g.apply(0, [Draw("discard")])
    assert [o.card for o in g.decision(0).options] == ["9D"]


def test_draw_and_discard_order_is_enforced():
    g = rig(["9D 3C 8S", "3C 4C 5C"])
    assert illegal(g, 0, [Discard("3C")]) == "discard.before-draw"
    assert illegal(g, 1, [Draw("stock")]) == "turn.not-your-turn"
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Draw("stock")]) == "draw.once"


def test_stock_rebuild_turns_the_pile_over_keeping_the_top_card():
    g = rig(["9D 3C 8S", "3C 4C 5C"], stock=("KC",), discard=("2D", "3D", "4D"))
    g.apply(0, [Draw("stock"), Discard("KC")])
    assert g.piles[0] == ["KC"] and g.stock[-1] == "2D" and len(g.stock) == 3


def test_stalemate_scores_plain_penalties():
    g = rig(["9D 3C 8S", "AD JK"], stock=("KC",), discard=("2D",), max_stock_rebuilds=0)
    g.apply(0, [Draw("stock"), Discard("KC")])
    assert g.deal_results[0]["winner"] is None
    assert g.deal_results[0]["scores"] == [20, 31]


def test_match_ends_at_target_and_lowest_total_wins():
    g = rig(["2H 3H 4H 5C 5D 5S", "AD JK 7C KC KD KH QS QH QD"], stock=("9S",), target=100)
    g.apply(0, [Draw("stock"), Meld(["2H", "3H", "4H"]), Meld(["5C", "5D", "5S"]), Discard("9S")])
    assert g.is_over() and g.result()["ranks"] == [1, 2]


def test_cards_in_plays_may_be_lower_case_or_use_10():
    g = rig(["TH JH QH KH 9C 9D 3S 8D", "3C 4C 5C"])
    g.apply(0, [Draw("stock"), Meld(["10h", "jh", "QH", "kh"]), Discard("3s")])
    assert g.table[0].ids == ("TH", "JH", "QH", "KH")


@pytest.mark.parametrize(
    "ops,rule",
    [
        ([Draw("stock"), Discard("ZZ")], "card.invalid"),
        ([Draw("stock"), Discard("3S", pile=1)], "discard.no-such-pile"),
        ([Draw("stock"), Meld(["TH", "JH", "QH", "KH"], kind="foo")], "meld.kind"),
        ([Draw("stock", depth=2)], "draw.one-card"),
        ([Draw("stock"), Discard("3S"), Discard("8D")], "play.after-end"),
    ],
)
def test_malformed_plays_name_the_rule(ops, rule):
    g = rig(["TH JH QH KH 9C 9D 3S 8D", "3C 4C 5C"])
    assert illegal(g, 0, ops) == rule
