"""Hungarian Rummy (rules/hungarian.md): every worked example, the deal and Pirmasis's opening, the ten-card
declaration and its four-suit condition, the scoring, elimination at 101, stalemates, `romis eval`, and greedy
against random."""

import json

import pytest
from rigging import illegal

from protocol.messages import Discard, Draw, Meld
from referee.cli import run
from referee.rules.errors import ConfigError
from referee.rules.melds import is_valid
from referee.rules.variants.hungarian import HUNGARIAN_MELDS, Hungarian, arrange, card_value
from sample_bots.brain import Brain

LONE = "2C 5D 9S QH KD 7S 3H 4S 8D TC"  # ten cards without a combination
SIX_KINGS = "KS KH KD KC KS KH"


def H(text: str) -> list[str]:
    return text.split()


def rig(hands, stock=("8C",) * 30, discard=("9D",), turn=0, turns=None, **options):
    """A game at the start of seat `turn`'s turn, after the opening; stock and pile are drawn from their ends."""
    g = Hungarian(len(hands), options, seed=1)
    g.hands = [H(h) for h in hands]
    g.stock, g.piles = list(stock), [list(discard)]
    g.turn, g.phase, g.turns = turn, "draw", len(hands) if turns is None else turns
    return g


def last(g):
    return g.deal_results[-1]


def snapshot(g):
    return json.dumps([g.view(s) for s in range(g.n)]), len(g.log)


# --- worked examples --------------------------------------------------------------------------------------------
def test_worked_example_1_six_kings_as_two_tercijas_need_all_four_suits():
    ok = rig([SIX_KINGS + " 4H 5H 6H 7H", LONE], stock=["TD"])
    ok.apply(0, [Draw("stock"), Meld(H("KS KH KD")), Meld(H("KC KS KH")), Meld(H("4H 5H 6H 7H")), Discard("TD")])
    assert last(ok)["winner"] == 0 and last(ok)["scores"][0] == -10
    bad = rig(["KS KH KD KS KH KD 4H 5H 6H 7H", LONE], stock=["TD"])
    before = snapshot(bad)
    ops = [Draw("stock"), Meld(H("KS KH KD")), Meld(H("KS KH KD")), Meld(H("4H 5H 6H 7H")), Discard("TD")]
    assert illegal(bad, 0, ops) == "set.four-suits"
    assert snapshot(bad) == before  # a rejected play changes nothing


def test_worked_example_2_the_kvartetas():
    assert is_valid(H("QS QH QD QC"), "set", HUNGARIAN_MELDS)
    assert not is_valid(H("QS QS QH QD"), "set", HUNGARIAN_MELDS)
    g = rig(["QS QS QH QD 4H 5H 6H 7C 8C 9C", LONE], stock=["KD"])
    assert illegal(g, 0, [Draw("stock"), Meld(H("QS QS QH QD")), Meld(H("4H 5H 6H 7C 8C 9C")), Discard("KD")]) in (
        "set.distinct-suits",
        "meld.invalid",
    )


def test_worked_example_3_the_ace_is_low_or_high_but_never_connects_king_and_two():
    assert is_valid(H("AD 2D 3D"), "run", HUNGARIAN_MELDS)
    assert is_valid(H("QD KD AD"), "run", HUNGARIAN_MELDS)
    assert not is_valid(H("KD AD 2D"), "run", HUNGARIAN_MELDS)


def test_worked_example_4_the_winner_writes_minus_ten_and_a_loser_his_whole_hand():
    loser = "JK AS KH 9C 9D 5S 4H 3C 2D 2H"
    assert sum(map(card_value, H(loser))) == 70
    g = rig(["AH 2H 3H 4H 5H 6H 7H 8H 9H TH", loser], stock=["QS"])
    g.apply(0, [Draw("stock"), Meld(H("AH 2H 3H 4H 5H 6H 7H 8H 9H TH")), Discard("QS")])  # one 10-card sequence
    assert last(g)["scores"] == [-10, 70] and last(g)["finish"] == {"kind": "rummy"}
    assert g.totals == [-10, 70]  # a total may go below zero


# --- combinations ------------------------------------------------------------------------------------------------
def test_a_jokers_stated_suit_decides_the_four_suit_condition():  # Ambiguity 4
    hand = "KS KH JK KS KH KD 4H 5H 6H 7H"
    g = rig([hand, LONE], stock=["TD"])
    g.apply(0, [Draw("stock"), Meld(H("KS KH JK"), ["KC"]), Meld(H("KS KH KD")), Meld(H("4H 5H 6H 7H")), Discard("TD")])
    assert last(g)["winner"] == 0
    g = rig([hand, LONE], stock=["TD"])
    ops = [Draw("stock"), Meld(H("KS KH JK"), ["KD"]), Meld(H("KS KH KD")), Meld(H("4H 5H 6H 7H")), Discard("TD")]
    assert illegal(g, 0, ops) == "set.four-suits"


def test_a_kvartetas_with_tercijas_of_its_rank_is_allowed():  # Ambiguity 11: the group shows all four suits
    g = rig(["7S 7H 7D 7C 7S 7H 7D 2C 3C 4C", LONE], stock=["KH"])
    g.apply(0, [Draw("stock"), Meld(H("7S 7H 7D 7C")), Meld(H("7S 7H 7D")), Meld(H("2C 3C 4C")), Discard("KH")])
    assert last(g)["winner"] == 0
    g = rig(["7S 7H 7D 7C 7S 7H 7D 7C JK JK", LONE], stock=["KH"])
    ops = [Meld(H("7S 7H 7D 7C")), Meld(H("7S 7H JK"), ["7C"]), Meld(H("7D 7C JK"), ["7S"]), Discard("KH")]
    g.apply(0, [Draw("stock"), *ops])
    assert last(g)["winner"] == 0


@pytest.mark.parametrize(
    "meld,rule",
    [
        ("9S 9H 9D 9C 9S", "set.max-size"),  # no sets of five
        ("KD AD 2D", "run.invalid"),
    ],
)
def test_combinations_the_rules_forbid_are_rejected(meld, rule):
    rest = {"9S 9H 9D 9C 9S": "2H 3H 4H 5H 6H", "KD AD 2D": "2H 3H 4H 5H 6H 7H 8H"}[meld]
    g = rig([f"{meld} {rest}", LONE], stock=["QC"])
    assert illegal(g, 0, [Draw("stock"), Meld(H(meld)), Meld(H(rest)), Discard("QC")]) == rule


def test_the_solver_finds_a_declaration_only_with_the_jokers_suits_that_meet_the_condition():
    split = arrange(H("KS KH JK KS KH KD 4H 5H 6H 9C"), HUNGARIAN_MELDS, card_value)
    assert split.deadwood == ["9C"]
    kings = sorted(s for m in split.melds if m.kind == "set" for s in (x[1] for x in m.ids))
    assert set(kings) == set("SHDC")
    split = arrange(H("KS KH KD KS KH KD 4H 5H 6H 9C"), HUNGARIAN_MELDS, card_value)
    assert len(split.deadwood) >= 3  # only one of the two same-suited tercijas can stand


# --- the deal and the turn -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 4, 6])
def test_the_deal_gives_pirmasis_eleven_and_he_opens_by_discarding(players):
    g = Hungarian(players, {}, seed=4)
    first = (g.dealer + 1) % players
    assert len(g.cards_in_play()) == 106 and g.cards_in_play().count("JK") == 2
    assert [len(h) for h in g.hands] == [11 if s == first else 10 for s in range(players)]
    assert g.piles == [[]] and len(g.stock) == 106 - 10 * players - 1
    assert g.to_act() == [first] and g.decision(first).phase == "play"
    assert illegal(g, first, [Draw("stock")]) == "draw.first-opens"
    card = g.hands[first][0]
    g.apply(first, [Discard(card)])
    assert g.piles == [[card]] and g.to_act() == [(first + 1) % players] and g.decision(g.turn).phase == "draw"


def test_the_deal_is_dealt_two_cards_at_a_time():
    g = Hungarian(3, {}, seed=7)
    cards = g.deal_cards()
    first = (g.dealer + 1) % 3
    assert g.hands[first][:2] == [cards[-1], cards[-2]] and g.hands[(first + 1) % 3][:2] == [cards[-3], cards[-4]]


def test_pirmasis_may_declare_on_his_opening_turn():  # Ambiguity 9
    g = rig(["AH 2H 3H 4H 5H 6H 7H 8H 9H TH QS", LONE], discard=(), turns=0)
    g.phase = "play"
    g.apply(0, [Meld(H("AH 2H 3H 4H 5H 6H 7H 8H 9H TH")), Discard("QS")])
    assert last(g)["winner"] == 0


@pytest.mark.parametrize(
    "ops,rule",
    [
        ([Meld(H("4H 5H 6H"))], "rummy.draw-first"),  # no declaration before the draw (Ambiguity 5)
        ([Draw("stock"), Meld(H("4H 5H 6H")), Discard("KC")], "rummy.whole-hand"),  # no partial melds (Ambiguity 1)
        ([Draw("stock"), Meld(H("4H 5H 6H 7H")), Meld(H("9S 9D 9C")), Meld(H("2S 3S 4S KC"))], "run.invalid"),
        (
            [Draw("discard"), Meld(H("4H 5H 6H 7H")), Meld(H("9S 9D 9C")), Meld(H("2S 3S 4S")), Discard("8H")],
            "discard.rediscard",
        ),
        ([Draw("stock"), Draw("stock")], "draw.once"),
    ],
)
def test_illegal_plays_name_their_rule_and_change_nothing(ops, rule):
    g = rig(["4H 5H 6H 7H 9S 9D 9C 2S 3S 4S", LONE], stock=["KC"], discard=["3D", "8H"])
    before = snapshot(g)
    assert illegal(g, 0, ops) == rule
    assert snapshot(g) == before


def test_all_eleven_cards_may_not_be_declared():  # Ambiguity 2: ten are shown, one discarded
    g = rig(["4H 5H 6H 7H 9S 9D 9C 2S 3S 4S", LONE], stock=["8H"])
    assert illegal(g, 0, [Draw("stock"), Meld(H("4H 5H 6H 7H 8H")), Meld(H("9S 9D 9C")), Meld(H("2S 3S 4S"))]) == (
        "rummy.discard"
    )


def test_a_declaration_with_the_taken_discard():
    g = rig(["4H 5H 6H 7H 9S 9D 2S 3S 4S KC", LONE], discard=["3D", "9C"])
    g.apply(0, [Draw("discard"), Meld(H("4H 5H 6H 7H")), Meld(H("9S 9D 9C")), Meld(H("2S 3S 4S")), Discard("KC")])
    assert last(g)["winner"] == 0 and last(g)["scores"] == [-10, sum(map(card_value, H(LONE)))]


# --- the stock, the end of a deal and the match ------------------------------------------------------------------
def test_the_stock_is_turned_over_and_a_deal_that_cannot_go_on_scores_every_hand():
    g = rig([LONE, LONE.replace("2C", "6C")], stock=["KC"], discard=["AS", "AD", "3S"])
    g.apply(0, [Draw("stock"), Discard("KC")])  # the pile below its top card becomes the stock, earliest on top
    assert g.stock == ["3S", "AD", "AS"] and g.piles == [["KC"]] and g.turn == 1
    g = rig([LONE, LONE.replace("2C", "6C")], stock=["KC"], discard=["AS", "AD"], max_stock_rebuilds=0)
    g.apply(0, [Draw("stock"), Discard("KC")])
    hand_value = sum(map(card_value, H(LONE)))
    assert last(g)["winner"] is None and last(g)["scores"] == [hand_value, hand_value + 4]


def test_the_turn_cap_ends_the_deal_as_a_stalemate():  # Ambiguity 10
    g = rig([LONE, LONE], max_turns_per_deal=5, turns=4)
    g.apply(0, [Draw("stock"), Discard("8C")])
    assert last(g)["winner"] is None and last(g)["finish"] == {"kind": "stalemate"}


def win_deal(g, seat):
    """`seat` declares a 10-card sequence after his draw; the others hold LONE (68 points)."""
    g.hands = [H(LONE) if s in g.seats_in() else [] for s in range(g.n)]
    g.hands[seat] = H("AH 2H 3H 4H 5H 6H 7H 8H 9H TH")
    g.stock, g.piles, g.turn, g.phase, g.turns = ["QS"] * 10, [["9D"]], seat, "draw", g.n
    g.apply(seat, [Draw("stock"), Meld(H("AH 2H 3H 4H 5H 6H 7H 8H 9H TH")), Discard("QS")])


def test_a_player_reaching_101_is_eliminated_and_the_last_one_left_wins():  # End of the match, Ambiguity 7
    g = Hungarian(3, {}, seed=2)
    g.totals = [0, 32, 33]
    win_deal(g, 0)  # seat 1: 32 + 68 = 100 stays in, seat 2: 101 goes out
    assert g.totals == [-10, 100, 101] and last(g)["eliminated"] == [2] and not g.is_over()
    assert g.hands[2] == [] and len(g.hands[g.next_seat(g.dealer)]) == 11 and g.dealer != 2
    win_deal(g, 0)
    assert g.is_over() and g.result()["ranks"] == [1, 2, 3]


def test_when_everyone_left_reaches_101_together_the_lowest_wins_and_equal_totals_share():
    g2 = Hungarian(3, {}, seed=2)
    g2.totals = [200, 33, 33]
    g2.out_deal = [0, None, None]
    g2.hands = [[], H(LONE), H(LONE)]
    g2.stock, g2.piles, g2.turn, g2.phase, g2.turns = ["KC"], [["AS"]], 1, "draw", 5
    g2.opts = {**g2.opts, "max_stock_rebuilds": 0}
    g2.apply(1, [Draw("stock"), Discard("KC")])  # a stalemate: both pay 68 and reach 101
    assert g2.is_over() and g2.result()["ranks"] == [3, 1, 1]


# --- options, eval and the bots --------------------------------------------------------------------------------
def test_a_bad_option_value_is_one_clear_config_error():
    with pytest.raises(ConfigError, match="max_stock_rebuilds"):
        Hungarian(2, {"max_stock_rebuilds": "many"}, seed=0)
    with pytest.raises(ConfigError, match="hungarian needs 2 to 6"):
        Hungarian(7, {}, seed=0)


def test_eval_says_whether_ten_cards_declare_and_what_a_hand_pays(capsys, tmp_path):
    assert run(["eval", "hungarian", "--hand", "KS KH JK KS KH KD 4H 5H 6H 7H"]) == 0
    out = capsys.readouterr().out
    assert "laying down: declares: scores -10" in out
    hands = tmp_path / "hands.txt"
    hands.write_text("KS KH KD KS KH KD 4H 5H 6H 7H\nJK AS KH 9C 9D 5S 4H 3C 2D 2H\n")
    assert run(["eval", "hungarian", "--hands-file", str(hands)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["declares"], r["points"]) for r in rows] == [(False, 82), (False, 70)]


@pytest.mark.parametrize("players", [2, 6])
def test_greedy_beats_random(players):
    wins, n = 0, 12
    for seed in range(n):
        g = Hungarian(players, {}, seed)
        bots = [Brain("hungarian", players, {}, greedy=s == seed % players, seed=seed * 10 + s) for s in range(players)]
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
        wins += g.result()["ranks"][seed % players] == 1
    assert wins / n >= 0.7
