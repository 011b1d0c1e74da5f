"""Reports: every format shows every entrant and what was played; CSV and JSON read back; HTML renders in
a browser; the duplicate-deal sentences follow the data; a resumed run with another configuration is refused."""

import csv
import html
import io
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

import pytest

from protocol import PROTOCOL_VERSION
from referee.rules.variants import find_variant
from tournaments.about import About, duplicate_words
from tournaments.config import load
from tournaments.plot import nice_ticks
from tournaments.report import FORMATS, render
from tournaments.run import game_specs
from tournaments.spec import GameResult, SeatResult
from tournaments.standings import standings
from tournaments.store import Store

CHROMIUM = "/usr/bin/chromium"
NAMES = ["alpha", "bravo <b>", "charlie & co", "delta"]
# What a results database of the fixture's tournament would say about it (see Store.about()).
CLASSIC = {"slug": "classic", "name": "Classic Rummy", "local_name": "Klasikinis romis", "rules_version": 1}
ABOUT = About(
    config={"variant": "classic", "seats": 3, "deal_sets": 3, "seed": 5, "options": {"target": 100}, "limits": {}}
    | {"entrants": {n: f"bot --name '{n}'" for n in NAMES}, "retries": 0, "schedule": "round-robin"},
    runs=[
        {"started": "2025-06-01T10:00:00Z", "games_before": 0, "romis": "0.1.0", "protocol": 1}
        | {"games_scheduled": 36, "variant": CLASSIC | {"low_wins": True, "dealer_follows_play": False}}
    ],
    finished=("2025-06-01T10:00:05Z", "2025-06-01T10:03:00Z"),
    games_played=36,
)


@pytest.fixture(scope="module")
def st():
    """A small duplicate round robin of four entrants at 3-seat tables; alpha usually wins."""
    games = []
    tables = [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
    for t, combo in enumerate(tables):
        for d in range(3):
            for r in range(3):
                seated = [NAMES[combo[(s + r) % 3]] for s in range(3)]
                # Entrants listed earlier rank higher, except that seat 0 of deal set 1 is a
                # lucky hand that wins whoever holds it.
                key = [NAMES.index(n) - (5 if d == 1 and s == 0 else 0) for s, n in enumerate(seated)]
                seats = [
                    SeatResult(
                        n,
                        s,
                        score=10 - key[s],
                        rank=1 + sorted(key).index(key[s]),
                        fault="timeout" if n == "delta" and r == 0 else None,
                        decisions=12,
                        wall_mean=0.004,
                        wall_p95=0.01,
                        wall_max=0.02,
                    )
                    for s, n in enumerate(seated)
                ]
                games.append(GameResult(f"t{t}-d{d}-r{r}", t, d, r, d, 2, seats))
    return standings(games, NAMES)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_names_every_entrant(st, fmt):
    text = render(st, fmt)
    for name in NAMES:
        shown = name if fmt in ("table", "csv", "json") else html.escape(name, quote=False)
        assert shown in text, (fmt, name)


def test_unknown_format_is_refused(st):
    with pytest.raises(ValueError, match="choose one of"):
        render(st, "pdf")


def test_table_has_no_terminal_escape_codes_and_lists_best_first(st):
    text = render(st, "table")
    assert "\x1b" not in text
    lines = [ln for ln in text.splitlines() if re.match(r"\d+\s+\w", ln)]
    assert lines[0].split()[1] == "alpha"
    assert "Duplicate deals:" in text


def test_csv_parses_back(st):
    rows = list(csv.DictReader(io.StringIO(render(st, "csv"))))
    assert [r["name"] for r in rows] == [r.name for r in st.entrants]
    first = rows[0]
    assert int(first["games"]) == st.entrants[0].games
    assert float(first["mu"]) == pytest.approx(st.entrants[0].rating["mu"])
    delta = next(r for r in rows if r["name"] == "delta")
    assert delta["faults"] == f"timeout:{st.row('delta').faults['timeout']}"


def test_json_has_required_fields(st):
    data = json.loads(render(st, "json"))
    assert [e["name"] for e in data["entrants"]] == [r.name for r in st.entrants]
    for e in data["entrants"]:
        assert {"name", "games", "match_points", "mean_score", "rating", "faults"} <= set(e)
        assert {"mu", "sigma"} <= set(e["rating"])
    faults = {e["name"]: e["faults"] for e in data["entrants"]}
    assert faults["delta"] == {"timeout": 9} and faults["alpha"] == {}  # 3 tables x 3 deal sets
    assert len(data["head_to_head"]) == 12  # every ordered pair of 4 entrants met
    assert data["duplicate"]["units"] == 12


def test_html_is_self_contained_and_escaped(st):
    page = render(st, "html", title="cup <2025>")
    assert "<title>cup &lt;2025&gt;</title>" in page
    assert "bravo <b>" not in page  # raw markup from a name never reaches the page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert "<link" not in page and "<script" not in page
    assert page.count('class="mu-line"') == len(NAMES)


def test_ticks_are_round_and_cover_the_range():
    assert nice_ticks(0, 72) == [0, 20, 40, 60, 80]
    ticks = nice_ticks(7.3, 44.1)
    assert ticks[0] <= 7.3 and ticks[-1] >= 44.1 and ticks[1] - ticks[0] == 10


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium is not installed")
def test_html_renders_in_headless_chromium(st, tmp_path):
    page = tmp_path / "report.html"
    page.write_text(render(st, "html", about=ABOUT), encoding="utf-8")
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--no-first-run",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={profile}",
                "--dump-dom",
                page.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        ).stdout
    svg = re.search(r"<svg.*?</svg>", dom, re.S)
    assert svg, "the rating plot is missing from the rendered page"
    groups = re.findall(r"<g data-entrant=.*?</g>", svg.group(0), re.S)
    assert len(groups) == len(NAMES)
    for name, group in zip([r.name for r in st.entrants], groups):
        escaped = html.escape(name, quote=False)
        assert group.count("<polyline") == 1 and f">{escaped}</text>" in group, name
        assert f"<td>{escaped}</td>" in dom
    standings_table = re.search(r'<table class="standings">.*?</table>', dom, re.S).group(0)
    assert standings_table.count("<tr>") == 1 + len(NAMES)
    assert "<th>seed</th><td>5</td>" in dom and "<th>romis version</th><td>0.1.0</td>" in dom
    assert "started 2025-06-01 10:00:00 UTC" in dom and "lowest total wins" in dom
    entrants = re.search(r'<table class="entrants">.*?</table>', dom, re.S).group(0)
    for name in (html.escape(n, quote=False) for n in NAMES):
        assert f"<td>{name}</td><td>bot --name '{name}'</td>" in entrants


# --- what was played: metadata stored with the results of a real tournament -------------------------

ROOT = Path(__file__).resolve().parent.parent
ENTRANTS = {"greedy": "python -m sample_bots.greedy", "random": "python -m sample_bots.random"}
TOML = (
    'variant = "classic"\nseats = 2\ndeal_sets = 2\nseed = 11\nconcurrency = 2\n'
    "[options]\njokers = 4\n[limits]\nmove_time = 5.0\n"
    + "".join(f'[[entrants]]\nname = "{n}"\ncommand = "{c}"\n' for n, c in ENTRANTS.items())
)


def romis(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A real (small) tournament: 4 games of classic with 4 jokers; returns (database, config file)."""
    d = tmp_path_factory.mktemp("played")
    config, db = d / "t.toml", d / "r.db"
    config.write_text(TOML)
    r = romis("tournament", "run", str(config), "--db", str(db))
    assert r.returncode == 0, r.stderr
    return db, config


def expected_facts(db: Path) -> dict[str, list[str]]:
    """Label -> the words its value must contain, from what the run itself should have recorded."""
    with sqlite3.connect(db) as con:
        (started,) = con.execute("SELECT started FROM runs").fetchone()
    defaults = find_variant("classic").parse_options({})
    return {
        "variant": ["classic", "Classic Rummy", "Klasikinis romis", "rules version 1"],
        "scoring": ["lowest total wins"],
        "tables": ["1 table", "2 seats", "round-robin"],
        "games": ["4 of 4 played", "2 deal sets"],
        "seed": ["11"],
        "options": ["jokers=4"] + [f"{k}={json.dumps(v)}" for k, v in defaults.items() if k != "jokers"],
        "time limits": ["move_time 5 s", "bank 30 s", "startup_time 10 s"],
        "romis version": [version("romis")],
        "protocol version": [str(PROTOCOL_VERSION)],
        "run": ["started " + started.replace("T", " ").removesuffix("Z") + " UTC"],
    }


def facts_in(text: str, fmt: str) -> dict[str, str]:
    """The 'what was played' values of a table, md or html report, by label."""
    patterns = {
        "table": r"^  (\w[\w ]*?)  +(.+)$",
        "md": r"^\| (\w[\w ]*?) \| (.+) \|$",
        "html": r"<tr><th>(\w[\w ]*?)</th><td>(.*?)</td></tr>",
    }
    found: dict[str, str] = {}
    for k, v in re.findall(patterns[fmt], text, re.M):
        found.setdefault(k, html.unescape(v))  # the first table with such rows is the one wanted
    return found


@pytest.mark.e2e
@pytest.mark.parametrize("fmt", ["table", "md", "html"])
def test_text_reports_state_what_was_played(played, fmt):
    db, _ = played
    r = romis("tournament", "report", str(db), "--format", fmt)
    assert r.returncode == 0, r.stderr
    found = facts_in(r.stdout, fmt)
    for label, words in expected_facts(db).items():
        for w in words:
            assert w in found.get(label, ""), (fmt, label, w, found.get(label))
    # the entrants' rows have the facts' shape in the terminal and in Markdown; two plain cells in HTML
    rows = dict(re.findall(r"<tr><td>([^<]*)</td><td>([^<]*)</td></tr>", r.stdout)) if fmt == "html" else found
    assert {name: rows.get(name) for name in ENTRANTS} == ENTRANTS, fmt
    assert "mean score (lower is better)" in r.stdout


@pytest.mark.e2e
def test_json_report_states_what_was_played(played):
    db, _ = played
    about = json.loads(romis("tournament", "report", str(db), "--format", "json").stdout)["about"]
    assert (about["variant"], about["variant_name"], about["rules_version"]) == ("classic", "Classic Rummy", 1)
    assert about["low_wins"] is True and "lowest total wins" in about["scoring"]
    assert (about["seats"], about["deal_sets"], about["seed"]) == (2, 2, 11)
    assert about["options"] == find_variant("classic").parse_options({"jokers": 4})
    assert about["limits"]["move_time"] == 5.0
    assert {e["name"]: e["command"] for e in about["entrants"]} == ENTRANTS
    assert (about["romis"], about["protocol"]) == (version("romis"), PROTOCOL_VERSION)
    assert (about["games_played"], about["games_scheduled"]) == (4, 4)
    started = datetime.fromisoformat(about["started"])
    assert abs((datetime.now(UTC) - started).total_seconds()) < 600
    assert about["games_finished"]["first"] >= about["started"]


@pytest.mark.e2e
def test_csv_is_the_standings_with_the_metadata_in_a_second_csv(played, tmp_path):
    db, _ = played
    out = tmp_path / "standings.csv"
    r = romis("tournament", "report", str(db), "--format", "csv", "-o", str(out))
    assert r.returncode == 0 and "standings.meta.csv" in r.stderr, r.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert {row["name"]: row["command"] for row in rows} == ENTRANTS
    meta = dict(csv.reader(io.StringIO((tmp_path / "standings.meta.csv").read_text())))
    assert meta["key"] == "value"
    assert (meta["variant"], meta["variant_name"], meta["rules_version"]) == ("classic", "Classic Rummy", "1")
    assert (meta["seats"], meta["deal_sets"], meta["seed"], meta["low_wins"]) == ("2", "2", "11", "true")
    assert meta["options.jokers"] == "4" and meta["options.max_deals"] == "200"
    assert {meta["entrants.1.command"], meta["entrants.2.command"]} == set(ENTRANTS.values())
    assert (meta["romis"], meta["protocol"]) == (version("romis"), str(PROTOCOL_VERSION))
    assert meta["started"].startswith(str(datetime.now(UTC).year))


@pytest.mark.e2e
def test_a_copied_database_still_knows_and_an_old_one_says_unknown(played, tmp_path):
    db, _ = played
    copy = tmp_path / "copy.db"
    shutil.copy(db, copy)
    same = romis("tournament", "report", str(copy), "--format", "json")
    assert json.loads(same.stdout)["about"]["started"] is not None
    with sqlite3.connect(copy) as con:  # what a database written before runs were recorded looks like
        con.execute("DROP TABLE runs")
    for fmt in FORMATS:
        r = romis("tournament", "report", str(copy), "--format", fmt)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        if fmt in ("table", "md", "html"):
            found = facts_in(r.stdout, fmt)
            assert found["romis version"].startswith("unknown") and found["scoring"].startswith("unknown")
            assert "11" in found["seed"] and "jokers=4" in found["options"]
    about = json.loads(romis("tournament", "report", str(copy), "--format", "json").stdout)["about"]
    assert about["romis"] is None and about["low_wins"] is None and about["seed"] == 11
    # resumed by this romis (nothing left to play): the resume is recorded, the start stays unknown
    _, config = played
    assert romis("tournament", "run", str(config), "--db", str(copy)).returncode == 0
    found = facts_in(romis("tournament", "report", str(copy)).stdout, "table")
    assert found["run"].startswith("start unknown") and "resumed 1 time, last" in found["run"]
    assert found["romis version"] == version("romis") + "; the runs before that: unknown"
    assert found["scoring"].startswith("lowest total wins")


# --- the duplicate-deal sentences ---------------------------------------------------------------------


def two_entrant_units(points: list[tuple[float, float]]) -> list[GameResult]:
    """a against b at one table, one deal set per pair: a's match points in rotation 0 and 1."""
    games = []
    for d, pair in enumerate(points):
        for r, pts in enumerate(pair):
            a = SeatResult("a", r, score=0, rank=1 if pts == 1 else 2 if pts == 0 else 1)
            b = SeatResult("b", 1 - r, score=0, rank=1 if pts == 0 else 2 if pts == 1 else 1)
            games.append(GameResult(f"t0-d{d}-r{r}", 0, d, r, d, 1, sorted([a, b], key=lambda s: s.seat)))
    return games


def test_luck_sentence_gives_the_measured_spreads():
    # a's per-game points 1,0 | 0,1 | 1,0 | 1,1: single-game variance 15/56 (pooled over a and b), unit
    # averages .5,.5,.5,1 around .625: variance 1/16; two independent deals: 15/56 / 2 = 15/112.
    dup = standings(two_entrant_units([(1, 0), (0, 1), (1, 0), (1, 1)]), ["a", "b"]).duplicate
    assert dup["variance_individual"] == pytest.approx(15 / 56)
    assert dup["variance_duplicate"] == pytest.approx(1 / 16)
    assert dup["luck_removed"] == pytest.approx(8 / 15)
    words = duplicate_words(dup)
    assert "dealt 2 times" in words and "over 4 deal sets" in words
    assert "varied by ±0.25" in words and "2 independent single deals would vary by ±0.37" in words
    assert "cut that spread by 32% (its variance by 53%)" in words  # 1 - sqrt(7/15), 1 - 7/15


def test_luck_sentence_when_duplicates_changed_nothing_or_there_is_nothing_to_measure():
    # a's points 1,1 | 1,0 | 1,1 | 1,1: single-game variance 1/8, so two independent deals 1/16; unit
    # averages 1,.5,1,1 around .875: variance 1/16 too
    even = standings(two_entrant_units([(1, 1), (1, 0), (1, 1), (1, 1)]), ["a", "b"]).duplicate
    assert "varied by ±0.25" in duplicate_words(even) and "would vary by ±0.25" in duplicate_words(even)
    assert "cancelled no measurable card luck" in duplicate_words(even)
    one = standings(two_entrant_units([(1, 0)]), ["a", "b"]).duplicate
    assert "too few to measure" in duplicate_words(one)
    same = standings(two_entrant_units([(1, 1), (1, 1)]), ["a", "b"]).duplicate
    assert "no card luck to cancel" in duplicate_words(same)


def test_luck_sentence_warns_where_play_decides_who_deals():
    dup = standings(two_entrant_units([(1, 0), (0, 1)]), ["a", "b"]).duplicate
    gin = About({"variant": "gin"}, [{"variant": {"slug": "gin", "dealer_follows_play": True}}], (None, None), 4)
    assert "cancels only partly" in duplicate_words(dup, gin)
    assert "cancels only partly" not in duplicate_words(dup)


# --- a resumed run with another configuration is refused ---------------------------------------------


def stored_tournament(tmp_path, toml: str) -> Path:
    """A results database bound to the configuration `toml` (as the first run leaves it), no game played."""
    (tmp_path / "t.toml").write_text(toml)
    cfg = load(tmp_path / "t.toml", {"db": str(tmp_path / "r.db")})
    store = Store(cfg.db)
    store.bind(cfg.fingerprint())
    store.begin_run(cfg.variant, game_specs(cfg))
    store.close()
    return Path(cfg.db)


@pytest.mark.parametrize(
    "changes,word",
    [
        ((('variant = "classic"', 'variant = "gin"'), ("jokers = 4", "target = 100")), "variant"),
        ((("seed = 11", "seed = 12"),), "seed"),
        ((("jokers = 4", "jokers = 6"),), "options"),
        ((("sample_bots.random", "sample_bots.greedy"),), "entrants"),
    ],
)
def test_resuming_with_another_configuration_is_refused(tmp_path, changes, word):
    db = stored_tournament(tmp_path, TOML)
    toml = TOML
    for old, new in changes:
        toml = toml.replace(old, new)
    (tmp_path / "changed.toml").write_text(toml)
    r = romis("tournament", "run", str(tmp_path / "changed.toml"), "--db", str(db))
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert word in re.search(r"changed: ([\w, ]+)", r.stderr).group(1).split(", ")
    assert sqlite3.connect(db).execute("SELECT count(*) FROM games").fetchone() == (0,)


@pytest.mark.e2e
def test_resuming_with_the_entrants_in_another_order_is_refused(tmp_path):
    three = TOML + '[[entrants]]\nname = "other"\ncommand = "python -m sample_bots.random"\n'
    db = stored_tournament(tmp_path, three)
    store = Store(db)  # the first game of the first table, (greedy, random), has finished
    store.add(GameResult("t0-d0-r0", 0, 0, 0, 1, 1, [SeatResult("greedy", 0, 0, 1), SeatResult("random", 1, 9, 2)]))
    store.close()
    reordered = tmp_path / "reordered.toml"  # the same entrants, listed last to first
    head, *entrants = three.split("[[entrants]]\n")
    reordered.write_text(head + "".join("[[entrants]]\n" + e for e in reversed(entrants)))
    r = romis("tournament", "run", str(reordered), "--db", str(db))
    assert r.returncode == 2 and "list the entrants in the order of the first run" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_an_unwritable_output_file_gives_one_line_and_exit_2(tmp_path):
    db = stored_tournament(tmp_path, TOML)
    r = romis("tournament", "report", str(db), "--format", "md", "-o", str(tmp_path / "no-such-dir" / "r.md"))
    assert r.returncode == 2 and "cannot write" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_resuming_under_another_rules_version_is_refused(tmp_path):
    db = stored_tournament(tmp_path, TOML)
    with sqlite3.connect(db) as con:
        con.execute("UPDATE runs SET info = json_set(info, '$.variant.rules_version', 0)")
    r = romis("tournament", "run", str(tmp_path / "t.toml"), "--db", str(db))
    assert r.returncode == 2 and "rules version 0" in r.stderr, r.stderr


def test_a_report_of_a_game_played_for_chips_shows_the_net_chips_in_every_format():
    games = [
        GameResult("t0-d0-r0", 0, 0, 0, 0, 3, [SeatResult("alpha", 0, 12.0, 1), SeatResult("beta", 1, -12.0, 2)]),
        GameResult("t0-d0-r1", 0, 0, 1, 0, 3, [SeatResult("beta", 0, 3.0, 1), SeatResult("alpha", 1, -3.0, 2)]),
    ]
    pangu = {"slug": "panguingue", "name": "Panguingue", "local_name": "Pangingas", "rules_version": 1}
    run = ABOUT.runs[0] | {"variant": pangu | {"low_wins": False, "unit": "chips", "dealer_follows_play": True}}
    chips = About(ABOUT.config | {"variant": "panguingue"}, [run], ABOUT.finished, 2)
    st = standings(games, ["alpha", "beta"], unit=chips.unit)
    table = render(st, "table", about=chips)
    header = next(ln for ln in table.splitlines() if ln.startswith("#"))
    assert "net chips" in header and "mean chips/game" in header
    assert "played for chips" in table
    row = next(ln for ln in table.splitlines() if re.match(r"1\s+alpha", ln))
    assert row.split()[3] == "9.0"  # alpha's 12 - 3
    rows = list(csv.DictReader(io.StringIO(render(st, "csv", about=chips))))
    assert [(r["name"], float(r["net_chips"])) for r in rows] == [("alpha", 9.0), ("beta", -9.0)]
    assert "net chips" in render(st, "html", about=chips) and "net chips" in render(st, "md", about=chips)
    assert json.loads(render(st, "json", about=chips))["entrants"][0]["net_chips"] == 9.0
    # a points game keeps its columns
    assert "net chips" not in render(standings(games, ["alpha", "beta"]), "table", about=ABOUT)


def test_a_report_of_a_game_played_for_chips_shows_the_chips_left_in_the_bank_in_every_format():
    games = [  # 8 of the first game's chips and 2 of the second's stayed in the bank
        GameResult("t0-d0-r0", 0, 0, 0, 0, 3, [SeatResult("alpha", 0, 12.0, 1), SeatResult("beta", 1, -20.0, 2)]),
        GameResult("t0-d0-r1", 0, 0, 1, 0, 3, [SeatResult("beta", 0, 3.0, 1), SeatResult("alpha", 1, -5.0, 2)]),
    ]
    tariff = {"slug": "tariff-bridge", "name": "Tariff Rummy Bridge", "local_name": "Tarifinis", "rules_version": 1}
    run = ABOUT.runs[0] | {"variant": tariff | {"low_wins": False, "unit": "chips", "dealer_follows_play": False}}
    chips = About(ABOUT.config | {"variant": "tariff-bridge"}, [run], ABOUT.finished, 2)
    st = standings(games, ["alpha", "beta"], unit=chips.unit)
    words = "Bank: 10 chips left in the bank at the end of the 2 games (5.0 per game)."
    for fmt in ("table", "md", "html"):
        assert words in render(st, fmt, about=chips), fmt
    assert json.loads(render(st, "json", about=chips))["bank"] == {"left": 10.0, "per_game": 5.0}
    rows = list(csv.DictReader(io.StringIO(render(st, "csv", about=chips))))
    assert [(r["bank_left"], r["bank_left_per_game"]) for r in rows] == [("10.0", "5.0")] * 2
    plain = standings(games, ["alpha", "beta"])  # a points game says nothing of a bank
    assert all("bank" not in render(plain, fmt, about=ABOUT).lower() for fmt in ("table", "md", "csv", "json"))
