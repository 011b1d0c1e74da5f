"""Liverpool Rummy (rules/liverpool.md): the four meld kinds, the seat requirements, the deuce exchange, claims,
the immediate shuffled rebuild and the zero-sum scoring."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import rigging
from rigging import illegal

from protocol.messages import Claim, Discard, Draw, Exchange, LayOff, Meld, Take
from referee.cli import run
from referee.rules.errors import IllegalAction
from referee.rules.melds import new_meld
from referee.rules.variants.liverpool import LIVERPOOL_MELDS, Liverpool
from sample_bots.brain import Brain

R = LIVERPOOL_MELDS


def meld(cards: str, kind: str, owner: int = 0):
    """A table meld of the named kind."""
    return new_meld(cards.split(), R, owner=owner, kind=kind)


def rig(hands, table=(), stock=("3C",) * 20, discard=("9D",), turn=0, **options):
    """A Liverpool game in a chosen position; the dealer is the last seat, so seat k is place k + 1."""
    g = rigging.rig(Liverpool, hands, table=table, stock=stock, discard=discard, turn=turn, **options)
    g.dealer = len(hands) - 1
    g.opened = [any(m.owner == s for m in g.table) for s in range(len(hands))]
    return g


def rule_of(cards: str, kind: str) -> str:
    """The rule a new meld of `cards` as `kind` breaks."""
    with pytest.raises(IllegalAction) as e:
        meld(cards, kind)
    return e.value.rule


# --- worked examples --------------------------------------------------------------------------------------------------
def test_example_1_a_high_set_mixes_any_cards_from_eight_to_king():
    assert meld("KC KH JH", "high-set").cards == ("KC", "KH", "JH")
    assert meld("8S 8S QD", "high-set").kind == "high-set"  # duplicates are allowed


def test_example_2_a_low_set_takes_no_deuce():
    low = meld("4C 6D 7C", "low-set")
    assert low.kind == "low-set"
    assert rule_of("4C 6D 2C", "low-set") == "meld.no-wild"
    g = rig(["2H 9S 9C", "3C 4C 5C"], table=[low])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [LayOff(0, ["2H"])]) == "layoff.invalid"


def test_example_3_a_red_run_mixes_hearts_and_diamonds_but_not_colours():
    assert meld("9H TD JH", "red-run").ids == ("9H", "TD", "JH")
    assert rule_of("9H TS JH", "red-run") == "run.colour"
    assert meld("9S TC JS", "black-run").kind == "black-run"


def test_example_4_the_ace_is_only_low_next_to_the_three():
    assert meld("4D AD 3H", "red-run").ids == ("AD", "3H", "4D")  # table order: A, 3, 4
    assert rule_of("QH KH AH", "red-run") == "run.invalid"
    assert rule_of("KH KD AH", "high-set") == "set.ranks"
    assert meld("AH AS 5C", "low-set").kind == "low-set"


def test_a_two_is_never_a_rank():
    run = meld("AH 2H 3H", "red-run")
    assert run.ids == ("AH", "3H", "4H")  # the deuce stands for the 4, not for a natural 2
    with pytest.raises(IllegalAction) as e:
        new_meld(["AH", "2H", "3H"], R, kind="red-run", identities=["2H"])
    assert e.value.rule == "run.ranks"


def test_every_meld_needs_a_natural_card():
    named = {"high-set": ["KS", "KH", "KD"], "red-run": ["3H", "4D", "5H"], "black-run": ["3S", "4C", "5S"]}
    for kind, ident in named.items():
        for given in (None, ident):
            with pytest.raises(IllegalAction) as e:
                new_meld(["2H", "2S", "2C"], R, kind=kind, identities=given)
            assert e.value.rule == "meld.natural"


@pytest.mark.parametrize(
    "players,place,dealer_place",
    [(8, {6: "one high set + one low set", 7: "one red sequence + one black sequence"}, 8), (7, {6: None}, 7)],
)
def test_example_5_requirements_follow_the_place_from_the_dealer(players, place, dealer_place):
    g = Liverpool(players, {}, seed=3)
    g.dealer = 0  # seat k is place k (seat 0 is the dealer, place n)
    names = [c["name"] for c in g.view(1)["contracts"]]
    assert names[0] == g.requirements(0)[0].describe()["name"]
    assert g.place(0) == dealer_place
    if players == 8:
        assert names[7] == place[6] and names[0] == place[7]  # place 7, and the dealer (place 8)
    else:
        assert names[0] == "one high set + one low set"  # with 7 players the dealer has row 7, as row 1
    assert g.decision(g.turn).constraints["contract"]["name"] == names[g.turn]


def test_example_6_the_winner_scores_what_the_others_hold():
    hands = ["8S", "KS 5D", "AH 2C", "9C"]
    g = rig(hands, table=[meld("KC KH JH", "high-set"), meld("4C 6D 7C", "low-set")], stock=("3C", "QS"))
    g.apply(0, [Draw("stock")])
    g.apply(0, [LayOff(0, ["QS"]), Discard("8S")])
    scores = g.deal_results[-1]["scores"]
    assert scores == [54, -15, -30, -9]
    assert sum(scores) == 0


# --- the seat requirement ---------------------------------------------------------------------------------------------
def test_going_out_needs_the_seat_requirement():
    g = rig(["KS 8S", "3C 4C 5C"], stock=("3C", "9S"))  # place 1: a high set and a low set
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["KS", "8S", "9S"], kind="high-set")]) == "contract.go-out"


def test_without_the_requirement_two_cards_stay_in_hand():
    g = rig(["KS 8S 5C", "3C 4C 5C"], stock=("3C", "9S"))
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["KS", "8S", "9S"], kind="high-set")]) == "contract.keep-two"
    g = rig(["5C", "3C 4C 5C"], table=[meld("KC KH JH", "high-set")], stock=("3C", "9S"))
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [LayOff(0, ["9S"]), Discard("5C")]) == "contract.final-discard"


@pytest.mark.parametrize("kind", ["red-run", "high-set"])
def test_only_the_named_kind_counts_for_the_requirement(kind):
    # Ambiguity 17: 9H TD JH is a red run or a high set as its owner named it; place 2 needs a red and a black run
    table = [meld("9H TD JH", kind, owner=1), meld("3S 4C 5S", "black-run", owner=1)]
    g = rig(["3C 5D", "7H", "4S 4S"], table=table, stock=("3C", "QH"), turn=1)
    g.apply(1, [Draw("stock")])
    ops = [LayOff(0, ["QH"]), Discard("7H")]
    if kind == "red-run":
        g.apply(1, ops)
        assert g.deal_results[-1]["winner"] == 1
    else:
        assert illegal(g, 1, ops) == "contract.final-discard"


@pytest.mark.parametrize(
    "second,ok",
    [("6D 7D 8H", False), ("7D 8D 9H", True)],  # 3-4-5 and 6-7-8 join into one; 3-5 and 7-9 do not
)
def test_place_five_needs_three_runs_none_joinable(second, ok):
    table = [meld("3H 4H 5D", "red-run", 4), meld(second, "red-run", 4), meld("9S TC JS", "black-run", 4)]
    g = rig(["5C 6C", "5C 6C", "5C 6C", "5C 6C", "KS 8C"], table=table, turn=4, stock=("3C", "QS"))
    assert g.may_go_out(4) is ok
    g.apply(4, [Draw("stock")])
    ops = [LayOff(2, ["QS"]), LayOff(2, ["KS"]), Discard("8C")]
    if ok:
        g.apply(4, ops)
        assert g.deal_results[-1]["winner"] == 4
    else:
        assert illegal(g, 4, ops) == "contract.final-discard"


def test_place_five_same_colour_runs_over_the_same_ranks_count_once():
    # the suits of a colour mix freely, so 5H 6D 7H and 5D 6H 7D are the same red run twice (contract.md, Ambiguity 5)
    table = [meld("5H 6D 7H", "red-run", 4), meld("5D 6H 7D", "red-run", 4), meld("9S TC JS", "black-run", 4)]
    g = rig(["5C 6C"] * 4 + ["KS 8C"], table=table, turn=4)
    assert not g.may_go_out(4)
    g.table[1] = meld("5D 6H 7D 8D", "red-run", 4)  # overlapping, not identical, not joinable: it counts
    assert g.may_go_out(4)


def test_place_six_sets_may_share_a_rank():
    table = [meld("8S 8H 8D", "high-set", 5), meld("9S 8C 9D", "high-set", 5), meld("3S 3H 4D", "low-set", 5)]
    g = rig(["5C 6C"] * 5 + ["4C"], table=table, turn=5)
    assert g.may_go_out(5)


# --- lay-offs and the deuce -------------------------------------------------------------------------------------------
def test_lay_offs_need_a_meld_of_ones_own():
    g = rig(["9S 5C 6C", "3C 4C 5C"], table=[meld("KC KH JH", "high-set", owner=1)])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [LayOff(0, ["9S"])]) == "contract.first"
    assert illegal(g, 0, [Exchange(0, "9S")]) == "contract.first"
    g = rig(["9S 5C 6C 3D 7D", "3C 4C 5C"], table=[meld("KC KH JH", "high-set", owner=1)])
    g.apply(0, [Draw("stock")])
    g.apply(0, [Meld(["3C", "5C", "6C"], kind="low-set"), LayOff(0, ["9S"]), Discard("3D")])
    assert g.table[0].cards[-1] == "9S" and g.table[0].owner == 1


def test_lay_offs_must_fit_the_kind():
    table = [meld("5H 6D 7H", "red-run"), meld("KC KH JH", "high-set"), meld("4C 6D 7C", "low-set")]
    g = rig(["8C 9S 8D AS 2H 4D", "3C"], table=table)
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [LayOff(0, ["8C"])]) == "layoff.invalid"  # black onto red
    assert illegal(g, 0, [LayOff(1, ["AS"])]) == "layoff.invalid"  # an ace onto a high set
    assert illegal(g, 0, [LayOff(2, ["9S"])]) == "layoff.invalid"  # a 9 onto a low set
    g.apply(0, [LayOff(0, ["8D"]), LayOff(1, ["2H"]), LayOff(2, ["AS"]), LayOff(0, ["4D"])])
    assert g.table[0].ids == ("4D", "5H", "6D", "7H", "8D")
    assert "2H" in g.table[1].cards


def test_the_owner_replaces_a_deuce_with_either_card_of_its_colour_and_the_deuce_moves_to_an_end():
    for natural in ("6D", "6H"):  # Ambiguity 15: the deuce stands for "the red 6"
        g = rig([f"{natural} 9S 9C", "3C"], table=[meld("5H 2S 7D", "red-run")])
        g.apply(0, [Draw("stock")])
        g.apply(0, [Exchange(0, natural)])
        assert g.table[0].cards == ("5H", natural, "7D", "2S")
        assert g.table[0].ids[-1][0] == "8"  # the deuce now stands for the red 8
        assert "2S" not in g.hands[0]  # never back into a hand


def test_a_deuce_is_never_taken_back():
    g = rig(["6C 6D 9S 9C", "6H 3C"], table=[meld("5H 2S 7D", "red-run", owner=1), meld("3S 4C 5S", "black-run")])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Exchange(0, "6D")]) == "exchange.owner"  # not his meld
    assert illegal(g, 0, [Take(0, ["2S"])]) == "op.unsupported"
    g = rig(["6C 9S 9C", "3C"], table=[meld("5H 2S 7D", "red-run")])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Exchange(0, "6C")]) == "exchange.no-wild"  # a black 6 stands for nothing here


def test_a_deuce_in_a_high_set_is_exchanged_as_a_lay_off():
    g = rig(["JD 9S 9C", "3C"], table=[meld("KS KH 2C", "high-set")])
    g.apply(0, [Draw("stock")])
    g.apply(0, [Exchange(0, "JD")])
    assert sorted(g.table[0].cards) == sorted(["KS", "KH", "2C", "JD"])


def test_the_draw_comes_first_then_melds_in_any_order():
    g = rig(["9H TD JH 5C 6C 3D 8S KS", "3C"], stock=("3C", "7C"))
    assert illegal(g, 0, [Meld(["9H", "TD", "JH"], kind="red-run")]) == "play.before-draw"
    g.apply(0, [Draw("stock")])
    g.apply(0, [Meld(["5C", "6C", "7C"], kind="low-set"), LayOff(0, ["3D"]), Meld(["9H", "TD", "JH"], kind="red-run")])
    g.apply(0, [Discard("8S")])
    assert [m.kind for m in g.table] == ["low-set", "red-run"] and g.table[0].cards[-1] == "3D"


def test_a_meld_that_fits_two_kinds_must_be_named():
    g = rig(["9H TD JH 5C 6C", "3C"])
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(["9H", "TD", "JH"])]) == "meld.kind"
    g.apply(0, [Meld(["9H", "TD", "JH"], kind="red-run")])
    assert g.view(1)["table"][0]["kind"] == "red-run"


# --- claims and the stock ---------------------------------------------------------------------------------------------
def test_claims_take_only_the_top_card():
    g = rig(["5C 6C 7C", "8C 9C", "KS KD QD"], discard=("4H", "KH"), turn=0)
    g.apply(0, [Draw("stock")])
    g.apply(0, [Discard("5C")])
    assert g.to_act() == [2]
    d = g.decision(2)
    assert [o for o in d.options if isinstance(o, Claim)] == [Claim(1)]
    assert illegal(g, 2, [Claim(2)]) == "claim.depth"


def test_the_last_stock_card_brings_the_whole_pile_back_shuffled_at_once():
    pile = tuple(r + s for r in "3456789TJQ" for s in "SH")  # 20 cards: a shuffle keeps neither order
    g = rig(["5C 6C 7C", "8C 9C TC"], stock=("8D",), discard=pile)
    g.apply(0, [Draw("stock")])
    assert g.piles[0] == [] and sorted(g.stock) == sorted(pile) and g.rebuilds == 1  # the top card too
    assert g.stock not in (list(pile), list(pile)[::-1])
    assert g.phase == "play" and g.turn == 0  # his turn goes on
    g.apply(0, [Discard("8D")])
    assert g.piles[0] == ["8D"]


def test_no_rebuild_left_ends_the_deal_at_once_with_no_winner():
    g = rig(["5C 6C 7C", "8C KS"], stock=("8D",), discard=("4H", "5S"), max_stock_rebuilds=0)
    g.apply(0, [Draw("stock")])
    res = g.deal_results[-1]
    assert res["winner"] is None and res["scores"] == [-(5 + 6 + 7 + 8), -(8 + 10)]


def test_six_deals_and_the_highest_total_wins():
    g = Liverpool(3, {}, seed=5)
    bots = [Brain("liverpool", 3, {}, greedy=s == 0, seed=s) for s in range(3)]
    while not g.is_over():
        for s in g.to_act():
            g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
    res = g.result()
    assert len(res["deals"]) == 6
    assert sum(res["totals"]) == 0
    best = max(res["totals"])
    assert all((r == 1) == (t == best) for r, t in zip(res["ranks"], res["totals"]))


def test_eval_names_the_kinds_and_the_places_the_hand_meets(capsys):
    code = run(["eval", "liverpool", "--hand", "7H 8D 9H KC KD QS"])
    out = capsys.readouterr().out
    assert code == 0
    assert "red-run" in out and "high-set" in out
    assert "(red-run)" in out  # 7H alone is no high card: the red run is the only way to meld it
    assert "meets the requirement of places: none" in out


def test_eval_json_says_which_places_the_hand_meets(capsys):
    assert run(["eval", "liverpool", "--json", "--hand", "7H 8D 9H KC KD QS"]) == 0
    res = json.loads(capsys.readouterr().out)
    met = {r["place"]: r["met"] for r in res["requirements"]}
    assert sorted(met) == [1, 2, 3, 4, 5, 6]
    assert not any(met.values())  # a red run and a high set: no place asks for just these
    assert sorted(res["kinds"]) == ["high-set", "red-run"]


def test_greedy_keeps_two_cards_until_it_may_go_out():
    g = rig(["KS 8S 5C", "3C 4C 5C"], stock=("3C", "9S"))
    g.apply(0, [Draw("stock")])
    g.apply(0, Brain("liverpool", 2, {}, greedy=True).choose(g.decision(0), g.view(0)))
    assert len(g.hands[0]) >= 2 and not g.deal_results


def test_greedy_melds_its_requirement_when_the_hand_holds_it():
    g = rig(["KS 8S 9C 3C 4D 4H", "3C 4C 5C"], stock=("3C", "5S"))
    g.apply(0, [Draw("stock")])  # place 1: a high set and a low set
    ops = Brain("liverpool", 2, {}, greedy=True).choose(g.decision(0), g.view(0))
    assert sorted(op.kind for op in ops if isinstance(op, Meld)) == ["high-set", "low-set"]
    g.apply(0, ops)
    assert g.deal_results[-1]["winner"] == 0  # out by melding the requirement


# --- the sample bots over pipes -------------------------------------------------------------------------------------
@pytest.mark.e2e
@pytest.mark.parametrize("players", [2, 8])
def test_the_sample_bots_play_it_legally_over_pipes_and_the_record_replays(tmp_path, players):
    bots = ["python -m sample_bots.greedy", "node sample_bots/js/random.js", "python -m sample_bots.random"]
    if shutil.which("node") is None:
        pytest.skip("node (Node.js) is not installed: make node")
    rec = tmp_path / "m.jsonl"
    args = ["play", "liverpool", "--seed", "4", "--json", "--record", str(rec)]
    for s in range(players):
        args += ["--bot", bots[s % len(bots)]]
    root = Path(__file__).resolve().parent.parent
    played = subprocess.run([sys.executable, "-m", "referee", *args], cwd=root, capture_output=True, text=True)
    assert played.returncode == 0, played.stderr
    out = json.loads(played.stdout)
    assert out["deals"] == 6 and all(s["fault"] is None for s in out["seats"])
    replayed = subprocess.run([sys.executable, "-m", "referee", "replay", str(rec)], cwd=root, capture_output=True)
    assert replayed.returncode == 0, replayed.stderr
