"""Panguingue (rules/panguingue.md): the worked examples, conditions and additions in chips, the two take rules,
lay-offs on the next player only, forcing, participation, going out, the foot, direction, `romis eval`, and greedy
against random."""

from collections import Counter

import pytest

from protocol.messages import Bid, Discard, Draw, LayOff, Meld, Pass, Rearrange
from referee.cli import run
from referee.rules.errors import IllegalAction
from referee.rules.melds import new_meld
from referee.rules.variants.panguingue import PANGUINGUE_MELDS, Panguingue, condition, meld_type
from sample_bots.brain import Brain


def H(text: str) -> list[str]:
    return text.split()


def ready(n: int = 3, seed: int = 0, joining: int | None = None, **options) -> Panguingue:
    """A game whose first `joining` seats asked (default: all) take part; the rest sit out."""
    game = Panguingue(n, options, seed)
    for i in range(n):
        game.apply(game.to_act()[0], [Bid("join") if joining is None or i < joining else Pass()])
    return game


def staged(game: Panguingue, seat: int, hand: str, melds: dict[int, list[str]] | None = None, pile: str = "",
           stock_top: str = "") -> Panguingue:  # fmt: skip
    """`seat` to draw, holding `hand`, with the given melds on the table (by owner), the discard pile, and the card
    on top of the stock."""
    game.hands[seat] = H(hand)
    game.table = [new_meld(H(m), PANGUINGUE_MELDS, owner) for owner, ms in (melds or {}).items() for m in ms]
    game.piles = [H(pile)]
    if stock_top:
        game.stock.append(stock_top)
    game.turn, game.phase, game.stage, game.asking, game.free_top = seat, "draw", None, None, False
    game.new_turn_state()
    return game


def others_paid(game: Panguingue, before: tuple[int, ...], seat: int) -> list[int]:
    """What each seat gained since `before`."""
    return [c - b for c, b in zip(game.ledger.chips, before)]


# --- worked examples 1-7 -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "cards,kind,chips",
    [
        ("3S 3C 3H", "mixed-set", 1),  # example 1
        ("3C 3C 3C 3D 3H", "mixed-set", 1),  # example 2
        ("KD KD KD", "suit-set", 1),  # example 3
        ("KS KS KS", "suit-set", 2),  # example 3: spades would be 2
        ("QC QH QD", "mixed-set", 0),  # not a condition (Ambiguity 8)
        ("5D 5D 5D", "suit-set", 2),
        ("5S 5S 5S", "suit-set", 4),
        ("7D JD QD", "run", 1),  # 7 and J are adjacent
        ("AS 2S 3S", "run", 2),
    ],
)
def test_examples_1_to_3_and_the_condition_table(cards: str, kind: str, chips: int) -> None:
    meld = new_meld(H(cards), PANGUINGUE_MELDS)
    assert (meld_type(meld), condition(meld)) == (kind, chips)


def test_example1_melding_a_condition_collects_one_chip_from_each_other_participant() -> None:
    game = staged(ready(3), 0, "3S 3C 3H 4D 6C 6C 7H JH AS KC")
    before = game.ledger.chips
    game.apply(0, [Draw("stock")])
    game.apply(0, [Meld(H("3S 3C 3H"))])
    assert others_paid(game, before, 0) == [2, -1, -1]
    chips = [e for e in game.events_since(1, 0)[0] if e["type"] == "chips"][-1]
    assert {(m["from"], m["to"], m["amount"], m["reason"]) for m in chips["moves"]} == {
        (1, 0, 1, "condition"),
        (2, 0, 1, "condition"),
    }


@pytest.mark.parametrize(
    "cards,rule",
    [
        ("3C 3C 3D", "meld.mixed-set-repeated-suit"),  # Valid combinations: invalid sets
        ("3C 3C 3D 3H", "meld.mixed-set-repeated-suit"),
        ("6D 7D 8D", "meld.invalid"),  # no 8s in the pack
        ("QD KD AD", "run.invalid"),  # the ace is low only, no wrap (Ambiguity 17)
        ("4D 4D 5D", "run.invalid"),
    ],
)
def test_invalid_combinations_are_rejected_with_their_rule(cards: str, rule: str) -> None:
    if rule == "meld.invalid":  # an 8 is not even a card of the deck
        assert "8D" not in Panguingue(2, {}, 0).make_deck()
        return
    with pytest.raises(IllegalAction) as e:
        new_meld(H(cards), PANGUINGUE_MELDS)
    assert e.value.rule == rule


def test_sequences_run_7_j_and_stop_at_10_cards() -> None:
    assert meld_type(new_meld(H("5D 6D 7D JD"), PANGUINGUE_MELDS)) == "run"
    assert len(new_meld(H("AC 2C 3C 4C 5C 6C 7C JC QC KC"), PANGUINGUE_MELDS).cards) == 10


def test_example4_another_suits_queen_on_a_one_suit_set_is_illegal() -> None:
    game = staged(ready(3), 0, "QH 4D 6C", {0: ["QD QD QD"]})
    game.apply(0, [Draw("stock")])
    with pytest.raises(IllegalAction) as e:
        game.apply(0, [LayOff(0, ["QH"])])
    assert e.value.rule == "extend.changes-type"


def test_a_mixed_set_of_3_takes_only_a_new_suit_unless_it_reaches_5() -> None:
    game = staged(ready(3), 0, "3S 3D 3D 3H 6C", {0: ["3S 3C 3H"]})
    game.apply(0, [Draw("stock")])
    with pytest.raises(IllegalAction):
        game.apply(0, [LayOff(0, ["3S"])])
    before = game.ledger.chips
    game.apply(0, [LayOff(0, ["3D", "3D"])])  # 5 cards at once: repeated suits allowed
    assert others_paid(game, before, 0) == [4, -2, -2]


def test_example5_split_with_two_added_cards_collects_2_chips_from_each() -> None:
    game = staged(ready(3), 0, "QD 4D 6C 2H", {0: ["JD 7D 6D 5D"]})
    game.apply(0, [Draw("stock")])
    before = game.ledger.chips
    game.apply(0, [LayOff(0, ["QD", "4D"]), Rearrange([0], [Meld(H("QD JD 7D")), Meld(H("6D 5D 4D"))])])
    assert others_paid(game, before, 0) == [4, -2, -2]  # the split parts are not new conditions
    assert [sorted(m.cards) for m in game.table] == [sorted(H("QD JD 7D")), sorted(H("6D 5D 4D"))]


def test_a_split_part_keeps_the_melds_type() -> None:
    game = staged(ready(3), 0, "6C 2H", {0: ["3C 3C 3C 3D 3H 3S"]})
    game.apply(0, [Draw("stock")])
    with pytest.raises(IllegalAction) as e:  # a mixed set cannot become a one-suit set
        game.apply(0, [Rearrange([0], [Meld(H("3D 3H 3S")), Meld(H("3C 3C 3C"))])])
    assert e.value.rule == "extend.changes-type"


def test_taking_one_card_out_for_a_new_combination_pays_its_condition() -> None:
    game = staged(ready(3), 0, "5D 5H 6C", {0: ["5S 6S 7S JS"]})
    game.apply(0, [Draw("stock")])
    before = game.ledger.chips
    game.apply(0, [Rearrange([0], [Meld(H("6S 7S JS")), Meld(H("5S 5D 5H"))])])  # a mixed set of valuable 5s
    assert others_paid(game, before, 0) == [2, -1, -1]
    with pytest.raises(IllegalAction) as e:  # the reduced meld must keep 3 cards
        game.apply(0, [Rearrange([0], [Meld(H("6S 7S")), Meld(H("JS QS KS"))])])
    assert e.value.rule == "rearrange.remainder"


def test_example6_five_participants_spade_fives_collect_16_then_8() -> None:
    game = staged(ready(5), 0, "5S 5S 5S 5S 6C 6C 2H")
    game.apply(0, [Draw("stock")])
    before = game.ledger.chips
    game.apply(0, [Meld(H("5S 5S 5S"))])
    assert others_paid(game, before, 0) == [16, -4, -4, -4, -4]
    game.apply(0, [LayOff(0, ["5S"])])
    assert others_paid(game, before, 0) == [24, -6, -6, -6, -6]


def test_example7_320_cards_a_foot_of_160_and_10_each_dealt_5_and_5() -> None:
    game = Panguingue(6, {}, 0)
    assert len(game.make_deck()) == 320 and set(Counter(game.make_deck()).values()) == {8}
    assert len(game.foot) == 160 and len(game.cards_in_play()) == 320
    assert [len(h) for h in game.hands] == [10] * 6 and len(game.stock) == 160 - 60
    assert game.packet == 5 and game.piles == [[]]  # no starter (Ambiguity 3)


# --- the take rules, lay-offs on the next player, the re-discard ban ------------------------------------------------
def test_the_top_discard_is_taken_only_to_use_it_at_once() -> None:
    game = staged(ready(3), 0, "4D 5D 6C 6C 6C 2H", pile="3S 3D")
    assert game.decision(0).options == [Draw("stock")]
    for ops in ([Draw("discard")], [Draw("discard"), Meld(H("6C 6C 6C"))]):
        with pytest.raises(IllegalAction) as e:
            game.apply(0, ops)
        assert e.value.rule == "take.not-allowed"
    before = game.ledger.chips
    game.apply(0, [Draw("discard"), Meld(H("3D 4D 5D"))])  # rule 2(b)(ii): a new own meld
    assert others_paid(game, before, 0) == [2, -1, -1] and game.phase == "play"


def test_the_previous_players_unused_stock_card_may_be_taken_freely_but_not_discarded_again() -> None:
    game = staged(ready(3), 0, "4D 5D 6C 6C 2H", stock_top="KH")
    game.apply(0, [Draw("stock")])
    game.apply(0, [Discard("KH")])  # the stock card, discarded unused
    nxt = game.turn
    assert game.decision(nxt).constraints["free_take"] and Draw("discard") in game.decision(nxt).options
    game.hands[nxt] = H("KH 2C 4S")
    game.apply(nxt, [Draw("discard")])
    with pytest.raises(IllegalAction) as e:
        game.apply(nxt, [Discard("KH")])
    assert e.value.rule == "discard.taken-card"
    game.hands[nxt] = ["KH", "KH"]  # Ambiguity 25: only copies of the taken card left
    game.apply(nxt, [Discard("KH")])


def test_a_used_discard_or_a_played_stock_card_is_not_a_free_take() -> None:
    game = staged(ready(3), 0, "4D 5D 6C 6C 2H", stock_top="KH")
    game.apply(0, [Draw("stock")])
    game.apply(0, [Discard("2H")])  # not the card drawn
    assert not game.decision(game.turn).constraints["free_take"]


def test_the_drawn_card_may_go_on_the_next_players_meld_only_for_no_payment() -> None:
    game = ready(3)
    seat = game.turn
    nxt, prev = game.next_turn(seat), game.next_turn(game.next_turn(seat))
    staged(game, seat, "4C 2H", {nxt: ["5C 6C 7C"], prev: ["5H 6H 7H"]}, stock_top="JC")
    game.apply(seat, [Draw("stock")])
    with pytest.raises(IllegalAction) as e:
        game.apply(seat, [LayOff(0, ["4C"])])  # not the drawn card
    assert e.value.rule == "layoff.not-drawn-card"
    game.hands[seat].append("4H")
    with pytest.raises(IllegalAction) as e:
        game.apply(seat, [LayOff(1, ["4H"])])  # the previous player's meld
    assert e.value.rule == "layoff.not-next-player"
    before = game.ledger.chips
    game.apply(seat, [LayOff(0, ["JC"])])
    assert game.ledger.chips == before and game.table[0].cards[-1] == "JC"


def test_the_forced_card_is_the_draw_and_pays_the_addition() -> None:
    game = ready(3)
    seat = game.turn
    after = [s for s in game.order_from(game.next_seat(seat)) if s != seat]
    staged(game, seat, "2H 4C", {seat: ["5C 6C 7C"]}, pile="JC")
    game.begin_turn()
    assert game.stage == "demand" and game.to_act() == [after[0]]
    assert game.decision(after[0]).options == [Bid("demand"), Pass()]
    game.apply(after[0], [Pass()])
    assert game.to_act() == [after[1]]
    game.apply(after[1], [Bid("demand")])  # one demand is enough
    assert game.to_act() == [seat] and game.decision(seat).phase == "forced"
    assert game.decision(seat).options == [LayOff(0, ["JC"])]
    with pytest.raises(IllegalAction) as e:
        game.apply(seat, [Draw("stock")])
    assert e.value.rule == "force.must-take"
    before = game.ledger.chips
    game.apply(seat, [LayOff(0, ["JC"]), Discard("2H")])
    assert others_paid(game, before, seat) == [2 if s == seat else -1 for s in range(3)]


def test_nobody_demanding_leaves_the_ordinary_draw() -> None:
    game = ready(3)
    seat = game.turn
    staged(game, seat, "2H 4C", {seat: ["5C 6C 7C"]}, pile="JC")
    game.begin_turn()
    for s in list(game.order_from(game.next_seat(seat)))[:2]:
        game.apply(s, [Pass()])
    assert game.stage is None and game.to_act() == [seat] and game.decision(seat).phase == "draw"


# --- participation, going out, the end of a deal --------------------------------------------------------------------
def test_participation_is_asked_in_turn_order_and_sitters_out_take_no_turns() -> None:
    game = Panguingue(4, {}, 3)
    asked = []
    for i in range(4):
        seat = game.to_act()[0]
        asked.append(seat)
        game.apply(seat, [Bid("join") if i != 1 else Pass()])
    assert asked == game.order_from(game.next_seat(game.dealer))
    sitter = asked[1]
    assert sitter not in game.joined and game.ledger.chips[sitter] == 0
    with pytest.raises(IllegalAction) as e:
        Panguingue(4, {}, 3).apply(asked[0], [Draw("stock")])
    assert e.value.rule == "join.answer"
    for _ in range(30):
        assert game.turn != sitter
        game.apply(game.turn, [Draw("stock")])
        game.apply(game.turn, [Discard(game.hands[game.turn][0])])


def test_going_out_wins_the_bank_and_discarding_the_last_card_does_not() -> None:
    game = staged(ready(3), 0, "5C", {0: ["2C 3C 4C"]}, stock_top="KH")
    game.apply(0, [Draw("stock")])
    game.apply(0, [LayOff(0, ["5C"]), Discard("KH")])  # hand empty after a discard: still in (Ambiguity 13)
    assert game.deal_no == 0 and game.hands[0] == []
    while game.turn != 0:
        game.apply(game.turn, [Draw("stock")])
        game.apply(game.turn, [Discard(game.hands[game.turn][0])])
    game.stock.append("6C")
    game.apply(0, [Draw("stock")])
    before = game.ledger
    game.apply(0, [LayOff(0, ["6C"])])  # the drawn card used: out, with no discard
    deal = game.result()["deals"][0]
    assert deal["winner"] == 0 and deal["bank"] == 0
    assert game.ledger.chips[0] == before.chips[0] + 2 + before.bank  # the addition, then the bank


def test_the_winner_leads_the_next_deal_and_otherwise_the_deal_passes_on() -> None:
    game = ready(3)
    assert game.next_dealer(1) == (1 - game.step) % 3 and game.next_turn(game.next_dealer(1)) == 1
    assert game.next_dealer(None) == game.next_seat(game.dealer)


def test_stock_then_foot_then_rebuild_then_no_winner_with_the_bank_carried_over() -> None:
    game = ready(3, match_deals=3, max_stock_rebuilds=1)

    def turn_ends_with_an_empty_stock() -> None:
        game.stock, seat = [], game.turn
        game.hands[seat].append("KH")
        game.phase = "play"
        game.apply(seat, [Discard("KH")])

    turn_ends_with_an_empty_stock()
    assert game.foot == [] and len(game.stock) == 160 and game.rebuilds == 0  # the foot is not a rebuild
    turn_ends_with_an_empty_stock()
    assert game.rebuilds == 1 and len(game.stock) == 1 and game.piles[0] == ["KH"]  # turned over, top card kept
    turn_ends_with_an_empty_stock()  # no rebuild left: the deal ends without a winner
    deal = game.result()["deals"][0]
    assert deal["winner"] is None and deal["bank"] == 6 and game.ledger.bank == 6  # the bank carries over


def test_a_deal_capped_by_max_turns_has_no_winner_and_keeps_the_bank() -> None:
    game = ready(2, match_deals=2, max_turns_per_deal=2)
    for _ in range(2):
        game.apply(game.turn, [Draw("stock")])
        game.apply(game.turn, [Discard(game.hands[game.turn][0])])
    assert game.result()["deals"][0]["winner"] is None and game.ledger.bank == 4


def test_the_deal_after_reshuffles_used_cards_with_the_stock_and_keeps_an_unused_foot() -> None:
    game = ready(2, match_deals=3, max_turns_per_deal=2)
    foot = list(game.foot)
    for _ in range(2):
        game.apply(game.turn, [Draw("stock")])
        game.apply(game.turn, [Discard(game.hands[game.turn][0])])
    assert game.deal_no == 1 and game.foot == foot and len(game.cards_in_play()) == 320


# --- direction, options, eval ---------------------------------------------------------------------------------------
def test_direction_changes_who_plays_after_whom_and_the_match() -> None:
    ccw, cw = Panguingue(4, {}, 5), Panguingue(4, {"direction": "cw"}, 5)
    assert ccw.dealer == cw.dealer
    assert ccw.to_act() == [(ccw.dealer - 1) % 4] and cw.to_act() == [(cw.dealer + 1) % 4]
    assert ccw.order_from(0) == [0, 3, 2, 1] and cw.order_from(0) == [0, 1, 2, 3]
    results = []
    for game in (ccw, cw):
        brains = [Brain("panguingue", 4, game.opts, greedy=True, seed=s) for s in range(4)]
        while not game.is_over():
            seat = game.to_act()[0]
            game.apply(seat, brains[seat].choose(game.decision(seat), game.view(seat)))
        results.append(game.result()["totals"])
    assert results[0] != results[1]


def test_every_option_of_the_rules_file_is_an_option() -> None:
    opts = Panguingue.all_options()
    for name in ("direction", "ante", "match_deals", "foot_size", "max_stock_rebuilds", "max_turns_per_deal"):
        assert name in opts
    assert opts["direction"].default == "ccw" and opts["ante"].default == 2 and opts["match_deals"].default == 10
    assert opts["foot_size"].default == 160 and opts["max_stock_rebuilds"].default == 20
    assert opts["max_turns_per_deal"].default == 1000 and "allow_rediscard" not in opts


def test_a_foot_too_large_to_deal_is_one_clear_error() -> None:
    from referee.rules.errors import ConfigError

    with pytest.raises(ConfigError, match="foot_size 200 is too large: 16 players are dealt 10 each, so at most 160"):
        Panguingue(16, {"foot_size": 200}, 0)


def test_eval_shows_each_melds_type_and_condition(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["eval", "panguingue", "--hand", "3S 3C 3H KD KD KD AD 2D 3D 5S 5S"]) == 0
    out = capsys.readouterr().out
    assert "KD KD KD (suit-set)" in out and "conditions: 1 1 1 chip(s)" in out and "goes out: no" in out
    assert run(["eval", "panguingue", "--hand", "3S 3C 3H KD KD KD AD 2D 3D 4D 5D"]) == 0
    assert "goes out: yes" in capsys.readouterr().out


# --- the bots -------------------------------------------------------------------------------------------------------
def match(n: int, seed: int, greedy: set[int], **options) -> Panguingue:
    game = Panguingue(n, options, seed)
    brains = [Brain("panguingue", n, game.opts, greedy=s in greedy, seed=seed * 31 + s) for s in range(n)]
    while not game.is_over():
        for seat in game.to_act():
            game.apply(seat, brains[seat].choose(game.decision(seat), game.view(seat)))
    return game


def test_greedy_beats_random_by_net_chips() -> None:
    wins = sum(match(2, seed, {seed % 2}).result()["ranks"][seed % 2] == 1 for seed in range(16))
    assert wins >= 13
    six = [match(6, seed, {0, 2, 4}).result()["totals"] for seed in range(3)]
    assert sum(t[0] + t[2] + t[4] for t in six) > 0


def test_the_fallback_sits_out_never_demands_and_takes_a_forced_card_legally() -> None:
    game = Panguingue(3, {}, 0)
    seat = game.to_act()[0]
    assert game.fallback(seat) == [Pass()]
    game = ready(3)
    seat = game.turn
    staged(game, seat, "2H 4C", {seat: ["5C 6C 7C"]}, pile="JC")
    game.begin_turn()
    asked = game.to_act()[0]
    assert game.fallback(asked) == [Pass()]
    game.apply(asked, [Bid("demand")])
    assert game.fallback(seat) == [LayOff(0, ["JC"])]
    game.apply(seat, game.fallback(seat))
    game.apply(seat, game.fallback(seat))  # the family's discard ends the turn
    assert game.turn != seat and game.fallback(game.turn) == [Draw("stock")]


def test_a_take_out_moves_one_card_of_one_meld_and_a_demand_is_answered_with_bid_or_pass() -> None:
    game = staged(ready(3), 0, "AS 2S 5D 5H 6C", {0: ["3S 4S 5S 6S 7S JS"]})
    game.apply(0, [Draw("stock")])
    with pytest.raises(IllegalAction) as e:  # two cards out for one new meld
        game.apply(0, [Rearrange([0], [Meld(H("5S 6S 7S JS")), Meld(H("AS 2S 3S 4S"))])])
    assert e.value.rule == "takeout.one-card"
    with pytest.raises(IllegalAction) as e:
        game.apply(0, [Rearrange([0], [Meld(H("6S 7S JS QS")), Meld(H("5S 5D 5H")), Meld(H("6D 6H 6C"))])])
    assert e.value.rule == "rearrange.shape"
    game = ready(3)
    seat = game.turn
    staged(game, seat, "2H 4C", {seat: ["5C 6C 7C"]}, pile="JC")
    game.begin_turn()
    with pytest.raises(IllegalAction) as e:
        game.apply(game.to_act()[0], [Bid("join")])
    assert e.value.rule == "demand.answer"
