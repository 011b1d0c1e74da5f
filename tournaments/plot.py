"""The HTML report's picture: every entrant's rating as games accumulate, as one inline SVG."""

import html
import math

from tournaments.standings import Standings

# Tableau 10: distinguishable colours, also for common colour-vision deficiencies.
PALETTE = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")


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
    games = max([p[0] for s in series for p in s] + [1])
    ylo = min(p[1] - p[2] for s in series for p in s)
    yhi = max(p[1] + p[2] for s in series for p in s)
    xt, yt = nice_ticks(0, games), nice_ticks(ylo, yhi)
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
