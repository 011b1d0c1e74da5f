"""Reports: every format shows every entrant; CSV and JSON read back; HTML renders in a browser."""

import csv
import html
import io
import json
import os
import re
import subprocess
import tempfile

import pytest

from tournaments.report import FORMATS, nice_ticks, render
from tournaments.spec import GameResult, SeatResult
from tournaments.standings import standings

CHROMIUM = "/usr/bin/chromium"
NAMES = ["alpha", "bravo <b>", "charlie & co", "delta"]


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
    assert "card luck removed" in text


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
    page.write_text(render(st, "html"), encoding="utf-8")
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
