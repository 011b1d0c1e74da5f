"""Two Candles (rules/two-candles.md): the worked evaluations and the table's maximum, the four takes and what is
illegal about the others, the put-back, the view, the end of a deal by declines (an exchange that changes
nothing counts as one), the three-exchange option, the safeguards, the match of N deals and its tie-breaks,
`romis eval`, and the sample bots."""

import json
import random
from collections import Counter
from itertools import combinations

import pytest
from typer.testing import CliRunner

from protocol.messages import Discard, Draw, Pass
from referee.cli import app, run
from referee.rules.cards import deck
from referee.rules.errors import IllegalAction
from referee.rules.variants import VARIANTS
from referee.rules.variants.two_candles import TwoCandles, criteria, hand_points, same_rank_points
from sample_bots.brain import Brain

# rules/two-candles.md, Worked examples 1-6: (hand, the five features' points in order, total)
EXAMPLES = [
    ("KS KS KH KH KD KD KC KC", (27, 4, 4, 4, 4), 43),
    ("QH QH QD QD QS QS QC JD", (23, 6, 2, 5, 3), 39),
    ("QH QH QD QD QS QS QC JC", (23, 4, 2, 4, 3), 36),
    ("QH QH QD QD QS QS JD JD", (19, 8, 2, 6, 4), 39),
    ("QH QH QD QD QC JH JH AH", (15, 10, 2, 7, 3), 37),
    ("QH QH QD QD KH KH KD KD", (12, 8, 4, 8, 4), 36),
]
FEATURES = ("same_rank", "suit", "quartets", "colour", "pairs")


def rig(n=2, hands=None, piles=(("9S", "TS"), ("JS", "QS")), stock=("AC",) * 10, turn=0, **options):
    """A two-candles game of `n` seats at the start of seat `turn`'s turn, with the given cards."""
    g = TwoCandles(n, options, seed=1)
    g.hands = [h.split() for h in hands] if hands else [list(h) for h in g.hands]
    g.piles = [list(p) for p in piles]
    g.stock = list(stock)
    g.begin_turn(turn)
    return g


def illegal(g, seat, ops):
    """The rule id of the IllegalAction that `ops` raise (the test fails if they are accepted)."""
    with pytest.raises(IllegalAction) as e:
        g.apply(seat, ops)
    return e.value.rule


HAND = "9H 9H TD TD JC JC KS AS"


# --- the evaluation ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("hand,features,total", EXAMPLES)
def test_worked_examples_score_each_feature_and_the_total(hand, features, total):
    found = criteria(hand.split())
    assert tuple(found[f]["points"] for f in FEATURES) == features
    assert hand_points(hand.split()) == total


def test_the_colours_count_alike():  # feature 4 is the larger colour, red or black
    black = ["QS", "QS", "QC", "QC", "QH", "JS", "JS", "AS"]  # worked example 5 with the colours swapped
    assert criteria(black)["colour"] == {"count": 7, "points": 7} and hand_points(black) == 37


def test_five_of_a_kind_can_beat_seven_of_a_kind():  # worked example 7: 37 > 36
    assert hand_points(EXAMPLES[4][0].split()) > hand_points(EXAMPLES[2][0].split())


def test_the_same_rank_scale():  # worked example 8, and 3 a card from 2 to 5
    assert [same_rank_points(n) for n in range(2, 9)] == [6, 9, 12, 15, 19, 23, 27]


def test_a_single_card_group_scores_nothing_or_three_with_the_option():  # Ambiguity 2 (32-card pack)
    hand = ["AH", "7H", "8D", "9D", "TS", "JS", "QC", "KC"]  # eight ranks, one card each
    assert criteria(hand)["same_rank"] == {"count": 1, "points": 0}
    assert TwoCandles(5, {"single_rank_points": 3}, 0).hand_value(hand) == hand_points(hand) + 3


def test_43_is_reached_only_by_eight_of_a_kind():
    cards = deck(packs=2, size=24)
    eights = {tuple(sorted(c for c in cards if c[0] == r)) for r in "9TJQKA"}
    assert all(hand_points(list(h)) == 43 for h in eights)
    # every hand holding six or more of a rank (where the high values are), exhaustively...
    strong = Counter()
    for r in "9TJQKA":
        mine, others = [c for c in cards if c[0] == r], [c for c in cards if c[0] != r]
        for k in (6, 7, 8):
            for part in set(combinations(mine, k)):
                for rest in set(combinations(others, 8 - k)):
                    strong[hand_points([*part, *rest])] += 1
    assert strong[43] == len(eights) and max(v for v in strong if v != 43) == 39
    # ...and a large random sample of the others
    rng = random.Random(43)
    assert max(hand_points(rng.sample(cards, 8)) for _ in range(20000)) < 43


def test_eval_prints_each_feature_and_the_total():
    result = CliRunner().invoke(app, ["eval", "two-candles", "--hand", EXAMPLES[4][0]])
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "largest same-rank group: 5 cards, 15 points",
        "longest suit: 5 cards, 10 points",
        "similar quartets: 1 quartet, 2 points",
        "larger colour: 7 cards, 7 points",
        "identical pairs: 3 pairs, 3 points",
        "points: 37",
    ]
    as_json = json.loads(CliRunner().invoke(app, ["eval", "two-candles", "--hand", EXAMPLES[1][0], "--json"]).stdout)
    assert as_json["same_rank"] == {"count": 7, "points": 23} and as_json["points"] == 39


def test_eval_of_a_file_of_the_worked_examples_agrees_with_the_rules(tmp_path):
    hands = tmp_path / "hands.txt"
    hands.write_text("\n".join(h for h, _, _ in EXAMPLES) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["eval", "two-candles", "--hands-file", str(hands)])
    assert result.exit_code == 0
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["points"] for r in rows] == [t for _, _, t in EXAMPLES]
    assert [tuple(r[f]["points"] for f in FEATURES) for r in rows] == [f for _, f, _ in EXAMPLES]


@pytest.mark.parametrize(
    "hand,words",
    [("QH QH QD QD QS QS QC", "hold 8 cards"), ("QH QH QH QD QD QS QS QC", "3 times"), ("2H " * 8, "not in")],
)
def test_eval_of_an_impossible_hand_is_one_line_and_exit_2(hand, words, capsys):
    code = run(["eval", "two-candles", "--hand", hand])
    out, err = capsys.readouterr()
    assert code == 2 and not out and words in err and len(err.splitlines()) == 1


# --- the deal ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "n,pack,stock", [(2, 24, 28), (3, 24, 20), (4, 24, 12), (5, 32, 20), (6, 32, 12), (7, 36, 12), (8, 36, 4)]
)
def test_packs_hands_starters_and_stock_by_player_count(n, pack, stock):
    g = TwoCandles(n, {}, seed=n)
    assert Counter(g.cards_in_play()) == Counter(deck(packs=2, size=pack))
    assert [len(h) for h in g.hands] == [8] * n and [len(p) for p in g.piles] == [2, 2] and len(g.stock) == stock
    assert g.to_act() == [(g.dealer + 1) % n]  # Pirmasis, left of the dealer


def test_the_view_shows_the_top_two_of_each_pile_and_the_events_each_card_placed():
    g = rig(hands=[HAND, "9C 9C TC TC JD JD KD AD"], piles=(("AH", "9S", "TS"), ("JS", "QS")))
    view = g.view(0)
    assert view["piles"] == [["9S", "TS"], ["JS", "QS"]] and view["pile_sizes"] == [3, 2] and view["stock"] == 10
    assert "hands" not in view and view["hand"] == sorted(HAND.split())
    g.apply(0, [Draw("discard", 0, 2), Discard("9H", 0), Discard("TS", 1)])
    assert g.view(1)["piles"] == [["AH", "9H"], ["QS", "TS"]]  # the card under a take comes into view
    events, _ = g.events_since(1, 0)
    assert [(e["type"], e.get("cards") or e.get("card"), e.get("pile")) for e in events[-3:]] == [
        ("draw", ["TS", "9S"], 0),
        ("discard", "9H", 0),
        ("discard", "TS", 1),
    ]


# --- the take -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "draws,taken",
    [
        ([Draw("discard", 1, 2)], ["QS", "JS"]),  # (a)
        ([Draw("discard", 0), Draw("discard", 1)], ["TS", "QS"]),  # (b)
        ([Draw("discard", 0), Draw("stock")], ["TS", "KC"]),  # (c)
        ([Draw("stock", depth=2)], ["KC", "AC"]),  # (d)
    ],
)
def test_the_four_takes(draws, taken):
    g = rig(hands=[HAND, HAND], stock=("AC", "KC"))
    g.apply(0, draws)
    assert sorted(g.hands[0]) == sorted(HAND.split() + taken) and g.decision(0).phase == "putback"


def test_a_taken_card_may_go_straight_back_and_the_put_back_may_come_one_card_at_a_time():  # Ambiguity 5
    g = rig(hands=[HAND, HAND])
    g.apply(0, [Draw("discard", 0, 2), Discard("9S", 1)])
    d = g.decision(0)
    assert d.constraints["putback_piles"] == [0] and {o.pile for o in d.options} == {0}
    g.apply(0, [Discard("TS", 0)])
    assert g.piles == [["TS"], ["JS", "QS", "9S"]] and g.to_act() == [1] and len(g.hands[0]) == 8


def test_a_take_named_one_source_at_a_time_shows_nothing_until_both_are_named():
    g = rig(hands=[HAND, HAND], stock=("AC", "KC"))
    before = [g.view(s) for s in range(2)], [g.events_since(s, 0)[0] for s in range(2)]
    g.apply(0, [Draw("stock")])
    views = [g.view(s) for s in range(2)]
    assert [dict(v, phase="take") for v in views] == before[0] and views[0]["phase"] == "take-second"
    assert [g.events_since(s, 0)[0] for s in range(2)] == before[1]  # no card revealed, no pile re-squared
    d = g.decision(0)
    assert d.phase == "take-second" and d.options == [Draw("discard", 0), Draw("discard", 1)]
    assert illegal(g, 0, [Draw("stock")]) == "take.same-source"  # no second stock card after naming one
    g.apply(0, [Draw("discard", 1)])
    assert "KC" in g.hands[0] and "QS" in g.hands[0]
    secret = [e for e in g.events_since(0, 0)[0] if e.get("source") == "stock"][-1]
    public = [e for e in g.events_since(1, 0)[0] if e.get("source") == "stock"][-1]
    assert secret["cards"] == ["KC"] and "cards" not in public and public["count"] == 1


@pytest.mark.parametrize(
    "ops,rule",
    [
        ([Draw("discard", 0, 2), Draw("stock")], "take.lower-alone"),  # the lower card with another source
        ([Draw("stock"), Discard("9H", 0), Discard("TD", 1)], "take.one-card"),
        ([Draw("discard", 0), Draw("discard", 0)], "take.same-source"),
        ([Draw("stock", depth=2), Draw("discard", 1)], "take.two-cards"),
        ([Draw("discard", 0, 3)], "take.depth"),
        ([Draw("discard", 2), Draw("stock")], "take.no-such-pile"),
        ([Discard("9H", 0)], "putback.before-take"),
        ([Pass()], "decline.stock-not-empty"),  # Ambiguity 6
        ([Draw("discard", 0), Draw("discard", 1), Discard("9H", 0), Discard("TD", 0)], "putback.one-each-pile"),
        ([Draw("discard", 0), Draw("discard", 1), Discard("QH", 0)], "hand.missing-card"),
        ([Draw("discard", 0), Draw("stock"), Draw("stock")], "take.same-source"),
        ([Draw("discard", 0), Draw("discard", 1), Discard("9H", 0), Discard("TD", 1), Pass()], "play.after-end"),
    ],
)
def test_illegal_takes_and_put_backs_name_their_rule(ops, rule):
    g = rig(hands=[HAND, HAND])
    assert illegal(g, 0, ops) == rule
    assert g.hands[0] == HAND.split() and g.decision(0).phase == "take"  # rolled back whole


def test_no_stock_card_may_be_chosen_after_seeing_one():
    g = rig(hands=[HAND, HAND], stock=("AC", "KC"))
    g.apply(0, [Draw("discard", 0), Draw("stock")])  # KC is now seen
    assert illegal(g, 0, [Draw("stock")]) == "take.after-seeing"
    assert illegal(g, 0, [Pass()]) == "decline.after-take"


def test_two_cards_cannot_come_from_a_pile_of_one_or_a_stock_of_one():
    g = rig(hands=[HAND, HAND], piles=(("9S",), ("JS", "QS")), stock=("AC",))
    assert illegal(g, 0, [Draw("discard", 0, 2)]) == "take.pile-of-one"
    assert illegal(g, 0, [Draw("stock", depth=2)]) == "take.empty-stock"
    assert Draw("discard", 0, 2) not in g.decision(0).options and Draw("stock", depth=2) not in g.decision(0).options
    g.apply(0, [Draw("stock"), Draw("discard", 0)])  # Ambiguity 8: (c) remains with one stock card


def test_a_decline_needs_an_exhausted_stock_and_is_offered_then():
    g = rig(hands=[HAND, HAND], stock=())
    d = g.decision(0)
    assert Pass() in d.options and d.constraints["decline_allowed"]
    assert not any(o.source == "stock" for o in d.options if isinstance(o, Draw))
    g.apply(0, [Draw("discard", 0)])
    assert illegal(g, 0, [Pass()]) == "decline.after-naming"


# --- the end of a deal -------------------------------------------------------------------------------------------
def exchange(g, seat):
    """A real exchange: the top card of each pile, put back crosswise."""
    a, b = g.piles[0][-1], g.piles[1][-1]
    g.apply(seat, [Draw("discard", 0), Draw("discard", 1), Discard(a, 1), Discard(b, 0)])


def test_the_deal_ends_when_every_player_has_declined_in_a_row():
    g = rig(3, [HAND] * 3, stock=())
    g.apply(0, [Pass()])
    exchange(g, 1)  # an exchange starts the count again
    g.apply(2, [Pass()])
    g.apply(0, [Pass()])
    assert g.deal_no == 0 and g.to_act() == [1]
    g.apply(1, [Pass()])
    assert g.deal_no == 1 and g.deal_results[0]["scores"] == [hand_points(HAND.split())] * 3


def test_an_exchange_that_changes_nothing_counts_as_a_decline():  # Ambiguity 14
    g = rig(2, [HAND, HAND], stock=())
    g.apply(0, [Draw("discard", 0), Draw("discard", 1), Discard("TS", 0), Discard("QS", 1)])
    assert g.view(1)["declines"] == 1
    g.apply(1, [Pass()])
    assert g.deal_no == 1
    # while the stock lasts the same turn is an exchange like any other
    g = rig(2, [HAND, HAND])
    g.apply(0, [Draw("discard", 0), Draw("discard", 1), Discard("TS", 0), Discard("QS", 1)])
    assert g.view(1)["declines"] == 0


def test_three_more_exchanges_for_the_last_exchanger_with_the_option():
    g = rig(3, [HAND] * 3, stock=(), last_player_three_exchanges=True)
    exchange(g, 0)
    g.apply(1, [Pass()])
    g.apply(2, [Pass()])
    for _ in range(3):  # seat 0 alone, three times in a row
        assert g.to_act() == [0] and g.deal_no == 0
        exchange(g, 0)
    assert g.deal_no == 1


def test_the_last_exchanger_may_stop_before_his_three_exchanges():
    g = rig(3, [HAND] * 3, stock=(), last_player_three_exchanges=True)
    exchange(g, 0)
    g.apply(1, [Pass()])
    g.apply(2, [Pass()])
    exchange(g, 0)
    g.apply(0, [Pass()])
    assert g.deal_no == 1


def test_without_the_option_the_others_answer_the_last_exchanger():
    g = rig(3, [HAND] * 3, stock=())
    exchange(g, 0)
    g.apply(1, [Pass()])
    g.apply(2, [Pass()])
    exchange(g, 0)
    assert g.to_act() == [1] and g.deal_no == 0


def test_the_safeguards_end_a_deal():
    g = rig(2, [HAND, HAND], max_rounds=1)  # the stock lasts a full round: as if exhausted and all declined
    exchange(g, 0)
    exchange(g, 1)
    assert g.deal_no == 1
    g = rig(2, [HAND, HAND], stock=(), max_post_stock_turns=2)  # 2 x N turns after the stock is gone
    for seat in (0, 1, 0):
        exchange(g, seat)
    assert g.deal_no == 0
    exchange(g, 1)
    assert g.deal_no == 1


# --- the match ---------------------------------------------------------------------------------------------------
def hands_by_value(values):
    """A hand of each wanted value, found among seeded random hands of the 24-card double pack."""
    rng, cards, found = random.Random(7), deck(packs=2, size=24), {}
    while set(values) - set(found):
        hand = rng.sample(cards, 8)
        found.setdefault(hand_points(hand), " ".join(hand))
    return found


def play_deals(g, deals):
    """End one deal per row of hand values (one value per seat)."""
    by_value = hands_by_value({v for row in deals for v in row})
    for row in deals:
        g.hands = [by_value[v].split() for v in row]
        g.end_deal()


def test_one_deal_per_player_each_dealing_once_and_the_highest_total_wins():
    g = TwoCandles(3, {}, seed=4)
    dealers = [g.dealer]
    play_deals(g, [(30, 20, 25)])
    dealers.append(g.dealer)
    play_deals(g, [(30, 20, 25)])
    dealers.append(g.dealer)
    play_deals(g, [(20, 30, 25)])
    assert sorted(dealers) == [0, 1, 2] and g.is_over() and g.result()["ranks"] == [1, 3, 2]


def test_tied_deal_winners_all_win_the_deal():  # Ambiguity 10
    g = TwoCandles(3, {}, seed=4)
    play_deals(g, [(30, 30, 25)])
    assert g.deal_results[0]["winners"] == [0, 1] and g.deal_results[0]["winner"] is None
    assert g.view(0)["deals_won"] == [1, 1, 0]


def test_equal_totals_go_to_the_player_with_more_deals_won():  # End of the match, Ties 1
    g = TwoCandles(3, {}, seed=4)
    play_deals(g, [(30, 29, 15), (30, 29, 15), (20, 22, 15)])
    assert g.totals[0] == g.totals[1] and g.is_over() and g.result()["ranks"] == [1, 2, 3]


def test_then_to_the_lone_winner_of_the_last_deal_or_extra_deals():  # Ties 2 and 3
    g = TwoCandles(2, {}, seed=4)
    play_deals(g, [(30, 25), (25, 30)])
    assert g.is_over() and g.result()["ranks"] == [2, 1]
    g = TwoCandles(2, {"tiebreak": "extra_deals"}, seed=4)
    play_deals(g, [(30, 25), (25, 30)])
    assert not g.is_over()
    play_deals(g, [(30, 25)])
    assert g.is_over() and g.result()["ranks"] == [1, 2] and len(g.deal_results) == 3


def test_a_shared_last_deal_means_extra_deals_until_the_max_deals_cap():  # Ambiguities 10 and 13
    g = TwoCandles(2, {"max_deals": 3}, seed=4)
    play_deals(g, [(30, 30), (25, 25)])
    assert not g.is_over()
    play_deals(g, [(20, 20)])
    assert g.is_over() and g.result()["ranks"] == [1, 1]


# --- the sample bots -----------------------------------------------------------------------------------------------
def win_rate(n, matches=50):
    """How often greedy at seat 0 wins a seeded in-process match against random bots."""
    wins = 0
    for seed in range(matches):
        g = VARIANTS["two-candles"](n, {}, seed)
        bots = [Brain("two-candles", n, g.opts, greedy=s == 0, seed=seed * 10 + s) for s in range(n)]
        while not g.is_over():
            for seat in g.to_act():
                g.apply(seat, bots[seat].choose(g.decision(seat), g.view(seat)))
        wins += g.result()["ranks"][0] == 1
    return wins / matches


@pytest.mark.parametrize("n,least", [(2, 0.95), (4, 0.9)])
def test_greedy_beats_random(n, least):
    assert win_rate(n) >= least


def test_greedy_declines_only_when_no_take_improves_its_hand():
    g = rig(2, [EXAMPLES[0][0], HAND], stock=())  # eight kings: nothing improves on 43
    bot = Brain("two-candles", 2, g.opts, greedy=True)
    assert bot.choose(g.decision(0), g.view(0)) == [Pass()]
    g = rig(2, ["KS KS KH KH KD KD KC 9D", HAND], piles=(("9S", "KC"), ("JS", "QS")), stock=())
    ops = bot.choose(g.decision(0), g.view(0))
    g.apply(0, ops)
    assert hand_points(g.hands[0]) == 43


def test_a_forfeited_seat_declines_once_it_may_so_the_deal_can_end():
    g = rig(2, [HAND, HAND], stock=())
    assert g.fallback(0) == [Pass()]
    g = rig(2, [HAND, HAND])
    g.apply(0, g.fallback(0))
    assert g.decision(0).phase == "putback"
