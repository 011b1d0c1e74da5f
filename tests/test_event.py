"""Events: one tournament over several variants (issue 14). The configuration and its errors, keys and seeds,
a real event of subprocess bots in one SQLite database, SIGKILL and resume, and every report format's sections."""

import csv
import io
import json
import re
import sqlite3
import subprocess
import sys
from dataclasses import replace

import pytest
from test_tournament import SAMPLES, kill_and_resume, report, start_tournament, stored_games, tournament

from referee.rules.errors import ConfigError
from referee.rules.variants import VARIANTS
from tournaments.about import About
from tournaments.config import load, part_seed
from tournaments.event import overall_standings
from tournaments.report import FORMATS
from tournaments.run import game_specs
from tournaments.spec import GameResult, SeatResult

ENTRANTS = "".join(f'[[entrants]]\nname = "{n}"\ncommand = "{c}"\n' for n, c in (s.split("=", 1) for s in SAMPLES))
PARTS = (
    'variants = [{variant = "gin", options = {max_deals = 1}}, {variant = "tonk", options = {max_deals = 1}},\n'
    '  {variant = "classic", seats = 3, options = {max_deals = 1}}]\n'
)
EVENT = f"deal_sets = 1\nseed = 7\nconcurrency = 2\n{PARTS}{ENTRANTS}"
GAMES = 6 + 6 + 3  # gin and tonk: 3 pairs x 2 seatings; classic: 1 table x 3 rotations


def config(tmp_path, toml=EVENT, **overrides):
    path = tmp_path / "event.toml"
    path.write_text(toml)
    return load(path, overrides)


# --- the configuration --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "toml,words",
    [
        ('variant = "gin"\nvariants = ["tonk"]\n', "variant and variants are exclusive"),
        ('variants = ["gin"]\n[options]\ntarget = 100\n', "options and variants are exclusive"),
        ('variants = ["gin", "tonk", "Gin"]\n', "variants entry 3: gin is listed twice"),
        ('variants = ["gin", "tonkk"]\n', "variants entry 2 (tonkk): unknown variant 'tonkk' (did you mean 'tonk'?)"),
        ('variants = [{variant = "tonk", options = {max_deal = 1}}]\n', "entry 1 (tonk): unknown option 'max_deal'"),
        ('variants = ["gin", {variant = "tonk", seats = 6}]\n', "entry 2 (tonk): tonk needs 2 to 5 seats per table"),
        ('variants = [{variant = "tonk", seats = "two"}]\n', "entry 1 (tonk): seats must be a whole number"),
        ('variants = [{variant = "gin", partnerships = "mixed"}]\n', "entry 1 (gin): partnerships: gin has no"),
        ('variants = [{variant = "persian", partnerships = "mixed"}]\n', "entry 1 (persian): persian with mixed"),
        ('variants = [{variant = "gin", colour = "red"}]\n', "entry 1 (gin): unknown setting 'colour'"),
        ("variants = [{seats = 2}]\n", "variants entry 1 must be a slug or a table with variant = SLUG"),
        ("variants = []\n", 'variants must be "all" or a list'),
        ('variants = "gin"\n', 'variants must be "all" or a list'),
    ],
)
def test_a_bad_event_is_refused_with_one_message_naming_the_entry(tmp_path, toml, words):
    with pytest.raises(ConfigError) as e:
        config(tmp_path, toml + ENTRANTS)
    assert words in str(e.value)


@pytest.mark.e2e
@pytest.mark.parametrize(
    "toml,args,words",
    [
        (PARTS, ["--variant", "gin"], "--variant is for a single-variant configuration"),
        (PARTS, ["--partnerships", "fixed"], "--partnerships is for a single-variant configuration"),
        ('variants = [{variant = "classic", seats = 7}]\n', [], "variants entry 1 (classic): classic needs 2 to 6"),
    ],
)
def test_bad_event_input_gives_one_line_and_exit_2(tmp_path, toml, args, words):
    (tmp_path / "event.toml").write_text(toml + ENTRANTS)
    r = tournament("run", str(tmp_path / "event.toml"), "--db", str(tmp_path / "r.db"), *args)
    assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "Traceback" not in r.stderr


def test_all_is_every_registered_variant_at_its_minimum_seats(tmp_path):
    cfg = config(tmp_path, f'variants = "all"\n{ENTRANTS}')
    fits = [(slug, cls.min_players) for slug, cls in VARIANTS.items() if cls.min_players <= 3 or cls.teams]
    assert [(p.variant, p.seats) for p in cfg.parts()] == fits, "every variant three entrants can fill"
    assert "rummy-bridge" not in [p.variant for p in cfg.parts()]  # four players, each for himself


def test_the_fingerprint_names_every_part_with_its_defaults_and_seed(tmp_path):
    fp = config(tmp_path).fingerprint()
    assert "variant" not in fp and "options" not in fp
    gin, tonk, classic = fp["variants"]
    assert (gin["variant"], gin["seats"], gin["seed"]) == ("gin", 2, part_seed(7, "gin"))
    assert gin["options"]["target"] == 100 and gin["options"]["max_deals"] == 1  # defaults filled in
    assert classic["seats"] == 3 and tonk["options"]["max_deals"] == 1
    persian = config(tmp_path, f'variants = ["persian"]\n{ENTRANTS}').fingerprint()["variants"][0]
    assert persian["partnerships"] == "fixed" and persian["teams"] == [[0, 2], [1, 3]]


def test_single_variant_keys_and_fingerprint_are_unchanged(tmp_path):
    single = config(tmp_path, f'variant = "gin"\ndeal_sets = 1\nseed = 7\n{ENTRANTS}')
    assert [s.key for s in game_specs(single)][:3] == ["t0-d0-r0", "t0-d0-r1", "t1-d0-r0"]
    assert "variants" not in single.fingerprint() and single.fingerprint()["variant"] == "gin"


def test_keys_are_unique_and_prefixed_and_each_part_is_its_own_single_variant_tournament(tmp_path):
    cfg = config(tmp_path, records=str(tmp_path / "rec"))
    specs = game_specs(cfg)
    keys = [s.key for s in specs]
    assert len(keys) == len(set(keys)) == GAMES and keys[0] == "gin.t0-d0-r0" and keys[-1] == "classic.t0-d0-r2"
    assert all(s.record == str(tmp_path / "rec" / f"{s.key}.jsonl") for s in specs)
    assert [s.key for s in game_specs(config(tmp_path))] == keys  # stable
    for part in cfg.parts():  # the same games as a tournament of that variant alone, on the part's seed
        alone = config(tmp_path, f"variant = {part.variant!r}\n{ENTRANTS}", seed=part.seed)
        alone = replace(alone, deal_sets=1, seats=part.seats, options=part.options, records=str(tmp_path / "rec"))
        ours = [s for s in specs if s.key.startswith(f"{part.variant}.")]
        assert [replace(s, key=f"{part.variant}.{s.key}", record=None) for s in game_specs(alone)] == [
            replace(s, record=None) for s in ours
        ]


def test_each_variant_gets_its_own_decks(tmp_path):
    by_part: dict[str, set[int]] = {}
    for s in game_specs(config(tmp_path)):
        by_part.setdefault(s.variant, set()).add(s.seed)
    assert not by_part["gin"] & by_part["tonk"] and not by_part["tonk"] & by_part["classic"]
    assert part_seed(7, "gin") != part_seed(8, "gin") and part_seed(7, "gin") == part_seed(7, "gin")


# --- the overall standings (pure) ---------------------------------------------------------------------------------
def about(parts):
    """An event's About as a database of `parts` (variant, seats, teams) would give it."""
    event = {"entrants": {"a": "bot", "b": "bot"}, "variants": [{"variant": v, "seats": n} for v, n, _ in parts]}
    for entry, (_, _, teams) in zip(event["variants"], parts):
        entry.update({"partnerships": "fixed", "teams": teams} if teams else {})
    shared = {k: v for k, v in event.items() if k != "variants"}
    sections = [About({**shared, **entry}, [], (None, None), 1) for entry in event["variants"]]
    return About(event, [], (None, None), len(parts), sections)


def test_overall_standings_count_every_game_once_per_entrant_and_rate_them_all():
    games = [
        GameResult("gin.t0-d0-r0", 0, 0, 0, 1, 1, [SeatResult("a", 0, 30, 1), SeatResult("b", 1, 0, 2)]),
        GameResult("gin.t0-d0-r1", 0, 0, 1, 1, 1, [SeatResult("b", 0, 30, 1), SeatResult("a", 1, 0, 2)]),
        # persian with fixed partnerships: a fills seats 0 and 2, one game and one fault at most for it
        GameResult(
            "persian.t0-d0-r0",
            0,
            0,
            0,
            2,
            1,
            [SeatResult("a", 0, 5, 1, "timeout"), SeatResult("b", 1, 9, 2)]
            + [SeatResult("a", 2, 5, 1, "timeout"), SeatResult("b", 3, 9, 2)],
        ),
    ]
    event = about([("gin", 2, None), ("persian", 4, [[0, 2], [1, 3]])])
    st = overall_standings(games, event)
    assert overall_standings(games[::-1], event).to_json() == st.to_json()  # order-free, like every standings
    a, b = st.row("a"), st.row("b")
    assert (st.games, a.games, b.games) == (3, 3, 3)
    assert (a.wins, b.wins, a.match_points, b.match_points) == (2, 1, 2.0, 1.0)
    assert a.faults == {"timeout": 1} and a.mean_score is None and st.unit == "mixed"
    assert len(a.rating_history) == 4 and st.entrants[0].name == "a"
    assert st.head_to_head[("a", "b")] == {"wins": 2, "losses": 1, "ties": 0, "games": 3}


# --- a real event -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The event above, played once by the three sample bots: (directory, the run's output)."""
    tmp = tmp_path_factory.mktemp("event")
    (tmp / "event.toml").write_text(EVENT)
    r = tournament("run", str(tmp / "event.toml"), "--db", str(tmp / "r.db"), "--records", str(tmp / "rec"))
    assert r.returncode == 0, r.stderr
    return tmp, r


@pytest.mark.e2e
def test_an_event_stores_every_game_and_prints_overall_then_per_variant_standings(played):
    tmp, r = played
    assert stored_games(tmp / "r.db") == (GAMES, 2 * 6 + 2 * 6 + 3 * 3)
    assert sorted(p.name for p in (tmp / "rec").glob("*.jsonl"))[:2] == [
        "classic.t0-d0-r0.jsonl",
        "classic.t0-d0-r1.jsonl",
    ]
    assert len(list((tmp / "rec").glob("*.jsonl"))) == GAMES
    out = r.stdout
    heads = [
        "overall standings (every variant)",
        "Variant 1 of 3: gin",
        "Variant 2 of 3: tonk",
        "Variant 3 of 3: classic",
    ]
    assert [out.index(h) for h in heads] == sorted(out.index(h) for h in heads)
    assert "lowest total wins" in out and "highest total wins" in out  # tonk's and gin's own scoring
    with sqlite3.connect(tmp / "r.db") as con:
        info = json.loads(con.execute("SELECT info FROM runs").fetchone()[0])
        faults = con.execute("SELECT count(*) FROM seats WHERE fault IS NOT NULL AND entrant != 'js'").fetchone()
    assert [(v["slug"], v["low_wins"], v["unit"], v["games_scheduled"]) for v in info["variants"]] == [
        ("gin", False, "points", 6),
        ("tonk", True, "points", 6),
        ("classic", True, "points", 3),
    ]
    assert faults == (0,)  # no fault by the random or greedy bots
    replay = subprocess.run([sys.executable, "-m", "referee", "replay", str(tmp / "rec" / "tonk.t1-d0-r1.jsonl")])
    assert replay.returncode == 0


@pytest.mark.e2e
def test_the_overall_rating_counts_every_game_and_each_section_is_its_variants_own(played):
    tmp, _ = played
    rep = report(tmp / "r.db")
    assert rep["overall"]["games"] == GAMES and rep["overall"]["unit"] == "mixed"
    sections = {v["about"]["variant"]: v for v in rep["variants"]}
    assert list(sections) == ["gin", "tonk", "classic"]
    for row in rep["overall"]["entrants"]:
        per_variant = [next(e for e in v["entrants"] if e["name"] == row["name"]) for v in rep["variants"]]
        assert row["games"] == sum(e["games"] for e in per_variant) == 4 + 4 + 3
        assert row["match_points"] == sum(e["match_points"] for e in per_variant)
        assert len(row["rating_history"]) == row["games"] + 1  # one rating update per game of every variant
        assert "mean_score" not in row
    assert sections["classic"]["about"]["seats"] == 3 and sections["tonk"]["about"]["low_wins"] is True
    assert sections["gin"]["about"]["seed"] == part_seed(7, "gin") and "duplicate" in sections["gin"]
    assert rep["about"]["variants"] == ["gin", "tonk", "classic"] and rep["about"]["games_played"] == GAMES


@pytest.mark.e2e
@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "json"])
def test_every_report_format_shows_the_overall_standings_then_each_variant(played, fmt):
    tmp, _ = played
    text = report(tmp / "r.db", fmt)
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        assert [r["variant"] for r in rows] == ["all"] * 3 + ["gin"] * 3 + ["tonk"] * 3 + ["classic"] * 3
        assert all(r["mean_score"] == "" for r in rows[:3]) and all(r["mean_score"] for r in rows[3:])
        return
    heads = [
        "overall standings (every variant)",
        *(f"Variant {i} of 3: {v}" for i, v in enumerate(["gin", "tonk", "classic"], 1)),
    ]
    where = [text.index(h) for h in heads]
    assert where == sorted(where)
    assert (
        text.count("Head to head") == 4
        and text.count("Duplicate dealing" if fmt != "table" else "Duplicate deals") == 3
    )
    if fmt == "md":
        assert re.search(r"^## Variant 1 of 3: gin", text, re.M) and re.search(r"^### Standings", text, re.M)
    if fmt == "html":
        assert text.count("<html") == 1 and "<h2>Variant 2 of 3: tonk" in text


@pytest.mark.e2e
def test_the_metadata_csv_of_an_event_has_each_variants_facts(played, tmp_path):
    tmp, _ = played
    r = tournament("report", str(tmp / "r.db"), "--format", "csv", "-o", str(tmp_path / "r.csv"))
    assert r.returncode == 0, r.stderr
    meta = dict(csv.reader(io.StringIO((tmp_path / "r.meta.csv").read_text())))
    assert meta["variants.2"] == "tonk" and meta["classic.seats"] == "3" and meta["tonk.options.max_deals"] == "1"


@pytest.mark.e2e
def test_sigkill_then_resume_of_an_event_gives_the_standings_of_an_uninterrupted_run(played, tmp_path):
    whole, _ = played
    (tmp_path / "event.toml").write_text(EVENT)
    cut = tmp_path / "cut.db"
    proc = start_tournament(
        str(tmp_path / "event.toml"), "--db", str(cut), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    kill_and_resume(proc, [str(tmp_path / "event.toml")], cut, GAMES, stored=3)
    assert stored_games(cut) == stored_games(whole / "r.db")
    assert untimed(report(cut)) == untimed(report(whole / "r.db"))


def untimed(rep):
    """An event's JSON report without the wall-clock figures and run times, which differ from run to run."""
    for part in [rep["overall"], *rep["variants"]]:
        for e in part["entrants"]:
            e.pop("decision_time")
    for a in [rep["about"], *(v["about"] for v in rep["variants"])]:
        for key in ("started", "runs", "games_finished"):
            a.pop(key)
    return rep


@pytest.mark.e2e
def test_a_changed_event_is_refused_on_resume_naming_the_variants(played, tmp_path):
    tmp, _ = played
    changed = tmp_path / "changed.toml"
    changed.write_text(EVENT.replace("seats = 3, options = {max_deals = 1}", "seats = 3, options = {max_deals = 2}"))
    r = tournament("run", str(changed), "--db", str(tmp / "r.db"))
    assert r.returncode == 2 and "changed: variants" in r.stderr, r.stderr


@pytest.mark.e2e
def test_an_event_under_another_rules_version_of_one_variant_is_refused(played, tmp_path):
    db = tmp_path / "r.db"
    with sqlite3.connect(played[0] / "r.db") as src, sqlite3.connect(db) as dst:
        src.backup(dst)
        dst.execute("UPDATE runs SET info = json_set(info, '$.variants[1].rules_version', 0)")
    r = tournament("run", str(played[0] / "event.toml"), "--db", str(db))
    assert r.returncode == 2 and "tonk rules version 0" in r.stderr, r.stderr
