"""Mississippi Rummy (rules/mississippi.md): every worked example, the Mississippi combination, wild deuces, the
knock on a declared arrangement, the bonuses, buy-backs between deals, the money version, the stock turn-over and
the caps, and the unit hook that makes a money-mode match rank by net chips."""

import json
import sys
from dataclasses import replace

import pytest
from rigging import illegal

from protocol.messages import Bid, Discard, Draw, Exchange, Knock, LayOff, Meld, Pass
from referee.cli import run
from referee.rules.errors import ConfigError, IllegalAction
from referee.rules.melds import new_meld
from referee.rules.solver import best_split
from referee.rules.variants.mississippi import RULES, Mississippi
from sample_bots.brain import Brain
from tournaments.config import load
from tournaments.run import game_specs
from tournaments.store import Store, variant_info

HEARTS10 = "AH KH JH 9H 8H 6H 5H 4H 3H 2H"  # worked example 5
FILLER = ["KC", "QD", "9S", "7C", "5D", "4S", "JC", "TD", "8S", "6C"]  # nothing melds: 79 points


def rig(*hands, turn=0, stock=("7S",) * 12, pile=("QS",), totals=None, dealer=None, placed=None, **options):
    """A game with one seat per hand (space-separated), at the start of seat `turn`'s turn, the stock's top last."""
    g = Mississippi(len(hands), options, seed=1)
    g.hands = [h.split() for h in hands]
    g.stock, g.piles, g.table = list(stock), [list(pile)], []
    g.turn, g.phase, g.taken, g.taken_cards = turn, "draw", None, ()
    g.dealer = (turn - 1) % len(hands) if dealer is None else dealer
    g.placed_before = list(placed or [False] * len(hands))
    if totals is not None:
        g.totals = list(totals)
    return g


def state(g):
    return (
        [list(h) for h in g.hands],
        list(g.stock),
        [list(p) for p in g.piles],
        list(g.table),
        g.phase,
        g.turn,
        len(g.log),
        g.ledger,
    )


def rejected(g, seat, ops):
    """The rule id `ops` break; the game is left exactly as it was."""
    before = state(g)
    rule = illegal(g, seat, ops)
    assert state(g) == before
    return rule


def last(g):
    return g.deal_results[-1]


# --- worked example 5 and the Mississippi combination ---------------------------------------------------------
def test_worked_example_5_ten_hearts_not_in_sequence_are_a_mississippi():
    meld = new_meld(HEARTS10.split(), RULES, kind="mississippi")
    assert meld.kind == "mississippi" and sorted(meld.ids) == sorted(HEARTS10.split())
    with pytest.raises(IllegalAction):
        new_meld(HEARTS10.split(), RULES, kind="run")  # it is not a sequence
    split = best_split(HEARTS10.split(), RULES, Mississippi.hooks_only().penalty)
    assert split.points == 0 and [m.kind for m in split.melds] == ["mississippi"]
    assert Mississippi.evaluate(HEARTS10.split())["mississippi"] is True


@pytest.mark.parametrize(
    ("cards", "identities", "rule"),
    [
        ("AH KH JH 9H 8H 6H 5H 4H 3H", None, "whole.size"),  # nine cards
        ("AH KH JH 9H 8H 6H 5H 4H 3H 2S", None, "whole.suit"),  # a deuce of another suit (Ambiguity 4)
        ("AH KH JH 9H 8H 6H 5H 4H 3H 2S", ["TH"], "whole.no-wild"),  # nor standing for a heart
    ],
)
def test_a_mississippi_needs_ten_cards_really_of_one_suit(cards, identities, rule):
    with pytest.raises(IllegalAction) as e:
        new_meld(cards.split(), RULES, identities=identities, kind="mississippi")
    assert e.value.rule == rule


def test_a_mississippi_is_melded_in_play_and_takes_any_card_of_its_suit_and_no_other():
    g = rig(HEARTS10, " ".join(FILLER), stock=["7S"] * 8 + ["QH"])
    g.apply(0, [Draw("stock"), Meld(HEARTS10.split(), kind="mississippi")])
    assert g.table[0].kind == "mississippi" and g.hands[0] == ["QH"]
    assert rejected(g, 0, [LayOff(0, ["QH"]), Discard("QH")]) == "play.after-end"  # nothing to discard: rummy first
    g.apply(0, [LayOff(0, ["QH"])])  # the last card laid off: rummy
    assert last(g)["finish"]["kind"] == "rummy" and last(g)["finish"]["bonus"] == "mississippi"


def test_anyone_may_lay_off_on_a_mississippi_but_only_cards_of_its_suit():
    g = rig(" ".join(FILLER), "TH 7H 3C KD 9C 8C 6D 4D JS QS", turn=1)
    g.table = [new_meld(HEARTS10.split(), RULES, owner=0, kind="mississippi")]
    assert rejected(g, 1, [Draw("stock"), LayOff(0, ["3C"])]) == "layoff.invalid"
    g.apply(1, [Draw("stock"), LayOff(0, ["TH", "7H"])])
    assert len(g.table[0].cards) == 12 and g.table[0].owner == 0


def test_the_solver_leaves_a_card_of_the_suit_out_of_a_mississippi_when_it_melds_better_elsewhere():
    hand = [*HEARTS10.split(), "7H", "7S", "7C"]  # 11 hearts: one of them goes with the black sevens
    split = best_split(hand, RULES, Mississippi.hooks_only().penalty)
    assert split.points == 0 and sorted(m.kind for m in split.melds) == ["mississippi", "set"]


# --- combinations, wild deuces, card values ------------------------------------------------------------------
@pytest.mark.parametrize("cards", ["QH KH AH", "KH AH 2H", "2H 3H 4H", "2S 2H 2D", "KS 2H 2D", "9C 2C JC"])
def test_valid_combinations_with_the_high_ace_and_deuces_wild_or_natural(cards):
    new_meld(cards.split(), RULES)


def test_the_ace_is_high_only():
    with pytest.raises(IllegalAction) as e:
        new_meld(["AH", "2H", "3H"], RULES)
    assert e.value.rule == "meld.invalid"
    assert new_meld(["KH", "AH", "2H"], RULES).ids == ("QH", "KH", "AH")  # the deuce can only be the queen


def test_card_values_ace_15_figures_10_others_face_value():
    g = Mississippi.hooks_only()
    assert [g.penalty(c) for c in ("AS", "KD", "QH", "JC", "TD", "7H", "2C")] == [15, 10, 10, 10, 10, 7, 2]


@pytest.mark.parametrize(
    ("cards", "rule"),
    [("AH KH JH 9H 8H 6H 5H 4H 3H", "whole.size"), ("AH KH JH 9H 8H 6H 5H 4H 3H 2S", "whole.suit")],
)
def test_a_bad_mississippi_in_play_is_rejected_and_changes_nothing(cards, rule):
    g = rig(cards + (" 7D" if len(cards.split()) == 9 else ""), " ".join(FILLER))
    assert rejected(g, 0, [Draw("stock"), Meld(cards.split(), kind="mississippi")]) == rule


def test_a_wild_deuce_on_the_table_is_never_exchanged():
    g = rig("9H KD 3C 5S 6D 8C JS QC 4D AS", " ".join(FILLER))
    g.table = [new_meld(["7H", "8H", "2S"], RULES, owner=1)]
    assert rejected(g, 0, [Draw("stock"), Exchange(0, "9H")]) == "exchange.none"


def test_a_card_taken_from_the_pile_is_not_discarded_the_same_turn_and_nothing_melds_before_the_draw():
    g = rig("9H KD 3C 5S 6D 8C JS QC 4D AS", " ".join(FILLER))
    assert rejected(g, 0, [Draw("discard"), Discard("QS")]) == "discard.rediscard"
    g.hands[0][:3] = ["2H", "3H", "4H"]
    assert rejected(g, 0, [Meld(["2H", "3H", "4H"])]) == "play.before-draw"


# --- knocking ------------------------------------------------------------------------------------------------
RUMMY = "7H 8H 9H TH 5C 5D 5S JD QD KD"  # goes out after any draw: three melds and the drawn card discarded
ZERO = "KC QC JC TC 9C 8C 7C 6C 4S 3S"  # free cards 4S 3S: 7 points
FILLER_POINTS = 10 + 10 + 9 + 7 + 5 + 4 + 10 + 10 + 8 + 6  # nothing in FILLER melds: 79
KNOCKER = "7H 8H 9H 5C 5D 5S JD QD KD 4C"  # draws AD: three melds, knocks with AD, 4C left: 4 points


def end_with_rummy(g, seat=0):
    """Seat `seat`, at its turn holding RUMMY, goes out: three melds, then the card drawn discarded."""
    drawn = g.stock[-1]
    g.apply(seat, [Draw("stock"), Meld(["7H", "8H", "9H", "TH"]), Meld(["5C", "5D", "5S"])])
    g.apply(seat, [Meld(["JD", "QD", "KD"]), Discard(drawn)])


def test_a_knock_counts_the_declared_free_cards_and_ends_the_deal_at_once():
    g = rig("7H 8H 9H 5C 5D 5S 2D 3C KS 4C", " ".join(FILLER), stock=["7S"] * 8 + ["AC"], totals=[10, 0])
    ops = [Draw("stock"), Meld(["7H", "8H", "9H"]), Meld(["5C", "5D", "5S"])]
    # 2D 3C 4C AC left after KS: 24 points, no knock; the referee does not rearrange them for the knocker
    assert rejected(g, 0, [*ops, Knock("KS")]) == "knock.deadwood"
    g.hands[0][-1] = "AD"
    g.apply(0, [*ops, Meld(["AC", "AD", "2D"], ["AS"]), Knock("KS")])  # 3C left: 3 points
    deal = last(g)
    assert deal["finish"]["kind"] == "knock" and deal["scores"] == [3, FILLER_POINTS]
    assert deal["winner"] == 0 and deal["totals"] == [13, FILLER_POINTS] and g.deal_no == 1  # nobody played on


def test_after_an_underknock_the_deal_is_won_by_the_player_with_fewer_free_points_seat_0_included():
    g = rig("KC QC JC TC 9C 8C 7C 6C 3S", KNOCKER, turn=1, stock=["7S"] * 5 + ["AD"])  # a club run and 3S: 3
    g.apply(1, [Draw("stock"), Meld(["7H", "8H", "9H"]), Meld(["5C", "5D", "5S"]), Meld(["JD", "QD", "KD"])])
    g.apply(1, [Knock("AD")])  # 4C left: 4 points
    deal = last(g)
    assert deal["finish"]["free"] == [3, 4] and deal["winner"] == 0 and deal["scores"] == [3, 4]


def test_a_knock_needs_the_draw_first():
    g = rig("7H 8H 9H 5C 5D 5S 2D 3C KS 4C", " ".join(FILLER))
    assert rejected(g, 0, [Knock("KS")]) == "knock.after-draw"


def test_knock_options_list_only_discards_leaving_five_or_less():
    g = rig("7H 8H 9H 5C 5D 5S JD QD KD 4C", " ".join(FILLER), stock=["7S"] * 8 + ["AC"])
    g.apply(0, [Draw("stock"), Meld(["7H", "8H", "9H"]), Meld(["5C", "5D", "5S"]), Meld(["JD", "QD", "KD"])])
    assert {o.discard for o in g.decision(0).options if isinstance(o, Knock)} == {"AC"}  # 4C left; not AC (15)


def test_a_knock_with_no_free_cards_is_rummy_from_the_hand():
    g = rig(RUMMY, " ".join(FILLER), totals=[40, 0])
    g.apply(0, [Draw("stock"), Meld(["7H", "8H", "9H", "TH"]), Meld(["5C", "5D", "5S"]), Meld(["JD", "QD", "KD"])])
    g.apply(0, [Knock("7S")])
    deal = last(g)
    assert deal["finish"]["kind"] == "rummy" and deal["finish"]["bonus"] == "from-hand" and deal["totals"][0] == 20


# --- worked example 3: bonuses off the penalty total ----------------------------------------------------------
@pytest.mark.parametrize(("placed", "total", "bonus"), [(True, 30, "rummy"), (False, 20, "from-hand")])
def test_worked_example_3_rummy_bonuses(placed, total, bonus):
    g = rig(RUMMY, " ".join(FILLER), totals=[40, 0], placed=[placed, False])
    end_with_rummy(g)
    deal = last(g)
    assert deal["finish"]["bonus"] == bonus and deal["totals"] == [total, FILLER_POINTS] and deal["winner"] == 0


def test_worked_example_3_a_mississippi_bonus_is_20_and_not_added_to_the_from_hand_bonus():
    for placed in (True, False):
        g = rig(HEARTS10, " ".join(FILLER), totals=[40, 0], placed=[placed, False])
        g.apply(0, [Draw("stock"), Meld(HEARTS10.split(), kind="mississippi"), Discard("7S")])
        assert last(g)["finish"]["bonus"] == "mississippi" and last(g)["totals"][0] == 20


def test_a_stalemate_scores_free_cards_without_bonus():
    g = rig("7H 8H 9H 5C 5D 5S JD QD KD 4C", " ".join(FILLER), stock=["7S"], pile=["QS"], max_stock_rebuilds=0)
    g.apply(0, [Draw("stock"), Discard("7S")])  # the stock is out and may not be rebuilt
    deal = last(g)
    assert deal["winner"] is None and deal["finish"]["kind"] == "stalemate" and deal["finish"]["bonus"] is None
    assert deal["scores"] == [4, FILLER_POINTS]


def test_the_stock_is_turned_over_at_the_end_of_the_turn_that_emptied_it():
    g = rig("7H 8H 9H 5C 5D 5S JD QD KD 4C", " ".join(FILLER), stock=["6S"], pile=["3D", "QS"])
    g.apply(0, [Draw("stock"), Discard("6S")])
    assert g.stock == ["QS", "3D"] and g.piles == [["6S"]] and g.rebuilds == 1  # the earliest discard on top
    g.apply(1, [Draw("stock")])
    assert g.hands[1][-1] == "3D"


def test_the_turn_cap_ends_the_deal_as_a_stalemate():
    g = rig("7H 8H 9H 5C 5D 5S JD QD KD 4C", " ".join(FILLER), max_turns_per_deal=2)
    g.apply(0, [Draw("stock"), Discard("7S")])
    g.apply(1, [Draw("stock"), Discard("7S")])
    assert last(g)["finish"]["kind"] == "stalemate" and last(g)["winner"] is None


# --- worked examples 1 and 2: elimination at 102, the danger zone above 80 ----------------------------------------
@pytest.mark.parametrize(("before", "asked"), [(73, False), (74, True)])  # 73 + 7 = 80; 74 + 7 = 81
def test_worked_example_2_buy_back_above_80_only(before, asked):
    g = rig(RUMMY, ZERO, " ".join(FILLER), totals=[0, before, 0])
    end_with_rummy(g)
    assert g.between == asked
    if asked:
        d = g.decision(1)
        assert (d.kind, d.phase, d.options) == ("buyback", "between-deals", [Bid("buyback"), Pass()])
        assert d.constraints == {"total": 81, "target": 79, "fee": 30, "buybacks_left": 0}


@pytest.mark.parametrize(("before", "out"), [(94, False), (95, True)])  # 94 + 7 = 101; 95 + 7 = 102
def test_worked_example_1_out_at_102_unless_bought_back(before, out):
    g = rig(RUMMY, ZERO, " ".join(FILLER), totals=[0, before, 0])
    end_with_rummy(g)
    g.apply(1, [Pass()])
    assert (g.out_deal[1] is not None) == out and g.view(0)["eliminated"][1] == out
    assert last(g).get("eliminated", []) == ([1] if out else [])


def test_a_buy_back_brings_the_total_to_the_nearest_lower_one_and_pays_the_fee_into_the_bank():
    g = rig(RUMMY, ZERO, " ".join(FILLER), totals=[0, 110, 0])
    end_with_rummy(g)
    assert g.decision(1).constraints["target"] == 79  # seat 2's; seat 0 went out at -20, lower still
    cursor = len(g.log)
    g.apply(1, [Bid("buyback")])
    deal = last(g)
    assert deal["totals"] == [-20, 79, 79] and deal["scores"][1] == 79 - 110 and g.out_deal[1] is None
    assert deal["bank"] == 30 and deal["moved"]["buyback"] == [0, -30, 0]
    assert {"type": "buyback", "seat": 1, "answer": "buyback"} in g.events_since(2, cursor)[0]
    v = g.view(2)
    assert v["bank"] == 30 and v["chips"] == [0, -30, 0] and v["buybacks"] == [0, 1, 0]


def test_buy_backs_are_asked_in_playing_order_with_targets_taken_at_that_moment():
    # after the deal: seat 1 at 110, seat 2 at 105, seat 3 at 95, seat 0 (rummy) at -20; seat 0 dealt, so 1 is first
    g = rig(RUMMY, ZERO, ZERO, ZERO, totals=[0, 103, 98, 88], dealer=0)
    end_with_rummy(g)
    assert g.to_act() == [1] and g.decision(1).constraints["target"] == 95
    g.apply(1, [Pass()])  # declines at 110: out, and no longer a target
    assert g.to_act() == [2] and g.decision(2).constraints["target"] == 95
    g.apply(2, [Bid("buyback")])  # 105 -> 95
    assert g.to_act() == [3] and g.decision(3).constraints["target"] == -20  # 95 is not below his own 95
    g.apply(3, [Bid("buyback")])
    deal = last(g)
    assert deal["totals"] == [-20, 110, 95, -20] and deal["eliminated"] == [1]
    assert [(a["seat"], a["answer"]) for a in deal["between"]] == [(1, "pass"), (2, "buyback"), (3, "buyback")]


@pytest.mark.parametrize(("limit", "asked"), [(1, False), (2, True)])
def test_max_buybacks_limits_the_buy_backs_of_a_match(limit, asked):
    g = rig(RUMMY, ZERO, " ".join(FILLER), totals=[0, 90, 0], max_buybacks=limit)
    g.buybacks = (0, 1, 0)
    end_with_rummy(g)
    assert g.between == asked


def test_a_rejected_answer_changes_nothing():
    g = rig(RUMMY, ZERO, " ".join(FILLER), totals=[0, 90, 0])
    end_with_rummy(g)
    before = (g.pending, g.ledger, g.buybacks, len(g.log))
    assert illegal(g, 1, [Bid("yes")]) == "buyback.answer"
    assert (g.pending, g.ledger, g.buybacks, len(g.log)) == before


def test_the_bank_of_fees_goes_to_the_winner_of_the_points_match():
    g = rig(RUMMY, ZERO, totals=[0, 110])
    end_with_rummy(g)
    g.apply(1, [Bid("buyback")])  # 117 -> -20, fee 30
    assert g.ledger.bank == 30 and not g.is_over()
    g.hands, g.table = [RUMMY.split(), ZERO.split()], []
    g.stock, g.piles, g.turn, g.phase, g.totals = ["7S"] * 5, [["QS"]], 0, "draw", [0, 101]
    end_with_rummy(g)  # 108, no buy-back left: out, and the match is over
    result = g.result()
    assert g.is_over() and result["ranks"] == [1, 2] and last(g)["moved"]["bank"] == [30, 0]
    assert result["chips"] == [30, -30] and result["bank"] == 0 and result["unit"] == "points"


def test_all_over_102_in_the_same_deal_the_lowest_total_wins():
    g = rig("7H 8H 9H 5C 5D 5S JD QD KD 4C", ZERO, stock=["7S"], max_stock_rebuilds=0, totals=[100, 96])
    g.apply(0, [Draw("stock"), Discard("7S")])  # stalemate: seat 0 scores 4, seat 1 7; no target below 102
    assert g.is_over() and last(g)["totals"] == [104, 103] and g.result()["ranks"] == [2, 1]


# --- worked example 4: the money version (B = 400) ----------------------------------------------------------------
def money(*hands, **kw):
    g = rig(*hands, money_mode=True, **kw)
    assert g.ledger.bank == 100 * len(hands) and g.ledger.chips == (-100,) * len(hands)
    return g


@pytest.mark.parametrize(("placed", "gain"), [(True, 40), (False, 80)])  # rummy 10%, from the hand 20% ("dvigubai")
def test_worked_example_4_rummy_pays_a_share_of_the_bank(placed, gain):
    g = money(RUMMY, ZERO, ZERO, ZERO, placed=[placed, False, False, False])
    end_with_rummy(g)
    assert g.ledger.chips[0] == -100 + gain and g.ledger.bank == 400 - gain
    assert last(g)["moved"]["rummy" if placed else "from-hand"][0] == gain


def test_worked_example_4_a_mississippi_pays_20_percent():
    g = money(HEARTS10, ZERO, ZERO, ZERO, placed=[True, False, False, False])
    g.apply(0, [Draw("stock"), Meld(HEARTS10.split(), kind="mississippi"), Discard("7S")])
    assert g.ledger.chips[0] == -20 and g.ledger.bank == 320


@pytest.mark.parametrize("other", ["KC QC JC TC 9C 8C 7C 6C 4S", "KC QC JC TC 9C 8C 7C 6C 3S AH"])  # 4; 18
def test_worked_example_4_a_successful_knock_takes_5_percent_ties_count_as_lowest(other):
    g = money(KNOCKER, other, " ".join(FILLER), " ".join(FILLER), stock=["7S"] * 5 + ["AD"])
    g.apply(0, [Draw("stock"), Meld(["7H", "8H", "9H"]), Meld(["5C", "5D", "5S"]), Meld(["JD", "QD", "KD"])])
    g.apply(0, [Knock("AD")])
    assert g.ledger.chips[0] == -100 + 20 and g.ledger.bank == 380 and last(g)["winner"] == 0


def test_worked_example_4_underknock_with_four_players():
    under = "KC QC JC TC 9C 8C 7C 6C 3S"  # 3 points, fewer than the knocker's 4
    g = money(KNOCKER, " ".join(FILLER), under, ZERO, stock=["7S"] * 5 + ["AD"])
    g.apply(0, [Draw("stock"), Meld(["7H", "8H", "9H"]), Meld(["5C", "5D", "5S"]), Meld(["JD", "QD", "KD"])])
    g.apply(0, [Knock("AD")])
    deal = last(g)
    assert deal["finish"]["free"] == [4, FILLER_POINTS, 3, 7]
    assert deal["moved"]["underknock"] == [-80, -20, 120, -20] and g.ledger.bank == 400 and deal["winner"] == 2


def test_an_underknock_tie_goes_to_the_first_after_the_knocker():
    g = money(KNOCKER, " ".join(FILLER), "KC QC JC TC 9C 8C 7C 6C 3S", "KH QH JH TH 9H 8H 7H 6H 3D", turn=0)
    g.stock = ["7S"] * 5 + ["AD"]
    g.apply(0, [Draw("stock"), Meld(["7H", "8H", "9H"]), Meld(["5C", "5D", "5S"]), Meld(["JD", "QD", "KD"])])
    g.apply(0, [Knock("AD")])
    assert last(g)["moved"]["underknock"] == [-80, -20, 120, -20]


def test_a_money_share_is_at_least_1_and_never_more_than_the_bank():
    g = money(RUMMY, ZERO)
    assert g.share(10) == 20
    g.ledger = replace(g.ledger, bank=3)
    assert (g.share(5), g.share(10), g.share(100)) == (1, 1, 3)


def test_the_money_version_ends_when_the_bank_is_empty_and_ranks_by_net_money():
    g = money(RUMMY, ZERO)
    g.ledger = replace(g.ledger, chips=(-100, -99), bank=199)  # as if seat 1 had taken a chip before
    g.totals = [-100, -99]
    g.placed_before = [True, False]
    end_with_rummy(g)  # rummy: 10% of 199 = 19
    assert not g.is_over() and g.ledger.bank == 180 and last(g)["penalty_totals"] == [-10, 7]
    g.ledger = replace(g.ledger, bank=1, chips=(g.ledger.chips[0], g.ledger.chips[1] + 179))
    g.hands, g.table = [RUMMY.split(), ZERO.split()], []
    g.stock, g.piles, g.turn, g.phase, g.placed_before = ["7S"] * 5, [["QS"]], 0, "draw", [True, False]
    end_with_rummy(g)  # the last chip
    result = g.result()
    assert g.is_over() and result["bank"] == 0 and result["unit"] == "chips" and result["ranks"] == [2, 1]
    assert last(g)["penalties"] == [-10, 7] and last(g)["penalty_totals"] == [-20, 14]


def test_penalties_are_recorded_but_nobody_is_eliminated_or_asked_in_the_money_version():
    g = money(RUMMY, ZERO, ZERO)
    g.pens = (0, 200, 200)
    end_with_rummy(g)
    assert not g.between and g.seats_in() == [0, 1, 2] and g.view(1)["penalties"][1:] == [207, 207]


# --- options, the unit hook, eval ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_buybacks": 3}, "option max_buybacks: 3 is not one of 1, 2"),
        ({"money_mode": "maybe"}, "option money_mode: 'maybe' is not a true or false"),
        ({"money_mode": True, "stake": 0}, "option stake: money_mode needs a stake of at least 1"),
    ],
)
def test_bad_options_are_config_errors(options, message):
    with pytest.raises(ConfigError) as e:
        Mississippi(2, options)
    assert str(e.value) == message


def test_money_mode_makes_the_match_rank_by_net_chips_where_a_run_records_it():
    assert (variant_info("mississippi")["unit"], variant_info("mississippi")["low_wins"]) == ("points", True)
    info = variant_info("mississippi", {"money_mode": True})
    assert (info["unit"], info["low_wins"]) == ("chips", False)
    g = Mississippi(3, {"money_mode": True})
    assert (g.unit, g.low_wins) == ("chips", False) and Mississippi.unit == "points"


@pytest.mark.parametrize(("money", "unit", "low_wins"), [("false", "points", True), ("true", "chips", False)])
def test_a_tournament_of_the_money_version_is_recorded_and_ranked_by_net_chips(tmp_path, money, unit, low_wins):
    bots = "".join(f'[[entrants]]\nname = "{n}"\ncommand = "python -m sample_bots.{n}"\n' for n in ("greedy", "random"))
    (tmp_path / "t.toml").write_text(f'variant = "mississippi"\nseats = 2\n[options]\nmoney_mode = {money}\n{bots}')
    cfg = load(tmp_path / "t.toml", {"db": str(tmp_path / "r.db")})
    store = Store(cfg.db)
    store.bind(cfg.fingerprint())
    store.begin_run(cfg.variant, game_specs(cfg))
    about = store.about()
    store.close()
    assert (about.unit, about.low_wins) == (unit, low_wins)


@pytest.mark.e2e
def test_romis_play_shows_the_money_version_in_chips_with_the_penalties_beside(capsys):
    bot = f"{sys.executable} -m sample_bots.random"
    args = ["play", "mississippi", "--seed", "3", "--bot", bot, "--bot", bot, "--option", "money_mode=true"]
    assert run([*args, "--option", "max_deals=3"]) == 0
    out = capsys.readouterr().out
    assert "rank  seat  chips" in out and "; penalties [" in out and "; bank " in out
    assert run([*args, "--option", "stake=0"]) == 2
    assert capsys.readouterr().err.strip() == "romis: option stake: money_mode needs a stake of at least 1"


def test_eval_values_a_hand_and_names_the_mississippi(tmp_path, capsys):
    hands = tmp_path / "hands.txt"
    hands.write_text(f"{HEARTS10}\n{HEARTS10} 7C\nAS KD 9C 7H 5S 3D QC JH 8D 6C\n")
    assert run(["eval", "mississippi", "--hands-file", str(hands)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["points"], r["mississippi"]) for r in rows] == [
        (0, True),
        (0, True),
        (15 + 10 + 9 + 7 + 5 + 3 + 10 + 10 + 8 + 6, False),
    ]
    assert rows[1]["discard"] == "7C" and rows[1]["rummy"] is True


# --- the sample bots ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "options"), [(2, {}), (4, {}), (4, {"money_mode": True})])
def test_greedy_beats_random(players, options):
    wins, n = 0, 8
    for seed in range(n):
        greedy = seed % players
        g = Mississippi(players, {**options, "max_deals": 30}, seed)
        bots = [Brain("mississippi", players, options, greedy=s == greedy, seed=seed * 10 + s) for s in range(players)]
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
            assert g.ledger.total() == 0  # chips (fees, stakes, payouts) only move
        result = g.result()
        wins += result["ranks"][greedy] == 1
        assert result["unit"] == ("chips" if options else "points")
        if options:  # the money version's totals are the net chips
            assert result["chips"] == result["totals"]
    assert wins / n >= 0.6


@pytest.mark.parametrize("options", [{"money_mode": True, "max_deals": 12}, {"max_buybacks": 2, "buyback_fee": 7}])
def test_whole_matches_conserve_cards_and_replay_exactly_under_the_options(options):
    def play(seed):
        g = Mississippi(3, options, seed)
        bots = [Brain("mississippi", 3, options, greedy=s == 0, seed=seed + s) for s in range(3)]
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
            assert g.is_over() or sorted(g.cards_in_play()) == sorted(g.make_deck())
        return g.result()

    first = play(4)
    assert first == play(4) and len(first["deals"]) > 1
    if "buyback_fee" in options:  # seat 2 buys back twice, 7 each time, and the winner takes the bank at the end
        fees = [d["moved"].get("buyback", [0] * 3) for d in first["deals"]]
        assert [sum(row[s] for row in fees) for s in range(3)] == [0, 0, -14]
        assert first["ranks"][0] == 1 and first["chips"] == [14, 0, -14] and first["bank"] == 0
