"""One conformance suite over every registered variant: seeded playouts checking the engine's invariants."""

import copy
import random
from collections import Counter

import msgspec
import pytest

from referee.rules.errors import IllegalAction
from referee.rules.variants import VARIANTS
from sample_bots.brain import Brain

CASES = [(slug, n) for slug, cls in sorted(VARIANTS.items()) for n in range(cls.min_players, cls.max_players + 1)]
OPTIONS = {"max_deals": 3, "max_turns_per_deal": 300}


def playout(slug, n, seed, check_views=True):
    """Play a whole match with random and greedy in-process bots; return the game and the plays made."""
    cls = VARIANTS[slug]
    game = cls(n, OPTIONS, seed)
    brains = [Brain(slug, n, game.opts, greedy=bool(s % 2), seed=seed * 10 + s) for s in range(n)]
    full = Counter(game.cards_in_play())
    plays, deal = [], game.deal_no
    rng = random.Random(seed)
    while not game.is_over():
        seats = game.to_act()
        assert seats, "a match that is not over must have a seat to act"
        for seat in seats:
            decision = game.decision(seat)
            assert decision.options is None or decision.options, f"no legal option for seat {seat}"
            view = game.view(seat)
            assert sorted(view["hand"]) == sorted(game.hands[seat])
            assert_request_view(game, seat, view)
            if check_views and rng.random() < 0.2:
                assert_hides_others(game, seat)
            ops = brains[seat].choose(decision, view)
            game.apply(seat, ops)
            plays.append((seat, ops))
            if game.unit == "chips":  # chips only move: the bank plus all balances stays zero (chips.py)
                assert game.ledger.total() == 0, "chips were made or lost"
            if game.deal_no == deal and not game.is_over():
                assert Counter(game.cards_in_play()) == full, "cards are not conserved"
            elif not game.is_over():  # a new deal: its deck may differ (tonk's follows the players still in)
                full = Counter(game.cards_in_play())
            deal = game.deal_no
    return game, plays


def assert_request_view(game, seat, view):
    """What a request carries of the view (parts pre-encoded, cached between requests) is the view, byte for byte."""
    assert msgspec.json.encode(game.request_view(seat)) == msgspec.json.encode(view), "a request's view is stale"


def assert_hides_others(game, seat):
    """Permuting what `seat` cannot see must not change its view."""
    log, game.log = game.log, []  # the event log is not part of a view, and copying it grows with the match
    try:
        other = copy.deepcopy(game)
    finally:
        game.log = log
    zones = other.hidden_zones(seat)
    pool = [c for z in zones for c in z]
    random.Random(0).shuffle(pool)
    for z in zones:
        z[:] = [pool.pop() for _ in z]
    assert other.view(seat) == game.view(seat), "a view depends on hidden cards"


@pytest.mark.parametrize("slug,n", CASES)
def test_playout_invariants_and_replay(slug, n):
    for seed in range(2):
        game, plays = playout(slug, n, seed)
        result = game.result()
        for s in range(n):  # the scores add up: every total is the sum of that seat's deal scores
            assert result["totals"][s] == pytest.approx(sum(d["scores"][s] for d in result["deals"]))
        if game.unit == "chips":  # the totals are the net chips, and the balances with the bank sum to zero
            assert result["chips"] == result["totals"] and result["bank"] + sum(result["chips"]) == 0
        # the match ended for a reason: its own end condition, the deal cap, or one seat left in it
        assert game.match_ended() or len(result["deals"]) >= OPTIONS["max_deals"] or len(game.seats_in()) <= 1
        fresh = VARIANTS[slug](n, OPTIONS, seed)
        for seat, ops in plays:
            fresh.apply(seat, ops)
        assert fresh.result() == result, "replaying the plays gives another result"


@pytest.mark.parametrize("slug,n", CASES)
def test_events_never_show_another_seats_stock_draw(slug, n):
    game, _ = playout(slug, n, seed=5, check_views=False)
    for seat in range(n):
        events, _ = game.events_since(seat, 0)
        for e in events:
            if e["type"] == "draw" and e.get("source") == "stock" and e["seat"] != seat:
                assert "card" not in e


@pytest.mark.parametrize("slug,n", CASES)
def test_a_rejected_play_changes_nothing(slug, n):
    """A play whose last op is illegal is rolled back whole, whatever its first ops did."""
    game = VARIANTS[slug](n, OPTIONS, 9)
    rng = random.Random(9)
    for _ in range(200):
        if game.is_over():
            break
        seat = game.to_act()[0]
        decision = game.decision(seat)
        before = [copy.deepcopy(game.view(s)) for s in range(n)], game.result(), len(game.log)
        option = rng.choice(decision.options)
        with pytest.raises(IllegalAction):  # the same single-step option twice: the second cannot be legal
            game.apply(seat, [option, option])
        assert ([game.view(s) for s in range(n)], game.result(), len(game.log)) == before
        for s in range(n):  # the cache of a request's view is undone with the play
            assert_request_view(game, s, before[0][s])
        game.apply(seat, [rng.choice(decision.options)])
