"""Tonk (rules/tonk.md): every worked example, the two-natural sets, knocking with a spread, the final round
and its lay-offs, the knocker's double penalty, stock-out, elimination at 100 and the deck by player count."""

import json

import pytest
import rigging

from protocol.messages import Discard, Draw, Knock, LayOff, Meld, Pass
from referee.rules.errors import IllegalAction
from referee.rules.melds import new_meld
from referee.rules.solver import best_split, candidate_melds
from referee.rules.variants.tonk import ONE_PACK, TWO_PACKS, Tonk

# seat 0 holds 8 cards; discarding KD leaves the run 4H-8H and the free AS 3C: 4 points
KNOCKER = "4H 5H 6H 7H 8H AS 3C KD"


def rig(*hands, at=0, stock=None, pile=("QC",), totals=None, options=None):
    """Seat `at` has drawn (8 cards) and is to end its turn; the others hold 7; the seat before it dealt."""
    n = len(hands)
    g = Tonk(n, options or {}, seed=3)
    g.hands = [h.split() for h in hands]
    assert [len(h) for h in g.hands] == [8 if s == at else 7 for s in range(n)]
    g.stock = list(stock) if stock is not None else ["KC"] * 20
    g.piles = [list(pile)]
    g.turn, g.phase, g.dealer, g.taken = at, "play", (at - 1) % n, None
    if totals:
        g.totals = list(totals)
    return g


def last(g):
    return g.deal_results[-1]


def stock_round(g, seats):
    """Each of `seats` in turn draws the stock's top card and discards it again."""
    for s in seats:
        assert g.to_act() == [s]
        g.apply(s, [Draw("stock")])
        g.apply(s, [Discard(g.hands[s][-1])])


# --- worked example 1: set validity ------------------------------------------------------------------
@pytest.mark.parametrize("cards", ["KS 2H 2D", "KS 2H 2D 2C"])
def test_worked_example_1_a_set_needs_two_natural_cards(cards):
    with pytest.raises(IllegalAction) as e:
        new_meld(cards.split(), ONE_PACK, kind="set")
    assert e.value.rule == "set.naturals"


@pytest.mark.parametrize("cards", ["KS KH 2D", "KS KH KD 2C"])
def test_worked_example_1_two_kings_and_deuces_are_a_set(cards):
    meld = new_meld(cards.split(), ONE_PACK, kind="set")
    assert meld.kind == "set" and {x[0] for x in meld.ids} == {"K"}


def test_the_solver_never_counts_a_set_with_one_natural_card():
    sets = [m for m in candidate_melds(["KS", "2H", "2D", "2C"], ONE_PACK) if m.kind == "set"]
    assert sets and all("KS" not in m.cards for m in sets)  # only the deuces as themselves
    split = best_split(["KS", "KD", "2H", "9C", "5D"], ONE_PACK, lambda c: min("A23456789TJQK".index(c[0]) + 1, 10))
    assert [sorted(m.cards) for m in split.melds] == [["2H", "KD", "KS"]] and split.points == 14


def test_a_deuce_standing_for_itself_is_natural():
    meld = new_meld(["2S", "2H", "2D"], ONE_PACK)
    assert meld.kind == "set" and meld.ids == meld.cards
    assert new_meld(["2S", "2H", "2D"], ONE_PACK, identities=["2S", "2H", "2C"], kind="set").ids == ("2S", "2H", "2C")
    with pytest.raises(IllegalAction) as e:  # only 2D stands for itself
        new_meld(["2S", "2H", "2D"], ONE_PACK, identities=["2H", "2C", "2D"], kind="set")
    assert e.value.rule == "set.naturals"


def test_a_declared_set_with_one_natural_card_is_illegal_and_changes_nothing():
    g = rig("KS 2H 2D 9S 9D 9C AS KD", "TS JS QS 5D 5C 5S 9H")
    with pytest.raises(IllegalAction) as e:
        g.apply(0, [Meld(["KS", "2H", "2D"], kind="set"), Meld(["9S", "9D", "9C"]), Knock("KD")])
    assert e.value.rule == "set.naturals"
    assert g.table == [] and len(g.hands[0]) == 8 and g.piles[0] == ["QC"] and g.knocker is None


def test_the_ace_is_low_only():
    new_meld(["AS", "2S", "3S"], ONE_PACK)
    with pytest.raises(IllegalAction):
        new_meld(["QS", "KS", "AS"], ONE_PACK, kind="run")


# --- worked example 2: the knock threshold --------------------------------------------------------------
def test_worked_example_2_free_ace_and_three_may_knock():
    g = rig(KNOCKER, "TS JS QS 5D 5C 5S 9C")
    assert Knock("KD") in g.decision(0).options
    g.apply(0, [Knock("KD")])
    assert g.knocker == 0 and g.hands[0] == ["AS", "3C"] and g.to_act() == [1]


def test_worked_example_2_free_four_and_three_may_not_knock():
    g = rig("4H 5H 6H 7H 8H 4C 3C KD", "TS JS QS 5D 5C 5S 9C")
    assert not [o for o in g.decision(0).options if isinstance(o, Knock)]
    with pytest.raises(IllegalAction) as e:
        g.apply(0, [Knock("KD")])
    assert e.value.rule == "knock.deadwood" and len(g.hands[0]) == 8 and g.knocker is None


def test_a_declared_spread_counts_as_declared():
    g = rig(KNOCKER, "TS JS QS 5D 5C 5S 9C")
    with pytest.raises(IllegalAction) as e:  # only 4H-6H declared: 7H 8H AS 3C are free, 19 points
        g.apply(0, [Meld(["4H", "5H", "6H"]), Knock("KD")])
    assert e.value.rule == "knock.deadwood"
    g.apply(0, [Meld(["4H", "5H", "6H", "7H", "8H"]), Knock("KD")])
    assert [m.cards for m in g.table] == [("4H", "5H", "6H", "7H", "8H")] and g.view(1)["knocker_free"] == ["3C", "AS"]


# --- worked example 3: a knocker with no free card -----------------------------------------------------
def test_worked_example_3_nobody_lays_off_on_a_knocker_with_all_seven_in_combinations():
    g = rig("4H 5H 6H 7H 9S 9D 9C KD", "8H 3H TS JS QS 5C 5S")
    g.apply(0, [Knock("KD")])
    assert g.hands[0] == [] and len(g.table) == 2
    assert g.decision(1).constraints["layoff_melds"] == []
    g.apply(1, [Draw("stock")])
    with pytest.raises(IllegalAction) as e:
        g.apply(1, [LayOff(0, ["8H"])])
    assert e.value.rule == "layoff.knocker-has-no-free-cards"


# --- worked example 4: doubling ----------------------------------------------------------------------------
OTHERS = (
    "TS JS QS 5D 5C 5S 9C",  # 9 free
    "TD JD QD 6C 6D 6S 4C",  # 4 free
    "QC QD QS QH 5D 4S 3D",
)  # 12 free


def test_worked_example_4_a_knocker_not_strictly_lowest_pays_double():
    g = rig(KNOCKER, *OTHERS)
    g.apply(0, [Knock("KD")])
    stock_round(g, [1, 2, 3])
    assert last(g)["finish"]["free"] == [4, 9, 4, 12] and last(g)["finish"]["doubled"]
    assert last(g)["scores"] == [8, 9, 4, 12]


def test_a_strictly_lowest_knocker_pays_single():
    g = rig(KNOCKER, OTHERS[0], "TD JD QD 6C 6D 6S 5C", OTHERS[2])
    g.apply(0, [Knock("KD")])
    stock_round(g, [1, 2, 3])
    assert last(g)["scores"] == [4, 9, 5, 12] and not last(g)["finish"]["doubled"] and last(g)["winner"] == 0


# --- worked example 5: elimination ---------------------------------------------------------------------------
STOCK_OUT = (
    "4H 5H 6H 7H 8H 5C KD",  # A: discards KD, 5 free
    "TS JS QS 9D 9C 9S KC",  # B: 10 free
    "KH QD 6C 4S 3D AC AS",
)  # C: 35 free


def stock_out(totals=None, options=None):
    """The stock is empty and A (seat 0) ends the turn that drew its last card: the deal ends."""
    g = rig(STOCK_OUT[0] + " KS", *STOCK_OUT[1:], stock=[], totals=totals, options=options)
    g.hands[0].remove("KD")
    g.apply(0, [Discard("KS")])
    return g


def test_worked_example_5_elimination_at_100_and_the_last_player_left_wins():
    g = stock_out(totals=(96, 40, 71))
    assert last(g)["scores"] == [5, 10, 35] and g.totals == [101, 50, 106]
    assert last(g)["eliminated"] == [0, 2] and g.is_over()
    assert g.result()["ranks"] == [2, 1, 3]


def test_all_remaining_players_out_in_one_deal_the_lowest_total_wins():
    g = stock_out(totals=(96, 95, 90))
    assert g.totals == [101, 105, 125] and g.is_over() and g.result()["ranks"] == [1, 2, 3]


def test_a_later_elimination_ranks_above_an_earlier_one():
    g = Tonk(3, {}, seed=1)
    g.out_deal = [None, 0, 4]
    assert g.ranks([150, 101, 130]) == [1, 3, 2]


def test_stock_out_scores_free_cards_of_the_best_arrangement():
    g = stock_out()
    assert last(g)["finish"]["kind"] == "stock-out" and last(g)["scores"] == [5, 10, 35] and last(g)["winner"] == 0


def test_stock_out_is_draw_option():
    g = stock_out(options={"stock_out_is_draw": True})
    assert last(g)["scores"] == [0, 0, 0] and last(g)["winner"] is None


def test_the_turn_that_takes_the_last_stock_card_ends_the_deal():
    g = rig("4H 5H 6H 7H 8H 5C KD KS", *STOCK_OUT[1:], stock=[])
    g.hands[0].remove("KS")
    g.stock, g.phase = ["KS"], "draw"
    g.apply(0, [Draw("stock")])
    assert g.deal_no == 0
    g.apply(0, [Discard("KS")])
    assert g.deal_no == 1 and last(g)["finish"]["kind"] == "stock-out"


def test_the_turn_cap_scores_like_a_stock_out():
    g = rig(STOCK_OUT[0] + " KS", *STOCK_OUT[1:], options={"max_turns_per_deal": 1})
    g.hands[0].remove("KD")
    g.apply(0, [Discard("KS")])
    assert last(g)["finish"]["kind"] == "turn-cap" and last(g)["scores"] == [5, 10, 35]


# --- elimination: deck, deal, turns and dealer after a seat goes out -------------------------------------------
@pytest.mark.parametrize("n,cards", [(2, 52), (3, 52), (4, 104), (5, 104)])
def test_deck_by_player_count(n, cards):
    g = Tonk(n, {}, seed=2)
    assert len(g.cards_in_play()) == cards and g.view(0)["packs"] == cards // 52
    assert g.meld_rules == (ONE_PACK if cards == 52 else TWO_PACKS)


def test_after_an_elimination_the_deck_and_the_deal_follow_the_players_still_in():
    g = rig(STOCK_OUT[0] + " KS", *STOCK_OUT[1:], "TD JD QD 6C 6D 6S 4C", stock=[], totals=(0, 95, 0, 0))
    g.hands[0].remove("KD")
    g.dealer = 0
    g.apply(0, [Discard("KS")])
    assert last(g)["eliminated"] == [1] and not g.is_over()
    assert g.view(2)["eliminated"] == [False, True, False, False]
    assert len(g.cards_in_play()) == 52 and g.packs == 1 and g.meld_rules == ONE_PACK
    assert g.hands[1] == [] and [len(g.hands[s]) for s in (0, 2, 3)] == [7, 7, 7]
    assert g.dealer == 2 and g.to_act() == [3]  # the deal passes over seat 1; Pirmasis is 3
    for _ in range(9):  # play goes 3, 0, 2, 3, ... and never asks seat 1
        seat = g.to_act()[0]
        assert seat != 1
        g.apply(seat, [Draw("stock")])
        g.apply(seat, [Discard(g.hands[seat][-1])])


def test_an_eliminated_dealer_passes_the_deal_to_the_nearest_seat_still_in():
    g = rig(STOCK_OUT[0] + " KS", *STOCK_OUT[1:], "TD JD QD 6C 6D 6S 4C", stock=[], totals=(0, 95, 0, 0))
    g.hands[0].remove("KD")
    g.dealer = 1
    g.apply(0, [Discard("KS")])
    assert g.dealer == 2 and g.to_act() == [3]


# --- play and the final round -----------------------------------------------------------------------------
def test_melding_during_play_is_illegal():
    g = rig(KNOCKER, "TS JS QS 5D 5C 5S 9C")
    with pytest.raises(IllegalAction) as e:
        g.apply(0, [Meld(["4H", "5H", "6H"]), Discard("KD")])
    assert e.value.rule == "meld.knock-only" and g.table == [] and len(g.hands[0]) == 8


def test_laying_off_during_play_is_illegal():
    g = rig(KNOCKER, "TS JS QS 5D 5C 5S 9C")
    with pytest.raises(IllegalAction) as e:
        g.apply(0, [LayOff(0, ["9H"]), Discard("KD")])
    assert e.value.rule == "layoff.final-round-only"


def test_final_round_lay_offs_only_on_the_knockers_combinations():
    g = rig(KNOCKER, "9H 3H TS JS QS 5C 5S", "TD JD QD 6C 6D 6S 4C")
    g.apply(0, [Knock("KD")])
    assert g.decision(1).constraints == {"knock_limit": 5, "final_round": True, "knocker": 0, "layoff_melds": [0]}
    g.apply(1, [Draw("stock")])
    for bad, rule in (
        (Meld(["TS", "JS", "QS"]), "final.layoff-only"),
        (LayOff(1, ["5C"]), "layoff.no-such-meld"),
        (Knock("KC"), "knock.final-round"),
        (LayOff(0, ["5C"]), "layoff.invalid"),
    ):
        with pytest.raises(IllegalAction) as e:
            g.apply(1, [bad])
        assert e.value.rule == rule
    g.apply(1, [LayOff(0, ["9H", "3H"]), Discard("KC")])
    assert g.table[0].cards == ("3H", "4H", "5H", "6H", "7H", "8H", "9H") and g.to_act() == [2]
    stock_round(g, [2])
    assert last(g)["finish"]["free"] == [4, 10, 4] and last(g)["scores"] == [8, 10, 4]


@pytest.mark.parametrize("stands_for,fits,misfits", [("6H", ["3H", "7H"], "6H"), ("3H", ["6H"], "3H")])
def test_lay_offs_respect_the_declared_identity_of_a_wild_deuce(stands_for, fits, misfits):
    g = rig("4H 5H 2C 9S 9D 9C AS KD", "6H 7H 3H TS JS 5C 5S")
    g.apply(0, [Meld(["4H", "5H", "2C"], [stands_for]), Meld(["9S", "9D", "9C"]), Knock("KD")])
    assert g.view(1)["table"][0]["identities"] == sorted(
        ["4H", "5H", stands_for], key=lambda x: "A23456789TJQK".index(x[0])
    )
    g.apply(1, [Draw("stock")])
    with pytest.raises(IllegalAction) as e:
        g.apply(1, [LayOff(0, [misfits])])
    assert e.value.rule == "layoff.invalid"
    g.apply(1, [LayOff(0, fits)])
    assert len(g.table[0].cards) == 3 + len(fits)


def test_the_referee_spreads_a_plain_knock_in_the_best_arrangement():
    g = rig("KS KH 2D 5C 5D 5H AS KD", "6H 7H 3H TS JS 5S QC")
    g.apply(0, [Knock("KD")])
    assert sorted(sorted(m.ids) for m in g.table) == [["5C", "5D", "5H"], ["KD", "KH", "KS"]]
    assert g.hands[0] == ["AS"] and g.hidden_zones(1) == [g.stock]  # the spread is public
    assert g.view(1)["knocker_free"] == ["AS"] and g.view(1)["knocker"] == 0


def test_final_round_with_an_empty_stock():
    g = rig(KNOCKER, "9H 3H TS JS QS 5C 5S", "TD JD QD 6C 6D 6S 4C", stock=[])
    g.apply(0, [Knock("KD")])  # the knocker drew the last stock card: the knock rules apply
    assert g.decision(1).options == [Pass(), Draw("discard")]
    with pytest.raises(IllegalAction) as e:
        g.apply(1, [Draw("stock")])
    assert e.value.rule == "draw.empty-stock"
    with pytest.raises(IllegalAction) as e:
        g.apply(1, [Pass(), Discard("5C")])
    assert e.value.rule == "final.no-draw-no-discard"
    g.apply(1, [Pass(), LayOff(0, ["9H"])])  # draws nothing, still lays off; the turn ends
    assert g.to_act() == [2] and sorted(g.hands[1]) == ["3H", "5C", "5S", "JS", "QS", "TS"]
    g.apply(2, [Draw("discard")])  # takes the knocker's KD
    with pytest.raises(IllegalAction) as e:
        g.apply(2, [Discard("KD")])
    assert e.value.rule == "discard.rediscard"
    g.apply(2, [Discard("4C")])
    assert last(g)["finish"]["free"] == [4, 13, 0] and last(g)["scores"] == [8, 13, 0]  # KD joined TD-QD


def test_pass_is_no_draw_while_the_stock_lasts():
    g = rig(KNOCKER, "9H 3H TS JS QS 5C 5S")
    g.apply(0, [Knock("KD")])
    assert Pass() not in g.decision(1).options
    with pytest.raises(IllegalAction) as e:
        g.apply(1, [Pass()])
    assert e.value.rule == "final.must-draw"


def test_a_final_turn_that_lays_off_every_card_scores_nothing():
    g = rig(KNOCKER, "9H TH JH 3H QH KH 2S", stock=["2H"])
    g.apply(0, [Knock("KD")])
    g.apply(1, [Draw("stock"), LayOff(0, ["3H", "9H", "TH", "JH", "QH", "KH", "2S", "2H"], ["AH", "2H"])])
    assert last(g)["scores"] == [8, 0] and g.totals == [8, 0]


# --- two packs: sets of five or more (Valid combinations; Ambiguity 8) ------------------------------------------
# wild deuces stand for the missing suits, then a second copy of a natural joins: 9D 9D + three deuces, and
# KH KH KS + two deuces, are sets; the free cards are TS KH (20) and AH AD (2)
BIG_SETS = [
    ("2D 2C 9D 2S 9D TS KH", "2C 2D 2S 9D 9D", ["KH", "TS"], 20),
    ("2C KH KH 2H KS AH AD", "2C 2H KH KH KS", ["AD", "AH"], 2),
]


@pytest.mark.parametrize("hand,meld,free,points", BIG_SETS)
def test_eval_finds_a_two_pack_set_of_five(hand, meld, free, points):
    from typer.testing import CliRunner

    from referee.cli import app

    r = CliRunner().invoke(app, ["eval", "tonk", "--hand", hand, "--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output)
    assert (res["points"], sorted(res["deadwood"])) == (points, free)
    assert [" ".join(sorted(m)) for m in res["melds"]] == [meld] and res["packs"] == 2
    text = CliRunner().invoke(app, ["eval", "tonk", "--hand", hand])
    assert text.exit_code == 0 and text.output.splitlines()[-1] == f"points: {points}"


def test_eval_without_a_repeated_card_assumes_one_pack():
    # with one pack the deuce cannot be a fifth king: 2S stays free beside AH 3D
    hand = ["KS", "KH", "KD", "KC", "2S", "AH", "3D"]
    assert Tonk.evaluate(hand)["points"] == 6 and Tonk.evaluate(hand)["packs"] == 1
    assert best_split(hand, TWO_PACKS, Tonk.hooks_only().penalty).points == 4  # with two packs it would be 4


@pytest.mark.parametrize(
    "hand,meld,identities",
    [
        ("2D 2C 9D 2S 9D AS 3C", "2D 2C 9D 2S 9D", ["9H", "9C", "9S"]),
        ("2C KH KH 2H KS AH AD", "2C KH KH 2H KS", ["KC", "KD"]),
    ],
)
def test_the_engine_accepts_a_two_pack_set_of_five_in_a_knock(hand, meld, identities):
    """Four players, two packs (tests/rigging.py): seat 0 draws QD and knocks with it, the set declared with or
    without the deuces' identities, or spread by the referee."""
    others = ["TS JS QS 5D 5C 5S 9C"] * 3
    for ops in ([Meld(meld.split(), identities), Knock("QD")], [Meld(meld.split()), Knock("QD")], [Knock("QD")]):
        g = rigging.rig(Tonk, [hand, *others], stock=["QD"])
        assert g.meld_rules == TWO_PACKS
        g.apply(0, [Draw("stock")])
        g.apply(0, ops)
        (m,) = g.table
        assert sorted(m.cards) == sorted(meld.split()) and g.knocker == 0 and len(g.hands[0]) == 2
        assert m.kind == "set" and len({x[0] for x in m.ids}) == 1 and {x[1] for x in m.ids} == set("SHDC")


def test_a_second_copy_joins_a_two_pack_set_once_all_four_suits_are_there():
    """The knocker spreads 9D 9S 2H (as 9H); in the final round a second 9D alone is refused (9C is missing),
    but 9D with 9C is laid off: five cards, all four suits, the diamond twice (Valid combinations)."""
    knocker, layer, other = "9D 9S 2H 4H 5H 6H AS", "9D 9C TS JS 5D 5C KC", "TS JS QS 5D 5C 5S 9C"
    g = rigging.rig(Tonk, [knocker, layer, other, other], stock=["KD", "QD"])
    g.apply(0, [Draw("stock")])
    g.apply(0, [Meld(["9D", "9S", "2H"], ["9H"]), Meld(["4H", "5H", "6H"]), Knock("QD")])
    g.apply(1, [Draw("stock")])
    assert rigging.illegal(g, 1, [LayOff(0, ["9D"])]) == "layoff.invalid"
    g.apply(1, [LayOff(0, ["9D", "9C"]), Discard("KD")])
    assert sorted(g.table[0].ids) == ["9C", "9D", "9D", "9H", "9S"] and g.to_act() == [2]
