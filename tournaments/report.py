"""Render standings for the terminal and as Markdown, CSV, JSON or one self-contained HTML file.

Given the tournament's facts (`tournaments.about`), every format also states what was played. CSV is
the one exception: it is the standings table only (one header row, one row per entrant, so any CSV
reader copes); `meta_csv` renders the facts as a second, two-column CSV that the CLI writes beside it.
"""

import csv
import html
import io
import json
import textwrap
from pathlib import Path

from tournaments.about import About, as_json, duplicate_words, entrant_rows, facts, partnership_words
from tournaments.plot import rating_plot
from tournaments.spec import GameResult
from tournaments.standings import EntrantRow, Standings
from tournaments.teams import team_label

FORMATS = ("table", "md", "csv", "json", "html")
MIXED = "mixed"  # the unit of an event's overall standings: the variants' scores do not add up, so no mean score
HEADERS = (
    "#",
    "entrant",
    "games",
    "match pts",
    "pts/game",
    "mean score",
    "win rate [95% CI]",
    "rating mu ± sigma",
    "faults",
    "decision ms mean/p95",
)
CSV_HEADER = (
    "rank",
    "name",
    "games",
    "match_points",
    "match_points_per_game",
    "mean_score",
    "wins",
    "win_rate",
    "win_ci_lo",
    "win_ci_hi",
    "mu",
    "sigma",
    "ordinal",
    "faults",
    "decision_mean_ms",
    "decision_p95_ms",
    "decision_max_ms",
    "command",
)

BANK_COLUMNS = ("bank_left", "bank_left_per_game")  # a chips game's CSV: the bank after the games, on every row


def render(st: Standings, fmt: str, title: str | None = None, about: About | None = None) -> str:
    """The standings in format `fmt` (one of FORMATS) as a string; with `about`, also what was played."""
    renderers = {"table": _table, "md": _markdown, "csv": _csv, "html": _html, "json": _json}
    if fmt not in renderers:
        raise ValueError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return renderers[fmt](st, title or (about.title if about else "romis tournament"), about)


def _json(st: Standings, _title: str, about: About | None) -> str:
    """The standings' JSON with the duplicate summary in words and, first, what was played."""
    data = st.to_json()
    if st.duplicate:  # an event's overall standings have none (each variant's section has its own)
        data["duplicate"] = {**data["duplicate"], "summary": duplicate_words(st.duplicate, about)}
    if about is not None:
        data = {"about": as_json(about), **data}
    return json.dumps(data, indent=2)


def meta_csv(about: About) -> str:
    """What was played as a two-column CSV (key, value): nested keys joined by dots, empty when unknown; an
    event's, then each variant's under its slug (`gin.options.target`)."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(("key", "value"))
    w.writerows(_flatten(as_json(about)))
    for part in about.parts:
        w.writerows(_flatten(as_json(part), part.config["variant"]))
    return out.getvalue()


def _flatten(value: object, prefix: str = "") -> list[tuple[str, object]]:
    """(dotted key, scalar) pairs of a JSON-ready value; lists are numbered from 1."""
    if isinstance(value, dict):
        items = list(value.items())
    elif isinstance(value, list):
        items = [(str(i), v) for i, v in enumerate(value, 1)]
    else:  # JSON's spelling of null and booleans, as the options are written everywhere else
        return [(prefix, "" if value is None else json.dumps(value) if isinstance(value, bool) else value)]
    return [pair for k, v in items for pair in _flatten(v, f"{prefix}.{k}" if prefix else str(k))]


def meta_path(output: Path) -> Path:
    """Where the metadata CSV goes beside the standings CSV `output` (report.csv -> report.meta.csv)."""
    stem = output.stem if output.suffix.lower() == ".csv" else output.name
    return output.with_name(f"{stem}.meta.csv")


def _num(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _ms(x: float | None) -> str:
    return "—" if x is None else f"{x * 1000:.1f}"


def _headers(about: About | None, st: Standings) -> list[str]:
    """HEADERS, with the mean score saying which way is better when that is known; in a game played for chips
    the net chips after the games (the order of the standings) and the mean chips per game."""
    low = about.low_wins if about else None
    better = "" if low is None else " (lower is better)" if low else " (higher is better)"
    if st.unit == "chips":
        return [*HEADERS[:3], "net chips", *("mean chips/game" if h == "mean score" else h for h in HEADERS[3:])]
    if st.unit == MIXED:
        return [h for h in HEADERS if h != "mean score"]
    return [h + better if h == "mean score" else h for h in HEADERS]


def _bank_words(st: Standings) -> str:
    """In a game played for chips, what the bank holds at the end of the games (empty otherwise)."""
    if st.bank is None:
        return ""
    per_game = "" if st.bank["per_game"] is None else f" ({_num(st.bank['per_game'], 1)} per game)"
    return f"Bank: {_num(st.bank['left'], 0)} chips left in the bank at the end of the {st.games} games{per_game}."


TEAM_HEADERS = ("#", "partnership", "games", "wins", "draws", "losses", "match pts", "mean score")


def _team_title(st: Standings) -> str:
    """The heading of the partnerships' table, naming the mode."""
    return f"Partnerships ({partnership_words(st.partnerships)})"


def _team_cells(st: Standings) -> list[list[str]]:
    """The partnerships' rows as display strings, in TEAM_HEADERS order."""
    return [
        [str(i), team_label(t), str(t.games), str(t.wins), str(t.draws), str(t.losses)]
        + [_num(t.match_points, 1), _num(t.mean_score, 1)]
        for i, t in enumerate(st.teams, 1)
    ]


def _cells(rank: int, r: EntrantRow, st: Standings) -> list[str]:
    """One standings row as display strings, in HEADERS order."""
    lo, hi = r.win_ci
    win = "—" if r.win_rate is None else f"{r.win_rate:.0%} [{lo:.0%}, {hi:.0%}]"
    faults = ", ".join(f"{k} {n}" for k, n in sorted(r.faults.items())) or "0"
    dt = r.decision_time
    return [
        str(rank),
        r.name,
        str(r.games),
        *([_num(r.net_chips, 1)] if st.unit == "chips" else []),
        _num(r.match_points, 1),
        _num(r.match_points_per_game),
        *([] if st.unit == MIXED else [_num(r.mean_score, 1)]),
        win,
        f"{r.rating['mu']:.1f} ± {r.rating['sigma']:.1f}",
        faults,
        f"{_ms(dt.get('mean'))}/{_ms(dt.get('p95'))}",
    ]


def _h2h_cell(st: Standings, a: str, b: str) -> str:
    """'W-L-T' of a against b, or a dash when they never met (or a is b)."""
    c = st.head_to_head.get((a, b))
    return "—" if c is None else f"{c['wins']}-{c['losses']}-{c['ties']}"


def _align(rows: list[list[str]], right_from: int = 2) -> str:
    """Plain-text columns; columns from `right_from` on are right-aligned (numbers)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for j, row in enumerate(rows):
        cells = [c.rjust(w) if i >= right_from or i == 0 else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _about_text(about: About | None) -> str:
    """The 'what was played' block of the terminal table (empty without facts)."""
    if about is None:
        return ""
    rows = facts(about)
    width = max(len(label) for label, _ in rows)
    lines = [f"  {label.ljust(width)}  {text}" for label, text in rows]
    entrants = entrant_rows(about)
    name_width = max((len(n) for n, _ in entrants), default=0)
    lines += ["", "Entrants"] + [f"  {n.ljust(name_width)}  {cmd}" for n, cmd in entrants]
    return "What was played\n" + "\n".join(lines) + "\n\n"


def _table(st: Standings, title: str, about: About | None) -> str:
    """Terminal text: what was played, standings, head-to-head matrix (columns by rank), duplicate deals."""
    names = [r.name for r in st.entrants]
    standings = _align([_headers(about, st)] + [_cells(i, r, st) for i, r in enumerate(st.entrants, 1)])
    h2h = _align(
        [["#", "W-L-T vs"] + [str(i) for i in range(1, len(names) + 1)]]
        + [[str(i), a] + [_h2h_cell(st, a, b) for b in names] for i, a in enumerate(names, 1)]
    )
    luck = textwrap.fill(duplicate_words(st.duplicate, about), width=100) + "\n" if st.duplicate else ""
    teams = ""
    if st.partnerships:
        teams = f"{textwrap.fill(_team_title(st), width=100)}\n{_align([list(TEAM_HEADERS), *_team_cells(st)])}\n\n"
    bank = f"{_bank_words(st)}\n\n" if st.bank is not None else ""
    return (
        f"{title} — {st.games} games\n\n{_about_text(about)}{standings}\n\n{bank}{teams}Head to head (row vs column, "
        f"wins-losses-ties)\n{h2h}\n\n{luck}"
    )


def _md_text(text: str) -> str:
    # Escaped so a name like "<b>" shows as text, not as inline HTML.
    return html.escape(text, quote=False)


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(_md_text(c).replace("|", "\\|") for c in cells) + " |"


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join([_md_row(header), _md_row(["---"] * len(header))] + [_md_row(r) for r in rows])


def _md_about(about: About | None) -> list[str]:
    """The 'what was played' section in Markdown (nothing without facts)."""
    if about is None:
        return []
    return [
        "## What was played",
        _md_table(["setting", "value"], [list(f) for f in facts(about)]),
        _md_table(["entrant", "command"], [list(e) for e in entrant_rows(about)]),
    ]


def _markdown(st: Standings, title: str, about: About | None) -> str:
    """Markdown: a heading, what was played, the standings, head-to-head and the duplicate summary."""
    names = [r.name for r in st.entrants]
    leads = st.duplicate.get("unit_leads", {})
    return (
        "\n\n".join(
            [f"# {_md_text(title)}", f"{st.games} games.", *_md_about(about)]
            + [
                "## Standings",
                _md_table(_headers(about, st), [_cells(i, r, st) for i, r in enumerate(st.entrants, 1)]),
                *([_md_text(_bank_words(st))] if st.bank is not None else []),
                *_md_teams(st),
                "## Head to head",
                "Row vs column: wins-losses-ties.",
                _md_table(["vs"] + names, [[a] + [_h2h_cell(st, a, b) for b in names] for a in names]),
            ]
            + (
                [
                    "## Duplicate dealing",
                    _md_text(duplicate_words(st.duplicate, about)),
                    _md_table(["entrant", "deal sets led"], [[n, str(leads.get(n, 0))] for n in names]),
                ]
                if st.duplicate
                else []
            )
        )
        + "\n"
    )


def _md_teams(st: Standings) -> list[str]:
    """The partnerships' section in Markdown (nothing without partnerships)."""
    if not st.partnerships:
        return []
    return ["## Partnerships", _md_text(_team_title(st)) + ".", _md_table(list(TEAM_HEADERS), _team_cells(st))]


def _html_teams(st: Standings) -> str:
    """The partnerships' section in HTML (empty without partnerships)."""
    if not st.partnerships:
        return ""
    table = _html_table(list(TEAM_HEADERS), _team_cells(st), "teams", 2)
    return f"<h2>Partnerships</h2>\n<p>{html.escape(_team_title(st))}.</p>\n{table}\n"


def _html_bank(st: Standings) -> str:
    """The bank left at the end of the games, in a game played for chips (empty otherwise)."""
    return f'<p class="bank">{html.escape(_bank_words(st))}</p>\n' if st.bank is not None else ""


def _csv(st: Standings, _title: str, about: About | None) -> str:
    """One row per entrant with raw numbers (empty where undefined), header first."""
    commands = dict(entrant_rows(about)) if about else {}
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    chips = st.unit == "chips"  # a game played for chips adds its net chips after the games
    header = [*CSV_HEADER[:3], *(["net_chips"] if chips else []), *CSV_HEADER[3:], *(BANK_COLUMNS if chips else [])]
    w.writerow([h for h in header if h != "mean_score" or st.unit != MIXED])
    bank = [st.bank["left"], st.bank["per_game"]] if st.bank is not None else []
    for i, r in enumerate(st.entrants, 1):
        dt = {k: (None if v is None else v * 1000) for k, v in r.decision_time.items()}
        w.writerow(
            [
                i,
                r.name,
                r.games,
                *([r.net_chips] if chips else []),
                r.match_points,
                r.match_points_per_game,
                *([] if st.unit == MIXED else [r.mean_score]),
                r.wins,
                r.win_rate,
                r.win_ci[0],
                r.win_ci[1],
                r.rating["mu"],
                r.rating["sigma"],
                r.rating["ordinal"],
                ";".join(f"{k}:{n}" for k, n in sorted(r.faults.items())),
                dt.get("mean"),
                dt.get("p95"),
                dt.get("max"),
                commands.get(r.name),
                *bank,
            ]
        )
    return out.getvalue()


CSS = """body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px}
th{background:#f3f3f3}td{white-space:nowrap}
table.about td,table.entrants td{white-space:normal}table.about th{text-align:left;white-space:nowrap}
td.n{text-align:right;font-variant-numeric:tabular-nums}
svg text{font-size:12px;fill:#333}"""


def _html_table(header: list[str], rows: list[list[str]], cls: str, numeric_from: int) -> str:
    """An escaped HTML table; cells from column `numeric_from` on are right-aligned."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        "<tr>"
        + "".join(f"<td{' class=n' if i >= numeric_from else ''}>{html.escape(c)}</td>" for i, c in enumerate(row))
        + "</tr>\n"
        for row in rows
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>'


def _html_about(about: About | None) -> str:
    """The 'what was played' section: a settings table and an entrants table (empty without facts)."""
    if about is None:
        return ""
    rows = "".join(
        f"<tr><th>{html.escape(label)}</th><td>{html.escape(text)}</td></tr>\n" for label, text in facts(about)
    )
    entrants = [list(e) for e in entrant_rows(about)]
    return (
        f'<h2>What was played</h2>\n<table class="about"><tbody>\n{rows}</tbody></table>\n'
        f"{_html_table(['entrant', 'command'], entrants, 'entrants', 2)}\n"
    )


def _html(st: Standings, title: str, about: About | None) -> str:
    """One self-contained page: what was played, tables, and an inline SVG plot of every rating over time."""
    return html_page(title, html_body(st, title, about))


def html_page(title: str, body: str) -> str:
    """A self-contained HTML page around `body`."""
    t = html.escape(title)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{t}</title><style>{CSS}</style></head>
<body>{body}</body></html>
"""


def with_replays(page: str, games: list[GameResult], links: dict[str, str]) -> str:
    """An HTML report with a last section linking each game that has one to its replay page (`romis view`)."""
    rows = "".join(
        f'<tr><td><a href="{html.escape(links[g.key])}">{html.escape(g.key)}</a></td><td class=n>{g.seed}</td>'
        f"<td>{html.escape(', '.join(f'{s.entrant} {s.score:g}' for s in g.seats))}</td></tr>\n"
        for g in games
        if g.key in links
    )
    section = f"""<h2>Replays</h2><p>Each game's replay page, in the browser.</p>
<table class="replays"><tr><th>game</th><th>seed</th><th>seats and scores</th></tr>
{rows}</table>
"""
    return page.replace("</body>", section + "</body>", 1) if rows else page


def html_body(st: Standings, title: str, about: About | None) -> str:
    """What `_html`'s page holds: the title, what was played, the tables and the rating plot."""
    names = [r.name for r in st.entrants]
    leads = st.duplicate.get("unit_leads", {})
    dup = ""
    if st.duplicate:
        dup = f"""<h2>Duplicate dealing</h2><p class="luck">{html.escape(duplicate_words(st.duplicate, about))}</p>
{_html_table(["entrant", "deal sets led"], [[n, str(leads.get(n, 0))] for n in names], "dup", 1)}
"""
    return f"""<h1>{html.escape(title)}</h1><p>{st.games} games.</p>
{_html_about(about)}<h2>Standings</h2>
{_html_table(_headers(about, st), [_cells(i, r, st) for i, r in enumerate(st.entrants, 1)], "standings", 2)}
{_html_bank(st)}{_html_teams(st)}<h2>Rating as games accumulate</h2>
<p>Plackett-Luce rating mu after each game; the band is mu ± sigma.</p>
{rating_plot(st)}
<h2>Head to head</h2><p>Row vs column: wins-losses-ties.</p>
{_html_table(["vs"] + names, [[a] + [_h2h_cell(st, a, b) for b in names] for a in names], "h2h", 1)}
{dup}"""
