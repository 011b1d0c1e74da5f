"""Reports of an event (a tournament over several variants): the overall standings first, then one section per
variant that is exactly the report of a single-variant tournament of that part.

The overall standings count every game of every variant once per entrant (by its partnership's result in a team
variant): games, match points, wins, an openskill rating over all games in the fixed order, faults and decision
times. They have no mean score (scores of different variants do not add up) and no duplicate summary (each
variant's section has its own). Pure, like `tournaments.standings`.
"""

import csv
import io
import json

from tournaments.about import About
from tournaments.report import BANK_COLUMNS, CSV_HEADER, MIXED, html_body, html_page, render
from tournaments.spec import GameResult, part_of
from tournaments.standings import Standings, in_order
from tournaments.teams import entrant_rows, head_to_head, tournament_standings


def report(games: list[GameResult], about: About, fmt: str) -> str:
    """The report of a stored tournament in format `fmt`: a single variant's, or an event's with its sections."""
    if not about.parts:
        return render(tournament_standings(games, about.config, about.unit), fmt, about=about)
    overall = overall_standings(games, about)
    sections = [
        (p, tournament_standings([g for g in games if part_of(g.key) == p.config["variant"]], p.config, p.unit))
        for p in about.parts
    ]
    return RENDERERS[fmt](overall, sections, about)


def overall_standings(games: list[GameResult], about: About) -> Standings:
    """Every game of every variant of an event, each entrant counted once per game; best first by rating."""
    teams = {
        p.config["variant"]: tuple(tuple(t) for t in p.config.get("teams") or ((s,) for s in range(p.config["seats"])))
        for p in about.parts
    }
    entrants = list(about.config["entrants"])
    part = {slug: i for i, slug in enumerate(teams)}  # ratings in the order variant, table, deal set, rotation
    ordered = sorted(in_order(games, entrants), key=lambda g: (part[part_of(g.key)], g.table, g.deal_set, g.rotation))
    rows = entrant_rows(ordered, entrants, lambda g: teams[part_of(g.key)])
    for row in rows.values():
        row.mean_score = None
    best_first = sorted(rows.values(), key=lambda r: (-r.rating["ordinal"], -r.match_points, r.name))
    h2h = head_to_head(ordered, lambda g: teams[part_of(g.key)])
    return Standings(best_first, h2h, {}, len(ordered), unit=MIXED)


Sections = list[tuple[About, Standings]]


def _title(about: About, i: int, part: About) -> str:
    return f"Variant {i} of {len(about.parts)}: {part.config['variant']}"


def _overall_title(about: About) -> str:
    return f"{about.title} — overall standings (every variant)"


def _table(overall: Standings, sections: Sections, about: About) -> str:
    """The overall report, then each variant's, each under a rule."""
    rule = "=" * 100 + "\n"
    parts = [render(st, "table", _title(about, i, p), p) for i, (p, st) in enumerate(sections, 1)]
    return render(overall, "table", _overall_title(about), about) + "".join(f"\n{rule}{text}" for text in parts)


def _demote(markdown: str) -> str:
    """Every heading of a Markdown report one level down (a variant's report becomes a section)."""
    return "\n".join("#" + ln if ln.startswith("#") else ln for ln in markdown.splitlines()) + "\n"


def _markdown(overall: Standings, sections: Sections, about: About) -> str:
    parts = [_demote(render(st, "md", _title(about, i, p), p)) for i, (p, st) in enumerate(sections, 1)]
    return "\n".join([render(overall, "md", _overall_title(about), about), *parts])


def _html(overall: Standings, sections: Sections, about: About) -> str:
    """One page: the overall report, then each variant's with its headings one level down."""
    body = html_body(overall, _overall_title(about), about)
    for i, (p, st) in enumerate(sections, 1):
        part = html_body(st, _title(about, i, p), p)
        body += "<hr>\n" + part.replace("<h2>", "<h3>").replace("</h2>", "</h3>").replace("h1>", "h2>")
    return html_page(about.title, body)


def _json(overall: Standings, sections: Sections, about: About) -> str:
    """`about` (what the event shares), `overall` (the overall standings), `variants` (each variant's report as a
    single-variant tournament's JSON report, its own `about` first), in the order of the event's parts."""
    first = json.loads(render(overall, "json", about=about))
    variants = [json.loads(render(st, "json", about=p)) for p, st in sections]
    return json.dumps({"about": first.pop("about"), "overall": first, "variants": variants}, indent=2)


def _csv(overall: Standings, sections: Sections, about: About) -> str:
    """One table: a leading `variant` column ("all" for the overall rows), then the single-variant columns (with
    `net_chips` when a variant is played for chips), empty where a column does not apply."""
    chips = any(st.unit == "chips" for _, st in sections)
    header = ["variant", *CSV_HEADER[:3], *(["net_chips"] if chips else []), *CSV_HEADER[3:]]
    header += list(BANK_COLUMNS) if chips else []
    out = io.StringIO()
    w = csv.DictWriter(out, header, restval="", lineterminator="\n")
    w.writeheader()
    for slug, st, a in [("all", overall, about)] + [(p.config["variant"], st, p) for p, st in sections]:
        w.writerows({"variant": slug, **row} for row in csv.DictReader(io.StringIO(render(st, "csv", about=a))))
    return out.getvalue()


RENDERERS = {"table": _table, "md": _markdown, "html": _html, "json": _json, "csv": _csv}
