"""Tariff Rummy Bridge (rules/tariff-bridge.md): every worked example, the payout table and the bank shortfall, the
penalty record, dropping out and re-entering at 100, the ends of the match, the views, `romis eval`, and greedy
against random by net chips."""

import csv
import io
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from rigging import illegal

from protocol.messages import Bid, Discard, Draw, Knock, Meld, Pass
from referee.cli import run
from referee.rules.errors import ConfigError
from referee.rules.variants.tariff_bridge import TariffBridge
from sample_bots.brain import Brain

JUNK = "2C 4D 6H 8S TC QD KH 3D 5S 9H"  # nothing combines: 67 penalty points
MELDED = "AS 2S 3S 7H 7D 7C 9D TD JD QD"  # all in combinations: 0
NINE = "AS 2S 3S 7H 7D 7C 9D TD JD 4D"  # a knock hand: 9 in combinations and a free 4D
ROOT = Path(__file__).resolve().parent.parent
SEQUENCE = "3C 4C 5C 6C 7C 8C 9C TC JC QC"


def H(text: str) -> list[str]:
    return text.split()


def rig(hands, stock=("KC",) * 30, discard=("9D",), turn=0, pens=None, **options):
    """A game (deal 0, the stakes paid) at the start of seat `turn`'s turn, with penalty totals `pens`."""
    g = TariffBridge(len(hands), options, seed=1)
    g.hands = [H(h) for h in hands]
    g.stock, g.piles = list(stock), [list(discard)]
    g.turn, g.phase, g.turns = turn, "draw", 4
    g.pens = tuple(pens or [0] * len(hands))
    return g


def rummy(g, seat, melds, discard, draw="stock"):
    g.apply(seat, [Draw(draw), *melds, Discard(discard)])


def last(g):
    return g.deal_results[-1]


def first_player_order(g):
    return g.order_from(g.next_seat(g.dealer))


# --- worked examples -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "hand,melds,paid",
    [
        (MELDED, [Meld(H("AS 2S 3S")), Meld(H("7H 7D 7C")), Meld(H("9D TD JD QD"))], 30),  # example 1: T × 3
        ("AS AS 3S 5S 7S 9S JS QS KS KS", [Meld(H("AS AS 3S 5S 7S 9S JS QS KS KS"), kind="one-suit")], 60),  # 3
        ("AS AH KS KD KC QH QD JS JH JC", [Meld(H("AS AH KS KD KC QH QD JS JH JC"), kind="figures")], 60),  # 3
        (SEQUENCE, [Meld(H(SEQUENCE), kind="run")], 120),  # example 4
    ],
)
def test_worked_examples_1_3_4_a_rummy_is_paid_its_line_of_the_table_from_the_bank(hand, melds, paid):
    cards = H(hand)
    g = rig([" ".join(cards[:-1]) + " 5H", JUNK, JUNK], stock=cards[-1:])
    assert g.ledger.bank == 300 and g.ledger.chips == (-100, -100, -100)  # the stakes, paid before the first deal
    rummy(g, 0, melds, "5H")
    assert g.ledger.chips == (-100 + paid, -100, -100) and g.ledger.bank == 300 - paid
    assert last(g)["finish"]["payout"] == paid and last(g)["moved"]["payout"] == [paid, 0, 0]
    assert last(g)["scores"] == [-100 + paid, -100, -100]  # deal 0's net chips: its stake and the payout


def test_a_rummy_with_ordinary_combinations_of_one_suit_is_paid_as_one_suit():  # the highest line only
    g = rig(["AC 2C 3C 5C 6C 7C 9C TC JC 5H", JUNK, JUNK], stock=["QC"])
    rummy(g, 0, [Meld(H("AC 2C 3C")), Meld(H("5C 6C 7C")), Meld(H("9C TC JC QC"))], "5H")
    assert last(g)["finish"]["category"] == "one-suit" and last(g)["finish"]["payout"] == 60


def knock(g):
    g.apply(0, [Draw("stock"), Knock("KS")])
    for seat in range(1, g.n):
        g.apply(seat, [Draw("stock"), Discard(g.hands[seat][0])])


@pytest.mark.parametrize("players,tariff,paid", [(3, 10, 15), (4, 10, 20), (3, 5, 7)])
def test_worked_example_2_a_knock_is_paid_half_rounded_down(players, tariff, paid):  # Ambiguity 8
    g = rig([NINE, *[JUNK] * (players - 1)], stock=["8D"] * players + ["KS"], tariff=tariff)
    knock(g)
    assert last(g)["finish"] == {"kind": "knock", "category": None, "payout": paid, "reantes": 0}
    assert g.ledger.chips[0] == -100 + paid


def test_worked_example_5_a_re_entry_costs_three_tariffs_and_takes_the_highest_total_below_100():
    a, c = 0, 2  # A B C D are seats 0 1 2 3
    g = rig([MELDED + " 5H", MELDED, JUNK, MELDED], stock=["KD"], pens=[89, 67, 40, 74])
    rummy(g, a, [Meld(H("AS 2S 3S")), Meld(H("7H 7D 7C")), Meld(H("9D TD JD QD KD"))], "5H")
    assert g.pens == (89, 67, 107, 74) and g.to_act() == [c]
    decision = g.decision(c)
    assert (decision.kind, decision.phase, decision.options) == ("reenter", "between-deals", [Bid("reenter"), Pass()])
    assert decision.constraints == {"fee": 30, "penalty_total": 107, "total": 89}
    bank = g.ledger.bank
    g.apply(c, [Bid("reenter")])
    assert g.pens == (89, 67, 89, 74) and g.ledger.bank == bank + 30 and g.ledger.chips[c] == -130
    assert last(g)["penalty_totals"] == [89, 67, 89, 74] and last(g)["penalties"] == [0, 0, 67, 0]
    assert last(g)["moved"]["reenter"] == [0, 0, -30, 0] and not g.is_over() and g.deal_no == 1


def test_worked_example_6_a_suit_sequence_at_the_default_table():
    g = TariffBridge(4, {}, seed=3)
    dealer = g.dealer  # he opens by discarding, and may declare rummy then
    g.hands[dealer] = H(SEQUENCE + " KS")
    assert g.ledger.bank == 400
    g.apply(dealer, [Meld(H(SEQUENCE), kind="run"), Discard("KS")])
    assert g.ledger.chips[dealer] == -100 + 160 and last(g)["bank"] == 240


# --- the bank -----------------------------------------------------------------------------------------------------
def test_a_bank_too_small_is_refilled_by_every_player_still_in_until_it_can_pay():  # Ambiguities 5, 14
    g = rig([SEQUENCE[:-3] + " 5H", JUNK, JUNK, JUNK], stock=["QC"], stake=10)
    assert g.ledger.bank == 40
    rummy(g, 0, [Meld(H(SEQUENCE), kind="run")], "5H")  # 160 due: three re-antes of 4 × 10 make 160
    res = last(g)
    assert res["finish"]["reantes"] == 3 and res["moved"]["re-ante"] == [-30] * 4 and res["bank"] == 0
    assert res["chips"] == [120, -40, -40, -40]


def test_a_deal_with_no_winner_pays_nothing_and_every_penalty_is_recorded():
    g = rig([JUNK] * 3, stock=["KS"], discard=())
    g.apply(0, [Draw("stock"), Discard("KS")])  # the stock cannot be turned over: a stalemate
    res = last(g)
    assert res["winner"] is None and res["finish"]["payout"] == 0 and res["bank"] == 300
    assert res["penalties"] == [67] * 3 and res["penalty_totals"] == [67] * 3 and g.totals == [-100] * 3


def test_the_base_games_bonuses_are_not_recorded():  # Ambiguity 3
    g = rig([SEQUENCE[:-3] + " 5H", JUNK, JUNK], stock=["QC"], pens=[50, 0, 0])
    rummy(g, 0, [Meld(H(SEQUENCE), kind="run")], "5H")
    assert g.pens == (50, 67, 67) and g.view(1)["penalty_totals"] == [50, 67, 67]


# --- the limit ------------------------------------------------------------------------------------------------------
def test_at_the_limit_each_chooses_in_playing_order_and_earlier_re_entries_do_not_move_the_target():  # Amb. 9, 13
    g = rig([MELDED + " 5H", JUNK, JUNK, MELDED], stock=["KD"], pens=[50, 40, 60, 20])
    rummy(g, 0, [Meld(H("AS 2S 3S")), Meld(H("7H 7D 7C")), Meld(H("9D TD JD QD KD"))], "5H")
    asked = [s for s in first_player_order(g) if s in (1, 2)]
    first, second = asked
    assert g.to_act() == [first]
    cursor = len(g.log)
    g.apply(first, [Bid("reenter")])
    for seat in range(4):  # the answer is public at once
        assert {"type": "reenter", "seat": first, "answer": "reenter"} in g.events_since(seat, cursor)[0]
    assert g.to_act() == [second] and g.decision(second).constraints["total"] == 50
    g.apply(second, [Pass()])
    res = last(g)
    assert res["eliminated"] == [second] and g.pens[first] == 50
    assert [a["seat"] for a in res["between"]] == asked
    assert g.view(0)["dropped"] == [s == second for s in range(4)]


def test_a_dropped_out_seat_leaves_the_table_and_the_tariff_counts_the_players_in_the_deal():  # Ambiguity 2
    g = rig([MELDED + " 5H", MELDED, JUNK, MELDED], stock=["KD"], pens=[0, 0, 40, 0])
    rummy(g, 0, [Meld(H("AS 2S 3S")), Meld(H("7H 7D 7C")), Meld(H("9D TD JD QD KD"))], "5H")
    dealer = g.dealer
    g.apply(2, [Pass()])
    assert g.out_deal[2] == 0 and g.hands[2] == [] and 2 not in g.order_from(0) and g.dealer != 2
    assert g.dealer == g.next_seat(dealer)
    winner = g.turn
    g.hands[winner] = H(SEQUENCE[:-3] + " 5H")
    g.stock = ["QC"]
    if g.phase == "draw":
        rummy(g, winner, [Meld(H(SEQUENCE), kind="run")], "5H")
    else:  # the dealer opens without drawing
        g.hands[winner] = H(SEQUENCE + " 5H")
        g.apply(winner, [Meld(H(SEQUENCE), kind="run"), Discard("5H")])
    assert last(g)["finish"]["payout"] == 4 * 10 * 3


def test_when_all_but_one_reach_the_limit_he_takes_the_whole_bank_and_the_match_ends():
    g = rig([MELDED + " 5H", JUNK, JUNK], stock=["KD"], pens=[90, 40, 50])
    rummy(g, 0, [Meld(H("AS 2S 3S")), Meld(H("7H 7D 7C")), Meld(H("9D TD JD QD KD"))], "5H")
    assert g.is_over() and "between" not in last(g)  # no re-entry is offered
    assert g.ledger.bank == 0 and g.ledger.chips == (200, -100, -100)
    assert g.result()["ranks"] == [1, 2, 2] and g.result()["bank"] == 0


def test_when_everyone_reaches_the_limit_the_lowest_takes_the_bank_and_ties_split_it():  # Ambiguity 6
    g = rig([JUNK] * 3, stock=["KS"], discard=(), pens=[40, 33, 33], stake=101)
    g.apply(0, [Draw("stock"), Discard("KS")])  # a stalemate: 67 to everyone
    assert g.is_over() and g.ledger.bank == 0
    tied = [s for s in first_player_order(g) if s in (1, 2)]
    won = {tied[0]: 152, tied[1]: 151}  # 303 split two ways, the odd chip to the first in playing order
    assert g.ledger.chips == tuple(-101 + won.get(s, 0) for s in range(3))


def test_after_max_deals_the_lowest_total_still_in_takes_the_bank():
    g = rig([MELDED + " 5H", JUNK, MELDED], stock=["KD"], pens=[30, 0, 10], max_deals=1)
    rummy(g, 0, [Meld(H("AS 2S 3S")), Meld(H("7H 7D 7C")), Meld(H("9D TD JD QD KD"))], "5H")
    assert g.is_over() and g.pens == (30, 67, 10)
    assert g.ledger.chips == (-70, -100, 170) and g.result()["ranks"] == [2, 3, 1]


def test_a_wrong_answer_is_rejected_and_changes_nothing_and_a_faulting_seat_drops_out():
    g = rig([MELDED + " 5H", MELDED, JUNK, MELDED], stock=["KD"], pens=[0, 0, 40, 0])
    rummy(g, 0, [Meld(H("AS 2S 3S")), Meld(H("7H 7D 7C")), Meld(H("9D TD JD QD KD"))], "5H")
    before = (g.pens, g.ledger, g.pending, len(g.log), g.deal_no)
    for ops in ([Bid("stay")], [Bid("reenter"), Pass()], [Draw("stock")]):
        assert illegal(g, 2, ops) == "reenter.answer"
        assert (g.pens, g.ledger, g.pending, len(g.log), g.deal_no) == before
    assert illegal(g, 1, [Pass()]) == "turn.not-your-turn"
    assert g.fallback(2) == [Pass()]


def test_net_chips_rank_the_match_and_a_seat_that_dropped_out_keeps_what_it_won():  # Scoring
    g = rig([MELDED + " 5H", MELDED, JUNK, MELDED], stock=["KD"], pens=[0, 0, 40, 0])
    rummy(g, 0, [Meld(H("AS 2S 3S")), Meld(H("7H 7D 7C")), Meld(H("9D TD JD QD KD"))], "5H")
    g.apply(2, [Pass()])
    assert g.out_deal == [None, None, 0, None]
    assert g.ranks([5.0, -3.0, 7.0, -3.0]) == [2, 3, 1, 3]  # by chips only, in or out


def test_bad_options_and_player_counts_are_one_clear_error():
    for players, options, message in (
        (2, {}, "tariff-bridge needs 3 to 4 players, got 2"),
        (5, {}, "tariff-bridge needs 3 to 4 players, got 5"),
        (4, {"stake": 0}, "option stake: must be at least 1 when the tariff is not 0"),
        (4, {"tariff": "ten"}, "option tariff: 'ten' is not a whole number"),
        (4, {"target": 50}, "unknown option 'target'"),
    ):
        with pytest.raises(ConfigError, match=message):
            TariffBridge(players, options, 0)


# --- the views, eval and the bots ------------------------------------------------------------------------------------
def test_every_view_shows_the_bank_the_chips_the_penalty_totals_and_who_dropped_out():  # Ambiguity 12
    g = TariffBridge(3, {"stake": 50, "tariff": 5}, seed=2)
    for seat in range(3):
        v = g.view(seat)
        assert (v["bank"], v["chips"], v["penalty_totals"], v["dropped"]) == (150, [-50] * 3, [0] * 3, [False] * 3)
        assert v["scores"] == [0] * 3  # the match totals are the net chips of finished deals


def test_eval_names_the_tariff_line_instead_of_a_bonus(capsys, tmp_path):
    assert run(["eval", "tariff-bridge", "--hand", SEQUENCE]) == 0
    assert "rummy (suit sequence): the bank pays 4 × T × players" in capsys.readouterr().out
    hands = tmp_path / "hands.txt"
    hands.write_text(f"{MELDED}\n{NINE}\n{JUNK}\n")
    assert run(["eval", "tariff-bridge", "--hands-file", str(hands)]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(r["category"], r["knock"], r["tariff_times"], r["points"]) for r in rows] == [
        ("ordinary", None, 1, 0),
        (None, "4D", 0.5, 4),
        (None, None, 0, 67),
    ]
    assert all("bonus" not in r for r in rows)


def play(seed: int, greedy: set[int], players: int = 4, **options) -> TariffBridge:
    g = TariffBridge(players, options, seed)
    bots = [Brain("tariff-bridge", players, g.opts, greedy=s in greedy, seed=seed * 10 + s) for s in range(players)]
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
        assert g.ledger.total() == 0
    return g


def test_a_whole_match_is_deterministic_conserves_chips_and_empties_the_bank():
    g = play(7, {0, 2}, players=3)
    res = g.result()
    assert res == play(7, {0, 2}, players=3).result()
    assert res["bank"] == 0 and sum(res["chips"]) == 0 and res["totals"] == res["chips"]
    assert res["penalty_totals"] == res["deals"][-1]["penalty_totals"] == list(g.pens)
    for deal in res["deals"]:
        assert deal["chips"] == deal["totals"]


def test_greedy_beats_random_by_net_chips():
    n = 12
    wins = sum(play(seed, {seed % 4}).result()["ranks"][seed % 4] == 1 for seed in range(n))
    assert wins / n >= 0.6  # one greedy against three random: a fair share would be 0.25


@pytest.mark.e2e
def test_a_tariff_bridge_tournament_ranks_by_net_chips_and_every_report_shows_the_chips_and_the_bank(tmp_path):
    conf = tmp_path / "t.toml"
    conf.write_text(
        'variant = "tariff-bridge"\nseats = 3\ndeal_sets = 1\nseed = 5\nconcurrency = 2\n'
        + "".join(f'[[entrants]]\nname = "{n}"\ncommand = "python -m sample_bots.{n}"\n' for n in ("random", "greedy"))
        + f'[[entrants]]\nname = "js"\ncommand = "node {ROOT / "sample_bots/js/random.js"}"\n'
    )
    db = tmp_path / "r.db"

    def romis(*args):
        r = subprocess.run(
            [sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
        )
        assert r.returncode == 0, r.stderr
        return r.stdout

    assert "net chips" in romis("tournament", "run", str(conf), "--db", str(db))
    rep = json.loads(romis("tournament", "report", str(db), "--format", "json"))
    chips = [e["net_chips"] for e in rep["entrants"]]
    assert rep["unit"] == "chips" and chips == sorted(chips, reverse=True), "the standings are ordered by net chips"
    with sqlite3.connect(db) as con:
        stored = dict(con.execute("SELECT entrant, SUM(score) FROM seats GROUP BY entrant"))
    assert {e["name"]: e["net_chips"] for e in rep["entrants"]} == pytest.approx(stored)
    assert rep["bank"] == {"left": 0.0, "per_game": 0.0}  # every match ends with the bank paid to a player
    words = f"Bank: 0 chips left in the bank at the end of the {rep['games']} games (0.0 per game)."
    for fmt in ("table", "md", "html"):
        text = romis("tournament", "report", str(db), "--format", fmt)
        assert "net chips" in text and words in text, fmt
    rows = list(csv.DictReader(io.StringIO(romis("tournament", "report", str(db), "--format", "csv"))))
    assert [float(r["net_chips"]) for r in rows] == chips and {r["bank_left"] for r in rows} == {"0.0"}


@pytest.mark.e2e
def test_an_events_csv_gives_the_bank_on_the_rows_of_its_chips_variant(tmp_path):
    conf = tmp_path / "event.toml"
    conf.write_text(
        'deal_sets = 1\nseed = 3\nconcurrency = 2\nvariants = [{variant = "gin", options = {max_deals = 1}}, '
        '{variant = "tariff-bridge", seats = 3}]\n'
        + "".join(f'[[entrants]]\nname = "{n}"\ncommand = "python -m sample_bots.{n}"\n' for n in ("random", "greedy"))
        + f'[[entrants]]\nname = "js"\ncommand = "node {ROOT / "sample_bots/js/random.js"}"\n'
    )
    db = tmp_path / "r.db"
    for args in (("run", str(conf), "--db", str(db)), ("report", str(db), "--format", "csv")):
        r = subprocess.run(
            [sys.executable, "-m", "referee", "tournament", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode == 0, r.stderr
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert {(row["variant"], row["bank_left"]) for row in rows} == {("all", ""), ("gin", ""), ("tariff-bridge", "0.0")}


@pytest.mark.e2e
@pytest.mark.parametrize("players", [3, 4])
def test_romis_play_prints_the_chips_and_the_bank_and_romis_replay_accepts_the_record(tmp_path, players):
    bots = ["python -m sample_bots.greedy", "python -m sample_bots.random", f"node {ROOT / 'sample_bots/js/random.js'}"]
    args = [a for b in (bots + bots)[:players] for a in ("--bot", b)]
    outs = []
    for name in ("a", "b"):
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "referee",
                "play",
                "tariff-bridge",
                *args,
                "--seed",
                "4",
                "--record",
                str(tmp_path / name),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1], "the same seed plays the same match"
    assert "chips" in outs[0].splitlines()[-players - 2] and "bank: 0 chip(s) left" in outs[0]
    assert "penalties [" in outs[0]  # each deal's line shows the penalty record
    r = subprocess.run(
        [sys.executable, "-m", "referee", "replay", str(tmp_path / "a")], cwd=ROOT, capture_output=True, text=True
    )
    assert r.returncode == 0 and ": ok (tariff-bridge, seed 4" in r.stdout, r.stderr
