"""Oklahoma Gin (rules/oklahoma-gin.md): the knock limit set by the starter, scoring without the knock bonus,
the three Hollywood columns of the worked example, and the end of the match when every column has closed."""

import pytest

from protocol.messages import Discard, Draw, Knock, Meld
from referee.rules.errors import IllegalAction
from referee.rules.melds import new_meld
from referee.rules.variants.oklahoma_gin import OklahomaGin

A, B = 0, 1


def new(**options):
    return OklahomaGin(2, options, seed=3)


def rig(g, knocker, starter, hand, other, table=()):
    """The current deal: `knocker` has drawn (its `hand`) and is to end its turn; the starter was `starter`;
    `table` holds melds the other seat made earlier."""
    g.starter_card = starter
    g.hands = [None, None]
    g.hands[knocker], g.hands[1 - knocker] = hand.split(), other.split()
    g.table = [new_meld(t.split(), g.meld_rules, owner=1 - knocker) for t in table]
    g.turn, g.phase, g.taken = knocker, "play", None
    return g


def knocks(g):
    return [o.discard for o in g.decision(g.turn).options if isinstance(o, Knock)]


MELDS = "AS 2S 3S 7C 8C 9C QS QH QD"  # the finisher's melds in every deal (4S, 6C, TC, QC would lay off)

# rules/oklahoma-gin.md, Worked examples: (finisher, starter, finisher's hand, other hand, other's table melds, ops)
DEALS = [
    (A, "6H", MELDS + " 4D KH", "5D 6D 7D 8D JS JC JH KC 8S 4H", (), [Knock("KH")]),  # I: 4 v 22
    (A, "8D", MELDS + " 2D KH", "5D 6D 7D 8D JS JC JH 4H 3C AH", (), [Knock("KH")]),  # II: 2 v 8
    (A, "JC", MELDS + " 8D KH", "3D 4D 5D 6D 7D JS JC JH KC 9H", (), [Knock("KH")]),  # III: 8 v 19
    (A, "4D", MELDS + " 2D KH", "4D 5D 6D JS JC JH KC KD KS AH", (), [Knock("KH")]),  # IV: 2 v 1
    (B, "7S", MELDS + " 7D KH", "3D 4D 5D 6D JS JC JH KC 5H TS", (), [Knock("KH")]),  # V: 7 v 25
    (
        B,
        "8H",
        MELDS + " 4S KH",
        "AH AC AD 2H 2C 3H 7S",
        ("5D 6D 7D",),  # VI: Oklahoma v 17
        [Meld(["AS", "2S", "3S", "4S"]), Meld(["7C", "8C", "9C"]), Meld(["QS", "QH", "QD"]), Discard("KH")],
    ),
    (A, "AC", MELDS + " 4S KH", "AH AC AD 2H 2C 2D 5H 5C 5D 9S", (), [Knock("KH")]),  # VII: Oklahoma v 33
    (A, "6D", MELDS + " 6D KH", "AD 2D 3D 4D 5D JS JC JH KC 7H", (), [Knock("KH")]),  # VIII: 6 v 17
]
POINTS = [(18, 0), (6, 0), (11, 0), (0, 26), (0, 18), (0, 42), (58, 0), (11, 0)]
SHEETS = [  # (column 1, column 2, column 3), each (A, B)
    ((18, 0), (0, 0), (0, 0)),
    ((24, 0), (6, 0), (0, 0)),
    ((35, 0), (17, 0), (11, 0)),
    ((35, 26), (17, 0), (11, 0)),
    ((35, 44), (17, 18), (11, 0)),
    ((35, 86), (17, 60), (11, 42)),
    ((93, 86), (75, 60), (69, 42)),
    ((104, 86), (86, 60), (80, 42)),
]


def play_example():
    g = new(ace_starter_requires_all=True)  # deal VII plays with the option on; the other deals are unaffected
    for finisher, starter, hand, other, table, ops in DEALS:
        rig(g, finisher, starter, hand, other, table)
        g.apply(finisher, ops)
    return g


def test_worked_example_each_deal_scores_and_fills_the_columns():
    g = play_example()
    kinds = [d["finish"]["kind"] for d in g.deal_results]
    assert kinds == ["knock"] * 5 + ["gin"] * 2 + ["knock"]
    assert [tuple(d["finish"]["points"]) for d in g.deal_results] == POINTS
    assert [tuple(tuple(c) for c in d["finish"]["columns"]) for d in g.deal_results] == SHEETS


def test_worked_example_knock_limits():
    limits = []
    g = new(ace_starter_requires_all=True)
    for finisher, starter, hand, other, table, ops in DEALS:
        rig(g, finisher, starter, hand, other, table)
        limits.append(g.decision(finisher).constraints["knock_limit"])
        g.apply(finisher, ops)
    assert limits == [6, 8, 10, 4, 7, 8, 0, 6]


def test_worked_example_column_one_closes_and_the_totals_compare_270_to_188():
    g = play_example()
    assert g.closed == (True, False, False) and not g.is_over()
    assert g.totals == [270, 188]  # 104 + 86 + 80 against 86 + 60 + 42 (Ambiguity 6)
    assert g.view(A)["columns"] == [[104, 86], [86, 60], [80, 42]] and g.view(B)["closed_columns"] == [
        True,
        False,
        False,
    ]


def test_worked_example_the_books_618_276_is_the_sum_of_every_running_total_written():
    g = play_example()
    written = [0, 0]
    before = ((0, 0),) * 3
    for d in g.deal_results:
        after = d["finish"]["columns"]
        for c in range(3):
            for s in (A, B):
                if after[c][s] != before[c][s]:
                    written[s] += after[c][s]
        before = after
    assert written == [618, 276]


def test_after_column_one_closes_entries_go_to_the_open_columns_only():
    g = play_example()  # A has won 5 deals, B 3
    rig(g, B, "9C", MELDS + " 2D KH", "5D 6D 7D 8D JS JC JH 4H 3C AH")  # B: 2 v 8, his 4th win
    g.apply(B, [Knock("KH")])
    assert g.deal_results[-1]["finish"]["columns"] == [[104, 86], [86, 66], [80, 48]]
    assert g.deal_results[-1]["scores"] == [0, 12]


def test_a_first_win_after_column_one_closed_goes_to_the_lowest_open_column():
    g = new()
    g.sheet, g.closed, g.wins, g.totals = ((100, 0), (30, 0), (0, 0)), (True, False, False), (3, 0), [130, 0]
    rig(g, B, "9C", MELDS + " 2D KH", "5D 6D 7D 8D JS JC JH 4H 3C AH")
    g.apply(B, [Knock("KH")])
    assert g.sheet == ((100, 0), (30, 6), (0, 0)) and g.totals == [130, 6]


def test_the_match_ends_when_every_column_has_closed_and_the_column_totals_decide():
    g = play_example()
    rig(g, A, "KC", MELDS + " 5D KH", "AD 2D 3D 4D JS JC JH KC 7H 8S")  # 5 v 25: A +20
    g.apply(A, [Knock("KH")])
    assert g.sheet == ((104, 86), (106, 60), (100, 42)) and g.closed == (True, True, True)
    assert g.is_over() and g.totals == [310, 188] and g.result()["ranks"] == [1, 2]


def test_equal_column_sums_are_a_drawn_match():
    g = new()
    g.sheet, g.closed, g.wins, g.totals = ((150, 0), (50, 100), (0, 90)), (True, True, False), (5, 5), [200, 190]
    rig(g, B, "9C", MELDS + " 5S KH", "AD 2D 3D 4D JS JC JH 8H 7H")  # 5 v 15: B +10 closes column 3
    g.apply(B, [Knock("KH")])
    assert g.sheet == ((150, 0), (50, 100), (0, 100))
    assert g.is_over() and g.totals == [200, 200] and g.result()["ranks"] == [1, 1]


def test_column_bonus_goes_to_the_player_who_closes_a_column():
    g = new(column_bonus=100)
    g.sheet, g.wins, g.totals = ((93, 0), (75, 0), (69, 0)), (4, 0), [237, 0]
    rig(g, A, "6D", MELDS + " 6D KH", "AD 2D 3D 4D 5D JS JC JH KC 7H")  # deal VIII: +11
    g.apply(A, [Knock("KH")])
    assert g.sheet == ((204, 0), (86, 0), (80, 0)) and g.deal_results[-1]["scores"] == [133, 0]


@pytest.mark.parametrize(
    "starter,limit", [("6H", 6), ("2C", 2), ("TD", 10), ("JC", 10), ("QS", 10), ("KD", 10), ("AS", 1)]
)
def test_the_starter_sets_the_knock_limit(starter, limit):
    g = new()
    g.starter_card = starter
    assert g.limit() == limit and g.view(0)["knock_limit"] == limit


def test_the_starter_card_of_a_fresh_deal_sets_the_limit_even_after_it_is_taken():
    g = new()
    starter, first = g.piles[0][-1], (g.dealer + 1) % 2
    assert g.starter_card == starter and g.view(first)["starter"] == starter
    limit = g.limit()
    g.apply(first, [Draw("discard")])
    assert g.decision(first).constraints["knock_limit"] == limit


def test_the_limit_is_inclusive_and_one_more_point_is_refused():
    g = rig(new(), A, "6H", MELDS + " 6D KH", "AD 2D 3D 4D 5D JS JC JH KC 7H")
    assert knocks(g) == ["KH"]
    g = rig(new(), A, "6H", MELDS + " 7D KH", "AD 2D 3D 4D 5D JS JC JH KC 7H")
    assert knocks(g) == []
    with pytest.raises(IllegalAction) as e:
        g.apply(A, [Knock("KH")])
    assert e.value.rule == "knock.deadwood"


def test_an_ace_starter_allows_a_single_free_ace():
    g = rig(new(), A, "AC", MELDS + " AH KH", "5D 6D 7D 8D JS JC JH KC 8S 4H")
    assert knocks(g) == ["KH"]
    g.apply(A, [Knock("KH")])
    assert g.deal_results[-1]["finish"]["deadwood"] == [1, 22]
    g = rig(new(), A, "AC", MELDS + " 2H KH", "5D 6D 7D 8D JS JC JH KC 8S 4H")
    assert knocks(g) == []


def test_ace_starter_requires_all_forbids_even_a_free_ace_but_not_oklahoma():
    g = rig(new(ace_starter_requires_all=True), A, "AC", MELDS + " AH KH", "5D 6D 7D 8D JS JC JH KC 8S 4H")
    assert knocks(g) == []
    with pytest.raises(IllegalAction):
        g.apply(A, [Knock("KH")])
    g = rig(new(ace_starter_requires_all=True), A, "AC", MELDS + " 4S KH", "5D 6D 7D 8D JS JC JH KC 8S 4H")
    assert knocks(g) == ["KH"]


def test_a_plain_knock_win_has_no_bonus_and_the_loser_scores_nothing():
    g = rig(new(), A, "6H", MELDS + " 4D KH", "5D 6D 7D 8D JS JC JH KC 8S 4H")  # deal I
    g.apply(A, [Knock("KH")])
    assert g.deal_results[-1]["scores"] == [18, 0] and g.totals == [18, 0]


def test_an_equal_count_is_an_undercut_worth_25():
    g = rig(new(), A, "6H", MELDS + " 4D KH", "5D 6D 7D JS JC JH KC KD KS 4H")
    g.apply(A, [Knock("KH")])
    assert g.deal_results[-1]["finish"]["deadwood"] == [4, 4]
    assert g.deal_results[-1]["scores"] == [0, 25] and g.dealer == B


def test_oklahoma_counts_the_whole_hand_plus_25():
    g = rig(new(), A, "6H", MELDS + " 4S KH", "5D 6D 7D 8D JS JC JH KC 8S 4H")
    g.apply(A, [Knock("KH")])
    assert g.deal_results[-1]["finish"]["kind"] == "gin"
    assert g.deal_results[-1]["scores"] == [26 + 30 + 22 + 25, 0]


def test_max_deals_ends_the_match_on_the_column_sums():
    g = OklahomaGin(2, {"max_deals": 1}, seed=3)
    rig(g, A, "8D", MELDS + " 2D KH", "5D 6D 7D 8D JS JC JH 4H 3C AH")
    g.apply(A, [Knock("KH")])
    assert g.is_over() and g.totals == [6, 0] and g.result()["ranks"] == [1, 2]
