"""`romis view`: the replay page of a game record, checked in a real headless Chromium against an engine stepped
through the record's plays by the test itself."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.messages import op_from_builtins
from referee.cli import run as run_cli
from referee.play import play_match
from referee.records import _link, _new_game
from referee.view import SHOWN, game_data, render

ROOT = Path(__file__).resolve().parent.parent
RANDOM, GREEDY = "python -m sample_bots.random", "python -m sample_bots.greedy"
ILLEGAL = "python -m sample_bots.bad.illegal"
GAMES = {  # variant: bots (seat order), seed; one deal each
    "classic": ([GREEDY, RANDOM, ILLEGAL], 3),
    "gin": ([GREEDY, RANDOM], 4),
    "may-i": ([RANDOM, GREEDY, RANDOM], 5),
    "two-candles": ([GREEDY, RANDOM, RANDOM], 3),  # two piles, no discard pile, no melds
    "french": ([GREEDY, RANDOM], 3),  # chips and a bank
}
CHROMIUM, DRIVER = "/usr/bin/chromium", shutil.which("chromedriver") or "/usr/bin/chromedriver"


class Records(dict):
    """One real record per variant of GAMES, played by subprocess bots when first asked for."""

    def __init__(self, folder: Path):
        super().__init__()
        self.folder = folder

    def __missing__(self, variant: str) -> Path:
        bots, seed = GAMES[variant]
        path = self[variant] = self.folder / f"{variant}.jsonl"
        cwd = os.getcwd()
        os.chdir(ROOT)  # the bots run as `python -m sample_bots...`
        try:
            play_match(variant, bots, seed, {"max_deals": 1}, path)
        finally:
            os.chdir(cwd)
        return path


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Records:
    return Records(tmp_path_factory.mktemp("view"))


def lines_of(path: Path) -> list[dict]:
    return [json.loads(raw) for raw in path.read_text().splitlines()]


def states(path: Path) -> list[list[dict]]:
    """Every seat's view at each step of the page (the start, then each shown line), from a fresh engine."""
    lines = lines_of(path)
    game = _new_game(lines[0])
    out = [[game.view(s) for s in range(game.n)]]
    for line in lines[1:]:
        if line["type"] == "action" and line["verdict"] in ("ok", "fallback"):
            game.apply(line["seat"], [op_from_builtins(o) for o in line["ops"]])
        if line["type"] in SHOWN:  # after the match's last play the page keeps the views before it
            out.append(out[-1] if game.is_over() else [game.view(s) for s in range(game.n)])
    return out


def rechained(lines: list[dict], path: Path) -> Path:
    """`lines` written as a record with a valid hash chain, so that only replay can tell an edit."""
    chain, text = "", ""
    for line in lines:
        line.pop("chain", None)
        chain = _link(chain, line)
        text += json.dumps({**line, "chain": chain}) + "\n"
    path.write_text(text)
    return path


def romis_view(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "referee", "view", *args], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def test_the_page_is_self_contained_and_holds_every_step(records, tmp_path):
    out = tmp_path / "replay.html"
    done = romis_view(str(records["classic"]), "-o", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page) and "<link" not in page
    assert page.count("<script") == 2  # the data and the code, both inline
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S).group(1))
    lines = lines_of(records["classic"])
    assert [s["line"] for s in data["steps"]] == [n for n, x in enumerate(lines, 1) if x["type"] in SHOWN]
    assert f"{len(data['steps'])} steps" in done.stdout
    assert any(s["type"] == "fault" for s in data["steps"]), "the illegal bot's fault is a step"


def test_each_step_shows_the_views_the_engine_gives(records):
    for variant in ("classic", "may-i", "two-candles"):
        path = records[variant]
        data, expected = game_data(path), states(path)
        shown = [data["views"][0], *(data["views"][s["view"]] for s in data["steps"])]
        assert shown == expected


def test_the_totals_chart_has_a_line_per_seat_ending_at_the_final_totals(records):
    data = game_data(records["gin"])
    page = render(data)
    svg = re.search(r'<svg id="chart".*?</svg>', page, re.S).group(0)
    assert svg.count("<polyline") == 2 and svg.count("data-seat=") == 2


def test_a_bad_record_is_one_line_and_exit_2(records, tmp_path):
    missing = romis_view(str(tmp_path / "none.jsonl"), "-o", str(tmp_path / "x.html"))
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "cannot read record" in missing.stderr
    lines = lines_of(records["gin"])
    deal = next(x for x in lines if x["type"] == "deal_over")
    deal["scores"] = [s + 1 for s in deal["scores"]]
    done = romis_view(str(rechained(lines, tmp_path / "forged.jsonl")), "-o", str(tmp_path / "x.html"))
    assert done.returncode == 2 and "does not replay" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "x.html").exists()


def test_an_interrupted_record_shows_its_plays_and_where_it_stopped(records, tmp_path):
    lines = lines_of(records["gin"])
    cut = [n for n, x in enumerate(lines) if x["type"] == "action"][9]  # stopped in the first deal, after 9 plays
    stopped = rechained([*lines[:cut], {"type": "interrupted", "deal": 0}], tmp_path / "stopped.jsonl")
    steps = game_data(stopped)["steps"]
    assert steps[-1]["type"] == "interrupted" and steps[-1]["deal"] == 0
    assert sum(s["type"] == "action" for s in steps) == sum(x["type"] == "action" for x in lines[:cut])


def _browser():
    """A Selenium driver on Debian's headless Chromium, or a skip saying what is missing."""
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install -e .[test])")
    from selenium.webdriver.chrome.service import Service

    for path, package in ((CHROMIUM, "chromium"), (DRIVER, "chromium-driver")):
        if not os.path.exists(path):
            pytest.skip(f"{path} is missing (make browser installs Debian's {package})")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,1000"):
        options.add_argument(arg)
    return webdriver.Chrome(options=options, service=Service(DRIVER))


SHOWN_JS = """return {step: document.getElementById("step").textContent,
  hands: [...document.querySelectorAll("#seats .hand")].map(h => h.querySelector(".hidden") ? h.textContent :
    [...h.querySelectorAll(".card")].map(c => c.dataset.card)),
  top: (document.getElementById("pile-top") || {dataset: {}}).dataset.card || null}"""


@pytest.fixture(scope="module")
def browser():
    driver = _browser()
    yield driver
    driver.quit()


@pytest.mark.e2e
@pytest.mark.parametrize("variant", list(GAMES))
def test_the_browser_steps_through_the_game(records, browser, tmp_path, variant):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    page = tmp_path / "replay.html"
    assert romis_view(str(records[variant]), "-o", str(page)).returncode == 0
    browser.get(page.as_uri())
    body, expected = browser.find_element(By.TAG_NAME, "body"), states(records[variant])

    def shows(step: int, viewer: int | None = None) -> None:
        """The page shows, at `step`, every hand (or only the viewer's, and the others' sizes) and the pile top."""
        views, page = expected[step], browser.execute_script(SHOWN_JS)
        assert page["step"].startswith(f"step {step} / {len(expected) - 1}")
        hands = [
            v["hand"] if viewer in (None, s) else f"{views[viewer]['hand_sizes'][s]} cards" for s, v in enumerate(views)
        ]
        assert page["hands"] == hands, step
        pile = views[0].get("discard")
        assert page["top"] == (pile[-1] if pile else None), step
        if "chips" in views[0]:  # the balances and the bank, public, as the engine gives them at this step
            chips = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#row-chips td")]
            assert chips == [str(x) for x in views[0]["chips"]], step
            assert browser.find_element(By.ID, "bank").text == f"bank: {views[0]['bank']}", step

    shows(0)
    for step in range(1, 6):
        body.send_keys(Keys.ARROW_RIGHT)
        shows(step)
    for step in range(6, 9):
        browser.find_element(By.ID, "next").click()
        shows(step)
    browser.find_element(By.ID, "prev").click()
    shows(7)
    browser.find_element(By.ID, "mode-1").click()
    shows(7, viewer=1)
    browser.find_element(By.ID, "mode-god").click()
    body.send_keys(Keys.END)
    shows(len(expected) - 1)
    totals = lines_of(records[variant])[-1]["totals"]
    cells = browser.find_elements(By.CSS_SELECTOR, "#row-scores td")
    assert [float(c.text) for c in cells] == totals
    assert "match over" in browser.find_element(By.ID, "what").text
    faults = browser.find_elements(By.CSS_SELECTOR, "#log li.fault")
    assert bool(faults) == (variant == "classic"), "the illegal bot's plays and fault are highlighted"
    lines = lines_of(records[variant])
    shown_lines = [x for x in lines[1:] if x["type"] in SHOWN]
    deal = next(i for i, x in enumerate(shown_lines, 1) if x["type"] == "deal_over")
    browser.find_elements(By.CSS_SELECTOR, "#log li")[deal].click()  # the decision list navigates too
    shows(deal)
    for seat, kept in enumerate(shown_lines[deal - 1].get("hands", [])):  # a deal_over without hands omits them
        assert f"seat {seat} kept {' '.join(kept) or 'nothing'}" in browser.find_element(By.ID, "what").text
    dealt = [x for x in lines if x["type"] == "deal_over"]  # the deals table: a row per deal, its winner or none
    rows = [
        [c.text for c in r.find_elements(By.TAG_NAME, "td")]
        for r in browser.find_elements(By.CSS_SELECTOR, "#deal-table tr")
    ]
    assert [r[:2] for r in rows[1:]] == [[str(x["deal"]), str(x.get("winner", "none"))] for x in dealt]
    body.send_keys(Keys.HOME)
    shows(0)


def test_the_tournament_report_links_each_game_to_its_replay(tmp_path, capsys):
    config, db, records = tmp_path / "t.toml", tmp_path / "r.db", tmp_path / "records"
    config.write_text(
        'variant = "gin"\nseats = 2\ndeal_sets = 1\nseed = 3\nconcurrency = 2\n[options]\nmax_deals = 1\n'
        + "".join(f'[[entrants]]\nname = "{n}"\ncommand = "{c}"\n' for n, c in (("g", GREEDY), ("r", RANDOM)))
    )
    play = [
        sys.executable,
        "-m",
        "referee",
        "tournament",
        "run",
        str(config),
        "--db",
        str(db),
        "--records",
        str(records),
    ]
    assert subprocess.run(play, cwd=ROOT, capture_output=True, timeout=120).returncode == 0
    report = tmp_path / "out" / "report.html"
    report.parent.mkdir()
    args = ["tournament", "report", str(db), "--format", "html", "-o", str(report), "--replays", str(records)]
    assert run_cli(args) == 0
    links = re.findall(r'<a href="([^"]+)">', report.read_text())
    keys = sorted(p.stem for p in records.glob("*.jsonl"))
    assert len(keys) == 2 and sorted(links) == [f"../records/{k}.html" for k in keys]
    assert all("romis view" in (report.parent / link).read_text() for link in links)
    args[args.index("html")] = "md"
    assert run_cli(args) == 2 and "--replays needs --format html" in capsys.readouterr().err
