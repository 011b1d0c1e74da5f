"""Meld primitives: every ace mode, wild cards and their identities, sets of 3 to 8."""

import pytest

from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, exchange, lay_off, new_meld

EITHER = MeldRules()
LOW = MeldRules(ace_high=False)
HIGH = MeldRules(ace_low=False)
AROUND = MeldRules(wrap=True)
BOTH_ENDS = MeldRules(ace_both_ends=True)
DEUCES = MeldRules(wilds=frozenset({"JK", "2S", "2H", "2D", "2C"}))


def ok(cards, rules=EITHER, **kw):
    return new_meld(cards.split(), rules, **kw)


def bad(cards, rules=EITHER, **kw):
    with pytest.raises(IllegalAction) as e:
        new_meld(cards.split(), rules, **kw)
    return e.value.rule


@pytest.mark.parametrize(
    "rules,low,high,around",
    [
        (EITHER, True, True, False),
        (LOW, True, False, False),
        (HIGH, False, True, False),
        (AROUND, True, True, True),
        (BOTH_ENDS, True, True, False),
    ],
)
def test_ace_modes(rules, low, high, around):
    for cards, allowed in (("AS 2S 3S", low), ("QS KS AS", high), ("KS AS 2S", around), ("QS KS AS 2S 3S", around)):
        if allowed:
            assert ok(cards, rules).kind == "run"
        else:
            assert bad(cards, rules) == "run.invalid"


def test_run_is_ordered_low_to_high_whatever_the_input_order():
    assert ok("7H 5H 6H").ids == ("5H", "6H", "7H")
    assert ok("AS QS KS").ids == ("QS", "KS", "AS")
    assert ok("2S AS KS", AROUND).ids == ("KS", "AS", "2S")


def test_runs_need_one_suit_consecutive_ranks_and_no_repeats():
    assert bad("5H 6H 7S") == "run.invalid"
    assert bad("5H 6H 8H") == "run.invalid"
    assert bad("5H 5H 6H 7H") == "run.invalid"
    assert len(ok(" ".join(r + "C" for r in "A23456789TJQK")).ids) == 13


def test_ace_at_both_ends_only_where_allowed():
    full = "AS " + " ".join(r + "S" for r in "23456789TJQK") + " AS"
    assert bad(full) == "run.invalid"
    m = ok(full, BOTH_ENDS)
    assert m.ids[0] == "AS" and m.ids[-1] == "AS" and len(m.ids) == 14


def test_minimum_size_and_natural_card():
    assert bad("5H 6H") == "meld.min-size"
    assert bad("JK JK JK") == "meld.natural"


def test_joker_takes_its_identity_from_the_gap_or_the_declaration():
    assert ok("5H JK 7H").ids == ("5H", "6H", "7H")
    assert ok("5H 6H JK", identities=["4H"]).ids == ("4H", "5H", "6H")
    assert ok("5H JK JK", identities=["5S", "5D"], kind="set").ids == ("5H", "5S", "5D")
    assert ok("5H JK JK", kind="run").kind == "run"
    assert bad("5H 6H JK", identities=["9H"]) == "run.invalid"


def test_joker_identity_in_a_set_is_declared_and_checked():
    assert ok("QH QC JK", identities=["QS"]).ids == ("QH", "QC", "QS")
    assert bad("QH QC JK", identities=["QH"]) == "set.distinct-suits"


def test_wild_deuce_may_stand_for_itself_or_another_card():
    assert ok("2H 3H 4H", DEUCES).wild_positions() == []
    m = ok("3H 4H 2C", DEUCES)
    assert m.ids == ("3H", "4H", "5H") and m.wild_positions() == [2]
    assert ok("7C 7H 2C", DEUCES).kind == "set"


def test_sets_of_three_and_four_need_distinct_suits():
    assert ok("QH QC QS").kind == "set"
    assert ok("QH QC QS QD").kind == "set"
    assert bad("QH QH QS") == "set.distinct-suits"
    assert bad("QH QC KS") in ("set.same-rank", "meld.invalid", "run.invalid")


def test_sets_of_five_to_eight_need_all_four_suits_first():
    assert ok("7H 7C 7S 7D 7H").kind == "set"
    assert ok("7H 7C 7S 7D 7H 7C 7S 7D").kind == "set"
    assert bad("7H 7C 7S 7H 7C") == "set.four-suits-first"
    assert bad("7H 7C 7S 7D 7H 7C 7S 7D 7H") == "set.max-size"


def test_lay_off_grows_runs_at_the_ends_only():
    run = ok("5H 6H 7H 8H")
    assert lay_off(run, ["4H"], EITHER).ids[0] == "4H"
    assert lay_off(run, ["9H", "TH", "JH"], EITHER).ids[-1] == "JH"
    with pytest.raises(IllegalAction):
        lay_off(run, ["TH"], EITHER)


def test_exchange_returns_the_joker_and_keeps_the_meld():
    m = ok("KS QS JK TS 9S", identities=["JS"])
    after, freed = exchange(m, "JS")
    assert freed == "JK" and after.cards == ("9S", "TS", "JS", "QS", "KS")
    with pytest.raises(IllegalAction):
        exchange(m, "JH")


def test_a_named_kind_exchange_takes_either_card_of_the_colour_and_moves_the_wild_card_to_an_end():
    from referee.rules.melds import exchange_to_end
    from referee.rules.variants.liverpool import LIVERPOOL_MELDS as KINDS

    run = new_meld(["5H", "2S", "7D"], KINDS, kind="red-run")
    assert run.ids == ("5H", "6H", "7D")
    for natural in ("6H", "6D"):  # rules/liverpool.md, Ambiguity 15
        moved = exchange_to_end(run, natural, KINDS)
        assert moved.cards == ("5H", natural, "7D", "2S") and moved.ids[-1] == "8H"
    with pytest.raises(IllegalAction) as e:
        exchange_to_end(run, "6C", KINDS)
    assert e.value.rule == "exchange.no-wild"
    top = new_meld(["JH", "QD", "2C"], KINDS, kind="red-run")  # the deuce stands for the red K, at the top
    assert exchange_to_end(top, "KD", KINDS).ids[0] == "TH"  # no place above K: it moves to the low end


def test_a_joker_has_no_rank():
    """The joker `JK` is not a jack: its rank is 0, so no rank-keyed rule (a set's same rank, a penalty of
    `min(rank, 10)`, a sort by rank) reads it as one."""
    from referee.rules.cards import rank

    assert rank("JK") == 0 and rank("JS") == 11


@pytest.mark.parametrize("cards", ["JK JS JH", "JK 5S 5H", "JK JK 5S"])
def test_a_joker_that_is_not_wild_beside_one_rank_is_refused_as_a_set(cards):
    """Where jokers are not wild (persian's joker sets), a joker beside cards of one rank reads as a set and is
    refused as one, whatever that rank is (a jack was once taken for the joker's rank)."""
    jokers = MeldRules(ace_low=False, wilds=frozenset(), set_max=4, joker_sets=True)
    assert bad(cards, jokers) == "set.same-rank"
    assert ok("JK JK JK", jokers).kind == "set"
