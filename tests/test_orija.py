"""Orija (rules/orija.md): the worked examples, phase 1 (grand declaration, buys, shows, awards, settlement, the
sealing of every round), phase 2 (same-suit sequences, drawing again, discard takes, joining, jokers in and out,
after the stock, the idle-turn end), scoring, options, `romis eval`, and greedy against random."""

import copy

import pytest

from protocol.messages import Bid, Discard, Draw, Exchange, LayOff, Meld, Pass, Rearrange
from referee.cli import run
from referee.rules.contest import BONUS, FAILED_BONUS, GRAND, showing_value
from referee.rules.errors import ConfigError, IllegalAction
from referee.rules.melds import new_meld
from referee.rules.variants.orija import Orija, deal_score, sequence_table
from sample_bots.brain import Brain

TABLE = sequence_table(Orija.OPTIONS["sequence_points"].default)
FILLER = "2C 3C 5D 7D 9H TH QC 4H 6D 8C KD 2D"  # no spades


def H(text: str) -> list[str]:
    return text.split()


def illegal(g: Orija, seat: int, ops: list) -> str:
    with pytest.raises(IllegalAction) as e:
        g.apply(seat, ops)
    return e.value.rule


def contest(hands: list[str], stock: str = "", **opts) -> Orija:
    """A game at the grand declaration, seat 0 First; `stock` lists the cards top first."""
    g = Orija(len(hands), opts, seed=1)
    g.hands = [H(h) for h in hands]
    g.stock = H(stock)[::-1]
    g.dealer, g.turn = len(hands) - 1, 0
    return g


def to_spades(g: Orija) -> None:
    """Everyone passes the grand declaration."""
    for s in range(g.n):
        g.apply(s, [Pass()])
    assert g.stage == "buy" and g.suit == "S"


def all_pass(g: Orija, seats=None) -> None:
    for s in seats if seats is not None else list(g.to_act()):
        g.apply(s, [Pass()])


def staged(hands: list[str], stock: str = "", pile: str = "", table=(), turn: int = 0, **opts) -> Orija:
    """A game in phase 2 at the start of seat `turn`'s turn; table entries are (owner, cards[, identities])."""
    g = Orija(len(hands), opts, seed=1)
    g.stage, g.round, g.suit = "play", None, None
    g.hands = [H(h) for h in hands]
    g.bought = [[] for _ in hands]
    g.table_jokers = [[] for _ in hands]
    g.stock, g.piles = H(stock)[::-1], [H(pile)]
    g.table = [new_meld(H(t[1]), g.meld_rules, t[0], H(t[2]) if len(t) > 2 else None) for t in table]
    g.turn, g.turns, g.idle, g.open_suits, g.bonuses = turn, 0, 0, (), [0] * len(hands)
    g.reset_turn()
    g.out_mode = not g.stock
    g.phase = "after-stock" if g.out_mode else "draw"
    return g


# --- worked examples -------------------------------------------------------------------------------------------
def test_example1_spade_quartet_values_and_the_award() -> None:
    assert showing_value(H("8S 6S 5S 2S"), H("8S 6S 5S 2S")) == 21
    assert showing_value(H("QS JS TS 2S"), H("QS JS TS 2S")) == 62
    g = contest(["8S 6S 5S 2S " + FILLER, "QS JS TS 2S " + FILLER])
    to_spades(g)
    all_pass(g)
    g.apply(0, [Meld(H("8S 6S 5S 2S"))])
    g.apply(1, [Meld(H("QS JS TS 2S"))])
    shows = next(e for e in reversed(g.log) if e.data["type"] == "shows").data
    assert [x["value"] for x in shows["shows"]] == [21, 62] and shows["awards"] == [{"seat": 1, "bonus": 40}]
    assert g.bonuses == [0, 40] and g.suit == "H"
    assert sorted(g.hands[0]) == sorted(H("8S 6S 5S 2S " + FILLER))  # shown naturals are back in hand


def test_example2_bonus_amounts() -> None:
    assert [BONUS[k] for k in (4, 8, 12, 16)] == [40, 160, 360, 640]
    assert [FAILED_BONUS[k] for k in (4, 8, 12)] == [20, 80, 180] and GRAND == 640


def test_runs_in_bigger_showings_are_maximised_over_disjoint_runs() -> None:
    # Ambiguity 6: 2-3-4 twice (duplicates may form two runs) = 6 run cards; a joker at its declared rank
    assert showing_value(H("2S 3S 4S 2S 3S 4S 9S KS"), H("2S 3S 4S 2S 3S 4S 9S KS")) == 18 + 9 + 10 + 60
    assert showing_value(H("QS KS JK 2S"), H("QS KS AS 2S")) == 10 + 10 + 15 + 2 + 30


GRAND_HAND = "AS KS QS JS AH KH QH JH AD KD QD JD AC KC QC JC"


def test_grand_declaration_gives_640_and_cancels_the_contests() -> None:
    g = contest([GRAND_HAND, "JK " + FILLER + " 3S 4S 5S"])
    assert g.decision(0).constraints["grand_possible"] and not g.decision(1).constraints["grand_possible"]
    quartets = [Meld(H(GRAND_HAND)[i : i + 4]) for i in range(0, 16, 4)]
    g.apply(0, quartets)
    g.apply(1, [Pass()])
    assert g.bonuses == [640, 0] and g.stage == "play" and g.open_suits == ()


def test_two_grand_declarers_split_640() -> None:
    hand = "AS KS QS JK AH KH QH JH AD KD QD JD AC KC QC JC"
    g = contest([GRAND_HAND, hand])
    g.apply(0, [Meld(H(GRAND_HAND)[i : i + 4]) for i in range(0, 16, 4)])
    g.apply(1, [Meld(H("AS KS QS JK"), ["TS"])] + [Meld(H(hand)[i : i + 4]) for i in range(4, 16, 4)])
    assert g.bonuses == [320, 320]


def test_grand_declaration_rules() -> None:
    g = contest([GRAND_HAND, GRAND_HAND])
    assert illegal(g, 0, [Meld(H(GRAND_HAND)[i : i + 4]) for i in range(0, 12, 4)]) == "grand.not-four-quartets"
    six = "AS KS QS JS JK JK JK JK AD KD QD JD AC KC QC JC"
    g = contest([six, GRAND_HAND], jokers=6)
    ops = [Meld(H("AS KS QS JS")), Meld(H("JK JK JK JK"), H("2S 3S 4S 5S"))]
    ops += [Meld(H(six)[i : i + 4]) for i in range(8, 16, 4)]
    assert illegal(g, 0, ops) == "grand.one-per-suit"


def test_example3_buy_one_must_show_eight_and_gets_the_card() -> None:
    g = contest(["AS KS QS JS TS 9S 8S " + FILLER[:26], FILLER], stock="7S 2H 3H")
    to_spades(g)
    g.apply(0, [Bid(1)])
    g.apply(1, [Pass()])
    d = g.decision(0)
    assert d.constraints["target"] == 8 and d.constraints["must_show"] == [8] and d.constraints["bought"] == ["7S"]
    assert g.view(1)["bought"] == [] and g.view(1)["purchases"] == [
        {"seat": 0, "suit": "S", "count": 1, "refused": False}
    ]
    assert illegal(g, 0, [Pass()]) == "show.must-show-target"
    assert illegal(g, 0, [Meld(H("AS KS QS JS"))]) == "show.must-show-target"
    g.apply(0, [Meld(H("AS KS QS JS TS 9S 8S 7S"))])
    g.apply(1, [Pass()])
    assert g.bonuses == [160, 0] and "7S" in g.hands[0] and g.stage == "buy" and g.to_act() == [1]


def test_example3_failed_buyer_shows_smaller_then_discards_what_he_bought() -> None:
    g = contest(["AS KS QS JS TS 9S 8S " + FILLER[:26], FILLER], stock="2H 3H")
    to_spades(g)
    g.apply(0, [Bid(1)])
    g.apply(1, [Pass()])
    assert g.decision(0).constraints["must_show"] == [4]
    assert illegal(g, 0, [Pass()]) == "show.must-show-smaller"
    g.apply(0, [Meld(H("AS KS QS JS"))])
    g.apply(1, [Pass()])
    assert g.bonuses == [20, 0]  # a failed buyer's winning simple quartet
    assert g.stage == "settle" and g.to_act() == [0]
    d = g.decision(0)
    assert d.kind == "discard" and d.constraints["discards_due"] == 1 and "2H" in g.hands[0]
    assert illegal(g, 0, [Pass()]) == "settle.discard"
    g.apply(0, [Discard("2H")])
    assert g.piles[0] == ["2H"] and g.stage == "buy" and g.suit == "H" and g.round.seats == (1,)


def test_buy_answers_and_refusals() -> None:
    g = contest([FILLER, FILLER, FILLER], stock="2S 3S")
    to_spades(g)
    assert illegal(g, 0, [Bid(2)]) == "buy.size"
    assert illegal(g, 0, [Discard("2C")]) == "buy.answer"
    g.apply(0, [Bid(3)])  # refused: two cards left (Ambiguity 25)
    g.apply(1, [Bid(1)])
    g.apply(2, [Bid(1)])  # served after seat 1: the stock is empty then
    buys = next(e for e in reversed(g.log) if e.data["type"] == "buys").data["buys"]
    assert [(b["seat"], b["refused"]) for b in buys] == [(0, True), (1, False), (2, False)]
    assert g.bought == [[], ["2S"], ["3S"]]
    all_pass(g)
    for _ in range(2):  # both buyers failed: each discards one card
        g.apply(g.to_act()[0], [Discard("2C")])
    assert g.suit == "H" and g.round.seats == (0,)  # the refused seat may still buy; the buyers may not


def test_showing_rules_have_their_own_ids() -> None:
    g = contest(["AS KS QS JS AS 2H JK " + FILLER, FILLER])
    to_spades(g)
    all_pass(g)
    assert illegal(g, 0, [Meld(H("AS KS QS"))]) == "show.size"
    assert illegal(g, 0, [Meld(H("AS KS QS 2H"))]) == "show.wrong-suit"
    assert illegal(g, 0, [Meld(H("AS KS QS AS"))]) == "show.duplicate-in-quartet"
    assert illegal(g, 0, [Meld(H("AS KS QS JK"))]) == "show.identities"
    assert illegal(g, 0, [Meld(H("AS KS QS JK"), ["JK"])]) == "show.identities"
    assert illegal(g, 0, [Meld(H("AS KS QS TS"))]) == "hand.missing-card"
    assert illegal(g, 0, [Pass(), Pass()]) == "play.one-answer"
    assert illegal(g, 0, [Bid(1)]) == "show.answer"


def test_shown_jokers_stay_on_the_table_until_the_four_suits_are_settled() -> None:
    g = contest(["AS KS QS JK 2H 3H 4H " + FILLER[:24], FILLER])
    to_spades(g)
    all_pass(g)
    g.apply(0, [Meld(H("AS KS QS JK"), ["JS"])])
    g.apply(1, [Pass()])
    assert g.table_jokers[0] == ["JS"] and "JK" not in g.hands[0] and g.view(1)["table_jokers"] == [["JS"], []]
    all_pass(g)  # hearts: buy
    assert illegal(g, 0, [Meld(H("2H 3H 4H JK"), ["5H"])]) == "hand.missing-card"
    while g.stage != "play":  # the rest of phase 1
        all_pass(g)
    assert g.stage == "play" and "JK" in g.hands[0] and g.table_jokers == [[], []]


def test_example4_ties_split_each_bonus() -> None:
    g = contest(["AS KS QS JS " + FILLER, "AS KS QS JS " + FILLER])
    to_spades(g)
    all_pass(g)
    g.apply(0, [Meld(H("AS KS QS JS"))])
    g.apply(1, [Meld(H("AS KS QS JS"))])
    assert g.bonuses == [20, 20]
    g = contest(["AS KS QS JS " + FILLER] * 3)
    to_spades(g)
    all_pass(g)
    for s in range(3):
        g.apply(s, [Meld(H("AS KS QS JS"))])
    assert g.bonuses == [13, 13, 13]


def test_nobody_shows_the_suit_stays_open_and_20_goes_to_the_first_four_in_sequences() -> None:
    g = contest([FILLER, FILLER])
    to_spades(g)
    for _ in range(8):
        all_pass(g)
    assert g.stage == "play" and g.open_suits == ("S", "H", "D", "C")
    g = staged(["5H 6H 7H 8H 9C", "2S"], stock="KD KD")
    g.open_suits = ("H",)
    g.apply(0, [Draw("stock")])
    g.apply(0, [Meld(H("5H 6H 7H 8H"))])
    assert g.bonuses == [20, 0] and g.open_suits == ()


def test_purchases_that_empty_the_stock_start_phase_2_after_the_stock() -> None:
    g = contest(["AS KS QS JS TS 9S 8S " + FILLER[:26], FILLER], stock="7S")
    to_spades(g)
    g.apply(0, [Bid(1)])
    g.apply(1, [Pass()])
    g.apply(0, [Meld(H("AS KS QS JS TS 9S 8S 7S"))])
    g.apply(1, [Pass()])
    for _ in range(6):
        all_pass(g)
    assert g.stage == "play" and g.phase == "after-stock" and g.decision(g.turn).options == [Pass()]


def test_sealed_rounds_reveal_nothing_before_they_resolve() -> None:
    base = contest([FILLER + " AS KS QS JS", FILLER + " 2S 3S 4S 5S", FILLER + " 6S 7S 8S 9S"], stock="TS JS QS")
    to_spades(base)
    for step in ("buy", "show"):
        a, b = copy.deepcopy(base), copy.deepcopy(base)
        a.apply(0, [Pass()])
        b.apply(0, [Bid(1)] if step == "buy" else [Meld(H("AS KS QS JS"))])
        for s in (1, 2):
            assert a.view(s) == b.view(s) and a.events_since(s, 0) == b.events_since(s, 0)
            assert a.decision(s) == b.decision(s)
        all_pass(base)  # on to the show round


# --- phase 2 ---------------------------------------------------------------------------------------------------
def test_draw_again_after_the_drawn_card_is_placed() -> None:
    g = staged(["5H 6H 9C", "2S"], stock="7H KD 4C")
    g.apply(0, [Draw("stock")])
    d = g.decision(0)
    assert d.constraints["drawn"] == "7H" and not d.constraints["draw_again"] and Draw("stock") not in d.options
    g.apply(0, [Meld(H("5H 6H 7H")), Draw("stock")])  # 7H went down at once: another card
    assert illegal(g, 0, [Discard("9C"), Draw("stock")]) == "play.after-end"
    assert illegal(g, 0, [Draw("stock")]) == "draw.again-unused"  # KD was not used
    g.apply(0, [Discard("KD")])
    assert g.turn == 1


def test_draw_again_is_offered_once_the_card_went_down_in_a_play_of_its_own() -> None:
    g = staged(["5H 6H 9C", "2S"], stock="7H KD")
    g.apply(0, [Draw("stock")])
    g.apply(0, [Meld(H("5H 6H 7H"))])
    assert g.decision(0).constraints["draw_again"] and Draw("stock") in g.decision(0).options


def test_discard_pile_cards_are_taken_top_down_only_when_placed_at_once() -> None:
    g = staged(["6H 7H 2C", "2S"], stock="KD", pile="9H 8H")
    assert illegal(g, 0, [Draw("discard")]) == "draw.discard-unused"
    assert illegal(g, 0, [Draw("discard"), Discard("8H")]) == "draw.discard-unused"
    assert illegal(g, 0, [Draw("discard", depth=2)]) == "draw.one-card"
    g.apply(0, [Draw("discard"), Meld(H("6H 7H 8H")), Draw("discard"), LayOff(0, ["9H"])])
    assert g.table[0].cards == tuple(H("6H 7H 8H 9H")) and g.piles[0] == []
    g.apply(0, [Draw("stock")])  # a used discard lets him draw again
    assert g.hands[0] == ["2C", "KD"]


def test_sequences_are_same_suit_ace_high_with_one_joker() -> None:
    g = staged(["AS 2S 3S QS KS JK JK 5D 7D 7H 7C", "2S"], stock="KD KD")
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(H("AS 2S 3S"))]) in ("run.invalid", "meld.invalid")
    assert illegal(g, 0, [Meld(H("7D 7H 7C"))]) in ("run.invalid", "meld.invalid")
    assert illegal(g, 0, [Meld(H("5D JK JK"), H("6D 4D"))]) == "meld.max-wilds"
    g.apply(0, [Meld(H("QS KS AS"))])
    two = staged(["5D JK JK 9C", "2S"], stock="KD KD", max_jokers_per_sequence=2)
    two.apply(0, [Draw("stock")])
    two.apply(0, [Meld(H("5D JK JK"), H("6D 7D"))])


def test_own_sequences_only_for_additions_and_joins() -> None:
    table = [(1, "2H 3H 4H"), (0, "6H 7H 8H"), (0, "TH JH QH")]
    g = staged(["5H 9H 5C", "2S"], stock="KD KD", table=table)
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [LayOff(0, ["5H"])]) == "layoff.own-only"
    assert illegal(g, 0, [Rearrange([0, 1], [Meld(H("2H 3H 4H 5H 6H 7H 8H"))])]) == "join.own-only"
    assert illegal(g, 0, [Rearrange([1, 2], [Meld(H("6H 7H 8H TH JH QH"))])]) == "join.invalid"
    assert illegal(g, 0, [Rearrange([1], [Meld(H("6H 7H 8H 9H"))])]) == "join.shape"
    assert illegal(g, 0, [Rearrange([1, 2], [Meld(H("6H 7H 8H 9H TH JH"))])]) == "join.cards"
    g.apply(0, [Rearrange([1, 2], [Meld(H("6H 7H 8H 9H TH JH QH"))])])
    assert g.table[1].cards == tuple(H("6H 7H 8H 9H TH JH QH")) and g.table[2].kind == "empty"


def test_jokers_replaced_and_put_in_anyones_sequences() -> None:
    table = [(1, "5D 6D JK", "7D"), (1, "2C 3C 4C")]
    g = staged(["7D JK 5C 6C 9S", "2S"], stock="KD KD", table=table)
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [LayOff(0, ["JK"], ["7D"])]) == "joker.no-natural"  # 7D is a joker there
    g.apply(0, [Exchange(0, "7D")])  # the joker comes to his hand
    assert g.table[0].cards == tuple(H("5D 6D 7D")) and g.hands[0].count("JK") == 2
    assert illegal(g, 0, [LayOff(1, ["JK"], ["4C"])]) == "joker.released-unused"
    g.apply(0, [LayOff(1, ["JK"], ["4C"]), Meld(H("4C 5C 6C"))])  # the freed 4C used at once
    assert g.table[1].cards == tuple(H("2C 3C JK")) and g.table[1].owner == 1
    assert illegal(g, 0, [LayOff(1, ["JK"], ["2C"]), Meld(H("2C JK"))]) == "joker.limit"


def test_turn_rules() -> None:
    g = staged(["5H 6H 7H 9C", "2S"], stock="KD KD")
    assert illegal(g, 0, [Meld(H("5H 6H 7H"))]) == "play.before-draw"
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Pass()]) == "turn.must-discard"
    capped = staged(["5H 6H 7H 2C 3C 4C", "2S"], stock="KD KD", max_actions_per_turn=1)
    capped.apply(0, [Draw("stock")])
    assert illegal(capped, 0, [Meld(H("5H 6H 7H")), Meld(H("2C 3C 4C"))]) == "turn.max-actions"


def test_the_last_stock_card_ends_drawing_then_no_discards_and_n_idle_turns_end_the_deal() -> None:
    g = staged(["5H 6H 9C", "2S 3S"], stock="7H", pile="KC")
    g.apply(0, [Draw("stock")])
    assert illegal(g, 0, [Meld(H("5H 6H 7H")), Draw("stock")]) == "draw.after-last-card"
    g.apply(0, [Meld(H("5H 6H 7H")), Discard("9C")])  # he completes his turn normally
    assert g.turn == 1 and g.phase == "after-stock" and g.decision(1).options == [Pass()]
    assert illegal(g, 1, [Discard("2S")]) == "discard.after-stock"
    g.apply(1, [Pass()])
    assert g.idle == 1 and not g.deal_results
    g.apply(0, [Pass()])
    assert len(g.deal_results) == 1  # two idle turns in a row with two players


def test_an_action_after_the_stock_restarts_the_idle_count() -> None:
    g = staged(["5H 6H 9C", "2S 3S 4S"])
    assert g.phase == "after-stock"
    assert illegal(g, 0, [Draw("stock")]) == "draw.empty-stock"
    assert illegal(g, 0, [Draw("discard"), Meld(H("5H 6H 7H"))]) == "draw.empty-pile"
    g.apply(0, [Pass()])
    g.apply(1, [Meld(H("2S 3S 4S"))])
    g.apply(1, [Pass()])
    assert g.idle == 0 and not g.deal_results


def test_an_empty_hand_ends_the_turn_without_a_discard() -> None:
    g = staged(["4H", "2S"], stock="KD KD", table=[(0, "5H 6H 7H")])
    g.apply(0, [Draw("stock")])
    g.apply(0, [LayOff(0, ["4H"]), Discard("KD")])
    assert g.turn == 1
    g = staged(["4H", "2S"], stock="3H KD", table=[(0, "5H 6H 7H")])
    g.apply(0, [Draw("stock")])
    g.apply(0, [LayOff(0, ["4H", "3H"])])  # his hand is empty and he may draw again
    assert g.decision(0).options == [Draw("stock"), Pass()]
    g.apply(0, [Pass()])
    assert g.turn == 1


# --- scoring -----------------------------------------------------------------------------------------------------
def runs(*specs: tuple[str, str | None]) -> list:
    return [new_meld(H(c), Orija.hooks_only().meld_rules, 0, H(i) if i else None) for c, i in specs]


def test_example5_complete_suit_tiers() -> None:
    full = [("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS", None)]
    for k, bonus in ((1, 0), (2, 200), (3, 500), (4, 1000)):
        assert deal_score([], runs(*full * k), TABLE)["complete"] == bonus


def test_example6_penalties() -> None:
    r = runs(("5D 6D 7D", None))
    assert deal_score(H("KS"), [], TABLE)["unused"] == -10
    assert deal_score([], r, TABLE)["suits"] == -50 - 300 * 3
    assert deal_score(H("5D 6D 7D 2D"), [], TABLE)["suits"] == -100 - 300 * 3
    assert deal_score(H("5D 6D"), [], TABLE)["suits"] == -200 - 300 * 3
    assert deal_score(H("KS KS"), [], TABLE)["pairs"] == -200
    assert deal_score(H("KS"), runs(("JS QS KS", None)), TABLE)["pairs"] == -200
    # Ambiguity 15: the joker counts towards the 3 cards of the suit, but never against the 300
    assert deal_score(H("JK"), runs(("5D 6D JK", "7D")), TABLE)["suits"] == -300 * 3 - 50
    assert deal_score(H("JK 9D"), runs(("5D 6D JK", "7D")), TABLE)["suits"] == -300 * 3


def test_example7_derived_deal_score_is_minus_5() -> None:
    r = runs(
        ("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS", None),
        ("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH", None),
        ("5D 6D JK", "7D"),
    )
    score = deal_score(H("KC KC 4C"), r, TABLE)
    assert score == {"sequences": 275, "complete": 200, "unused": -30, "suits": -250, "pairs": -200, "total": -5}
    g = staged(["KC KC 4C", "2S"])
    g.table = list(r)
    g.bonuses = [0, 0]
    assert g.score_deal(None)[0] == -5  # through the game's own scoring


def test_example8_target_3000_highest_alone() -> None:
    g = staged(["2S", "3S"])
    g.totals = [3000, 2999]
    assert g.match_ended()
    g.totals = [3100, 3100]
    assert not g.match_ended()
    g.totals = [2999, 10]
    assert not g.match_ended()


def test_the_sequence_table_is_an_option_that_changes_a_played_match() -> None:
    assert sequence_table("10,5")[0][0] == 30 and sequence_table("10,5")[1][10] == 65
    with pytest.raises(ConfigError):
        Orija(2, {"sequence_points": "1,2,3"}, 1)
    results = []
    for table in ("10,5", "20,5"):
        g = Orija(2, {"sequence_points": table, "max_deals": 2}, 5)
        bots = [Brain("orija", 2, g.opts, greedy=True, seed=s) for s in range(2)]
        while not g.is_over():
            for s in g.to_act():
                g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
        results.append(g.result()["totals"])
    assert results[0] != results[1]


def test_eval_gives_the_best_sequences_score_and_the_quartets(capsys: pytest.CaptureFixture[str]) -> None:
    res = Orija.evaluate(H("5D 6D JK KC KC 4C"))
    assert res["melds"] == [["5D", "6D", "JK"]] and sorted(res["deadwood"]) == ["4C", "KC", "KC"]
    assert res["points"] == res["score"]["total"] == 15 - 30 - 50 - 200 - 200 - 300 * 2
    assert res["unmelded"]["total"] == -60 - 200 - 200 - 200 - 300 * 2
    assert Orija.evaluate(H("5D 6D JK 9D"))["quartets"]["D"]["value"] == 5 + 6 + 15 + 9 + 30
    assert run(["eval", "orija", "--hand", "QS JS TS 2S"]) == 0
    out = capsys.readouterr().out
    assert "points:" in out and "S 62" in out


@pytest.mark.parametrize("players,options,need", [(2, {"target": 1500}, 5), (4, {"max_deals": 4}, 5)])
def test_greedy_beats_random(players: int, options: dict, need: int) -> None:
    wins, n = 0, 6
    for seed in range(n):
        g = Orija(players, options, seed)
        mine = seed % players  # the greedy seat goes round the table
        bots = [Brain("orija", players, g.opts, greedy=s == mine, seed=seed * 10 + s) for s in range(players)]
        while not g.is_over():
            for s in g.to_act():
                g.apply(s, bots[s].choose(g.decision(s), g.view(s)))
        wins += g.result()["ranks"][mine] == 1
    assert wins >= need


@pytest.mark.e2e
def test_romis_play_with_six_bots_is_deterministic_and_replays(tmp_path) -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    bots = ["python -m sample_bots.greedy", "node sample_bots/js/random.js", "python -m sample_bots.random"] * 2
    args = [a for b in bots for a in ("--bot", b)] + ["--seed", "4", "--json", "--option", "max_deals=30"]
    outs = []
    for k in range(2):
        cmd = [sys.executable, "-m", "referee", "play", "orija", *args, "--record", str(tmp_path / f"r{k}.jsonl")]
        r = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        outs.append(r.stdout)
    assert outs[0] == outs[1]
    assert all(s["fault"] is None for s in json.loads(outs[0])["seats"])
    replay = [sys.executable, "-m", "referee", "replay", str(tmp_path / "r0.jsonl")]
    assert subprocess.run(replay, cwd=root, capture_output=True, timeout=300).returncode == 0
