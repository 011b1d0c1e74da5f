"""Victoria (rules/victoria.md): the deck by player count, every worked example (the patterns through `romis eval`,
the bank's quarters, a buy-down), the declaration after the discard and its illegal forms, the other players'
deadwood, annulled deals, the stock turn-over, options, greedy against random, and `romis play` end to end."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rigging import illegal

from protocol.messages import Bid, Discard, Draw, Knock, Meld, Pass
from referee.cli import run
from referee.rules.errors import ConfigError
from referee.rules.variants.victoria import Victoria, packs_for
from sample_bots.brain import Brain

ROOT = Path(__file__).resolve().parent.parent
RIVER9 = "2H 3H 4H 5H 6H 7H 8H 9H TH KC"  # a 9-card run and a king: JH from the stock makes a River


def deal(g: Victoria, hands, stock=("5C",) * 30, discard=("9D",), turn=0) -> Victoria:
    """Give the current deal of `g` these hands, stock (drawn from its end) and pile, at `turn`'s draw."""
    g.hands = [h.split() for h in hands]
    g.stock, g.piles = list(stock), [list(discard)]
    g.turn, g.phase, g.turns = turn, "draw", 0
    return g


def game(hands, stock=("5C",) * 30, discard=("9D",), turn=0, **options) -> Victoria:
    return deal(Victoria(len(hands), options, seed=1), hands, stock, discard, turn)


def snapshot(g: Victoria):
    return ([list(h) for h in g.hands], list(g.stock), [list(p) for p in g.piles], g.ledger, g.points, len(g.log))


# --- players, deck and deal ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("n", "cards", "jokers"), [(2, 106, 2), (8, 106, 2), (9, 159, 3), (12, 159, 3), (16, 212, 4)])
def test_the_deck_grows_with_the_table(n, cards, jokers):
    g = Victoria(n, {}, 3)
    assert packs_for(n) == jokers
    deck = g.make_deck()
    assert (len(deck), deck.count("JK")) == (cards, jokers)
    assert all(len(h) == 10 for h in g.hands) and len(g.piles[0]) == 1  # ten each and the starter
    assert len(g.stock) == cards - 10 * n - 1
    assert g.main_bank == 4 * n  # everyone paid the stake


# --- worked examples 1-8: the patterns, through romis eval ----------------------------------------------------
EXAMPLES = [  # rules/victoria.md, Worked examples: hand -> (pattern, name, penalty, bonus), None: cannot declare
    ("2H 3H 4H 5H 6H 7H 8H 9H TH JH", (7, "River", 0, 100)),
    ("KS KS KH KH KD KD KC KC JK JK", (7, "River", 0, 100)),
    ("3S 4S 5S 6S 7S 8S 9S TS JS KD", (6, "Victoria", 0, 50)),
    ("AC 2C 3C 4C 5C 6C 7C 8C 2D 3H", (5, "Grand", 0, 25)),
    ("AC 2C 3C 4C 5C 6C 7C 9D TD JD", (4, "Minus", 0, 10)),
    ("KH KH KD KD KS KC 4C 5C 6C QD", (3, "Zero", 0, 0)),
    ("KS KH KD 5C 6C 7C 9H TH JH QS", (2, "", 10, 0)),
    ("KS KH KD 5C 6C 7C 8C 9C AH 4D", (1, "", 5, 0)),
    ("KS KH KD 5C 6C 7C 8C 9C AH 5D", None),
]


def test_eval_of_a_file_of_the_worked_examples(capsys, tmp_path):
    hands = tmp_path / "hands.txt"
    hands.write_text("\n".join(h for h, _ in EXAMPLES) + "\n")
    assert run(["eval", "victoria", "--hands-file", str(hands)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == len(EXAMPLES)
    for row, (_, want) in zip(rows, EXAMPLES):
        if want is None:
            assert not row["declares"] and row["pattern"] is None
        else:
            assert row["declares"] and (row["pattern"], row["name"], row["penalty"], row["bonus"]) == want


def test_eval_of_one_hand_names_the_pattern(capsys):
    assert run(["eval", "victoria", "--hand", "3S 4S 5S 6S 7S 8S 9S TS JS KD"]) == 0
    assert "pattern 6 Victoria, penalty 0, bonus 50" in capsys.readouterr().out
    assert run(["eval", "victoria", "--hand", "KS 2H 5D 7C 9C JH QS 3D 4S 8H"]) == 0
    assert "no rummy pattern: deadwood 68" in capsys.readouterr().out


# --- the declaration ----------------------------------------------------------------------------------------
def test_a_declaration_follows_the_discard_and_settles_the_deal():
    g = game([RIVER9, "KS 2D 5D 7C 9C JD QS 3D 4S 8D"], stock=["JH"])
    g.apply(0, [Draw("stock")])
    assert Knock("KC") in (g.decision(0).options or [])  # the options list the legal declarations
    g.apply(0, [Knock("KC")])
    d = g.deal_results[-1]
    assert d["winner"] == 0 and d["finish"]["pattern"] == 7 and d["finish"]["name"] == "River"
    # the declarer: 0 penalty, 100 bonus; the other: his least deadwood; the declarer takes ceil(8/4) = 2
    assert d["penalties"] == [0, 68] and d["change"] == [-100, 68] and d["penalty_totals"] == [-100, 68]
    assert d["moved"]["quarter"] == [2, 0] and g.main_bank == 6
    knock = next(e.data for e in g.log if e.data.get("type") == "knock")
    assert knock["hand"] == sorted(["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH"])


def test_the_other_players_deadwood_is_minimised_with_jokers_wild():
    g = game([RIVER9, "JK 7S 8S KD KH 2C 3C 4C AD AH"], stock=["JH"])
    g.apply(0, [Draw("stock"), Knock("KC")])
    # the joker makes KD KH JK (7S 8S AD AH left: 17), not 7S 8S JK (KD KH AD AH left: 22)
    assert g.deal_results[-1]["penalties"][1] == 17


def test_example_9_the_declarers_take_a_quarter_of_the_bank():
    g = game([RIVER9, "KS 2D 5D 7C 9C JD QS 3D 4S 8D"], stock=["JH"], stake=50)
    assert g.main_bank == 100
    g.apply(0, [Draw("stock"), Knock("KC")])
    assert g.main_bank == 75 and g.ledger.chips == (-25, -50)
    deal(g, ["KS 2D 5D 7C 9C JD QS 3D 4S 8D", RIVER9], stock=["JH"], turn=1)
    g.apply(1, [Draw("stock"), Knock("KC")])
    assert g.main_bank == 56 and g.ledger.chips == (-25, -31)


def test_example_10_buying_down_with_two_players():
    g = game(["2S 3S 4S 5S 6S 7D 7H 7C 7S KD", "KH KH KD KD KS KC 4C 5C 6C 9S"], stock=["QD"], turn=1)
    g.points = (80, 60)
    g.apply(1, [Draw("stock"), Knock("9S")])  # pattern 3, Zero: seat 1 stays at 60; seat 0 scores KD: 90
    assert g.deal_results == [] and g.to_act() == [0]
    d = g.decision(0)
    assert (d.kind, d.phase, d.constraints) == ("buydown", "between-deals", {"price": 3, "total": 60})
    g.apply(0, [Bid("buydown")])
    assert g.points == (60, 60) and g.deal_results[-1]["penalty_totals"] == [60, 60]
    assert g.deal_results[-1]["moved"]["buydown"] == [-3, 0]  # half of the 6 left


# --- illegal plays, each with its own rule, leaving the state as it was --------------------------------------
def test_illegal_declarations_are_rejected_and_change_nothing():
    g = game(["KS 2D 5D 7C 9C JD QS 3D 4S 8D", RIVER9], stock=["QC"])
    before = snapshot(g)
    assert illegal(g, 0, [Knock("KS")]) == "rummy.draw-first"  # before the draw
    assert illegal(g, 0, [Meld(["2D", "3D", "4S"])]) == "rummy.knock"  # nothing is melded
    assert illegal(g, 0, [Draw("stock"), Knock("KS")]) == "rummy.pattern"  # no pattern in the other 10
    assert illegal(g, 0, [Draw("stock"), Knock()]) == "rummy.discard"
    assert snapshot(g) == before


def test_the_card_just_taken_from_the_pile_may_not_be_discarded_with_a_declaration():
    g = game(["2H 3H 4H 5H 6H 7H 8H 9H TH JH", "KS 2D 5D 7C 9C JD QS 3D 4S 8D"], discard=["9D"])
    before = snapshot(g)
    assert illegal(g, 0, [Draw("discard"), Knock("9D")]) == "discard.rediscard"
    assert snapshot(g) == before
    g.apply(0, [Draw("discard")])
    assert Knock("9D") not in (g.decision(0).options or []) and Knock("2H") in (g.decision(0).options or [])


def test_a_bad_answer_between_deals_is_rejected():
    g = game(["2S 3S 4S 5S 6S 7D 7H 7C 7S KD", "KH KH KD KD KS KC 4C 5C 6C 9S"], stock=["QD"], turn=1)
    g.points = (80, 60)
    g.apply(1, [Draw("stock"), Knock("9S")])
    before = (g.points, g.ledger, len(g.log))
    assert illegal(g, 0, [Bid("reenter")]) == "buydown.answer"
    assert (g.points, g.ledger, len(g.log)) == before
    g.apply(0, [Pass()])
    assert g.points == (90, 60)


# --- end of a deal without a declarer ----------------------------------------------------------------------
def test_the_turn_cap_annuls_the_deal_and_the_next_dealer_deals():
    g = game(["KS 2D 5D 7C 9C JD QS 3D 4S 8D", "KH 2C 5H 7S 9H JC QD 3C 4H 8C"], max_turns_per_deal=2)
    dealer, chips = g.dealer, g.ledger
    g.apply(0, [Draw("stock"), Discard("KS")])
    g.apply(1, [Draw("stock"), Discard("KH")])
    d = g.deal_results[-1]
    assert d["annulled"] and d["winner"] is None and "penalties" not in d
    assert d["moved"] == {"stake": [-4, -4]}  # only the stakes paid before the first deal
    assert g.ledger == chips and g.points == (0, 0) and g.dealer == (dealer + 1) % 2


def test_the_stock_is_turned_over_at_the_end_of_the_turn_that_emptied_it():
    g = game(["KS 2D 5D 7C 9C JD QS 3D 4S 8D", "KH 2C 5H 7S 9H JC QD 3C 4H 8C"], stock=["6C"], discard=["AS", "2S"])
    g.apply(0, [Draw("stock"), Discard("KS")])
    assert g.piles[0] == ["KS"] and g.stock == ["2S", "AS"]  # face down, no shuffle: the earliest on top
    assert any(e.data.get("type") == "rebuild" for e in g.log)


def test_a_bad_option_value_is_one_clear_config_error():
    with pytest.raises(ConfigError, match="option stake: 'many' is not a whole number"):
        Victoria(2, {"stake": "many"}, 0)
    with pytest.raises(ConfigError, match="option games: 0 must be at least 1"):
        Victoria(2, {"games": "0"}, 0)
    with pytest.raises(ConfigError, match="victoria needs 2 to 16 players"):
        Victoria(17, {}, 0)


# --- the bots --------------------------------------------------------------------------------------------------
def play_out(n: int, seed: int, greedy_seat: int, **options) -> dict:
    g = Victoria(n, options, seed)
    bots = [Brain("victoria", n, options, greedy=s == greedy_seat, seed=seed * 100 + s) for s in range(n)]
    while not g.is_over():
        for s in g.to_act():
            g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
        assert g.ledger.total() == 0
    return g.result()


def test_greedy_beats_random_by_net_chips():
    wins, n = 0, 12
    for seed in range(n):
        result = play_out(2, seed, seed % 2)
        wins += result["totals"][seed % 2] > result["totals"][1 - seed % 2]
    assert wins / n >= 0.75


def test_options_by_agreement_play_whole_matches():
    result = play_out(4, 1, 0, games=2, letarg_side_bank=True, reentry_by_average=True, joker_penalty=15)
    assert sum(d.get("game_winner") is not None for d in result["deals"]) == 2
    assert result["bank"] == 0 or len(result["deals"]) == 200


# --- romis play end to end --------------------------------------------------------------------------------------
def romis(*args):
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


@pytest.mark.e2e
def test_romis_play_at_16_seats_prints_the_bank_and_chips_and_replays(tmp_path):
    bots = ["python -m sample_bots.greedy", "python -m sample_bots.random", "node sample_bots/js/random.js"]
    flags = [f for i in range(16) for f in ("--bot", bots[i % 3])]
    r = romis("play", "victoria", *flags, "--seed", "4", "--record", str(tmp_path / "m.jsonl"))
    assert r.returncode == 0, r.stderr
    assert "bank:" in r.stdout and "chips" in r.stdout and "penalties" in r.stdout
    assert romis("replay", str(tmp_path / "m.jsonl")).returncode == 0


@pytest.mark.e2e
def test_romis_play_at_4_seats_is_deterministic_by_seed():
    bots = ["python -m sample_bots.greedy", "python -m sample_bots.random", "node sample_bots/js/random.js"] * 2
    flags = [f for b in bots[:4] for f in ("--bot", b)]
    outs = [romis("play", "victoria", *flags, "--seed", "9", "--json").stdout for _ in range(2)]
    assert outs[0] == outs[1]
    res = json.loads(outs[0])
    assert all(s["fault"] is None for s in res["seats"])
