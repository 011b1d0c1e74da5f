"""`romis view`: a game record as one self-contained HTML page that replays the match in the browser.

The states come from the replay machinery (referee/replay.py): every line is re-checked and, after each play,
every seat's `view` is taken from the engine, so the page shows exactly what each seat knew. The page holds
its data as JSON and its CSS and JavaScript inline (referee/view.html): no network, no server.
"""

import html
import json
from pathlib import Path
from typing import Any

from referee.records import RecordInterrupted, ReplayError, read_record
from referee.replay import Replay
from referee.rules.errors import ConfigError

TEMPLATE = Path(__file__).with_name("view.html")
SHOWN = ("action", "fault", "deal_over", "result", "interrupted")  # the lines that are steps of the page
STEP_FIELDS = (
    "seat",
    "kind",
    "phase",
    "ops",
    "verdict",
    "wall",
    "detail",
    "deal",
    "scores",
    "totals",
    "winner",
    "hands",
)
COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")


def game_data(path: str | Path) -> dict[str, Any]:
    """Everything the page shows: the header, the seats' names, and one step per play, fault and deal result, each
    with the index of the seats' views after it; ConfigError if the record cannot be read or does not replay."""
    try:
        lines = read_record(path)
        head = lines[0]
        rep = Replay(head)
    except ReplayError as e:
        raise ConfigError(f"{path}: {e.headline}") from None
    views: list[list[dict]] = [[rep.game.view(s) for s in range(rep.game.n)]]
    steps: list[dict[str, Any]] = []

    def after(n: int, line: dict) -> None:
        if line["type"] == "action":  # once the match is over there is no deal to view (contracts: no contract)
            g = rep.game
            views.append(views[-1] if g.is_over() else [g.view(s) for s in range(g.n)])
        if line["type"] in SHOWN:
            steps.append(_step(n, line, len(views) - 1))

    try:
        rep.run(lines, after)
    except RecordInterrupted:  # a stopped match: its plays so far, then the interrupted line
        steps.append(_step(len(lines), lines[-1], len(views) - 1))
    except ReplayError as e:
        raise ConfigError(f"{path}: does not replay: {e.headline}") from None
    names = {line["seat"]: line.get("name") for line in lines if line.get("type") == "ready"}
    seats = [{"bot": s.get("bot"), "name": names.get(i)} for i, s in enumerate(head.get("seats", []))]
    return {"variant": head["variant"], "seed": head["seed"], "seats": seats, "views": views, "steps": steps}


def _step(n: int, line: dict, view: int) -> dict[str, Any]:
    """One step of the page: the record line's number, type and the fields shown, and its views' index."""
    return {"line": n, "type": line["type"], "view": view, **{k: line[k] for k in STEP_FIELDS if k in line}}


def render(data: dict[str, Any]) -> str:
    """The HTML page replaying a game (`game_data`)."""
    packed = {**data, "views": _deltas(data["views"])}
    payload = json.dumps(packed, separators=(",", ":")).replace("</", "<\\/")  # no `</script>` inside the data
    title = html.escape(f"{data['variant']}, seed {data['seed']} - romis view")
    page = TEMPLATE.read_text(encoding="utf-8")
    return page.replace("{{title}}", title).replace("{{chart}}", totals_chart(data)).replace("{{data}}", payload)


def _deltas(views: list[list[dict]]) -> list[list[dict]]:
    """Each seat's views as the fields changed since its previous one (`_gone`: the fields dropped), which the page
    expands as it loads: most fields of a view stay the same from one play to the next."""
    out: list[list[dict]] = []
    last: list[dict] = [{} for _ in views[0]]
    for seats in views:
        step = []
        for s, view in enumerate(seats):
            changed = {k: v for k, v in view.items() if k not in last[s] or last[s][k] != v}
            gone = [k for k in last[s] if k not in view]
            step.append({**changed, "_gone": gone} if gone else changed)
            last[s] = view
        out.append(step)
    return out


def totals_chart(data: dict[str, Any]) -> str:
    """An inline SVG of each seat's running total after every deal (nothing for a match without a deal result)."""
    deals = [s["totals"] for s in data["steps"] if s["type"] == "deal_over" and "totals" in s]
    if not deals:
        return ""
    n, width, height, pad = len(deals[0]), 600, 220, 30
    values = [v for totals in deals for v in totals] + [0]
    low, high = min(values), max(values)
    span = (high - low) or 1
    x = lambda i: pad + (width - 2 * pad) * (i + 1) / len(deals)  # noqa: E731
    y = lambda v: height - pad - (height - 2 * pad) * (v - low) / span  # noqa: E731
    parts = [f'<svg id="chart" viewBox="0 0 {width} {height}">']
    parts.append(f'<line x1="{pad}" y1="{y(0):.1f}" x2="{width - pad}" y2="{y(0):.1f}" stroke="#bbb"/>')
    parts.append(f'<text x="2" y="{y(high) + 4:.1f}" font-size="11">{high:g}</text>')
    parts.append(f'<text x="2" y="{y(low) + 4:.1f}" font-size="11">{low:g}</text>')
    for seat in range(n):
        points = " ".join(f"{x(i):.1f},{y(t[seat]):.1f}" for i, t in [(-1, [0] * n), *enumerate(deals)])
        colour = COLOURS[seat % len(COLOURS)]
        parts.append(f'<g data-seat="{seat}"><polyline fill="none" stroke="{colour}" points="{points}"/>')
        parts.append(f'<text x="{width - pad + 2}" y="{y(deals[-1][seat]) + 4:.1f}" font-size="11" fill="{colour}">')
        parts.append(f"{seat}</text></g>")
    parts.append(f'<text x="{pad}" y="{height - 8}" font-size="11">totals after each of {len(deals)} deals</text>')
    return "".join(parts) + "</svg>"


def write(path: str | Path, out: str | Path) -> int:
    """Write the page for the record at `path` to `out`; the number of steps it shows."""
    data = game_data(path)
    try:
        Path(out).write_text(render(data), encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"cannot write {out}: {e.strerror}") from None
    return len(data["steps"])
