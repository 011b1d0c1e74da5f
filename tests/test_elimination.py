"""Elimination Rummy (rules/elimination.md): the worked examples, every illegal answer by its rule id, sealing,
the auxiliary step, the repeated round, the stock rebuild and the re-deal, the bonus and the final lay-down."""

import copy
import json

import pytest
from rigging import illegal

from protocol.messages import Bid, Claim, Meld, Pass
from referee.rules.variants.elimination import Elimination, related


def rig(hands, up=None, reserved=None, aux=None, stock=(), dead=(), round_no=1, **options):
    """An elimination game at the start of a round: one hand per string (codes), every seat active."""
    g = Elimination(len(hands), options, seed=1)
    n = len(hands)
    zones = {"hands": hands, "up": up, "reserved": reserved, "aux": aux}
    for name, given in zones.items():
        setattr(g, name, [z.split() for z in (given or [""] * n)])
    g.stock, g.dead, g.round_no, g.rounds_played = list(stock), list(dead), round_no, 0
    g.publish()
    g.start_round()
    return g


def show(*cards, kind=None):
    return [Meld(list(cards), kind=kind)]


def answer(g, answers):
    """Each seat asked answers in seat order: a list of cards to show, or None for `pass`."""
    for seat in g.to_act():
        cards = answers[seat]
        g.apply(seat, [Pass()] if cards is None else show(*cards.split()))


def events(g, seat):
    return g.events_since(seat, 0)[0]


def last(g, kind):
    return [e.data for e in g.log if e.data["type"] == kind][-1]


FILL = "2C 9D"  # two cards unrelated to the ones the tests show


# --- Worked example 1 and the relatedness rule ---------------------------------------------------------------
@pytest.mark.parametrize("pair", ["QC QS", "4H 5H", "TS JS", "AD KD", "AC AH"])
def test_legal_first_round_pairs_are_accepted(pair):
    g = rig([f"{pair} {FILL} 7S", f"6H 6D {FILL} KC"])
    g.apply(0, show(*pair.split()))
    g.apply(1, show("6H", "6D"))
    assert set(pair.split()) <= set(g.up[0])


@pytest.mark.parametrize("pair", ["AD 2D", "4H 6H", "4H 5D"])
def test_unrelated_first_round_pairs_are_refused(pair):
    g = rig([f"{pair} KS 7C 9S", "6H 6D 2C 9D KC"])
    assert illegal(g, 0, show(*pair.split())) == "show.unrelated"


def test_the_ace_relates_to_its_king_and_to_aces_only():
    assert related("AD", "KD") and related("AD", "AS")
    assert not related("AD", "2D") and not related("AD", "KS") and not related("KD", "2D")


# --- Worked example 2: round 2 --------------------------------------------------------------------------------
@pytest.mark.parametrize("pair", ["5H 7D", "KC KS"])
def test_round_two_takes_two_related_cards_or_two_each_related_to_the_first_show(pair):
    g = rig([f"{pair} 2C 9S JD TD", "3S 4S 2D 9C QH QS"], up=["6H 7H", "5C 5D"], round_no=2)
    g.apply(0, show(*pair.split()))


def test_round_two_refuses_a_card_related_to_nothing():
    g = rig(["5H 9C 2C JD TD KS", "3S 4S 2D 9H QH QS"], up=["6H 7H", "5C 5D"], round_no=2)
    assert illegal(g, 0, show("5H", "9C")) == "show.unrelated"


# --- Worked example 3: points of an eliminated player -----------------------------------------------------------
@pytest.mark.parametrize("round_no,count,points", [(2, 2, 2), (3, 4, 4), (4, 5, 5)])
def test_an_eliminated_player_scores_his_face_up_cards(round_no, count, points):
    up = [["3D", "4D", "5D", "6D", "7D"][:count], ["6H", "7H", "8H", "9H", "TH"][:count]]
    g = rig(["3S 4S 2D", "KD QC 2C"], up=[" ".join(u) for u in up], round_no=round_no)
    answer(g, {0: "3S 4S" if round_no == 2 else "3S", 1: None})  # seat 1 cannot, and has no auxiliary card
    deal = g.deal_results[-1]
    assert deal["eliminated_order"] == [1] and deal["scores"][1] == points


# --- Worked example 4: the winner's score ------------------------------------------------------------------------
@pytest.mark.parametrize("unused,score", [(0, 13), (1, 22), (2, 40)])
def test_the_winner_scores_face_up_times_two_per_unused_auxiliary_card_plus_the_players(unused, score):
    up = "2H 3H 4H 5H 6H 7H 8H 9H"  # 8 face up; the 9th is shown now
    others = ["JC 4D", "QD 8S", "KS 3C"]
    g = rig(["TH KD", *others], up=[up, "", "", ""], aux=[" ".join(["AS", "AH"][:unused]), "", "", ""], round_no=9)
    answer(g, {0: "TH", 1: None, 2: None, 3: None})
    deal = g.deal_results[-1]
    assert deal["winner"] == 0 and deal["scores"][0] == score  # 9 x m + 4 players x B (1)
    assert deal["scores"][1:] == [0, 0, 0]


# --- Worked example 5: the mandatory cards ------------------------------------------------------------------------
def test_each_player_gets_eleven_mandatory_cards_by_round_three():
    stock = [
        "3C",
        "3D",
        "QD",
        "8D",
        "KD",
        "JC",
        "9H",
        "5S",
    ]  # dealt from the end: seat 1 gets 5S 9H JC (after round 2: QD)
    g = rig(["4H 5H 2S 2D TC", "6S 6D 7C 8C AS"], aux=["AH KH", "AC KC"], stock=stock)
    answer(g, {0: "4H 5H", 1: "6S 6D"})
    assert g.round_no == 2 and len(g.hands[0]) == 6
    answer(g, {0: "2S 2D", 1: "7C 8C"})
    assert g.round_no == 3
    for s in (0, 1):
        assert len(g.hands[s]) + len(g.aux[s]) + len(g.up[s]) + len(g.reserved[s]) == 11


# --- illegal answers ----------------------------------------------------------------------------------------------
def test_cannot_is_refused_while_a_show_exists():
    g = rig(["4H 5H 2C 9D KS", "6H 6D 2D 9C KC"])
    assert illegal(g, 0, [Pass()]) == "show.cannot"
    assert Pass() not in g.decision(0).options


def test_cannot_is_the_only_option_when_no_show_exists():
    g = rig(["4H 6C 8D TS QH", "6H 6D 2D 9C KC"])
    assert g.decision(0).options == [Pass()]
    g.apply(0, [Pass()])


@pytest.mark.parametrize(
    "ops,rule",
    [
        (show("4H", "4D"), "hand.missing-card"),
        (show("4H", "4H"), "show.duplicate"),
        (show("4H"), "show.count"),
        (show("4H", "5H", "2C"), "show.count"),
        (show("4H", "5H", kind="set"), "show.kind"),
        (show("4H", "5H") + show("4H", "5H"), "show.answer"),
        ([Claim()], "show.answer"),
        (show("4H", "5H", kind="new-group"), "new-group.too-early"),
    ],
)
def test_each_illegal_round_one_answer_names_its_rule(ops, rule):
    g = rig(["4H 5H 2C 9D KS", "6H 6D 2D 9C KC"])
    assert illegal(g, 0, ops) == rule


def new_group_position(up="6H 7H 8H 9H"):
    """Round 3, seat 0 with `up` face up; its hand holds TH (related) and KC KS QC (a new group)."""
    return rig(["TH KC KS QC 2D", "3S 3D 4S"], up=[up, "3C 3H 4C 4H"], round_no=3)


@pytest.mark.parametrize(
    "ops,rule",
    [
        (show("KC"), "show.unrelated"),
        (show("KC", kind="new-group"), "new-group.reserve"),
        (show("TH", "9H", kind="new-group"), "hand.missing-card"),
        (show("TH", "JH", kind="new-group"), "hand.missing-card"),
        (show("TH", "KS", kind="new-group"), "new-group.related"),
        (show("KC", "2D", kind="new-group"), "new-group.unrelated"),
    ],
)
def test_each_illegal_later_answer_names_its_rule(ops, rule):
    assert illegal(new_group_position(), 0, ops) == rule


def test_a_new_group_needs_four_face_up_cards():
    g = rig(["TH KC KS QC 2D", "3S 3D 4S"], up=["6H 7H 8H", "3C 3H 4C"], round_no=3)
    assert illegal(g, 0, show("KC", "KS", kind="new-group")) == "new-group.too-early"


def test_a_new_group_turns_up_one_card_and_reserves_the_rest_which_may_be_shown_later():
    g = new_group_position()
    assert Meld(["KC", "KS", "QC"], kind="new-group") in g.decision(0).options  # all related cards reserved
    g.apply(0, show("KC", "KS", "QC", kind="new-group"))
    g.apply(1, show("3S"))
    assert g.up[0][-1] == "KC" and sorted(g.reserved[0]) == ["KS", "QC"]
    assert g.view(1)["reserved_counts"] == [2, 0] and "KS" not in str(g.view(1))
    g.apply(0, show("KS"))  # a reserved card, related through KC
    g.apply(1, show("3D"))
    assert g.reserved[0] == ["QC"] and g.up[0][-1] == "KS"


# --- sealing --------------------------------------------------------------------------------------------------------
def three_seats():
    """Seat 0 can show 4H 5H or 5H 6H; seat 1 can show 6D 6C; seat 2 cannot (and has an auxiliary card)."""
    return rig(["4H 5H 6H 2C 9D", "6D 6C 2D 9C KC", "3S 7D JC AH 9S"], aux=["", "", "8S"])


def seen_by(g, seats):
    return [(g.view(s), events(g, s), g.to_act(), [g.decision(x) for x in g.to_act()]) for s in seats]


def test_no_answer_is_seen_by_another_seat_before_the_round_resolves():
    a, b = three_seats(), three_seats()
    a.apply(0, show("4H", "5H"))
    b.apply(0, show("5H", "6H"))
    assert seen_by(a, [1, 2]) == seen_by(b, [1, 2])
    for g in (a, b):
        g.apply(1, show("6D", "6C"))
        g.apply(2, [Pass()])
    # seat 2 is in the auxiliary step: it learns that someone can show, nothing of who or what
    assert a.to_act() == [2] and seen_by(a, [1, 2]) == seen_by(b, [1, 2])
    for g in (a, b):
        g.apply(2, [Claim()])
        assert g.to_act() == [2] and g.decision(2).phase == "after-auxiliary"
    assert seen_by(a, [0, 1]) == seen_by(b, [0, 1])  # the take is private until the reveal
    for g in (a, b):
        g.apply(2, show("8S", "9S"))
    assert a.view(1)["face_up"] != b.view(1)["face_up"]  # once revealed, the shows differ


def test_a_seat_that_answered_learns_nothing_of_the_auxiliary_step():
    g = three_seats()
    answer(g, {0: "4H 5H", 1: "6D 6C", 2: None})
    before = copy.deepcopy(g.view(0)), len(events(g, 0))
    g.apply(2, [Claim()])
    assert (g.view(0), len(events(g, 0))) == before
    assert g.view(0)["auxiliary_counts"] == [0, 0, 1] and g.view(2)["auxiliary"] == 0


# --- the auxiliary step -------------------------------------------------------------------------------------------
def test_a_player_who_cannot_takes_an_auxiliary_card_then_must_show():
    g = three_seats()
    answer(g, {0: "4H 5H", 1: "6D 6C", 2: None})
    d = g.decision(2)
    assert (d.kind, d.phase, d.options) == ("show", "auxiliary", [Claim(), Pass()])
    g.apply(2, [Claim()])
    assert g.view(2)["auxiliary_taken"] == ["8S"] and "8S" in g.view(2)["hand"]
    assert illegal(g, 2, [Pass()]) == "show.cannot"
    g.apply(2, show("8S", "9S"))
    shows = last(g, "shows")
    assert [s["seat"] for s in shows["shows"]] == [0, 1, 2] and shows["auxiliary_taken"] == [0, 0, 1]
    assert shows["eliminated"] == [] and g.round_no == 2


def test_declining_an_auxiliary_card_is_elimination():
    g = three_seats()
    answer(g, {0: "4H 5H", 1: "6D 6C", 2: None})
    g.apply(2, [Pass()])
    assert g.out == (2,) and g.deal_scores[2] == 0 and last(g, "shows")["eliminated"] == [2]


def test_a_player_still_unable_after_his_auxiliary_cards_is_eliminated():
    g = rig(["4H 5H 2C 9D KS", "3S 7D JC AH 9S"], aux=["", "2H 4C"])
    answer(g, {0: "4H 5H", 1: None})
    g.apply(1, [Claim()])  # 4C: still no pair, so asked for the next auxiliary card
    assert g.decision(1).phase == "auxiliary" and g.hands[1][-1] == "4C"
    g.apply(1, [Claim()])  # 2H (an ace is not related to a 2): still nothing
    deal = g.deal_results[-1]
    assert deal["eliminated_order"] == [1] and deal["winner"] == 0


def test_a_player_without_auxiliary_cards_who_cannot_is_eliminated_at_once():
    g = rig(["4H 5H 2C 9D KS", "3S 7D JC AH 9S", "6D 6C 2D 9C KC"])
    answer(g, {0: "4H 5H", 1: None, 2: "6D 6C"})
    assert g.out == (1,) and g.to_act() == [0, 2]


# --- nobody can show --------------------------------------------------------------------------------------------------
def test_when_nobody_can_show_everyone_gets_a_card_auxiliary_first_and_the_round_repeats():
    g = rig(["3S 7D JC AH 9S", "4H 6C 8D TS QH"], aux=["5S", ""], stock=["KD"])
    answer(g, {0: None, 1: None})
    assert g.out == () and g.round_no == 1 and g.to_act() == [0, 1]
    assert g.hands[0][-1] == "5S" and g.aux[0] == [] and g.hands[1][-1] == "KD"
    assert g.view(1)["auxiliary_counts"] == [0, 0]
    assert not any(e.get("card") or e.get("cards") for e in events(g, 1) if e.get("seat") == 0)


def test_the_stock_is_rebuilt_from_the_eliminated_players_cards():
    dead = ["2D", "3D", "4D", "5D", "6D"]
    g = rig(["3S 7D JC AH 9S", "4H 6C 8D TS QH"], dead=dead)
    answer(g, {0: None, 1: None})
    assert last(g, "rebuild") == {"type": "rebuild", "stock": 5} and g.dead == []
    assert sorted(g.stock + [g.hands[0][-1], g.hands[1][-1]]) == sorted(dead)
    other = rig(["3S 7D JC AH 9S", "4H 6C 8D TS QH"], dead=dead)
    answer(other, {0: None, 1: None})
    assert other.stock == g.stock  # a keyed chance step: the same game seed shuffles the same way


def test_with_all_cards_in_use_the_active_hands_are_dealt_again_equally():
    g = rig(["3S 7D JC AH 9S", "4H 6C 8D TS QH 2C"], up=["KH KD", "KC KS"])
    answer(g, {0: None, 1: None})
    assert last(g, "redeal") == {"type": "redeal", "each": 5, "stock": 1}
    assert len(g.hands[0]) == len(g.hands[1]) == 5 and len(g.stock) == 1
    assert g.up == [["KH", "KD"], ["KC", "KS"]] and g.to_act() == [0, 1] and g.round_no == 1
    hands = {e["seat"]: e.get("hand") for e in events(g, 0) if e["type"] == "redeal_hand"}
    assert hands == {0: g.hands[0], 1: None}  # each seat is told its own new hand only


def test_past_max_redeals_the_deal_ends_without_a_winner_and_without_the_bonus():
    g = rig(["3S 7D", "4H 6C"], up=["KH KD", "KC KS"], max_redeals=2)
    g.bonus = 3
    for _ in range(3):  # two re-deals of unrelated cards, then the cap
        g.hands = [["3S", "7D"], ["4H", "6C"]]
        answer(g, {0: None, 1: None})
    deal = g.deal_results[-1]
    assert deal["end"] == "max_redeals" and deal["winner"] is None and deal["scores"] == [2, 2] and g.bonus == 1


def test_max_turns_per_deal_counts_rounds():
    g = rig(["3S 7D JC AH 9S", "4H 6C 8D TS QH"], stock=["2H"] * 10, max_turns_per_deal=3)
    for _ in range(3):
        g.hands = [["3S", "7D"], ["4H", "6C"]]
        answer(g, {0: None, 1: None})
    assert g.deal_results[-1]["end"] == "max_turns_per_deal"


# --- the end of a deal and the bonus -------------------------------------------------------------------------------
def everything_up(bonus):
    """Two seats holding one card each, related to their face-up cards, and every other card face up."""
    deck = [r + s for s in "SHDC" for r in "A23456789TJQK"]
    g = rig(["KS", "KH"], up=[" ".join(deck[:12] + deck[26:39]), " ".join(deck[13:25] + deck[39:])], round_no=20)
    g.bonus = bonus
    return g


def test_everything_turned_up_scores_face_up_cards_and_raises_the_next_bonus():
    g = everything_up(bonus=1)
    answer(g, {0: "KS", 1: "KH"})
    deal = g.deal_results[-1]
    assert deal["end"] == "everything-up" and deal["winner"] is None and deal["scores"] == [26, 26]
    assert g.bonus == 2 and g.view(0)["bonus"] == 2
    g = everything_up(bonus=2)
    answer(g, {0: "KS", 1: "KH"})
    assert g.bonus == 3


def test_the_bonus_multiplies_the_players_and_resets_after_a_winner():
    g = rig(["TH KD", "JC 4D"], up=["9H", ""], round_no=3)
    g.bonus = 3
    answer(g, {0: "TH", 1: None})
    assert g.deal_results[-1]["scores"][0] == 2 * 1 + 2 * 3 and g.bonus == 1  # 2 face up, 2 players x B


def test_the_winner_lays_down_every_related_card_in_a_chain():
    g = rig(["6H 7C 2S", "JC 4D"], up=["5H", ""], reserved=["7H KD", ""], round_no=3)
    answer(g, {0: "6H", 1: None})
    assert last(g, "lay_down")["cards"] == ["7H", "7C"]  # 7H through 6H, then 7C through 7H; not 2S or KD
    assert g.deal_results[-1]["face_up"][0] == ["5H", "6H", "7H", "7C"]


def test_the_match_goes_on_while_the_top_is_shared_and_ends_at_a_single_leader():
    g = Elimination(3, {}, seed=1)
    g.totals = [104, 104, 90]
    assert not g.match_ended()
    g.totals = [104, 110, 90]
    assert g.match_ended()


# --- faults ---------------------------------------------------------------------------------------------------------
def test_a_faulted_seat_is_treated_as_cannot_from_then_on():
    g = three_seats()
    fallback = g.fallback(0)
    assert fallback == [Bid("resign")]
    g.apply(0, fallback)  # it could show, but Ambiguity 15 treats it as "cannot"
    answer(g, {1: "6D 6C", 2: None})
    g.apply(2, [Claim()])
    g.apply(2, show("8S", "9S"))
    assert g.out == (0,) and 0 not in g.to_act()


# --- views ----------------------------------------------------------------------------------------------------------
def test_nobody_sees_the_auxiliary_cards_nor_another_hand():
    g = rig(["4H 5H 2C 9D KS", "6H 6D 2D 9C KC"], aux=["AS AH", "AC AD"])
    v = g.view(0)
    assert v["auxiliary"] == 2 and v["auxiliary_counts"] == [2, 2] and v["hand_sizes"] == [5, 5]
    assert not any(f'"{c}"' in json.dumps(v) for c in ("AS", "AH", "AC", "AD", "6H"))


# --- from the command line ------------------------------------------------------------------------------------------
def test_romis_eval_gives_the_groups_of_related_cards():
    from typer.testing import CliRunner

    from referee.cli import app

    r = CliRunner().invoke(app, ["eval", "elimination", "--hand", "6H 7H 8C 8S KD AD 2C 9D", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == {
        "melds": [["6H", "7H"], ["8C", "8S"], ["AD", "KD"]],
        "deadwood": ["2C", "9D"],
        "points": 6,
        "deadwood_points": 2,
    }


@pytest.mark.e2e
def test_a_faulted_seat_is_played_as_cannot_and_the_match_replays(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root, record = Path(__file__).resolve().parent.parent, tmp_path / "r.jsonl"
    bots = ["python -m sample_bots.greedy", "python -m sample_bots.random", "python -m sample_bots.bad.illegal"]
    args = ["play", "elimination", *(a for b in bots for a in ("--bot", b)), "--seed", "4", "--json"]
    r = subprocess.run(
        [sys.executable, "-m", "referee", *args, "--record", str(record)],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    seats = json.loads(r.stdout)["seats"]
    assert [s["fault"] is None for s in seats] == [True, True, False]
    lines = [json.loads(x) for x in record.read_text().splitlines()]
    assert any(x.get("verdict") == "fallback" and x["ops"] == [{"op": "bid", "value": "resign"}] for x in lines)
    replay = subprocess.run(
        [sys.executable, "-m", "referee", "replay", str(record)], cwd=root, capture_output=True, text=True, timeout=300
    )
    assert replay.returncode == 0, replay.stderr


def test_a_match_in_which_every_seat_has_resigned_ends():
    g = Elimination(3, {}, seed=1)
    for seat in g.to_act():
        g.apply(seat, [Bid("resign")])
    assert g.is_over() and g.deal_results[-1]["end"] == "resigned"


def test_a_round_cap_of_zero_still_plays_one_round_per_deal():
    g = Elimination(2, {"max_turns_per_deal": 0}, seed=1)
    assert g.to_act() == [0, 1]
    asked = 0
    while not g.deal_results:  # the round's steps (an auxiliary step among them), then the cap
        for seat in g.to_act():
            asked += 1
            g.apply(seat, g.decision(seat).options[:1])
    assert g.deal_results[-1]["end"] in ("max_turns_per_deal", "winner") and asked <= 6
