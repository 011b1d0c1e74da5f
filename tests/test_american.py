"""American Rummy (rules/american.md): every worked example, knocking, the interruption without lay-offs, x6 wins."""

import pytest
from test_straight import finish, illegal, interrupted, rig, scores

from protocol.messages import Discard, Draw, Knock, LayOff, Meld, Pass
from referee.rules.errors import ConfigError
from referee.rules.variants.american import American
from referee.rules.variants.straight import Straight


def arig(hands, drew=True, **kw):
    """An American game at the start of seat `turn`'s turn; `drew`: every seat has drawn this deal."""
    g = rig(hands, cls=American, **kw)
    g.drew = [drew] * g.n
    return g


# --- worked examples (derived) -------------------------------------------------------------------
def test_worked_example_1_the_knocker_loses_and_pays_double():
    g = arig(["2H 3H 4H 5S 5D 5C 9C", "JS JH JD 7C 8C 9C 4S", "3D 4D 5D 6D 7D QS 2C", "JH QH KH 8S 7D"])
    g.apply(0, [Knock()])
    assert finish(g)["unused"] == [9, 4, 12, 15] and finish(g)["counted"] == [18, 4, 12, 15]
    assert g.deal_results[-1]["winner"] == 1 and finish(g)["multiplier"] == 1 and scores(g) == [0, 41, 0, 0]


def test_worked_example_2_a_tie_goes_to_the_knocker():
    g = arig(["2H 3H 4H 5S 5D 5C 4C", "JS JH JD 7C 8C 9C 4S", "6D 6H 6S TC"])
    g.apply(0, [Knock()])
    assert g.deal_results[-1]["winner"] == 0 and scores(g) == [10, 0, 0]


def test_worked_example_3_a_first_turn_knock_with_a_seven_card_sequence_pays_six_times():
    g = arig(["3C 4C 5C 6C 7C 8C 9C", "KS QD", "JD AC"], drew=False, turns=0)
    g.apply(0, [Knock()])
    assert finish(g)["unused"] == [0, 20, 11] and finish(g)["multiplier"] == 6 and scores(g) == [186, 0, 0]


# --- knocking -----------------------------------------------------------------------------------------
def test_knock_is_offered_instead_of_the_draw_and_never_after_it():
    g = arig(["2H 3H 4H 5S 5D 5C 9C", "JS JH JD"])
    assert Knock() in g.decision(0).options
    g.apply(0, [Draw("stock")])
    assert not any(isinstance(o, Knock) for o in g.decision(0).options)
    assert illegal(g, 0, [Knock()]) == "knock.after-draw"


def test_a_knock_discards_nothing():
    g = arig(["2H 3H 4H 5S 5D 5C 9C", "JS JH JD"])
    assert illegal(g, 0, [Knock("9C")]) == "knock.no-discard"


def test_melds_may_not_precede_a_knock():
    g = arig(["AS 2S 3S 5D 5C 9C KD", "JS JH JD"], turns=0)
    assert illegal(g, 0, [Meld(["AS", "2S", "3S"]), Knock()]) == "rummy.whole-hand"
    assert g.table == [] and len(g.hands[0]) == 7


def test_nothing_follows_a_knock():
    g = arig(["2H 3H 4H 5S 5D 5C 9C", "JS JH JD"])
    assert illegal(g, 0, [Knock(), Draw("stock")]) == "play.after-end"


def test_a_winner_who_never_drew_wins_six_times_even_if_he_did_not_knock():
    g = arig(["KS QS JD 9C", "5C 6D 7H", "2D 3S 7C"], drew=False, turns=0)
    g.apply(0, [Knock()])  # A: 39, doubled; B: 18; C: 12
    assert g.deal_results[-1]["winner"] == 2 and finish(g)["multiplier"] == 6
    assert scores(g) == [0, 0, (78 + 18 - 12) * 6]


@pytest.mark.parametrize("hand_size,multiplier", [(6, 6), (7, 1)])
def test_a_knocked_hand_holding_a_hand_size_sequence_wins_six_times(hand_size, multiplier):
    g = arig(["AH 2H 3H 4H 5H 6H KC", "KS QS", "KD QD TH"], hand_size=hand_size)
    g.apply(0, [Knock()])
    assert finish(g)["multiplier"] == multiplier and scores(g) == [(20 + 30 - 10) * multiplier, 0, 0]


# --- rummy -------------------------------------------------------------------------------------------
def test_immediate_rummy_wins_six_times():
    g = arig(["AS 2S 3S 8C 8D 8H 8S", "7C 2D"], drew=False, turns=0)
    g.apply(0, [Meld(["AS", "2S", "3S"]), Meld(["8C", "8D", "8H", "8S"])])
    assert finish(g)["multiplier"] == 6 and scores(g) == [54, 0]


def test_rummy_by_pirmasis_with_the_starter_quadruples():
    g = arig(["AS 2S 8C 8D 8H 8S KD", "7C 2D"], drew=False, discard=("3S",), turns=0)
    g.apply(0, [Draw("discard"), Meld(["AS", "2S", "3S"]), Meld(["8C", "8D", "8H", "8S"]), Discard("KD")])
    assert finish(g)["multiplier"] == 4


def test_any_other_rummy_doubles():
    g = arig(["5H 6H 7H 9S 9D 9C", "7C 2D"])
    g.apply(0, [Draw("stock"), Meld(["5H", "6H", "7H"]), Meld(["9S", "9D", "9C"]), Discard("KC")])
    assert finish(g)["multiplier"] == 2 and scores(g) == [18, 0]


# --- the interruption -------------------------------------------------------------------------------
def test_after_the_interruption_nobody_knocks():
    g = interrupted(["2H", "2S", "7C"], ["AH", "AD", "AS", "KH"], 2, cls=American)
    assert Knock() not in g.decision(0).options
    assert illegal(g, 0, [Knock()]) == "knock.interruption"


def test_after_the_interruption_nobody_adds_to_others_combinations():
    g = interrupted(["5S 6S 7S KD", "8S 9S", "2C"], ["3C", "4S", "QD", "KH"], 2, cls=American)
    g.apply(0, [Draw("stock"), Meld(["5S", "6S", "7S"])])
    assert not g.decision(1).constraints["lay_off_on_others"]
    g.apply(1, [Draw("stock")])
    assert illegal(g, 1, [LayOff(0, ["8S", "9S"])]) == "interruption.own-combinations"
    g.apply(1, [Pass()])
    g.apply(2, [Draw("stock"), Pass()])
    assert finish(g)["unused"] == [20, 21, 5] and g.deal_results[-1]["winner"] == 2


@pytest.mark.parametrize("cls,multiplier", [(American, 6), (Straight, 1)])
def test_a_declared_seven_card_sequence_after_the_interruption(cls, multiplier):
    g = interrupted(["AH 2H 3H 4H 5H 6H 7H", "KS", "9C"], ["TC", "QS", "2C", "KD"], 2, cls=cls)
    g.apply(0, [Draw("stock"), Meld(["AH", "2H", "3H", "4H", "5H", "6H", "7H"])])  # 2C stays in hand
    g.apply(1, [Draw("stock"), Pass()])
    g.apply(2, [Draw("stock"), Pass()])
    assert finish(g)["unused"] == [2, 20, 19] and scores(g) == [(20 + 19 - 2) * multiplier, 0, 0]


# --- dealer, safety cap, options ----------------------------------------------------------------------
def test_the_winner_deals_next():
    g = arig(["2H 3H 4H 5S 5D 5C 9C", "JS JH JD 7C 8C 9C 4S", "3D 4D 5D 6D 7D QS 2C"])
    g.apply(0, [Knock()])
    assert g.dealer == 1 and g.to_act() == [2]


def test_a_deal_ended_by_the_turn_cap_has_no_winner_and_the_same_dealer_deals_again():
    g = arig(["5H 6H 8C 9S 2D KC", "7C"], max_turns_per_deal=1)
    dealer = g.dealer
    g.apply(0, [Draw("stock"), Discard("KC")])
    assert g.deal_results[-1]["winner"] is None and scores(g) == [0, 0] and g.dealer == dealer


def test_straights_own_options_are_not_offered():
    assert set(American.all_options()) == {"hand_size", "target", "max_turns_per_deal", "max_deals", "allow_rediscard"}
    with pytest.raises(ConfigError):
        American(2, {"first_discard_any_player": True})
