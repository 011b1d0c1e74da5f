"""Partnerships in tournaments (issue 11): schedules of fixed and mixed partnerships, team standings counted once
per entrant, openskill team ratings, reports naming the mode; end to end with real bots, SIGKILL and resume."""

import html
import json
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from referee.rules.errors import ConfigError
from tournaments.about import About
from tournaments.config import load
from tournaments.report import render
from tournaments.run import game_specs
from tournaments.schedule import fixed_partnerships, games, mixed_partnerships, rotations
from tournaments.spec import GameResult, SeatResult
from tournaments.teams import game_points, team_standings, tournament_standings

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
TEAMS = ((0, 2), (1, 3))  # persian: partners sit opposite


def config(variant="persian", n=3, **settings):
    return load(
        None, {"entrants": {f"e{i}": "python -m sample_bots.random" for i in range(n)}, "variant": variant} | settings
    )


def partners(seating):
    """The partnerships of a seating, as sets of entrant names."""
    return {frozenset(seating[s] for s in team) for team in TEAMS}


# --- schedules ---------------------------------------------------------------------------------------------


def test_fixed_partnerships_play_every_pairing_with_both_seatings_on_the_same_decks():
    plan = games(fixed_partnerships(["a", "b", "c"], TEAMS), 2, 7, TEAMS)
    pairings = Counter(frozenset(seating) for *_, seating in plan)
    assert pairings == {frozenset("ab"): 4, frozenset("ac"): 4, frozenset("bc"): 4}  # 2 deal sets x 2 seatings
    by_unit: dict[tuple[int, int], list] = {}
    for table, deal_set, _rotation, seed, seating in plan:
        by_unit.setdefault((table, deal_set), []).append((seed, seating))
    for (seed, first), (again, swapped) in by_unit.values():
        x, y = first[:2]
        assert seed == again, "both seatings play the same decks"
        assert first == (x, y, x, y) and swapped == (y, x, y, x), "one entrant fills both seats of its team"
    assert len({seed for _t, _d, _r, seed, _s in plan}) == 6, "every (pairing, deal set) has decks of its own"


def test_mixed_partnerships_make_every_pair_a_team_against_every_disjoint_pair():
    tables = mixed_partnerships(["a", "b", "c", "d"], TEAMS)
    assert len(tables) == 3  # {ab|cd, ac|bd, ad|bc}
    teams = Counter(team for table in tables for team in partners(table))
    assert set(teams) == {frozenset(p) for p in ("ab", "ac", "ad", "bc", "bd", "cd")}
    assert set(teams.values()) == {1}
    for table in tables:
        seatings = rotations(table, TEAMS)
        assert len(seatings) == 4 and all(partners(s) == partners(table) for s in seatings), "partners stay opposite"
        assert all(len({s[seat] for s in seatings}) == 4 for seat in range(4)), "each entrant holds every seat"
    five = mixed_partnerships(list("abcde"), TEAMS)
    assert len(five) == 15 and len(set(five)) == 15  # 5 groups of four, 3 splits each


def test_a_table_without_partnerships_keeps_every_rotation():
    assert rotations(("a", "b", "c")) == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]


def test_a_persian_tournament_seats_each_entrant_in_its_own_partnership_by_default():
    cfg = config()
    assert cfg.partnerships == "fixed"
    specs = game_specs(cfg)
    assert [s.key for s in specs[:2]] == ["t0-d0-r0", "t0-d0-r1"]
    assert len(specs) == 3 * 2 * 2  # pairings x deal sets x seatings
    for s in specs:
        assert s.entrants[0] == s.entrants[2] != s.entrants[1] == s.entrants[3]
        assert s.commands == tuple(cfg.entrants[e] for e in s.entrants), "every seat runs its own bot"
    mixed = game_specs(config(n=4, partnerships="mixed", deal_sets=1))
    assert len(mixed) == 3 * 4 and all(len(set(s.entrants)) == 4 for s in mixed)


def test_a_gauntlet_of_partnerships_keeps_the_tables_of_the_candidate():
    specs = game_specs(config(n=4, deal_sets=1, schedule="gauntlet", candidate="e0"))
    assert len(specs) == 3 * 2 and all("e0" in s.entrants for s in specs)


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"partnerships": "random"}, "partnerships must be fixed or mixed, not 'random'"),
        ({"n": 1}, "persian with fixed partnerships needs at least 2 entrants"),
        ({"n": 3, "partnerships": "mixed"}, "persian with mixed partnerships needs at least 4 entrants"),
        ({"variant": "classic", "partnerships": "fixed"}, "classic has no partnerships"),
    ],
)
def test_bad_partnerships_are_refused_with_one_clear_line(settings, words):
    with pytest.raises(ConfigError, match=words):
        config(**settings)


def test_the_cli_refuses_bad_partnerships_with_one_line_and_exit_2(tmp_path):
    r = tournament(
        "run",
        *entrants("a=python -m sample_bots.random"),
        "--variant",
        "persian",
        "--db",
        str(tmp_path / "r.db"),
        "--partnerships",
        "mixed",
    )
    assert r.returncode == 2 and "needs at least 4 entrants" in r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_a_tournament_without_partnerships_keeps_its_fingerprint():
    """A database begun before partnerships existed resumes: nothing new in a non-team configuration."""
    fp = config("classic", n=2).fingerprint()
    assert "partnerships" not in fp and "teams" not in fp
    assert config().fingerprint()["partnerships"] == "fixed" and config().fingerprint()["teams"] == [[0, 2], [1, 3]]


# --- standings ---------------------------------------------------------------------------------------------


def game(key_rot, seating, ranks, totals, faults=(None,) * 4, table=0, deal_set=0):
    seats = [
        SeatResult(entrant=e, seat=i, score=t, rank=r, fault=f, decisions=10, wall_mean=0.01 * (i + 1))
        for i, (e, r, t, f) in enumerate(zip(seating, ranks, totals, faults))
    ]
    return GameResult(f"t{table}-d{deal_set}-r{key_rot}", table, deal_set, key_rot, 1, 2, seats)


def test_fixed_partnerships_count_a_game_once_per_entrant():
    games_ = [
        game(0, "abab", (1, 3, 1, 3), (300, 120, 300, 120)),
        game(1, "baba", (1, 3, 1, 3), (250, 200, 250, 200)),
    ]
    st = team_standings(games_, ["a", "b"], TEAMS, "fixed")
    a, b = st.row("a"), st.row("b")
    assert (a.games, a.wins, a.match_points, a.mean_score) == (2, 1, 1.0, 250.0)
    assert (b.games, b.wins, b.match_points, b.mean_score) == (2, 1, 1.0, 185.0)
    assert a.decision_time["mean"] == pytest.approx(0.025) == b.decision_time["mean"]  # over both seats
    assert st.head_to_head[("a", "b")] == {"wins": 1, "losses": 1, "ties": 0, "games": 2}
    assert [(t.members, t.games, t.wins, t.draws, t.losses) for t in st.teams] == [
        (["a", "a"], 2, 1, 0, 1),
        (["b", "b"], 2, 1, 0, 1),
    ]
    assert st.partnerships == "fixed" and st.to_json()["partnerships"] == "fixed"
    assert game_points(games_[0], TEAMS) == {"a": 1.0, "b": 0.0}


def test_a_faulting_seat_is_recorded_against_its_entrant_once_and_forfeits_for_the_partnership():
    # seat 0 (a) crashed and its other seat then broke its pipe; the engine still ranked seat 2 first
    g = game(0, "abab", (4, 2, 1, 2), (500, 10, 500, 10), ("crash", None, "broken_pipe", None))
    st = team_standings([g], ["a", "b"], TEAMS, "fixed")
    assert st.row("a").faults == {"crash": 1} and st.row("b").faults == {}
    assert (st.row("a").wins, st.row("b").wins) == (0, 1)
    assert st.row("b").match_points == 1.0
    mixed = team_standings(
        [game(0, "abcd", (4, 2, 1, 2), (5, 1, 5, 1), ("illegal", None, None, None))], list("abcd"), TEAMS, "mixed"
    )
    assert mixed.row("a").faults == {"illegal": 1} and mixed.row("c").faults == {}, "the partner did not fault"
    assert mixed.row("c").wins == 0 and mixed.row("b").wins == 1


def test_mixed_partnerships_move_both_partners_by_the_team_result():
    # a and c partners beat b and d, then a and b beat c and d
    games_ = [
        game(0, "abcd", (1, 3, 1, 3), (100, 0, 100, 0)),
        game(0, "acbd", (1, 3, 1, 3), (100, 0, 100, 0), table=1),
    ]
    st = team_standings(games_[:1], list("abcd"), TEAMS, "mixed")
    mu = {r.name: r.rating["mu"] for r in st.entrants}
    assert mu["a"] == mu["c"] > 25 > mu["b"] == mu["d"]
    model = PlackettLuce()  # a team of two against a team of two, not four players on their own
    (won, _), (lost, _) = model.rate([[model.rating(), model.rating()], [model.rating(), model.rating()]], ranks=[1, 2])
    assert (mu["a"], mu["b"]) == (pytest.approx(won.mu), pytest.approx(lost.mu))
    assert ("a", "c") not in st.head_to_head, "partners are not opponents"
    assert st.head_to_head[("a", "b")] == st.head_to_head[("c", "d")] == {"wins": 1, "losses": 0, "ties": 0, "games": 1}
    st = team_standings(games_, list("abcd"), TEAMS, "mixed")
    assert next(r.name for r in st.entrants) == "a"
    assert st.row("a").games == 2 and st.row("a").wins == 2 and st.row("d").wins == 0
    assert {tuple(t.members): (t.games, t.wins) for t in st.teams} == {
        ("a", "c"): (1, 1),
        ("b", "d"): (1, 0),
        ("a", "b"): (1, 1),
        ("c", "d"): (1, 0),
    }
    assert st.head_to_head[("a", "c")]["games"] == 1 and st.to_json()["rating_model"].endswith("(team ratings)")


def test_a_draw_between_partnerships_is_a_draw():
    st = team_standings([game(0, "abab", (1, 1, 1, 1), (80, 80, 80, 80))], ["a", "b"], TEAMS, "fixed")
    assert [(t.wins, t.draws, t.losses, t.match_points) for t in st.teams] == [(0, 1, 0, 0.5)] * 2


def test_stored_standings_follow_the_stored_mode():
    g = game(0, "abab", (1, 3, 1, 3), (300, 120, 300, 120))
    fp = {"entrants": {"a": "x", "b": "y"}, "partnerships": "fixed", "teams": [[0, 2], [1, 3]]}
    assert tournament_standings([g], fp).row("a").games == 1
    assert tournament_standings([g], {"entrants": {"a": "x", "b": "y"}}).row("a").games == 2  # the seat view


@pytest.mark.parametrize("mode", ["fixed", "mixed"])
@pytest.mark.parametrize("fmt", ["table", "md", "html", "json"])
def test_every_report_says_which_mode_was_used(mode, fmt):
    names = list("abcd")
    g = game(0, "abcd" if mode == "mixed" else "abab", (1, 3, 1, 3), (100, 0, 100, 0))
    st = team_standings([g], names, TEAMS, mode)
    cfg = {"variant": "persian", "seats": 4, "deal_sets": 1, "partnerships": mode, "teams": [[0, 2], [1, 3]]}
    about = About({**cfg, "entrants": dict.fromkeys(names, "bot")}, [], (None, None), 1)
    text = render(st, fmt, about=about)
    if fmt == "json":
        data = json.loads(text)
        assert data["partnerships"] == mode and data["about"]["partnerships"] == mode
        assert data["teams"][0]["members"] == (["a", "c"] if mode == "mixed" else ["a", "a"])
    else:
        assert f"Partnerships ({mode}:" in text
        team = "a & c" if mode == "mixed" else "a & a"
        assert (html.escape(team) if fmt in ("html", "md") else team) in text
    assert render(team_standings([], names, TEAMS, mode), fmt)  # no game yet: still a report


# --- end to end: real bots, a real SQLite store ------------------------------------------------------------


def tournament(*args, timeout=600):
    return subprocess.run(
        [PY, "-m", "referee", "tournament", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def entrants(*specs):
    return [a for s in specs for a in ("--entrant", s)]


def report(db):
    r = tournament("report", str(db), "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def seatings(db):
    """key -> (seed, entrants in seat order) of every stored game."""
    with sqlite3.connect(db) as con:
        seeds = dict(con.execute("SELECT key, seed FROM games"))
        out: dict[str, list[str]] = {}
        for key, entrant in con.execute("SELECT game, entrant FROM seats ORDER BY game, seat"):
            out.setdefault(key, []).append(entrant)
    return {k: (seeds[k], tuple(v)) for k, v in out.items()}


def toml(tmp_path, people, **settings):
    path = tmp_path / "t.toml"
    lines = [f"{k} = {json.dumps(v)}" for k, v in {"variant": "persian", "concurrency": 2, **settings}.items()]
    path.write_text(
        "\n".join(lines) + "\n" + "".join(f'[[entrants]]\nname = "{n}"\ncommand = "{c}"\n' for n, c in people)
    )
    return path


JS = f"node {ROOT}/sample_bots/js/random.js"
BOTS = [("greedy", "python -m sample_bots.greedy"), ("random", "python -m sample_bots.random"), ("js", JS)]


@pytest.mark.e2e
def test_a_persian_tournament_plays_every_pairing_with_both_seatings_and_reports_team_standings(tmp_path):
    db = tmp_path / "r.db"
    r = tournament("run", str(toml(tmp_path, BOTS, deal_sets=1, seed=3)), "--db", str(db))
    assert r.returncode == 0, r.stderr
    played = seatings(db)
    assert len(played) == 6
    for pair in (("greedy", "random"), ("greedy", "js"), ("random", "js")):
        mine = [(seed, s) for seed, s in played.values() if set(s) == set(pair)]
        assert len(mine) == 2 and mine[0][0] == mine[1][0], "both seatings on the same decks"
        assert {s for _, s in mine} == {(pair[0], pair[1]) * 2, (pair[1], pair[0]) * 2}
    assert "Partnerships (fixed:" in r.stdout
    rep = report(db)
    assert rep["partnerships"] == "fixed" and rep["about"]["partnerships"] == "fixed"
    assert {e["name"]: e["games"] for e in rep["entrants"]} == {"greedy": 4, "random": 4, "js": 4}
    assert sorted(tuple(t["members"]) for t in rep["teams"]) == [("greedy",) * 2, ("js",) * 2, ("random",) * 2]
    assert sum(t["wins"] for t in rep["teams"]) + sum(t["draws"] for t in rep["teams"]) / 2 == 6
    assert sum(e["match_points"] for e in rep["entrants"]) == 6, "one point per game: no seat counted twice"


@pytest.mark.e2e
def test_mixed_partnerships_report_openskill_team_ratings(tmp_path):
    db = tmp_path / "r.db"
    people = [*BOTS, ("js2", JS)]
    r = tournament("run", str(toml(tmp_path, people, deal_sets=1, seed=5, partnerships="mixed")), "--db", str(db))
    assert r.returncode == 0, r.stderr
    played = seatings(db)
    assert len(played) == 12  # 3 splits into two pairs x 4 seatings
    assert len({seed for seed, _ in played.values()}) == 1, "the four entrants play every seating on one deal set"
    teams = Counter(frozenset((s[0], s[2])) for _, s in played.values()) + Counter(
        frozenset((s[1], s[3])) for _, s in played.values()
    )
    assert len(teams) == 6 and set(teams.values()) == {4}, "every pair is a team, in every seating"
    rep = report(db)
    assert rep["partnerships"] == "mixed" and rep["rating_model"] == "openskill PlackettLuce (team ratings)"
    assert len(rep["teams"]) == 6 and all(t["games"] == 4 for t in rep["teams"])
    assert all(e["games"] == 12 and e["rating"]["sigma"] < 25 / 3 for e in rep["entrants"])
    assert "Partnerships (mixed:" in r.stdout


@pytest.mark.e2e
def test_a_persian_tournament_resumes_after_sigkill_with_the_standings_of_an_uninterrupted_run(tmp_path):
    from test_tournament import kill_and_resume, stored_games, untimed

    cfg = toml(tmp_path, BOTS, deal_sets=1, seed=11)
    whole = tmp_path / "whole.db"
    r = tournament("run", str(cfg), "--db", str(whole))
    assert r.returncode == 0, r.stderr
    cut = tmp_path / "cut.db"
    proc = subprocess.Popen(
        # one game at a time (concurrency may change on resume): the kill lands between games
        [PY, "-m", "referee", "tournament", "run", str(cfg), "--db", str(cut), "--concurrency", "1"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    kill_and_resume(proc, [str(cfg)], cut, 6)
    assert stored_games(cut) == stored_games(whole) == (6, 24)
    assert untimed(report(cut)) == untimed(report(whole))


@pytest.mark.e2e
def test_a_faulting_entrant_is_charged_once_per_game_and_its_opponent_plays_on(tmp_path):
    db = tmp_path / "r.db"
    people = [("greedy", "python -m sample_bots.greedy"), ("crash", "python -m sample_bots.bad.crash")]
    r = tournament("run", str(toml(tmp_path, people, deal_sets=1, seed=2)), "--db", str(db))
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as con:
        seat_faults = con.execute("SELECT count(*) FROM seats WHERE entrant = 'crash' AND fault IS NOT NULL")
        assert seat_faults.fetchone()[0] == 4, "each of its two bots faulted in each game"
    rows = {e["name"]: e for e in report(db)["entrants"]}
    assert sum(rows["crash"]["faults"].values()) == rows["crash"]["games"] == 2, "one fault per game, not per seat"
    assert rows["greedy"]["faults"] == {} and rows["greedy"]["wins"] == 2
