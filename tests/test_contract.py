"""Contract Rummy (rules/contract.md): the worked examples, the seven contracts, further melds once down, the joker
won back from sequences, the optional wild deuces, the squared pile's claims and the penalty scoring."""

from collections import Counter

import pytest
import rigging
from rigging import illegal

from protocol.messages import Claim, Discard, Draw, Exchange, LayOff, Meld, Pass
from referee.rules.melds import TableMeld
from referee.rules.variants.contract import Contract

FILLER = "4C 6D 8H TS QC"


def rig(hands, deal=0, stock=("KC",) * 30, discard=("9D",), turn=0, **kw):
    """A Contract Rummy game in a chosen position: one hand per string, deal `deal` (0-based), seat `turn` to
    draw."""
    g = rigging.rig(Contract, hands, stock=stock, discard=discard, turn=turn, **kw)
    g.deal_no = deal
    return g


def three(hand, **kw):
    return rig([hand, f"{FILLER} 5D", f"{FILLER} 5S"], **kw)


def melds(*groups):
    return [Meld(g.split()) for g in groups]


# --- deals and the contracts ------------------------------------------------------------------


def test_ten_cards_in_deals_1_to_4_and_twelve_in_deals_5_to_7_from_two_packs_and_a_joker():
    g = Contract(8, {}, seed=4)
    assert [len(h) for h in g.hands] == [10] * 8
    assert len(g.cards_in_play()) == 105 and Counter(g.cards_in_play())["JK"] == 1
    sizes = []
    while not g.is_over():  # every deal ends at once: each seat in turn stalemates nothing, so end them by hand
        sizes.append(len(g.hands[0]))
        g.end_deal(winner=None)
    assert sizes == [10, 10, 10, 10, 12, 12, 12] and len(g.deal_results) == 7


def test_the_seven_contracts_and_their_minimum_initial_melds():
    g = Contract(3, {}, seed=1)
    seen = []
    while not g.is_over():
        c = g.decision(g.turn).constraints["contract"]
        seen.append((c["name"], c["min_cards"]))
        g.end_deal(winner=None)
    assert seen == [
        ("two sets", 6),
        ("one set + one sequence", 7),
        ("two sequences", 8),
        ("three sets", 9),
        ("two sets + one sequence", 10),
        ("one set + two sequences", 11),
        ("three sequences", 12),
    ]


# --- Worked examples 1-3: sequences of four, joinable and overlapping pairs ----------------------


@pytest.mark.parametrize(
    "pair",
    [("3S 4S 5S 6S", "8S 9S TS JS"), ("3D 4D 5D 6D", "4D 5D 6D 7D"), ("3S 4S 5S 6S", "7H 8H 9H TH")],
    ids=["gap", "overlap", "suits"],
)
def test_example_1_valid_pairs_of_contract_sequences(pair):
    g = three(" ".join(pair) + " 9C QD", deal=2)
    g.apply(0, [Draw("stock"), *melds(*pair), Discard("KC")])
    assert g.opened[0] and len(g.table) == 2


def test_example_2_an_eight_card_sequence_split_in_two_is_rejected():
    g = three("3S 4S 5S 6S 7S 8S 9S TS 9C QD", deal=2)
    assert illegal(g, 0, [Draw("stock"), *melds("3S 4S 5S 6S", "7S 8S 9S TS")]) == "contract.joinable"
    assert illegal(g, 0, [Draw("stock"), *melds("3S 4S 5S 6S 7S 8S 9S TS")]) == "contract.incomplete"


def test_identical_contract_sequences_are_rejected():
    g = three("3S 4S 5S 6S 3S 4S 5S 6S 9C QD", deal=2)
    assert illegal(g, 0, [Draw("stock"), *melds("3S 4S 5S 6S", "3S 4S 5S 6S")]) == "contract.identical"


def test_three_contract_sequences_are_checked_pair_by_pair():
    g = three("3S 4S 5S 6S 7H 8H 9H TH 7S 8S 9S TS", deal=6)
    ops = [Draw("stock"), *melds("3S 4S 5S 6S", "7H 8H 9H TH", "7S 8S 9S TS")]
    assert illegal(g, 0, ops) == "contract.joinable"


def test_example_3_a_set_and_a_three_card_sequence_is_not_the_deal_2_contract():
    g = three("5S 5H 5D 7C 8C 9C TC QD KD AD", deal=1)
    assert illegal(g, 0, [Draw("stock"), *melds("5S 5H 5D", "7C 8C 9C")]) == "run.min-size"
    g.apply(0, [Draw("stock"), *melds("5S 5H 5D", "7C 8C 9C TC"), Discard("KC")])  # 3 + 4 = 7 cards
    assert g.opened[0]


def test_two_contract_sets_of_one_rank_are_rejected():
    g = three("5S 5H 5D 5S 5H 5C 9C QD AD 3H")
    assert illegal(g, 0, [Draw("stock"), *melds("5S 5H 5D", "5S 5H 5C")]) == "contract.same-rank"


def test_the_contract_goes_down_whole_in_one_play():
    g = three("5S 5H 5D 7S 7H 7D 9C QD AD 3H")
    assert illegal(g, 0, [Draw("stock"), *melds("5S 5H 5D"), Discard("KC")]) == "contract.incomplete"
    g.apply(0, [Draw("stock"), *melds("5S 5H 5D", "7S 7H 7D"), Discard("KC")])
    assert g.opened[0]


# --- further melds and lay-offs once down ----------------------------------------------------


def test_further_melds_and_lay_offs_follow_the_contract_in_the_same_play():
    g = three("5S 5H 5D 7S 7H 7D 9C TC JC QC 5C 3H")
    g.apply(0, [Draw("stock"), *melds("5S 5H 5D", "7S 7H 7D", "9C TC JC QC"), LayOff(0, ["5C"]), Discard("KC")])
    assert len(g.table) == 3 and g.hands[0] == ["3H"]


def test_no_lay_off_before_the_contract():
    table = [(1, "5S 5H 5D"), (1, "7S 7H 7D")]
    g = three("5C 9C QD", table=table, opened=[False, True, False])
    assert illegal(g, 0, [Draw("stock"), LayOff(0, ["5C"])]) == "contract.first"


def test_a_later_turn_may_meld_any_combination():
    g = three("9C TC JC QC 9H 9S 9D 3H", table=["5S 5H 5D", "7S 7H 7D"], opened=[True, False, False])
    g.apply(0, [Draw("stock"), *melds("9C TC JC QC", "9H 9S 9D"), Discard("3H")])
    assert len(g.table) == 4 and g.hands[0] == ["KC"]


# --- Worked example 4: the joker won back from a sequence ------------------------------------------


def joker_run(owner=1):
    return TableMeld("run", ("9S", "TS", "JK", "QS", "KS"), ("9S", "TS", "JS", "QS", "KS"), owner)


def test_example_4_a_player_who_is_down_gives_the_card_and_takes_the_joker():
    g = three("JS 3H 4H", table=[joker_run(), "5S 5H 5D"], opened=[True, True, False])
    g.apply(0, [Draw("stock"), Exchange(0, "JS"), Discard("3H")])
    assert g.table[0].cards == ("9S", "TS", "JS", "QS", "KS") and "JK" in g.hands[0]


def test_example_4_a_player_not_yet_down_may_not():
    g = three("JS 3H 4H", table=[joker_run()], opened=[False, True, False])
    assert illegal(g, 0, [Draw("stock"), Exchange(0, "JS")]) == "contract.first"


def test_the_joker_may_be_won_back_in_the_play_that_puts_the_contract_down():
    g = three("5S 5H 5D 7S 7H 7D JS 3H", table=[joker_run()], opened=[False, True, False])
    g.apply(0, [Draw("stock"), *melds("5S 5H 5D", "7S 7H 7D"), Exchange(0, "JS"), Discard("3H")])
    assert "JK" in g.hands[0]


def test_a_joker_in_a_set_cannot_be_won_back():
    jset = TableMeld("set", ("8S", "8H", "JK"), ("8S", "8H", "8D"), 1)
    g = three("8D 3H 4H", table=[jset], opened=[True, True, False])
    assert illegal(g, 0, [Draw("stock"), Exchange(0, "8D")]) == "exchange.set"


# --- Worked example 5: the longest sequence ---------------------------------------------------------


def test_example_5_fourteen_cards_ace_to_ace_and_nothing_more():
    run = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
    g = three(f"{run} 5S 5C 5D 9S", deal=1)
    g.apply(0, [Draw("stock"), *melds("5S 5C 5D", run), Discard("KC")])
    assert len(g.table[1].cards) == 14
    g = three("2H 9S 3C", table=[run], opened=[True, False, False])
    assert illegal(g, 0, [Draw("stock"), LayOff(0, ["2H"])]) == "layoff.invalid"


# --- the optional wild deuces -----------------------------------------------------------------------


def deuce_run(owner=1):
    """♠5 ♣2(=♠6) ♠7 ♠8: a wild deuce in a sequence of `owner`."""
    return TableMeld("run", ("5S", "2C", "7S", "8S"), ("5S", "6S", "7S", "8S"), owner)


def test_a_wild_deuce_is_not_exchanged_by_another_player():
    g = three("6S 3H 4H", table=[deuce_run(owner=1)], opened=[True, True, False], deuces_wild=True)
    assert illegal(g, 0, [Draw("stock"), Exchange(0, "6S")]) == "exchange.deuce"


def test_the_owner_puts_the_natural_card_in_and_the_deuce_moves_to_an_end():
    g = three("6S 3H 4H", table=[deuce_run(owner=0)], opened=[True, True, False], deuces_wild=True)
    g.apply(0, [Draw("stock"), Exchange(0, "6S"), Discard("3H")])
    assert g.table[0].cards == ("5S", "6S", "7S", "8S", "2C") and g.table[0].ids[-1] == "9S"
    assert "2C" not in g.hands[0]


def test_the_deuce_goes_to_the_low_end_when_the_high_end_is_full():
    run = TableMeld("run", ("JS", "2C", "KS", "AS"), ("JS", "QS", "KS", "AS"), 0)
    g = three("QS 3H 4H", table=[run], opened=[True, True, False], deuces_wild=True)
    g.apply(0, [Draw("stock"), Exchange(0, "QS"), Discard("3H")])
    assert g.table[0].ids == ("TS", "JS", "QS", "KS", "AS") and g.table[0].cards[0] == "2C"


def test_no_exchange_where_the_deuce_fits_no_end():
    ids = ("AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AH")
    cards = ("AH", "2H", "3H", "4H", "2C", *ids[5:])
    g = three("5H 3C 4C", table=[TableMeld("run", cards, ids, 0)], opened=[True, True, False], deuces_wild=True)
    assert illegal(g, 0, [Draw("stock"), Exchange(0, "5H")]) == "exchange.no-end"


def test_a_deuce_in_a_set_moves_to_another_card_of_the_rank():
    dset = TableMeld("set", ("8S", "8H", "2C"), ("8S", "8H", "8D"), 0)
    g = three("8D 3H 4H", table=[dset], opened=[True, True, False], deuces_wild=True)
    g.apply(0, [Draw("stock"), Exchange(0, "8D"), Discard("3H")])
    assert sorted(g.table[0].cards) == ["2C", "8D", "8H", "8S"] and len({x[1] for x in g.table[0].ids}) == 4


def test_a_deuce_placed_as_itself_is_natural():
    g = three("AS 2S 3S 4S 2H 2D JK 9C QD KD", deal=1, deuces_wild=True)
    g.apply(0, [Draw("stock"), *melds("2H 2D JK", "AS 2S 3S 4S"), Discard("KC")])
    assert g.table[0].ids[:2] == ("2H", "2D") and g.table[1].cards == g.table[1].ids


def test_a_deuce_placed_as_itself_is_not_a_wild_card_to_exchange():
    run = TableMeld("run", ("AS", "2S", "3S", "4S"), ("AS", "2S", "3S", "4S"), 0)
    g = three("2S 3C 4C", table=[run], opened=[True, True, False], deuces_wild=True)
    assert illegal(g, 0, [Draw("stock"), Exchange(0, "2S")]) == "exchange.no-wild"


def test_with_wild_deuces_a_natural_two_wins_back_a_joker_standing_for_it():
    run = TableMeld("run", ("AH", "JK", "3H", "4H"), ("AH", "2H", "3H", "4H"), 1)
    g = three("2H 3C 4C", table=[run], opened=[True, True, False], deuces_wild=True)
    g.apply(0, [Draw("stock"), Exchange(0, "2H"), Discard("3C")])
    assert g.table[0].cards == ("AH", "2H", "3H", "4H") and "JK" in g.hands[0]


def test_without_the_option_deuces_are_plain_cards():
    g = three("5S 2C 7S 8S 3H 4H 6H QD KD AD", deal=1)
    assert illegal(g, 0, [Draw("stock"), Meld(["5S", "2C", "7S", "8S"])]) == "run.invalid"  # ♣2 is only ♣2
    assert g.penalty("2C") == 2


# --- claims on a squared pile --------------------------------------------------------------------


def four(**kw):
    return rig([f"{FILLER} 5{s}" for s in "HDSC"], **kw)


def test_only_the_top_card_can_be_claimed_or_taken():
    g = four(discard=("9D", "7H", "3C"))
    g.hands[0].append("KH")
    assert g.decision(0).options == [Draw("stock"), Draw("discard")]
    assert illegal(g, 0, [Draw("discard", depth=2)]) == "draw.one-card"
    g.apply(0, [Draw("stock"), Discard("KH")])
    assert [o for o in g.decision(2).options if isinstance(o, Claim)] == [Claim(1)]
    assert illegal(g, 2, [Claim(2)]) == "claim.depth"


def test_a_claim_race_in_contract_rummy():
    g = four()
    g.hands[0].append("KH")
    g.apply(0, [Draw("stock"), Discard("KH")])
    g.apply(2, [Claim(1)])
    g.apply(3, [Claim(1)])
    assert g.decision(1).constraints["claims"] == [{"seat": 2, "depth": 1}, {"seat": 3, "depth": 1}]
    stock = len(g.stock)
    g.apply(1, [Pass()])
    assert "KH" in g.hands[2] and len(g.hands[2]) == 8 and len(g.stock) == stock - 1 and len(g.hands[3]) == 6
    g.apply(2, [Discard("5S")])
    assert g.to_act() == [1] and g.phase == "draw"


# --- Worked example 6: scoring -------------------------------------------------------------------


def test_example_6_penalties_only_and_the_lowest_total_wins():
    hands = ["9C", "AS JK QD 5H", "2C 3C", "KD"]
    g = rig(hands, table=["3S 3H 3D", "7S 7H 7D"], opened=[True, False, False, False], stock=("KC",) * 5 + ("3C",))
    g.apply(0, [Draw("stock"), LayOff(0, ["3C"]), Discard("9C")])
    assert g.deal_results[0]["scores"] == [0, 45, 5, 10] and g.totals == [0, 45, 5, 10]


def test_a_wild_deuce_costs_fifteen():
    g = Contract(3, {"deuces_wild": True}, seed=1)
    assert [g.penalty(c) for c in ("2C", "JK", "AS", "KD", "7H")] == [15, 15, 15, 10, 7]


def test_the_lowest_total_wins_and_equal_totals_share():
    g = Contract(3, {}, seed=1)
    assert g.ranks([30, 10, 10]) == [3, 1, 1]


def test_eval_says_which_deals_a_hand_can_go_down_in():
    hand = ["3S", "3H", "JK", "5C", "6C", "7C", "8C", "9D", "9S", "9H"]
    res = Contract.evaluate(hand)
    assert res["points"] == sum(map(Contract.hooks_only().penalty, hand))
    met = {c["deal"]: c["identities"] for c in res["contracts"]}
    assert met[1] is not None and len(met[1]) == 2 and met[2] is not None
    assert met[3] is None  # one sequence of four only (a joker makes 5C-9C or 3S 3H JK, not both)
    assert met[5] == [["3S", "3H", "3D"], ["9S", "9H", "9D"], ["5C", "6C", "7C", "8C"]]  # the joker as 3D
    assert all(met[d] is None for d in (4, 6, 7))


@pytest.mark.parametrize(("deal", "last"), [(5, False), (6, True)])
def test_only_in_deal_7_the_last_card_may_not_be_discarded(deal, last):
    table = ["5S 5H 5D", "7S 7H 7D 7C", "9C TC JC QC"]
    g = three("9H", deal=deal, table=table, opened=[True, False, False], stock=("KC",) * 5 + ("5C",))
    ops = [Draw("stock"), LayOff(0, ["5C"]), Discard("9H")]
    if last:
        assert illegal(g, 0, ops) == "contract.final-discard"
        assert illegal(g, 0, ops[:2]) == "contract.keep-two"
    else:
        g.apply(0, ops)
        assert g.deal_results[0]["winner"] == 0


def test_after_the_seventh_deal_every_seat_still_gets_its_view_showing_the_last_contract():
    from sample_bots.brain import Brain

    game = Contract(3, {}, 3)
    brains = [Brain("contract", 3, game.opts, greedy=True, seed=s) for s in range(3)]
    while not game.is_over():
        for seat in game.to_act():
            game.apply(seat, brains[seat].choose(game.decision(seat), game.view(seat)))
    assert game.deal_no == 7
    views = [game.view(s) for s in range(3)]  # romis view asks for them after the last play
    assert all(v["contracts"] == views[0]["contracts"] for v in views) and views[0]["contracts"]
