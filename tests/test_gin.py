"""Gin (rules/gin.md): every worked example, the starter offer, knocking, lay-offs at the showdown, drawn deals."""

import pytest

from protocol.messages import Discard, Draw, Knock, Pass
from referee.rules.errors import IllegalAction
from referee.rules.melds import new_meld
from referee.rules.variants.gin import Gin


def rig(knocker, defender, table=(), totals=(0, 0)):
    """Seat 0 has drawn (11 cards) and is to end its turn; seat 1 deals."""
    g = Gin(2, {}, seed=3)
    g.hands = [knocker.split(), defender.split()]
    assert [len(h) for h in g.hands] == [11, 10], "a knocker who has drawn holds 11 cards, the defender 10"
    g.table = [new_meld(t.split(), g.meld_rules, owner=1) for t in table]
    g.stock, g.piles = ["2C"] * 20, [["KD"]]
    g.turn, g.phase, g.dealer, g.totals = 0, "play", 1, list(totals)
    return g


def scores(g):
    return g.deal_results[-1]["scores"]


EXAMPLE_1 = (
    "4H 5H 6H 7H 8C 9C TC JC 2D 3C KH",  # discarding KH leaves 2 + 3: K = 5
    "AS 2S 3S 4S 5S 8D 9D TD KC 7S",
)  # K + 7 free: D = 17


def test_worked_example_1_knock_win():
    g = rig(*EXAMPLE_1)
    g.apply(0, [Knock("KH")])
    assert g.deal_results[-1]["finish"]["deadwood"] == [5, 17]
    assert scores(g) == [37, -17]


def test_worked_example_2_undercut():
    g = rig("AS 2S 3S 4S 7C 8C 9C TC 4D 5C KH", "5S 6S 7S 8S 8D 9D TD JD AH 3H")
    g.apply(0, [Knock("KH")])  # K = 9, D = 4
    assert scores(g) == [-9, 30]


def test_a_tie_is_an_undercut():
    g = rig("AS 2S 3S 7C 8C 9C QS QH QD 4D KH", "4S 5S 6S 7S 8D 9D TD JD AH 3H")
    g.apply(0, [Knock("KH")])  # K = 4 = D
    assert scores(g) == [-4, 25]


def test_worked_example_3_gin_counts_the_whole_hand():
    g = rig("AS 2S 3S 4S 7C 8C 9C QS QH QD KH", "KD JC TH 9S 7D 5H 3C 2D AH AC")
    g.apply(0, [Knock("KH")])  # nothing left over: a knock with no deadwood is gin (Ambiguity 13)
    assert g.deal_results[-1]["finish"]["kind"] == "gin"
    assert scores(g) == [83, -58]


def test_going_out_by_melding_everything_is_gin():
    g = rig("AS 2S 3S 4S 7C 8C 9C QS QH QD KH", "KD JC TH 9S 7D 5H 3C 2D AH AC")
    from protocol.messages import Meld

    g.apply(0, [Meld(["AS", "2S", "3S", "4S"]), Meld(["7C", "8C", "9C"]), Meld(["QS", "QH", "QD"]), Discard("KH")])
    assert scores(g) == [83, -58]


def test_worked_example_4_game_bonus():
    g = rig(*EXAMPLE_1, totals=(67, 5))
    g.apply(0, [Knock("KH")])
    assert g.is_over() and g.totals == [204, -12] and g.totals[0] - g.totals[1] == 216
    assert g.result()["ranks"] == [1, 2]


def test_knocking_above_nine_is_illegal_and_changes_nothing():
    g = rig("AS 2S 3S 7C 8C 9C 4D 6H KH JD TH", "4S 5S 6S 7S 8D 9D TD JD AH 3H")
    with pytest.raises(IllegalAction) as e:
        g.apply(0, [Knock("KH")])  # 4 + 6 + 10 + 10 left
    assert e.value.rule == "knock.deadwood" and len(g.hands[0]) == 11 and g.piles[0] == ["KD"]
    assert "KH" not in [getattr(o, "discard", None) for o in g.decision(0).options]


def test_knock_options_list_exactly_the_discards_that_allow_it():
    g = rig("AS 2S 3S 7C 8C 9C QS QH QD 4D 5C", "4S 5S 6S 7S 8D 9D TD JD AH 3H")
    knocks = sorted(o.discard for o in g.decision(0).options if isinstance(o, Knock))
    assert knocks == ["4D", "5C"]


def test_chained_lay_offs_on_the_table_count():
    g = rig("AS 2S 3S 4S 5S QS QH QD 8H 9H KC", "KD JC TH 9S 7D 5C 3C 2D AC 6D", table=["5H 6H 7H"])
    g.apply(0, [Knock("KC")])  # 8H then 9H go on the hearts run: no deadwood, so gin
    assert g.deal_results[-1]["finish"]["kind"] == "gin"


def test_defender_lays_off_on_the_knockers_melds():
    g = rig(*EXAMPLE_1)
    g.hands[1] = ["AS", "2S", "3S", "4S", "5S", "8D", "9D", "TD", "KC", "8H"]  # 8H fits the knocker's 4H-7H
    g.apply(0, [Knock("KH")])
    assert g.deal_results[-1]["finish"]["deadwood"] == [5, 10] and scores(g) == [30, -10]


def test_knocker_shows_the_layout_that_leaves_the_defender_most():
    # 3H 4H 5H 4S 4C is a run (deadwood 4S 4C) or a set of fours (deadwood 3H 5H): 8 either way.
    # Shown as a set, the defender's 6H fits nothing (Ambiguity 14).
    g = rig("3H 4H 5H 4S 4C 6D 7D 8D 9D TD KC", "6H AS 2S 3S JD QD KD 7S 7C 7H")
    g.apply(0, [Knock("KC")])
    assert g.deal_results[-1]["finish"]["deadwood"] == [8, 6] and scores(g) == [-8, 27]


def test_starter_is_offered_to_the_non_dealer_then_the_dealer():
    g = Gin(2, {}, seed=5)
    first = (g.dealer + 1) % 2
    assert g.to_act() == [first] and g.decision(first).phase == "offer"
    g.apply(first, [Pass()])
    assert g.to_act() == [g.dealer]
    g.apply(g.dealer, [Pass()])
    assert g.to_act() == [first] and [o.source for o in g.decision(first).options] == ["stock"]
    with pytest.raises(IllegalAction) as e:
        g.apply(first, [Draw("discard")])
    assert e.value.rule == "draw.starter-declined"
    # the stock draw lifts it: the next seat may take the discard pile's top card again
    g.apply(first, [Draw("stock")])
    g.apply(first, [g.decision(first).options[0]])
    assert [o.source for o in g.decision(g.dealer).options] == ["stock", "discard"]
    g.apply(g.dealer, [Draw("discard")])


def test_taking_the_starter_is_the_draw_of_a_normal_turn():
    g = Gin(2, {}, seed=5)
    first = (g.dealer + 1) % 2
    starter = g.piles[0][-1]
    g.apply(first, [Draw("discard")])
    assert starter in g.hands[first] and g.decision(first).phase == "play"
    assert starter not in [o.card for o in g.decision(first).options if isinstance(o, Discard)]


def test_no_melding_before_the_draw():
    g = Gin(2, {}, seed=5)
    first = (g.dealer + 1) % 2
    g.apply(first, [Pass()])
    g.apply(g.dealer, [Pass()])
    from protocol.messages import Meld

    with pytest.raises(IllegalAction) as e:
        g.apply(first, [Meld(g.hands[first][:3])])
    assert e.value.rule in ("play.before-draw",)


def test_two_cards_left_and_a_plain_discard_is_a_drawn_deal_and_the_dealer_deals_again():
    g = rig("AS 2S 3S 7C 8C 9C 4D 6H KH JD TH", "4S 5S 6S 7S 8D 9D TD JD AH 3H")
    g.stock = ["2C", "3C"]
    dealer = g.dealer
    g.apply(0, [Discard("KH")])
    assert g.deal_results[-1]["winner"] is None and scores(g) == [0, 0] and g.dealer == dealer


def test_the_winner_deals_next():
    g = rig(*EXAMPLE_1)
    g.apply(0, [Knock("KH")])
    assert g.dealer == 0


def test_eval_reports_deadwood_best_discard_and_knock():
    ten = Gin.evaluate(["4H", "5H", "6H", "7C", "8C", "9C", "QS", "QH", "2D", "3C"])
    assert ten["points"] == 25 and sorted(ten["deadwood"]) == ["2D", "3C", "QH", "QS"]
    eleven = Gin.evaluate(["4S", "5S", "6S", "AC", "5C", "3D", "6D", "3H", "4H", "5H", "6H"])
    assert eleven["points"] == 9 and eleven["knock"] and not eleven["gin"]


def test_melds_then_a_knock_in_one_play_and_nothing_after_it():
    from protocol.messages import Meld

    g = rig(*EXAMPLE_1)
    with pytest.raises(IllegalAction) as e:
        g.apply(0, [Knock("KH"), Discard("2D")])
    assert e.value.rule == "play.after-end" and g.deal_no == 0
    g.apply(0, [Meld(["4H", "5H", "6H", "7H"]), Knock("KH")])
    assert scores(g) == [37, -17]
