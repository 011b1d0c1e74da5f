"""Continental Rummy (rules/continental.md): the worked examples, laying down as going out in one of three
patterns, what is rejected and why, scoring, the dealer, the decks, the stock, eval and the sample bots."""

import json
import random
import time
from collections import Counter

import pytest
import rigging
from rigging import illegal
from typer.testing import CliRunner

from protocol.messages import Discard, Draw, LayOff, Meld
from referee.cli import app
from referee.rules.cards import shuffled
from referee.rules.errors import ConfigError
from referee.rules.variants.continental import CONTINENTAL_MELDS, Continental, lay_down
from sample_bots.brain import Brain

# Worked example 3: pattern (a), the 6-card ♠3-8 split in two
EXAMPLE_3 = ["3S 4S 5S", "6S 7S 8S", "9H TH JH", "QD KD AD", "AC 2C 3C"]
# Worked example 4: pattern (c) of 16 cards, the last sequence longer than its minimum
EXAMPLE_4 = ["5H 6H 7H 8H 9H", "TC JC QC KC", "2D 3D 4D", "JS QS KS AS"]
FILLER = "2H 5D 9C KH 4S 7D JC 3H 8C QH TD 6C AS 2S 9D"  # 15 cards with no two sequences' worth in a pattern


def rig(hands, table=(), stock=("7C",) * 30, discard=("4H",), turn=0, **options):
    """A Continental game with one hand per string, at the start of seat `turn`'s turn."""
    return rigging.rig(Continental, hands, table=table, stock=stock, discard=discard, turn=turn, **options)


def melds(groups):
    return [Meld(g.split()) for g in groups]


def lay(g, seat, groups, discard=None):
    """Seat `seat` draws and lays `groups` down, with a final discard if given."""
    g.apply(seat, [Draw("stock"), *melds(groups), *([Discard(discard)] if discard else [])])


# --- the worked examples ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("players,points", [(7, 6), (3, 2)])
def test_examples_1_2_the_winner_collects_one_point_from_each_opponent(players, points):
    g = rig([" ".join(EXAMPLE_3)] + [FILLER] * (players - 1))
    lay(g, 0, EXAMPLE_3, discard="7C")
    assert g.deal_results[-1]["scores"] == [points] + [-1] * (players - 1)
    assert g.deal_results[-1]["winner"] == 0 and sum(g.deal_results[-1]["scores"]) == 0


def test_example_3_pattern_a_with_a_split_sequence_goes_out_with_a_final_discard():
    g = rig([" ".join(EXAMPLE_3), FILLER], stock=("KH",) * 30)
    lay(g, 0, EXAMPLE_3, discard="KH")
    assert g.deal_results[-1]["winner"] == 0 and g.deal_no == 1
    shown = [e.data for e in g.log if e.data["type"] in ("meld", "discard") and e.data["seat"] == 0]
    assert [" ".join(e.get("cards", [e.get("card")])) for e in shown] == [*EXAMPLE_3, "KH"]  # the pattern is public


def test_example_4_sixteen_cards_in_pattern_c_need_no_discard():
    hand = EXAMPLE_4[0] + " " + EXAMPLE_4[1] + " " + EXAMPLE_4[2] + " JS QS KS"
    g = rig([hand, FILLER], stock=("AS",) * 30)
    lay(g, 0, EXAMPLE_4)
    assert g.deal_results[-1]["winner"] == 0


def test_identical_sequences_of_a_multiple_pack_may_both_be_laid_down():
    groups = ["4H 5H 6H", "4H 5H 6H", "9H TH JH", "QD KD AD", "AC 2C 3C"]
    g = rig([" ".join(groups), FILLER])
    lay(g, 0, groups, discard="7C")
    assert g.deal_results[-1]["winner"] == 0


@pytest.mark.parametrize("payment,scores", [("per_opponent", [9, -3, -3, -3]), ("flat", [5, -1, -1, -1])])
def test_example_5_a_joker_in_the_winners_sequences_costs_each_opponent_two_more(payment, scores):
    groups = ["3S 4S JK", "6S 7S 8S", "9H TH JH", "QD KD AD", "AC 2C 3C"]
    g = rig([" ".join(groups)] + [FILLER] * 3, joker_payment=payment)
    lay(g, 0, groups, discard="7C")
    assert g.deal_results[-1]["scores"] == scores


def test_a_joker_discarded_rather_than_laid_down_scores_nothing():
    g = rig([" ".join(EXAMPLE_3), FILLER], stock=("JK",) * 30)
    lay(g, 0, EXAMPLE_3, discard="JK")
    assert g.deal_results[-1]["scores"] == [1, -1]


# --- what is rejected ------------------------------------------------------------------------------------------------
def rejected(groups, hand=None, discard="7C", **options):
    """The rule id that drawing and laying `groups` down (with `discard`) is rejected by, changing nothing."""
    g = rig([hand or " ".join(groups), FILLER], **options)
    before = (list(g.hands[0]), g.phase)
    rule = illegal(g, 0, [Draw("stock"), *melds(groups), *([Discard(discard)] if discard else [])])
    assert (g.hands[0], g.phase) == before and not g.table  # the play is rejected whole
    return rule


def test_a_set_is_not_a_combination():
    groups = ["7H 7S 7D", "6S 7S 8S", "9H TH JH", "QD KD AD", "AC 2C 3C"]
    g = rig([" ".join(groups), FILLER])
    assert illegal(g, 0, [Draw("stock"), Meld(["7H", "7S", "7D"], kind="set")]) == "meld.no-sets"
    assert rejected(groups) == "run.invalid"  # without a kind, three of a rank are no sequence either


def test_a_partial_laying_down_that_leaves_cards_in_hand_is_rejected():
    assert rejected(EXAMPLE_3[:3], hand=" ".join(EXAMPLE_3)) == "contract.whole-hand"


def test_fifteen_cards_in_sequences_that_are_not_one_of_the_three_patterns_are_rejected():
    # 6 + 3 + 3 + 3: four sequences with only one of 4+ (the 6-card one split in two would be pattern a)
    assert rejected(["3S 4S 5S 6S 7S 8S", *EXAMPLE_3[2:]]) == "contract.pattern"
    # three 5-card sequences: 15 cards, but three sequences make no pattern and 5 cannot be split
    assert rejected(["TC JC QC KC AC", "2D 3D 4D 5D 6D", "5H 6H 7H 8H 9H"]) == "contract.pattern"


def test_going_round_the_corner_is_rejected():
    groups = ["KC AC 2C", "6S 7S 8S", "9H TH JH", "QD KD AD", "3S 4S 5S"]
    assert rejected(groups) == "run.invalid"


def test_deuces_are_not_wild_and_a_sequence_of_jokers_needs_a_natural_card():
    assert rejected(["3S 4S 2D", *EXAMPLE_3[1:]], hand=" ".join(["3S 4S 2D", *EXAMPLE_3[1:]])) == "run.invalid"
    groups = ["JK JK JK", "6S 7S 8S", "9H TH JH", "QD KD AD", "AC 2C 3C"]
    assert rejected(groups) == "meld.natural"


def test_laying_down_before_the_draw_is_rejected():
    g = rig([" ".join(EXAMPLE_3), FILLER])
    assert illegal(g, 0, melds(EXAMPLE_3)) == "play.before-draw"


def test_there_are_no_lay_offs():
    g = rig([FILLER, FILLER], table=[(1, "3S 4S 5S")])
    assert illegal(g, 0, [Draw("stock"), LayOff(0, ["6S"])]) == "contract.first"


def test_a_hand_may_not_be_emptied_by_discarding_without_laying_down():
    g = rig(["3S", FILLER])
    g.phase = "play"
    assert illegal(g, 0, [Discard("3S")]) == "contract.final-discard"


def test_the_card_taken_from_the_pile_may_not_be_discarded():
    g = rig([FILLER, FILLER], discard=("KS",))
    assert illegal(g, 0, [Draw("discard"), Discard("KS")]) == "discard.rediscard"


def test_no_claims_nor_other_out_of_turn_plays():
    g = rig([FILLER, FILLER])
    g.apply(0, [Draw("stock"), Discard("7C")])
    assert g.to_act() == [1] and g.decision(1).kind == "turn"


# --- the deal, the dealer, the decks, the stock ------------------------------------------------------------------
@pytest.mark.parametrize("players,packs", [(2, 2), (5, 2), (6, 3), (8, 3), (9, 4), (12, 4)])
def test_the_deck_follows_the_number_of_players(players, packs):
    g = Continental(players, {}, 1)
    counts = Counter(g.cards_in_play())
    assert len(g.cards_in_play()) == 53 * packs and counts["JK"] == packs and counts["AS"] == packs
    assert all(len(h) == 15 for h in g.hands) and len(g.stock) == 53 * packs - 15 * players - 1


def test_fifteen_cards_are_dealt_three_at_a_time_from_the_dealers_left():
    g = Continental(4, {}, 7)
    cards = shuffled(g.make_deck(), g.deal_rng())
    order = [(g.dealer + 1 + i) % 4 for i in range(4)]
    expected: list[list[str]] = [[] for _ in range(4)]
    for i in range(60):
        expected[order[i // 3 % 4]].append(cards.pop())
    assert g.hands == expected and g.turn == order[0]


def test_the_winner_deals_next_and_a_void_deal_is_redealt_by_the_same_dealer():
    g = rig([FILLER, " ".join(EXAMPLE_3), FILLER], turn=1)
    g.dealer = 0
    lay(g, 1, EXAMPLE_3, discard="7C")
    assert g.dealer == 1 and g.turn == 2 and g.deal_no == 1
    g.stock, g.piles = [], [["KS"]]  # the stock is out and the pile cannot rebuild it
    g.apply(g.turn, [Draw("discard"), Discard(sorted(set(g.hands[g.turn]) - {"KS"})[0])])
    assert g.deal_results[-1]["winner"] is None and g.deal_results[-1]["scores"] == [0, 0, 0]
    assert g.dealer == 1 and g.deal_no == 2


def test_the_stock_is_rebuilt_from_the_pile_turned_over_after_the_last_stock_card_is_drawn():
    g = rig([FILLER, FILLER], stock=("QC",), discard=("2D", "3D", "4D"))
    g.apply(0, [Draw("stock"), Discard("QC")])
    assert g.piles == [["QC"]] and g.stock == ["4D", "3D", "2D"]  # the earliest discard (2D) on top: drawn next


def test_the_twenty_first_rebuild_is_a_stalemate():
    g = rig([FILLER, FILLER], stock=("QC",), discard=("2D", "3D"))
    g.rebuilds = 20
    g.apply(0, [Draw("stock"), Discard("QC")])
    assert g.deal_results[-1]["winner"] is None and g.deal_results[-1]["scores"] == [0, 0]


def test_a_match_is_ten_deals_void_ones_included_and_the_highest_total_wins():
    g = Continental(2, {"max_turns_per_deal": 2}, 3)
    while not g.is_over():
        g.apply(g.turn, g.fallback(g.turn))
    assert len(g.deal_results) == 10 and all(d["winner"] is None for d in g.deal_results)
    assert g.result()["ranks"] == [1, 1]  # equal highest totals share the win
    g = Continental(2, {"match_deals": 1}, 3)
    g.hands[g.turn] = " ".join(EXAMPLE_3).split()
    lay(g, g.turn, EXAMPLE_3, discard=g.stock[-1])
    assert g.is_over() and g.result()["ranks"][g.deal_results[0]["winner"]] == 1


def test_a_match_of_no_deals_is_one_clear_error():
    with pytest.raises(ConfigError, match="match_deals"):
        Continental(2, {"match_deals": 0}, 1)


# --- eval and the search --------------------------------------------------------------------------------------
def test_eval_says_whether_a_hand_can_be_laid_down_and_in_which_pattern():
    runner = CliRunner()
    out = runner.invoke(app, ["eval", "continental", "--hand", " ".join(EXAMPLE_3)]).stdout
    assert "yes, in pattern a" in out and "all 15 cards" in out
    res = json.loads(runner.invoke(app, ["eval", "continental", "--json", "--hand", " ".join(EXAMPLE_4)]).stdout)
    assert res["laid_down"] and any(p.startswith("c ") for p in res["patterns"]) and res["discard"] is None
    hand = " ".join(EXAMPLE_3) + " KH"
    res = json.loads(runner.invoke(app, ["eval", "continental", "--json", "--hand", hand]).stdout)
    assert res["laid_down"] and res["discard"] == "KH"
    out = runner.invoke(app, ["eval", "continental", "--hand", "TC JC QC KC AC 2D 3D 4D 5D 6D 5H 6H 7H 8H 9H"])
    assert "no: no pattern holds the whole hand" in out.stdout and out.exit_code == 0


def hard_hands(count, seed):
    """16-card hands of two suits and up to four jokers, the slowest for a whole-hand search."""
    deck, rng = Continental(12, {}, 0).make_deck(), random.Random(seed)
    pool = [c for c in deck if c[1] in "HS"]
    return [rng.sample(pool, 16 - j) + ["JK"] * j for j in (2, 3, 4) for _ in range(count)]


def test_the_whole_hand_search_is_fast_with_sixteen_cards_and_jokers():
    hands = hard_hands(10, seed=2)
    start = time.process_time()
    found = [lay_down(h, CONTINENTAL_MELDS) for h in hands]
    assert time.process_time() - start < 3  # 30 hands; each took up to 1.8 s before the search was memoised
    for hand, got in zip(hands, found):
        if got:
            laid = sorted(c for m in got[0] for c in m.cards) + ([got[1]] if got[1] else [])
            assert laid == sorted(hand)


# --- the sample bots ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("greedy", [True, False])
def test_the_sample_bots_go_out_when_they_can(greedy):
    g = rig([" ".join(EXAMPLE_3) + " KH", FILLER])
    g.phase = "play"
    g.hands[0] = (" ".join(EXAMPLE_3) + " KH").split()
    brain = Brain("continental", 2, g.opts, greedy=greedy, seed=1)
    g.apply(0, brain.choose(g.decision(0), g.view(0)))
    assert g.deal_results and g.deal_results[-1]["winner"] == 0


def test_greedy_beats_random():
    wins = 0
    for seed in range(6):
        g = Continental(2, {"match_deals": 3}, seed)
        brains = [Brain("continental", 2, g.opts, greedy=s == seed % 2, seed=seed * 10 + s) for s in range(2)]
        while not g.is_over():
            g.apply(g.turn, brains[g.turn].choose(g.decision(g.turn), g.view(g.turn)))
        wins += g.result()["ranks"][seed % 2] == 1 and g.result()["ranks"].count(1) == 1
    assert wins >= 5


def test_the_card_taken_from_the_pile_may_be_the_final_discard_when_it_is_the_only_card_left():
    g = rig([" ".join(EXAMPLE_3), FILLER], discard=("KH",))
    g.apply(0, [Draw("discard"), *melds(EXAMPLE_3), Discard("KH")])  # the shared lapse of the re-discard ban
    assert g.deal_results[-1]["winner"] == 0
