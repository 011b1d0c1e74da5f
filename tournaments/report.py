"""Render standings for the terminal and as Markdown, CSV, JSON or one self-contained HTML file."""

import csv
import html
import io
import json
import math

from tournaments.standings import EntrantRow, Standings

FORMATS = ("table", "md", "csv", "json", "html")
# Tableau 10: distinguishable colours, also for common colour-vision deficiencies.
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")
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
)


def render(st: Standings, fmt: str, title: str = "romis tournament") -> str:
    """The standings in format `fmt` (one of FORMATS) as a string."""
    renderers = {
        "table": _table,
        "md": _markdown,
        "csv": _csv,
        "html": _html,
        "json": lambda s, _t: json.dumps(s.to_json(), indent=2),
    }
    if fmt not in renderers:
        raise ValueError(f"unknown report format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return renderers[fmt](st, title)


def _num(x: float | None, digits: int = 2) -> str:
    return "—" if x is None else f"{x:.{digits}f}"


def _ms(x: float | None) -> str:
    return "—" if x is None else f"{x * 1000:.1f}"


def _cells(rank: int, r: EntrantRow) -> list[str]:
    """One standings row as display strings, in HEADERS order."""
    lo, hi = r.win_ci
    win = "—" if r.win_rate is None else f"{r.win_rate:.0%} [{lo:.0%}, {hi:.0%}]"
    faults = ", ".join(f"{k} {n}" for k, n in sorted(r.faults.items())) or "0"
    dt = r.decision_time
    return [
        str(rank),
        r.name,
        str(r.games),
        _num(r.match_points, 1),
        _num(r.match_points_per_game),
        _num(r.mean_score, 1),
        win,
        f"{r.rating['mu']:.1f} ± {r.rating['sigma']:.1f}",
        faults,
        f"{_ms(dt.get('mean'))}/{_ms(dt.get('p95'))}",
    ]


def _h2h_cell(st: Standings, a: str, b: str) -> str:
    """'W-L-T' of a against b, or a dash when they never met (or a is b)."""
    c = st.head_to_head.get((a, b))
    return "—" if c is None else f"{c['wins']}-{c['losses']}-{c['ties']}"


def _luck_line(st: Standings) -> str:
    """The duplicate-dealing summary in one sentence."""
    d = st.duplicate
    if d.get("luck_removed") is None:
        return f"Duplicate dealing: {d['units']} units; too little data to measure card luck."
    return (
        f"Duplicate dealing: {d['units']} units; variance of match points per game "
        f"{d['variance_individual']:.3f} in single games, {d['variance_duplicate']:.3f} "
        f"averaged per unit; {d['luck_removed']:.0%} of the card luck removed."
    )


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


def _table(st: Standings, title: str) -> str:
    """Terminal text: standings, head-to-head matrix (columns by rank) and the luck line."""
    names = [r.name for r in st.entrants]
    standings = _align([list(HEADERS)] + [_cells(i, r) for i, r in enumerate(st.entrants, 1)])
    h2h = _align(
        [["#", "W-L-T vs"] + [str(i) for i in range(1, len(names) + 1)]]
        + [[str(i), a] + [_h2h_cell(st, a, b) for b in names] for i, a in enumerate(names, 1)]
    )
    return (
        f"{title} — {st.games} games\n\n{standings}\n\nHead to head (row vs column, "
        f"wins-losses-ties)\n{h2h}\n\n{_luck_line(st)}\n"
    )


def _md_row(cells: list[str]) -> str:
    # Escaped so a name like "<b>" shows as text, not as inline HTML.
    return "| " + " | ".join(html.escape(c, quote=False).replace("|", "\\|") for c in cells) + " |"


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    return "\n".join([_md_row(header), _md_row(["---"] * len(header))] + [_md_row(r) for r in rows])


def _markdown(st: Standings, title: str) -> str:
    """Markdown: a heading, the standings, head-to-head and the duplicate summary."""
    names = [r.name for r in st.entrants]
    leads = st.duplicate.get("unit_leads", {})
    return (
        "\n\n".join(
            [
                f"# {title}",
                f"{st.games} games.",
                "## Standings",
                _md_table(list(HEADERS), [_cells(i, r) for i, r in enumerate(st.entrants, 1)]),
                "## Head to head",
                "Row vs column: wins-losses-ties.",
                _md_table(["vs"] + names, [[a] + [_h2h_cell(st, a, b) for b in names] for a in names]),
                "## Duplicate dealing",
                _luck_line(st),
                _md_table(["entrant", "units led"], [[n, str(leads.get(n, 0))] for n in names]),
            ]
        )
        + "\n"
    )


def _csv(st: Standings, _title: str) -> str:
    """One row per entrant with raw numbers (empty where undefined), header first."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_HEADER)
    for i, r in enumerate(st.entrants, 1):
        dt = {k: (None if v is None else v * 1000) for k, v in r.decision_time.items()}
        w.writerow(
            [
                i,
                r.name,
                r.games,
                r.match_points,
                r.match_points_per_game,
                r.mean_score,
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
            ]
        )
    return out.getvalue()


CSS = """body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{border:1px solid #ccc;padding:4px 8px}
th{background:#f3f3f3}td{white-space:nowrap}td.n{text-align:right;font-variant-numeric:tabular-nums}
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


def _html(st: Standings, title: str) -> str:
    """One self-contained page: tables plus an inline SVG plot of every rating over time."""
    names = [r.name for r in st.entrants]
    leads = st.duplicate.get("unit_leads", {})
    t = html.escape(title)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{t}</title><style>{CSS}</style></head>
<body><h1>{t}</h1><p>{st.games} games.</p>
<h2>Standings</h2>
{_html_table(list(HEADERS), [_cells(i, r) for i, r in enumerate(st.entrants, 1)], "standings", 2)}
<h2>Rating as games accumulate</h2>
<p>Plackett-Luce rating mu after each game; the band is mu ± sigma.</p>
{rating_plot(st)}
<h2>Head to head</h2><p>Row vs column: wins-losses-ties.</p>
{_html_table(["vs"] + names, [[a] + [_h2h_cell(st, a, b) for b in names] for a in names], "h2h", 1)}
<h2>Duplicate dealing</h2><p>{html.escape(_luck_line(st))}</p>
{_html_table(["entrant", "units led"], [[n, str(leads.get(n, 0))] for n in names], "dup", 1)}
</body></html>
"""


def nice_ticks(lo: float, hi: float, target: int = 6) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten) from at or below lo to at or above hi."""
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / target
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [i * step for i in range(first, last + 1)]


Point = tuple[int, float, float]  # (games so far, mu, sigma)


def _thin(points: list[Point], limit: int = 400) -> list[Point]:
    """At most about `limit` points (always keeping the last) so long runs stay small files."""
    stride = max(1, math.ceil(len(points) / limit))
    kept = points[::stride]
    return kept if kept[-1] == points[-1] else kept + [points[-1]]


def _short(name: str, limit: int = 22) -> str:
    """A legend label that fits the right margin; the full name is in the tables."""
    return name if len(name) <= limit else name[: limit - 1] + "…"


def rating_plot(st: Standings, width: int = 820, height: int = 380) -> str:
    """Inline SVG: one mu line (class "mu-line") and one ±sigma band per entrant, with a legend."""
    left, right, top, bottom = 56, 190, 14, 44
    height = max(height, top + bottom + 18 * len(st.entrants))  # room for every legend entry
    pw, ph = width - left - right, height - top - bottom
    series = [_thin(r.rating_history) for r in st.entrants]
    xmax = max([p[0] for s in series for p in s] + [1])
    ylo = min(p[1] - p[2] for s in series for p in s)
    yhi = max(p[1] + p[2] for s in series for p in s)
    xt, yt = nice_ticks(0, xmax), nice_ticks(ylo, yhi)
    ylo, yhi, xmax = yt[0], yt[-1], xt[-1]  # the axes end on a tick

    def x(v: float) -> float:
        """Games played to pixels."""
        return left + pw * v / xmax

    def y(v: float) -> float:
        """Rating to pixels (SVG y grows downwards)."""
        return top + ph * (yhi - v) / (yhi - ylo)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="rating over games">'
    ]
    for v in yt:
        out.append(
            f'<line x1="{left}" x2="{left + pw}" y1="{y(v):.1f}" y2="{y(v):.1f}" '
            f'stroke="#e5e5e5"/><text x="{left - 6}" y="{y(v) + 4:.1f}" '
            f'text-anchor="end">{v:g}</text>'
        )
    for v in xt:
        out.append(
            f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{top + ph}" y2="{top + ph + 5}" '
            f'stroke="#333"/><text x="{x(v):.1f}" y="{top + ph + 18}" '
            f'text-anchor="middle">{v:g}</text>'
        )
    out.append(
        f'<path d="M{left},{top}V{top + ph}H{left + pw}" fill="none" stroke="#333"/>'
        f'<text x="{left + pw / 2}" y="{height - 6}" text-anchor="middle">'
        f'games played</text><text transform="translate(14,{top + ph / 2}) rotate(-90)" '
        f'text-anchor="middle">rating mu</text>'
    )
    for i, (r, s) in enumerate(zip(st.entrants, series)):
        colour, name = PALETTE[i % len(PALETTE)], html.escape(r.name)
        label = html.escape(_short(r.name))
        band = [f"{x(g):.1f},{y(m + sd):.1f}" for g, m, sd in s] + [
            f"{x(g):.1f},{y(m - sd):.1f}" for g, m, sd in reversed(s)
        ]
        line = " ".join(f"{x(g):.1f},{y(m):.1f}" for g, m, _ in s)
        ly = top + 8 + 18 * i
        out.append(
            f'<g data-entrant="{name}">'
            f'<polygon class="sigma-band" points="{" ".join(band)}" '
            f'fill="{colour}" fill-opacity="0.12" stroke="none"/>'
            f'<polyline class="mu-line" points="{line}" fill="none" stroke="{colour}" '
            f'stroke-width="2"/><line x1="{left + pw + 16}" x2="{left + pw + 36}" '
            f'y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="3"/>'
            f'<text x="{left + pw + 42}" y="{ly + 4}">{label}</text></g>'
        )
    out.append("</svg>")
    return "\n".join(out)
