"""Conquian (rules/conquian.md): every worked example, the turned card, burying, regrouping own melds, the win at
11 melded, drawn deals and the multiplier, the options, and the sample bots."""

import copy

import pytest
import rigging
from rigging import illegal

from protocol.messages import Discard, Draw, Exchange, LayOff, Meld, Pass, Rearrange
from referee.cli import run
from referee.rules.errors import ConfigError
from referee.rules.melds import is_valid
from referee.rules.variants import VARIANTS
from referee.rules.variants.conquian import RULES, Conquian
from sample_bots.brain import Brain

SPARE = "2C 3D 4S 5H 6C KD QS 2H 3S 4C"  # ten cards without a combination


def rig(hands, table=(), stock=("KC",) * 20, turn=0, **options):
    """A game at the start of seat `turn`'s turn (before the turn-up); the stock is turned from its end;
    `table` holds (owner, "cards") pairs."""
    return rigging.rig(Conquian, hands, table=table, stock=stock, discard=(), turn=turn, **options)


def H(text: str) -> list[str]:
    return text.split()


def snapshot(g):
    return [copy.deepcopy(g.view(s)) for s in range(g.n)], g.result(), len(g.log), copy.deepcopy(g.buried)


def rejects(g, seat, ops):
    """The rule id of an illegal play, checking that it changed nothing."""
    before = snapshot(g)
    rule = illegal(g, seat, ops)
    assert snapshot(g) == before
    return rule


def turned_up(hands, card, table=(), turn=0, stock=("KC",) * 10, **options):
    """A game in which seat `turn` has just turned up `card` (`stock` holds the cards turned after it)."""
    g = rig(hands, table=table, stock=(*stock, card), turn=turn, **options)
    g.apply(turn, [Draw("stock")])
    return g


# --- Worked examples -------------------------------------------------------------------------------------------
def test_worked_example_1_the_queen_goes_to_a_set_when_the_six_comes_in():
    g = turned_up(["6H QS 2C 3D 4S 5C 6C", "2H"], "QD", table=[(0, "7H JH QH")])
    g.apply(0, [Rearrange([0], [Meld(H("6H 7H JH")), Meld(H("QH QS QD"))]), Discard("2C")])
    assert [list(m.cards) for m in g.table] == [H("6H 7H JH"), H("QH QS QD")]
    assert g.turn == 1 and g.buried[0] == ["2C"]


def test_worked_example_1_without_the_six_the_queen_cannot_leave():
    g = turned_up(["QS 2C 3D 4S 5C 6C 2S", "2H"], "QD", table=[(0, "7H JH QH")])
    ops = [Rearrange([0], [Meld(H("7H JH")), Meld(H("QH QS QD"))])]
    assert rejects(g, 0, ops) == "rearrange.invalid"


def test_worked_example_2_the_seven_leaves_when_the_king_comes_in():
    g = turned_up(["KH 7S 2C 3D 4S 5C 6C", "2H"], "7D", table=[(0, "7H JH QH")])
    g.apply(0, [Rearrange([0], [Meld(H("JH QH KH")), Meld(H("7H 7S 7D"))]), Discard("2C")])
    assert [sorted(m.cards) for m in g.table] == [H("JH KH QH"), H("7D 7H 7S")]


def test_worked_example_3_the_jack_never_leaves_a_three_card_sequence():
    g = turned_up(["6H KH JS JD 2C 3D 4S", "2H"], "KC", table=[(0, "7H JH QH")])
    ops = [Rearrange([0], [Meld(H("6H 7H")), Meld(H("QH KH")), Meld(H("JH JS JD"))]), LayOff(0, ["KC"])]
    assert rejects(g, 0, ops) == "rearrange.invalid"


def test_worked_example_4_the_pack_has_forty_cards_and_twenty_stay_in_the_stock():
    g = Conquian(2, {}, seed=3)
    assert len(g.make_deck()) == 40 and {c[0] for c in g.make_deck()} == set("A234567JQK")
    assert [len(h) for h in g.hands] == [10, 10] and len(g.stock) == 20 and g.view(0)["table"] == []


def test_worked_example_5_ten_melded_is_not_a_win_the_eleventh_is():
    table = [(0, "AS 2S 3S"), (0, "4H 5H 6H 7H"), (0, "JD QD KD")]
    g = rig(["", SPARE], table=table, stock=("KC", "4S", "QC", "2C"))
    g.apply(0, [Draw("stock")])  # 10 melded, an empty hand: she still turns cards up
    assert g.decision(0).options == [Pass()]  # the 2C fits nothing
    g.apply(0, [Pass()])
    g.apply(1, [Draw("stock")])
    g.apply(1, [Pass()])
    assert g.deal_no == 0 and g.view(1)["melded"] == [10, 0]
    g.apply(0, [Draw("stock")])
    assert LayOff(0, ["4S"]) in g.decision(0).options
    g.apply(0, [LayOff(0, ["4S"])])
    assert g.deal_results[0]["winner"] == 0 and g.deal_results[0]["scores"] == [1, 0]
    assert g.deal_results[0]["melded"] == [11, 0]


# --- the sequence order: 7 then J, the ace low only -------------------------------------------------------------
@pytest.mark.parametrize(
    "cards,ok",
    [("6H 7H JH", True), ("AS 2S 3S", True), ("QS KS AS", False), ("KC AC 2C", False), ("7D 8D 9D", False)],
)
def test_sequences_run_a_to_k_with_seven_next_to_jack(cards, ok):
    assert is_valid(H(cards), "run", RULES[10]) is ok


def test_the_longest_sequence_is_ace_to_king():
    assert is_valid(H("AC 2C 3C 4C 5C 6C 7C JC QC KC"), "run", RULES[10])


def test_max_sequence_length_caps_new_sequences_and_additions():
    hands = ["AC 2C 3C 4C 5S 6S 7S JS QS KS", SPARE]
    g = turned_up(hands, "5C", stock=("KC",) * 10 + ("6C", "2D"))
    g.apply(0, [Meld(H("AC 2C 3C 4C 5C")), Discard("KS")])  # the default: up to 10, A to K
    g = turned_up(hands, "5C", stock=("KC",) * 10 + ("6C", "2D"), max_sequence_length=4)
    assert rejects(g, 0, [Meld(H("AC 2C 3C 4C 5C")), Discard("KS")]) == "run.max-size"
    g.apply(0, [Meld(H("2C 3C 4C 5C")), Discard("KS")])
    g.apply(1, [Draw("stock")])
    g.apply(1, [Pass()])
    g.apply(0, [Draw("stock")])  # the 6C
    assert rejects(g, 0, [LayOff(0, ["6C"]), Discard("QS")]) == "layoff.invalid"
    assert g.decision(0).options == [Pass()]


# --- the turned card ------------------------------------------------------------------------------------------
def test_the_turned_card_is_face_up_for_both_and_never_in_the_hand():
    g = turned_up([SPARE, SPARE], "7D")
    assert g.view(0)["turned"] == g.view(1)["turned"] == "7D" and "7D" not in g.view(0)["hand"]
    assert g.decision(0).constraints["turned"] == "7D" and g.decision(0).phase == "turned"
    for seat in (0, 1):
        assert g.events_since(seat, 0)[0][-1] == {"type": "turned", "seat": 0, "card": "7D"}


def test_the_turn_up_ends_the_play():
    g = rig([SPARE, SPARE], stock=("KC", "2S"))
    assert rejects(g, 0, [Draw("stock"), Pass()]) == "draw.ends-play"
    assert rejects(g, 0, [Draw("discard")]) == "draw.stock-only"
    assert rejects(g, 0, [Pass()]) == "draw.first" and rejects(g, 0, [Discard("2C")]) == "discard.before-draw"
    assert rejects(g, 0, [Meld(H("2C 3D 4S"))]) == "play.before-draw"
    assert g.decision(0).options == [Draw("stock")]


def test_burying_the_turned_card_passes_the_turn_and_it_is_dead():
    g = turned_up([SPARE, "7C 7H 2C 3D 4S 5H 6C KD QS 2H"], "7D")
    g.apply(0, [Pass()])
    assert g.turn == 1 and g.view(1)["dead"] == ["7D"] and g.view(1)["turned"] is None
    assert g.view(0)["hand"] == sorted(H(SPARE))  # nothing else changes hands
    assert g.decision(1).options == [Draw("stock")]  # Ambiguity 3: the other player cannot take it
    g.apply(1, [Draw("stock")])
    assert rejects(g, 1, [Meld(H("7D 7C 7H"))]) == "hand.missing-card"


def test_a_usable_card_may_be_buried():  # Ambiguity 1
    g = turned_up(["7H 7S 2C 3D 4S 5H 6C KD QS 2H", SPARE], "7D")
    assert any(sorted(o.cards) == H("7D 7H 7S") for o in g.decision(0).options if isinstance(o, Meld))
    g.apply(0, [Pass()])
    assert g.table == [] and g.turn == 1


def test_using_the_turned_card_then_burying_a_hand_card_face_down():
    g = turned_up(["7H 7S 2C 3D 4S 5H 6C KD QS 2H", SPARE], "7D")
    g.apply(0, [Meld(H("7H 7S 7D"))])
    assert g.decision(0).phase == "play" and g.turn == 0  # the burial is still due
    assert rejects(g, 0, [Pass()]) == "bury.hand-card"
    g.apply(0, [Discard("KD")])
    assert g.turn == 1 and g.view(0)["buried"] == ["KD"] and g.view(1)["buried"] == []
    assert g.view(1)["buried_sizes"] == [1, 0] and g.view(1)["hand_sizes"] == [7, 10]
    mine, theirs = g.events_since(0, 0)[0][-1], g.events_since(1, 0)[0][-1]
    assert mine == {"type": "bury", "seat": 0, "turned": False, "card": "KD"}
    assert theirs == {"type": "bury", "seat": 0, "turned": False}


def test_more_hand_cards_may_go_down_with_the_turned_card():
    g = turned_up(["7H 7S 2C 3C 4C 5H 6C KD QS 2H", SPARE], "7D")
    g.apply(0, [Meld(H("2C 3C 4C")), Meld(H("7H 7S 7D")), Discard("KD")])
    assert [len(m.cards) for m in g.table] == [3, 3] and g.view(1)["melded"] == [6, 0]


def test_a_play_that_melds_must_use_the_turned_card():  # Ambiguity 2
    g = turned_up(["2C 3C 4C 5H 6S KD QS 2H JD 7S", SPARE], "7D")
    assert rejects(g, 0, [Meld(H("2C 3C 4C"))]) == "turned.unused"
    assert rejects(g, 0, [Meld(H("2C 3C 4C")), Pass()]) == "meld.without-turned"
    assert rejects(g, 0, [Meld(H("2C 3C 4C")), Discard("KD")]) == "bury.turned-unused"
    assert rejects(g, 0, [Discard("KD")]) == "bury.turned-unused"


def test_only_own_melds_take_cards():
    g = turned_up([SPARE, "5S 6S 2C 3D 4H 5C 6D"], "7S", table=[(0, "4S 5S 6S")], turn=1)
    assert rejects(g, 1, [LayOff(0, ["7S"])]) == "layoff.own-only"
    assert rejects(g, 1, [Rearrange([0], [Meld(H("4S 5S 6S 7S"))])]) == "rearrange.not-own"
    assert LayOff(0, ["7S"]) not in g.decision(1).options


def test_there_are_no_exchanges():
    g = turned_up([SPARE, SPARE], "7D")
    assert rejects(g, 0, [Exchange(0, "7D")]) == "op.unsupported"


def test_regrouping_may_join_own_melds():  # Ambiguity 7
    g = turned_up(["3D", SPARE], "7C", table=[(0, "AC 2C 3C"), (0, "4C 5C 6C"), (0, "2H 2D 2S")])
    g.apply(0, [Rearrange([0, 1], [Meld(H("AC 2C 3C 4C 5C 6C 7C"))]), Discard("3D")])
    assert [len(m.cards) for m in g.table] == [7, 0, 3] and g.view(0)["hand"] == []
    assert g.view(1)["melded"] == [10, 0] and g.turn == 1  # 10 melded: she plays on


def test_regrouping_may_move_a_card_between_own_melds():
    g = turned_up(["3D", SPARE], "AC", table=[(0, "2H 2D 2S 2C"), (0, "3C 4C 5C")])
    g.apply(0, [Rearrange([0, 1], [Meld(H("2H 2D 2S")), Meld(H("AC 2C 3C 4C 5C"))]), Discard("3D")])
    assert [" ".join(m.cards) for m in g.table] == ["2H 2D 2S", "AC 2C 3C 4C 5C"]


def test_a_middle_card_leaves_a_long_sequence_when_both_parts_stay_valid():  # Ambiguity 7
    g = turned_up(["4H 2S KS", SPARE], "4D", table=[(0, "AC 2C 3C 4C 5C 6C 7C")])
    g.apply(0, [Rearrange([0], [Meld(H("AC 2C 3C")), Meld(H("5C 6C 7C")), Meld(H("4C 4H 4D"))]), Discard("2S")])
    assert [" ".join(m.cards) for m in g.table] == ["AC 2C 3C", "5C 6C 7C", "4C 4H 4D"]


def test_a_regrouping_may_not_send_melded_cards_back_to_hand():
    g = turned_up(["2S 3D", SPARE], "KS", table=[(0, "AC 2C 3C 4C")])
    assert rejects(g, 0, [Rearrange([0], [Meld(H("AC 2C 3C"))]), Discard("2S")]) == "rearrange.unused"


# --- the end of a deal and scoring --------------------------------------------------------------------------
def test_the_last_stock_card_may_still_win_then_an_empty_stock_draws_the_deal():
    g = rig(["5S 6S", "2C 3D"], table=[(0, "AS 2S 3S 4S"), (0, "JD QD KD"), (0, "4H 5H 6H"), (1, "JC QC KC")])
    g.stock = ["7S"]
    g.apply(0, [Draw("stock")])
    g.apply(0, [LayOff(0, ["5S", "6S", "7S"])])
    assert g.deal_results[0]["winner"] == 0
    g = rig([SPARE, SPARE], stock=("KC",))
    g.apply(0, [Draw("stock")])
    g.apply(0, [Pass()])  # seat 1 is due to turn a card and the stock is empty
    assert g.deal_results[0]["winner"] is None and g.deal_results[0]["scores"] == [0, 0]


@pytest.mark.parametrize("mode,multipliers", [("compound", [1, 2, 4, 8]), ("foster", [1, 2, 3, 4])])
def test_drawn_deals_multiply_the_next_win(mode, multipliers):
    g = Conquian(2, {"draw_multiplier_mode": mode, "deal_points": 3}, seed=2)
    seen = []
    for _ in multipliers:
        seen.append(g.view(0)["multiplier"])
        bury_all(g)
    assert seen == multipliers and g.totals == [0, 0]
    g.hands[g.turn] = []
    g.table = [rigging.new_meld(H(m), g.meld_rules, owner=g.turn) for m in ("AS 2S 3S", "4H 5H 6H 7H", "JD QD KD")]
    g.stock = ["4S"]
    g.apply(g.turn, [Draw("stock")])
    winner = g.turn
    g.apply(winner, [LayOff(0, ["4S"])])
    assert g.deal_results[-1]["scores"][winner] == 3 * (16 if mode == "compound" else 5)
    assert g.deal_results[-1]["multiplier"] == (16 if mode == "compound" else 5) and g.view(0)["multiplier"] == 1


def bury_all(g):
    """Play out the deal with every turned card buried: it ends drawn."""
    deal = g.deal_no
    while g.deal_no == deal:
        g.apply(g.turn, [Draw("stock")])
        g.apply(g.turn, [Pass()])


def test_the_dealer_alternates_and_the_non_dealer_starts():
    g = Conquian(2, {}, seed=4)
    dealers = []
    for _ in range(3):
        dealers.append(g.dealer)
        assert g.turn == 1 - g.dealer
        bury_all(g)
    assert dealers[0] != dealers[1] and dealers[0] == dealers[2]


def test_the_match_ends_at_the_target_and_the_deal_cap_is_fifty():
    assert Conquian.all_options()["max_deals"].default == 50
    g = rig(["", SPARE], table=[(0, "AS 2S 3S"), (0, "4H 5H 6H 7H"), (0, "JD QD KD")], stock=("4S",), target=1)
    g.apply(0, [Draw("stock")])
    g.apply(0, [LayOff(0, ["4S"])])
    assert g.is_over() and g.result()["ranks"] == [1, 2]


@pytest.mark.parametrize(
    "options,message",
    [
        ({"deal_points": 0}, "deal_points"),
        ({"target": 0}, "target"),
        ({"max_sequence_length": 2}, "max_sequence_length"),
        ({"draw_multiplier_mode": "double"}, "draw_multiplier_mode"),
        ({"allow_rediscard": True}, "unknown option"),
    ],
)
def test_bad_options_are_one_clear_config_error(options, message):
    with pytest.raises(ConfigError, match=message):
        Conquian(2, options, seed=0)


# --- whole games, the bots, eval ------------------------------------------------------------------------------
def play(seed, greedy_seat=None, options=None):
    g = Conquian(2, options or {}, seed)
    bots = [Brain("conquian", 2, g.opts, greedy=s == greedy_seat, seed=seed * 10 + s) for s in range(2)]
    while not g.is_over():
        s = g.to_act()[0]
        before = g.deal_no
        g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
        if g.deal_no == before and g.phase == "draw" and not g.is_over():  # a turn has just ended
            assert all(g.melded(x) + len(g.hands[x]) == 10 for x in range(2))  # the invariant of Turn structure
    return g


def test_greedy_beats_random():
    n = 12
    wins = sum(play(seed, greedy_seat=seed % 2).result()["ranks"][seed % 2] == 1 for seed in range(n))
    assert wins / n >= 0.75


def test_greedy_regroups_its_melds_to_win():
    g = rig(["", SPARE], table=[(0, "AC 2C 3C"), (0, "4C 4S 4D 4H"), (0, "5H 6H 7H")], stock=("5C",))
    g.apply(0, [Draw("stock")])
    g.apply(0, Brain("conquian", 2, g.opts, greedy=True).choose(g.decision(0), g.view(0)))
    assert g.deal_results[0]["winner"] == 0


def test_eval_counts_the_cards_a_hand_can_meld(capsys):
    res = Conquian.evaluate(H("6H 7H JH QH 2S 2D 2C KS"))
    assert res["melded"] == 7 and res["deadwood"] == ["KS"] and res["to_win"] == 4
    assert run(["eval", "conquian", "--hand", "5C 6C 7C JC"]) == 0
    assert "5C 6C 7C JC" in capsys.readouterr().out


def test_every_variant_listing_has_conquian():
    assert VARIANTS["conquian"] is Conquian and Conquian.local_name == "Konkvianas"
