"""Standings: match points, wins, head-to-head, faults, timing, ratings and duplicate luck."""

import math
import random

import pytest

from tournaments.about import duplicate_words
from tournaments.spec import GameResult, SeatResult
from tournaments.standings import standings, wilson_interval


def game(table: int, deal_set: int, rotation: int, *seats: tuple, deals: int = 1) -> GameResult:
    """A finished game from (entrant, rank[, score[, fault]]) tuples in seat order."""
    results = [
        SeatResult(
            entrant=s[0], seat=i, rank=s[1], score=s[2] if len(s) > 2 else 0.0, fault=s[3] if len(s) > 3 else None
        )
        for i, s in enumerate(seats)
    ]
    return GameResult(
        f"t{table}-d{deal_set}-r{rotation}", table, deal_set, rotation, seed=deal_set, deals=deals, seats=results
    )


def test_match_points_wins_and_ties():
    games = [
        game(0, 0, 0, ("a", 1, 30), ("b", 2, 20), ("c", 3, 10)),
        game(0, 0, 1, ("b", 1, 25), ("c", 1, 25), ("a", 3, 0)),  # b and c share first
    ]
    st = standings(games, ["a", "b", "c"])
    a, b, c = st.row("a"), st.row("b"), st.row("c")
    assert (a.match_points, b.match_points, c.match_points) == (2.0, 2.5, 1.5)
    assert b.match_points_per_game == 1.25
    assert (a.wins, b.wins, c.wins) == (1, 1, 1)  # a shared first place is a win
    assert a.win_rate == 0.5
    assert a.mean_score == 15.0 and c.mean_score == 17.5
    assert all(r.games == 2 for r in st.entrants)


def test_entrant_without_games_is_listed_with_no_rates():
    st = standings([game(0, 0, 0, ("a", 1), ("b", 2))], ["a", "b", "idle"])
    idle = st.row("idle")
    assert idle.games == 0 and idle.win_rate is None and idle.match_points_per_game is None
    assert idle.win_ci == (0.0, 1.0)
    assert idle.rating["mu"] == pytest.approx(25.0)


def test_unknown_entrant_in_results_is_an_error():
    with pytest.raises(ValueError, match="intruder"):
        standings([game(0, 0, 0, ("a", 1), ("intruder", 2))], ["a"])


def test_head_to_head_counts_both_directions():
    games = [
        game(0, 0, 0, ("a", 1), ("b", 2), ("c", 3)),
        game(0, 0, 1, ("b", 1), ("a", 2), ("c", 2)),
        game(1, 0, 0, ("a", 1), ("b", 1)),
    ]
    h = standings(games, ["a", "b", "c"]).head_to_head
    assert h[("a", "b")] == {"wins": 1, "losses": 1, "ties": 1, "games": 3}
    assert h[("b", "a")] == {"wins": 1, "losses": 1, "ties": 1, "games": 3}
    assert h[("a", "c")] == {"wins": 1, "losses": 0, "ties": 1, "games": 2}
    assert h[("c", "a")] == {"wins": 0, "losses": 1, "ties": 1, "games": 2}


def test_faults_counted_by_kind_only_when_they_occur():
    games = [
        game(0, 0, 0, ("a", 1), ("b", 2, 0, "timeout")),
        game(0, 0, 1, ("b", 2, 0, "timeout"), ("a", 1)),
        game(0, 1, 0, ("a", 2, 0, "illegal"), ("b", 1)),
    ]
    st = standings(games, ["a", "b"])
    assert st.row("b").faults == {"timeout": 2}
    assert st.row("a").faults == {"illegal": 1}


def test_decision_time_mean_is_weighted_by_decisions():
    g1 = game(0, 0, 0, ("a", 1), ("b", 2))
    g2 = game(0, 0, 1, ("a", 1), ("b", 2))
    timings = [(10, 0.1, 0.2, 0.3), (30, 0.5, 0.9, 1.5)]
    for g, (n, mean, p95, mx) in zip((g1, g2), timings):
        seat = g.seats[0]
        seat.decisions, seat.wall_mean, seat.wall_p95, seat.wall_max = n, mean, p95, mx
    st = standings([g1, g2], ["a", "b"])
    dt = st.row("a").decision_time
    assert dt["mean"] == pytest.approx((10 * 0.1 + 30 * 0.5) / 40)
    assert dt["p95"] == 0.9 and dt["max"] == 1.5
    assert st.row("b").decision_time == {"mean": None, "p95": None, "max": None}


def test_wilson_interval_matches_known_values():
    lo, hi = wilson_interval(8, 10)
    assert (round(lo, 3), round(hi, 3)) == (0.490, 0.943)
    assert wilson_interval(0, 10)[0] == 0.0


def three_player_games(n: int, seed: int, strong: str | None = "a") -> list[GameResult]:
    """n games of a, b, c; `strong` always finishes first, the others in random order."""
    rng = random.Random(seed)
    games = []
    for i in range(n):
        names = ["a", "b", "c"]
        order = [strong] + rng.sample([x for x in names if x != strong], 2) if strong else rng.sample(names, 3)
        seated = names[i % 3 :] + names[: i % 3]
        games.append(game(0, i // 3, i % 3, *[(x, order.index(x) + 1, 10 - order.index(x)) for x in seated]))
    return games


def test_shuffled_input_gives_identical_standings():
    games = three_player_games(30, seed=1, strong=None)
    shuffled = games[:]
    random.Random(7).shuffle(shuffled)
    assert standings(shuffled, ["a", "b", "c"]) == standings(games, ["a", "b", "c"])


def test_stronger_entrant_is_rated_clearly_higher():
    st = standings(three_player_games(60, seed=2), ["a", "b", "c"])
    assert st.entrants[0].name == "a"
    a, b = st.row("a").rating, st.row("b").rating
    assert a["mu"] - 3 * a["sigma"] > b["mu"] + 3 * b["sigma"]
    history = st.row("a").rating_history
    assert len(history) == 61 and history[0][0] == 0 and history[-1][0] == 60
    assert history[-1][1] == pytest.approx(a["mu"])


def duplicate_games(units: int, deck_weight: float, seed: int) -> list[GameResult]:
    """Equal-skill a, b, c; each unit's decks give every seat a fixed hand strength.

    Performance = deck_weight * hand strength of the seat + (1 - deck_weight) * noise, and
    every rotation of the unit replays the same hands with the entrants moved one seat on.
    """
    rng = random.Random(seed)
    names = ["a", "b", "c"]
    games = []
    for d in range(units):
        hands = [rng.random() for _ in range(3)]
        for r in range(3):
            seated = names[r:] + names[:r]
            perf = [deck_weight * hands[s] + (1 - deck_weight) * rng.random() for s in range(3)]
            ranks = [1 + sum(p > perf[s] for p in perf) for s in range(3)]
            games.append(game(0, d, r, *[(x, ranks[s], perf[s]) for s, x in enumerate(seated)]))
    return games


def test_duplicate_removes_most_luck_when_the_decks_decide():
    dup = standings(duplicate_games(60, deck_weight=0.95, seed=3), ["a", "b", "c"]).duplicate
    assert dup["units"] == 60
    assert dup["luck_removed"] > 0.8
    assert dup["variance_duplicate"] < dup["variance_individual"] / 3


def test_duplicate_removes_little_when_the_decks_do_not_matter():
    dup = standings(duplicate_games(60, deck_weight=0.0, seed=4), ["a", "b", "c"]).duplicate
    assert dup["luck_removed"] < 0.25


def test_duplicate_per_unit_leader():
    games = [
        game(0, 0, 0, ("a", 1), ("b", 2)),
        game(0, 0, 1, ("b", 1), ("a", 2)),
        game(0, 1, 0, ("a", 1), ("b", 2)),
        game(0, 1, 1, ("b", 1), ("a", 1)),
    ]
    dup = standings(games, ["a", "b"]).duplicate
    assert [u["best"] for u in dup["per_unit"]] == [["a", "b"], ["a"]]
    assert dup["per_unit"][1]["match_points"] == {"a": 1.5, "b": 0.5}
    assert dup["unit_leads"] == {"a": 2, "b": 1}


def test_duplicate_luck_not_computable_from_one_game():
    dup = standings([game(0, 0, 0, ("a", 1), ("b", 2))], ["a", "b"]).duplicate
    assert dup["luck_removed"] is None


def test_to_json_has_the_report_fields():
    js = standings(three_player_games(6, seed=5), ["a", "b", "c"]).to_json()
    row = js["entrants"][0]
    for key in ("name", "games", "match_points", "mean_score", "rating", "faults"):
        assert key in row
    assert set(row["rating"]) >= {"mu", "sigma"}
    assert {"a": "a", "b": "b", "wins": 6, "losses": 0, "ties": 0, "games": 6} in js["head_to_head"]
    assert "luck_removed" in js["duplicate"]


def test_duplicate_luck_is_not_confused_with_the_opponent_mix():
    # a always beats b (skill), while a-c and b-c are decided by the cards alone: seat 0 wins, so each
    # deal set of those tables gives one win each. All the card luck cancelled, and the figure says so
    # even though a's results differ from table to table (a wins everything against b, half against c).
    games = []
    for t, (x, y) in enumerate([("a", "b"), ("a", "c"), ("b", "c")]):
        for d in range(3):
            for r, (s0, s1) in enumerate([(x, y), (y, x)]):
                first = x if t == 0 else s0
                games.append(game(t, d, r, (s0, 1 if s0 == first else 2), (s1, 1 if s1 == first else 2)))
    dup = standings(games, ["a", "b", "c"]).duplicate
    assert dup["variance_duplicate"] == 0 and dup["luck_removed"] == 1.0
    assert (dup["units"], dup["tables"], dup["games_per_unit"], dup["spread_cut"]) == (9, 3, 2, 1.0)
    # single games: 4 of the 6 (entrant, table) groups alternate 1, 0 (sum of squares 1.5 each), the
    # a-b groups never vary; 5 degrees of freedom per group: 6 / 30 = 0.2, so two single deals 0.1
    assert dup["variance_individual"] == pytest.approx(0.2)
    assert dup["spread_single_deals"] == pytest.approx(math.sqrt(0.1))


def test_duplicate_luck_needs_two_deal_sets_at_a_table():
    # one deal set per table, each split one win each: nothing shows how a table's deal sets would spread
    tables = [("a", "b"), ("a", "c"), ("b", "c")]
    games = [game(t, 0, r, (x, 1 + r), (y, 2 - r)) for t, (x, y) in enumerate(tables) for r in range(2)]
    dup = standings(games, ["a", "b", "c"]).duplicate
    assert dup["variance_individual"] == pytest.approx(0.5) and dup["luck_removed"] is None
    assert "too few to measure" in duplicate_words(dup)


def test_a_game_played_for_chips_ranks_by_net_chips_over_all_games():
    # a wins more games, but b's one win took far more chips: played for chips, b leads
    games = [
        game(0, 0, 0, ("a", 1, 5), ("b", 2, -5)),
        game(0, 0, 1, ("a", 1, 4), ("b", 2, -4)),
        game(0, 1, 0, ("b", 1, 40), ("a", 2, -40)),
    ]
    by_points = standings(games, ["a", "b"])
    assert [r.name for r in by_points.entrants] == ["a", "b"] and by_points.row("a").net_chips is None
    by_chips = standings(games, ["a", "b"], unit="chips")
    assert [r.name for r in by_chips.entrants] == ["b", "a"]
    assert (by_chips.row("b").net_chips, by_chips.row("a").net_chips) == (31, -31)
    assert by_chips.to_json()["unit"] == "chips" and "unit" not in by_points.to_json()
    assert "net_chips" not in by_points.to_json()["entrants"][0]
