"""May I? (rules/may-i.md): the worked examples, the contract rules, the sealed claims, the spread pile, the sixth
deal and the two scoring columns, at engine level."""

import json
from collections import Counter

import pytest
import rigging
from rigging import illegal
from typer.testing import CliRunner

from protocol.messages import Claim, Discard, Draw, LayOff, Meld, Pass
from referee.cli import app
from referee.rules.variants.may_i import MayI

# four seats A B C D = 0 1 2 3; A discards, B is the next player N
FILLER = "4C 6D 8H TS QC"


def rig(hands, deal=0, stock=tuple(f"{r}S" for r in "23456789TJQK" * 3), discard=("9D",), turn=0, **kw):
    """A May I? game in a chosen position: one hand per string, deal `deal` (0-based), seat `turn` to draw."""
    g = rigging.rig(MayI, hands, stock=stock, discard=discard, turn=turn, **kw)
    g.deal_no = deal
    return g


def four(hands=None, **kw):
    """Four seats, each with a hand of five cards unless given."""
    return rig(hands or [f"{FILLER} 5H", f"{FILLER} 5D", f"{FILLER} 5S", f"{FILLER} 5C"], **kw)


def discard_x(g, card="KH"):
    """Seat 0 (A) draws from the stock and discards `card` (which it must hold, or draw)."""
    g.hands[0].append(card)
    g.apply(0, [Draw("stock"), Discard(card)])


def answer(g, **claims):
    """The sealed answers of the window: seat letter -> depth (0 = pass) for every seat asked."""
    for seat in g.to_act():
        depth = claims.get("ABCDE"[seat], 0)
        g.apply(seat, [Claim(depth)] if depth else [Pass()])


def events(g, seat, since=0):
    return g.events_since(seat, since)[0]


# --- Worked example 1: claim priority -------------------------------------------------------


def test_a_claim_window_asks_everyone_but_the_discarder_and_the_next_player_at_once():
    g = four()
    discard_x(g)
    assert sorted(g.to_act()) == [2, 3]
    assert g.decision(2).kind == "claim" and g.decision(2).phase == "claim"
    assert Claim(1) in g.decision(3).options and Pass() in g.decision(3).options
    for seat in (0, 1):  # the discarder and N may not claim
        assert illegal(g, seat, [Claim(1)]) == "turn.not-your-turn"


def test_example_1a_d_claims_and_nobody_before_him_wants_it():
    g = four()
    discard_x(g)
    stock = len(g.stock)
    answer(g, D=1)
    assert g.to_act() == [1] and g.decision(1).phase == "priority"
    g.apply(1, [Pass()])
    assert g.to_act() == [3] and g.decision(3).phase == "discard"
    assert Counter(g.hands[3]) - Counter(f"{FILLER} 5C".split()) == Counter({"KH": 1, g.hands[3][-1]: 1})
    assert len(g.stock) == stock - 1  # the penalty stock card
    assert "KH" not in [o.card for o in g.decision(3).options]  # Ambiguity 22
    assert g.view(3)["taken"] == "KH" and g.view(1)["taken"] is None  # the claimant took it, not B
    g.apply(3, [Discard("5C")])
    assert len(g.hands[3]) == 7  # one card more than before the claim
    assert g.piles[0][-1] == "5C" and g.to_act() == [1] and g.phase == "draw" and g.stage is None  # B plays on


def test_example_1b_c_nearer_to_the_next_player_beats_d():
    g = four()
    discard_x(g)
    answer(g, C=1, D=1)
    assert g.decision(1).constraints["claims"] == [{"seat": 2, "depth": 1}, {"seat": 3, "depth": 1}]
    since = len(g.log)
    g.apply(1, [Pass()])
    outcome = next(e for e in events(g, 0, since) if e["type"] == "claims")
    assert outcome == {"type": "claims", "claims": [{"seat": 2, "depth": 1}, {"seat": 3, "depth": 1}], "winner": 2}
    assert g.to_act() == [2] and "KH" in g.hands[2] and len(g.hands[2]) == 8
    assert len(g.hands[3]) == 6 and "KH" not in g.hands[3]  # D's claim is recorded but gets nothing
    g.apply(2, [Discard("5S")])
    assert g.turn == 1 and g.to_act() == [1]


def test_example_1c_the_next_player_takes_it_himself_without_penalty():
    g = four()
    discard_x(g)
    stock = len(g.stock)
    answer(g, D=1)
    assert Draw("discard", depth=1) in g.decision(1).options
    g.apply(1, [Draw("discard")])
    assert "KH" in g.hands[1] and len(g.hands[1]) == 7 and len(g.stock) == stock
    assert g.turn == 1 and g.phase == "play" and g.stage is None  # his ordinary draw: the turn goes on
    assert len(g.hands[3]) == 6
    assert illegal(g, 1, [Discard("KH")]) == "discard.rediscard"  # taken from the pile this turn
    g.apply(1, [Discard("5D")])
    assert g.turn == 2 and sorted(g.to_act()) == [0, 3]  # B's discard opens the next window


def test_example_1d_c_needs_only_b_and_ds_answer_is_irrelevant():
    for d in (0, 1):
        g = four()
        discard_x(g)
        answer(g, C=1, D=d)
        g.apply(1, [Pass()])
        assert g.to_act() == [2] and "KH" in g.hands[2]


def test_no_claim_lets_the_next_player_draw_and_says_so():
    g = four()
    discard_x(g)
    since = len(g.log)
    answer(g)
    assert g.to_act() == [1] and g.decision(1).kind == "turn" and g.decision(1).phase == "draw"
    assert events(g, 0, since)[-1] == {"type": "claims", "claims": [], "winner": None}


def test_three_players_have_one_possible_claimant():
    g = rig([f"{FILLER} 5H", f"{FILLER} 5D", f"{FILLER} 5S"])
    discard_x(g)
    assert g.to_act() == [2]


# --- the sealed answers (Ambiguity 18) ----------------------------------------------------


def test_no_event_or_view_shows_a_claim_before_all_answers_are_in():
    g = four()
    discard_x(g)
    before = {s: (g.view(s), len(events(g, s))) for s in range(4)}
    g.apply(2, [Claim(1)])
    for s in range(4):
        assert g.view(s) == before[s][0]
        assert len(events(g, s)) == before[s][1]
    assert g.to_act() == [3]


def test_the_next_player_alone_hears_the_claims_before_his_answer():
    g = four()
    discard_x(g)
    since = len(g.log)
    answer(g, C=1, D=2)
    heard = {s: [e for e in events(g, s, since) if e["type"] == "claims_heard"] for s in range(4)}
    assert heard[1] == [{"type": "claims_heard", "claims": [{"seat": 2, "depth": 1}, {"seat": 3, "depth": 2}]}]
    for s in (0, 2, 3):
        assert heard[s] == [{"type": "claims_heard"}]
        assert all("claims" not in e or e["type"] != "claims_heard" for e in events(g, s, since))
    assert g.decision(1).constraints["claims"] == [{"seat": 2, "depth": 1}, {"seat": 3, "depth": 2}]
    g.apply(1, [Pass()])
    for s in range(4):  # after N's answer the claims and the outcome are public
        outcome = [e for e in events(g, s, since) if e["type"] == "claims"]
        assert outcome[0]["claims"] == [{"seat": 2, "depth": 1}, {"seat": 3, "depth": 2}]
        assert outcome[0]["winner"] == 2


def test_a_rejected_claim_answer_leaves_the_round_as_it_was():
    g = four()
    discard_x(g)
    assert illegal(g, 2, [Claim(5)]) == "claim.depth"  # the pile holds two cards
    assert illegal(g, 2, [Draw("stock")]) == "claim.answer"
    assert sorted(g.to_act()) == [2, 3]


# --- windows that do not open ----------------------------------------------------------------


def test_no_window_for_the_starter_card():
    g = MayI(4, {}, seed=3)
    assert g.to_act() == [g.turn] and g.stage is None and g.decision(g.turn).kind == "turn"


def test_no_window_for_the_claimants_discard():
    g = four()
    discard_x(g)
    answer(g, D=1)
    g.apply(1, [Pass()])
    g.apply(3, [Discard("5C")])
    assert g.to_act() == [1] and g.stage is None


def test_no_window_after_a_turn_that_ends_without_a_discard():
    g = four(discard=("9D", "7H", "3C"))
    g.apply(0, [Draw("discard", depth=2)])
    g.apply(0, [Pass()])
    assert g.to_act() == [1] and g.stage is None


def test_no_window_for_a_discard_that_ends_the_deal():
    # deal 1, A is down: he lays off the card he drew and discards his last card; the deal is over
    hands = ["9C", *[f"{FILLER} 5{s}" for s in "DSC"]]
    g = four(hands, table=["3S 3H 3D", "7S 7H 7D"], opened=[True, False, False, False], stock=("2S",) * 20 + ("3C",))
    g.apply(0, [Draw("stock"), LayOff(0, ["3C"]), Discard("9C")])
    assert g.deal_results[0]["winner"] == 0 and g.deal_no == 1
    assert g.stage is None and g.to_act() == [g.turn] and g.decision(g.turn).kind == "turn"


# --- Worked examples 2 and 3, and the contract rules --------------------------------------------


def test_example_2_six_threes_are_not_two_sets():
    g = rig(["3S 3H 3D 3S 3H 3C 5D 7D 9D", FILLER, FILLER], stock=("JC",) * 10)
    assert illegal(g, 0, [Draw("stock"), Meld(["3S", "3H", "3D"]), Meld(["3S", "3H", "3C"])]) == "contract.same-rank"


def test_example_2_with_three_kings_the_threes_and_the_kings_are_the_contract():
    g = rig(["3S 3H 3D 3C KS KH KD 5D 9D", FILLER, FILLER], stock=("JC",) * 10)
    g.apply(0, [Draw("stock"), Meld(["3S", "3H", "3D", "3C"]), Meld(["KS", "KH", "KD"]), Discard("JC")])
    assert g.opened[0] and [m.kind for m in g.table] == ["set", "set"]


def test_example_3_one_ten_card_sequence_is_not_two_sequences():
    run = "2H 3H 4H 5H 6H 7H 8H 9H TH JH"
    g = rig([run, FILLER, FILLER], deal=2, stock=("KC",) * 10)
    assert illegal(g, 0, [Draw("stock"), Meld(run.split())]) == "contract.incomplete"
    split = [Draw("stock"), Meld(["2H", "3H", "4H", "5H"]), Meld(["6H", "7H", "8H", "9H", "TH", "JH"])]
    assert illegal(g, 0, split) == "contract.joinable"


def test_identical_sequences_are_not_a_contract_but_overlapping_ones_are():
    g = rig(["3D 4D 5D 3D 4D 5D 6D 9C", FILLER, FILLER], deal=2, stock=("KC",) * 10)
    twice = [Draw("stock"), Meld(["3D", "4D", "5D"]), Meld(["3D", "4D", "5D"])]
    assert illegal(g, 0, twice) == "contract.identical"
    g.apply(0, [Draw("stock"), Meld(["3D", "4D", "5D"]), Meld(["4D", "5D", "6D"]), Discard("KC")])
    assert g.opened[0]


def test_the_contract_goes_down_whole_in_one_play_and_of_the_right_kinds():
    g = rig(["3S 3H 3D 7C 8C 9C KS KH KD 5D", FILLER, FILLER], stock=("JC",) * 10)
    assert illegal(g, 0, [Draw("stock"), Meld(["3S", "3H", "3D"]), Discard("JC")]) == "contract.incomplete"
    assert illegal(g, 0, [Draw("stock"), Meld(["3S", "3H", "3D"]), Meld(["7C", "8C", "9C"])]) == "contract.kinds"
    assert not g.opened[0] and not g.table


def test_no_other_combination_after_the_contract():
    g = rig(["3S 3H 3D KS KH KD 7C 8C 9C 5D", FILLER, FILLER], stock=("JC",) * 10)
    ops = [Draw("stock"), Meld(["3S", "3H", "3D"]), Meld(["KS", "KH", "KD"]), Meld(["7C", "8C", "9C"])]
    assert illegal(g, 0, ops) == "contract.only-contract"
    g = rig(["7C 8C 9C 5D", FILLER, FILLER], table=["3S 3H 3D", "KS KH KD"], opened=[True, False, False])
    assert illegal(g, 0, [Draw("stock"), Meld(["7C", "8C", "9C"])]) == "contract.only-contract"


def test_no_lay_off_before_the_contract_and_any_lay_off_after_it():
    table = [(1, "3S 3H 3D"), (1, "KS KH KD")]
    g = rig(["3C 5D 9D", FILLER, FILLER], table=table, opened=[False, True, False], stock=("JC",) * 10)
    assert illegal(g, 0, [Draw("stock"), LayOff(0, ["3C"])]) == "contract.first"
    g.opened[0] = True
    g.apply(0, [Draw("stock"), LayOff(0, ["3C"]), Discard("JC")])  # on an opponent's set, once down
    assert len(g.table[0].cards) == 4


def test_the_contract_and_lay_offs_in_one_play():
    g = rig(["3S 3H 3D KS KH KD 3C 5D 9D 7H", FILLER, FILLER], stock=("JC",) * 10)
    g.apply(0, [Draw("stock"), Meld(["3S", "3H", "3D"]), Meld(["KS", "KH", "KD"]), LayOff(0, ["3C"]), Discard("JC")])
    assert sorted(g.hands[0]) == ["5D", "7H", "9D"]


def test_a_sequence_does_not_turn_the_corner_so_q_k_a_and_a_2_3_are_two_sequences():
    g = rig(["QH KH AH 2H 3H AH 9C", FILLER, FILLER], deal=2)
    assert illegal(g, 0, [Draw("stock"), Meld(["KH", "AH", "2H"])]) == "run.invalid"
    g.apply(0, [Draw("stock"), Meld(["QH", "KH", "AH"]), Meld(["AH", "2H", "3H"]), Discard("9C")])
    assert g.opened[0] and [m.ids for m in g.table] == [("QH", "KH", "AH"), ("AH", "2H", "3H")]


# --- taking several discards (Worked example 4) ------------------------------------------------


def test_example_4a_the_player_in_turn_takes_three_discards_and_two_stock_cards_and_does_not_discard():
    g = four(discard=("9D", "7H", "3C", "JD"))
    stock = len(g.stock)
    assert Draw("discard", depth=3) in g.decision(0).options
    g.apply(0, [Draw("discard", depth=3)])
    assert len(g.hands[0]) == 6 + 5 and len(g.stock) == stock - 2 and g.piles[0] == ["9D"]
    assert g.decision(0).options == [Pass()] and g.decision(0).constraints["discard_due"] is False
    assert illegal(g, 0, [Discard("5H")]) == "discard.after-deep-take"
    g.apply(0, [Pass()])
    assert g.turn == 1 and len(g.hands[0]) == 11


def test_example_4b_a_claimant_takes_three_discards_and_three_stock_cards_and_does_not_discard():
    g = four(discard=("9D", "7H", "3C"))
    discard_x(g)  # the pile: 9D 7H 3C KH
    stock = len(g.stock)
    assert Claim(3) in g.decision(3).options
    answer(g, D=3)
    g.apply(1, [Pass()])
    assert len(g.hands[3]) == 6 + 6 and len(g.stock) == stock - 3 and g.piles[0] == ["9D"]
    assert g.to_act() == [1] and g.stage is None  # no discard: B plays his turn


def test_the_next_player_may_take_deep_himself_as_his_draw():
    g = four(discard=("9D", "7H", "3C"))
    discard_x(g)
    answer(g, C=1)
    assert Draw("discard", depth=3) in g.decision(1).options
    g.apply(1, [Draw("discard", depth=3)])
    assert len(g.hands[1]) == 6 + 3 + 2 and g.phase == "play" and not g.discard_due


# --- the stock pays for a take (Ambiguity 19) -----------------------------------------------------


def test_only_takes_the_stock_can_pay_for_with_one_rebuild_are_offered():
    # stock 1 card; after A's discard the pile is 4 cards: a claim of k needs k stock cards, N's take k - 1
    g = four(discard=("9D", "7H", "3C"), stock=("2S", "QS"))
    discard_x(g)
    assert len(g.stock) == 1
    assert [o.depth for o in g.decision(2).options if isinstance(o, Claim)] == [1, 2]
    assert illegal(g, 2, [Claim(3)]) == "claim.depth"
    answer(g, C=1)
    assert [o.depth for o in g.decision(1).options if isinstance(o, Draw)] == [1, 2]
    assert illegal(g, 1, [Draw("discard", depth=3)]) == "claim.depth"


def test_a_claim_rebuilds_the_stock_in_the_middle_of_the_action():
    g = four(discard=("9D", "7H", "8C", "3C"), stock=("2S", "QS"))
    discard_x(g)  # pile 9D 7H 8C 3C KH, stock 2S
    total = Counter(g.cards_in_play())
    answer(g, D=2)
    since = len(g.log)
    g.apply(1, [Pass()])
    assert [e["type"] for e in events(g, 0, since)].count("rebuild") == 1
    # KH 3C from the pile; 2S, then the earliest discard (9D) from the rebuilt stock
    assert Counter(g.hands[3]) - Counter(f"{FILLER} 5C".split()) == Counter(["KH", "3C", "2S", "9D"])
    assert Counter(g.cards_in_play()) == total
    assert g.piles[0] == ["8C"] and g.stock == ["7H"]
    assert g.to_act() == [1] and g.deal_no == 0


def test_a_take_that_leaves_nothing_to_rebuild_ends_the_deal_without_a_winner():
    g = four(discard=("9D", "7H", "3C"), stock=("2S", "QS"))
    discard_x(g)  # pile 9D 7H 3C KH, stock 2S: the claim of two is paid by one rebuild, then the pile is one card
    answer(g, D=2)
    g.apply(1, [Pass()])
    assert g.deal_results[0]["winner"] is None and g.deal_results[0]["scores"] == [0, 0, 0, 0]
    assert g.deal_results[0]["penalties"][3] == sum(map(g.penalty, f"{FILLER} 5C KH 3C 2S 9D".split()))


def test_an_empty_stock_after_a_discard_is_rebuilt_before_the_window():
    g = four(discard=("9D", "7H", "3C"), stock=("QS",))
    discard_x(g)
    assert g.piles[0] == ["KH"] and len(g.stock) == 3
    assert [o.depth for o in g.decision(2).options if isinstance(o, Claim)] == [1]


# --- the option may_i_next_turn_to_claimant_left ---------------------------------------------------


@pytest.mark.parametrize(("left", "nxt"), [(False, 1), (True, 0)])
def test_after_a_claim_n_plays_or_with_the_option_the_claimants_left(left, nxt):
    g = four(may_i_next_turn_to_claimant_left=left)
    discard_x(g)
    answer(g, D=1)
    g.apply(1, [Pass()])
    g.apply(3, [Discard("5C")])
    assert g.to_act() == [nxt] and g.phase == "draw"


def test_with_the_option_the_seats_between_lose_their_turn():
    g = rig([f"{FILLER} 5{s}" for s in "HDSCH"], may_i_next_turn_to_claimant_left=True)  # five seats
    discard_x(g)
    answer(g, D=1)
    g.apply(1, [Pass()])
    g.apply(3, [Discard("5C")])
    assert g.to_act() == [4]


def test_the_next_player_taking_it_himself_keeps_the_order_with_the_option():
    g = four(may_i_next_turn_to_claimant_left=True)
    discard_x(g)
    answer(g, D=1)
    g.apply(1, [Draw("discard"), Discard("5D")])
    assert g.turn == 2


# --- the last deal: no final discard ------------------------------------------------------------


def last_deal(hand, draw="3C", **kw):
    """Deal 5 (0-based 4), seat 0 down with two sets and a sequence on the table, `draw` on the stock."""
    table = ["3S 3H 3D", "7S 7H 7D", "9C TC JC"]
    hands = [hand, f"{FILLER} 5D", f"{FILLER} 5S"]
    return rig(hands, deal=4, table=table, opened=[True, False, False], stock=("2S",) * 20 + (draw,), **kw)


def test_the_last_card_may_not_be_discarded_in_the_last_deal():
    g = last_deal("9H")
    assert g.decision(0).constraints["last_deal"] is True
    assert illegal(g, 0, [Draw("stock"), LayOff(0, ["3C"]), Discard("9H")]) == "contract.final-discard"
    assert illegal(g, 0, [Draw("stock"), LayOff(0, ["3C"])]) == "contract.keep-two"
    g.apply(0, [Draw("stock")])
    assert [o.card for o in g.decision(0).options] == ["3C", "9H"]  # a discard that keeps one card back


def test_before_the_last_deal_the_last_card_may_be_discarded():
    g = last_deal("9H")
    g.deal_no = 3
    assert g.decision(0).constraints["last_deal"] is False
    g.apply(0, [Draw("stock"), LayOff(0, ["3C"]), Discard("9H")])
    assert g.deal_results[0]["winner"] == 0


def test_in_the_last_deal_a_discard_that_leaves_one_card_is_fine_and_laying_off_everything_goes_out():
    g = last_deal("9H 4D")
    g.apply(0, [Draw("stock"), LayOff(0, ["3C"]), Discard("9H")])
    assert g.hands[0] == ["4D"] and g.turn == 1
    g = last_deal("8C 7C")
    g.apply(0, [Draw("stock"), LayOff(2, ["8C"]), LayOff(2, ["7C"]), LayOff(0, ["3C"])])
    assert g.deal_results[0]["winner"] == 0


# --- the re-discard ban (Ambiguities 11, 21) ------------------------------------------------------


def test_a_hand_of_copies_of_the_card_taken_may_discard_one():
    g = rig(["7H", FILLER, FILLER], discard=("9D", "7H"))
    g.apply(0, [Draw("discard")])
    assert [o.card for o in g.decision(0).options] == ["7H"]
    g.apply(0, [Discard("7H")])
    assert g.hands[0] == ["7H"]


# --- deals, the sixth deal, scoring -------------------------------------------------------------


def test_a_deal_gives_ten_cards_from_two_packs_without_jokers():
    g = MayI(5, {}, seed=2)
    assert [len(h) for h in g.hands] == [10] * 5 and len(g.cards_in_play()) == 104
    assert "JK" not in g.cards_in_play() and Counter(g.cards_in_play())["QS"] == 2


def go_out_in_deal_5(totals, penalties=(0, 0, 0, 0), winner=0, **options):
    """Deal 5 with `totals` bonus points so far: seat `winner` goes down and out at once."""
    hands = [f"{FILLER} 5{s}" for s in "HDSC"]
    hands[winner] = "3S 3H 3D 5S 5H 5D 7C 8C 9C TC"
    g = rig(hands, deal=4, turn=winner, stock=("2S",) * 20 + ("JC",), **options)
    g.totals, g.penalties = list(totals), list(penalties)
    melds = [Meld(["3S", "3H", "3D"]), Meld(["5S", "5H", "5D"]), Meld(["7C", "8C", "9C", "TC", "JC"])]
    g.apply(winner, [Draw("stock"), *melds])
    return g


@pytest.mark.parametrize(
    ("sixth", "totals", "winner", "played"),
    [
        ("off", (20, 20, 0, 0), 2, False),
        ("always", (40, 0, 0, 0), 0, True),
        ("if_tied", (20, 20, 0, 0), 2, True),  # 20 20 20 0: the leaders are tied
        ("if_tied", (20, 20, 0, 0), 0, False),  # 40 20 0 0: one leader
        ("if_tied", (20, 20, 40, 0), 0, True),  # 40 20 40 0
    ],
)
def test_the_sixth_deal_by_the_option(sixth, totals, winner, played):
    g = go_out_in_deal_5(totals, winner=winner, sixth_deal=sixth)
    assert g.is_over() is not played
    if played:
        assert g.deal_no == 5 and [len(h) for h in g.hands] == [11] * 4
        assert g.decision(g.turn).constraints["contract"]["name"] == "two sequences + one set"
        assert g.last_deal and g.view(0)["deals"] == 6


def test_after_the_sixth_deal_the_match_is_over():
    g = go_out_in_deal_5((20, 20, 0, 0), winner=2, sixth_deal="if_tied")
    hands = [f"{FILLER} 5{s}" for s in "HDSC"]
    hands[g.turn] = "3D 4D 5D 6D 8S 9S TS JS KS KH"
    g.hands, g.stock, g.table, g.opened = [h.split() for h in hands], ["KD"], [], [False] * 4
    g.phase = "draw"
    runs = [Meld(["3D", "4D", "5D", "6D"]), Meld(["8S", "9S", "TS", "JS"]), Meld(["KS", "KH", "KD"])]
    g.apply(g.turn, [Draw("stock"), *runs])
    assert g.is_over() and g.deal_results[-1]["deal"] == 5


def test_example_5_and_the_two_scoring_columns():
    g = rig(["9C", "AS KD 7C", "2H 3H", "QC"], table=["3S 3H 3D", "7S 7H 7D"], opened=[True] + [False] * 3)
    g.stock.append("3C")
    g.apply(0, [Draw("stock"), LayOff(0, ["3C"]), Discard("9C")])
    deal = g.deal_results[0]
    assert deal["scores"] == [20, 0, 0, 0] and deal["penalties"] == [0, 32, 5, 10]
    assert g.totals == [20, 0, 0, 0] and g.penalties == [0, 32, 5, 10]
    assert g.view(1)["scores"] == [20, 0, 0, 0] and g.view(1)["penalties"] == [0, 32, 5, 10]


def test_the_winner_has_the_most_bonus_then_the_fewest_penalties_and_ties_share():
    g = go_out_in_deal_5((0, 20, 20, 0), penalties=(10, 50, 30, 30), winner=0)
    assert g.is_over()
    result = g.result()
    assert result["totals"] == [20, 20, 20, 0]
    hand = sum(map(g.penalty, f"{FILLER} 5D".split()))  # what each loser's hand costs
    assert result["penalties"] == [10, 50 + hand, 30 + hand, 30 + hand]
    assert result["ranks"] == [1, 3, 2, 4]
    g = go_out_in_deal_5((0, 20, 0, 0), penalties=(60, 60 - hand, 0, 0), winner=0)
    assert g.result()["ranks"] == [1, 1, 3, 3]  # equal bonus and penalties share the win


def test_a_stock_emptied_by_a_claim_is_rebuilt_after_the_claimants_discard():
    g = four(discard=("9D", "7H", "3C"), stock=("2S", "QS"))
    discard_x(g)  # stock 2S, pile 9D 7H 3C KH
    answer(g, D=1)
    g.apply(1, [Pass()])
    assert g.stock == [] and "2S" in g.hands[3]
    g.apply(3, [Discard("5C")])
    # turned over: the earliest discard (9D) is the top of the new stock, the last one stays up
    assert g.piles[0] == ["5C"] and g.stock == ["3C", "7H", "9D"] and g.to_act() == [1]


# --- romis eval ----------------------------------------------------------------------------------


def test_eval_says_what_the_hand_costs_and_which_deals_it_can_go_down_in():
    hand = "3S 3H 3D 3S 3H 3C 5C 6C 7C 9D"
    out = CliRunner().invoke(app, ["eval", "may-i", "--hand", hand, "--json"])
    assert out.exit_code == 0
    res = json.loads(out.stdout)
    assert res["points"] == sum(map(MayI.hooks_only().penalty, hand.split()))
    met = {c["deal"]: c["melds"] for c in res["contracts"]}
    assert met[1] is None  # six 3s are not two sets (Worked example 2)
    assert met[2] == [["3S", "3S", "3H", "3H", "3D", "3C"], ["5C", "6C", "7C"]]  # the most cards: all six 3s
    assert met[3] is None and met[4] is None and met[5] is None and met[6] is None
    assert [c["contract"] for c in res["contracts"]][:2] == ["two sets", "one set + one sequence"]


def test_a_claimant_only_discards_and_the_next_player_only_takes_or_passes():
    g = four()
    discard_x(g)
    answer(g, D=1)
    assert illegal(g, 1, [Draw("stock")]) == "claim.priority"  # he draws from the stock in his turn, after it
    g.apply(1, [Pass()])
    assert illegal(g, 3, [LayOff(0, ["5C"])]) == "claim.discard"  # Ambiguity 13: no melds, no lay-offs
    assert illegal(g, 3, [Discard("5C"), Discard("4C")]) == "claim.discard"
    assert illegal(g, 3, [Discard("KH")]) == "discard.rediscard"
    assert illegal(g, 1, [Draw("stock")]) == "turn.not-your-turn"


def test_with_no_rebuild_left_only_what_the_stock_holds_can_be_taken():
    g = four(discard=("9D", "7H", "3C"), stock=("2S", "QS"))
    g.rebuilds = g.opts["max_stock_rebuilds"]
    discard_x(g)  # stock 2S, pile 9D 7H 3C KH
    assert [o.depth for o in g.decision(2).options if isinstance(o, Claim)] == [1]
    answer(g, C=1)
    assert [o.depth for o in g.decision(1).options if isinstance(o, Draw)] == [1, 2]  # k - 1 = 1 stock card
