"""What a report says besides the numbers: what was played (settings, entrants, versions, times) and,
in words, what duplicate dealing did to the spread of results.

The facts come from the results database alone (`Store.about()`), so a report of an old or a copied
database states what that database holds and says "unknown" for what it never recorded. This module
is pure: it only words what it is given.
"""

import json
from dataclasses import dataclass, field
from typing import Any

from tournaments import schedule

UNKNOWN = "unknown (the romis that wrote this database did not record it)"


@dataclass
class About:
    """What a tournament played, as stored with its results."""

    config: dict[str, Any]  # the stored configuration (Config.fingerprint())
    runs: list[dict[str, Any]]  # Store.runs(): empty for a database written before runs were recorded
    finished: tuple[str | None, str | None]  # first and last game finished (UTC)
    games_played: int
    parts: list["About"] = field(default_factory=list)  # an event's: one per variant (`part_about`)

    @property
    def games_scheduled(self) -> int | None:
        """Games in the full schedule, as the latest run counted them (None if not recorded)."""
        return self.runs[-1].get("games_scheduled") if self.runs else None

    @property
    def variant(self) -> dict[str, Any] | None:
        """The variant's recorded name, rules version and scoring direction (None if not recorded)."""
        return self.runs[0].get("variant") if self.runs else None

    @property
    def low_wins(self) -> bool | None:
        """True in a penalty game (lowest total wins), False if the highest wins, None if not recorded."""
        return None if self.variant is None else bool(self.variant["low_wins"])

    @property
    def unit(self) -> str:
        """What a game's scores count: "chips" for a variant played for chips, else "points" (also when the
        database never recorded it: those older romis versions had no chips variant)."""
        return "points" if self.variant is None else str(self.variant.get("unit", "points"))

    @property
    def first_run_recorded(self) -> bool:
        """False when games were stored before the first recorded run (a database older than run records)."""
        return bool(self.runs) and self.runs[0]["games_before"] == 0

    @property
    def started(self) -> str | None:
        """When the tournament's first run started (UTC), if that was recorded."""
        return self.runs[0]["started"] if self.first_run_recorded else None

    @property
    def title(self) -> str:
        """A report title naming the variant (an event's: its variants, or how many when they are many)."""
        if self.parts:
            slugs = [p.config["variant"] for p in self.parts]
            return "romis event: " + (", ".join(slugs) if len(slugs) <= 6 else f"{len(slugs)} variants")
        return f"romis tournament: {self.config.get('variant', 'unknown variant')}"


def part_about(event: About, i: int, finished: tuple[str | None, str | None], games_played: int) -> About:
    """What the `i`-th part of an event played, as a single-variant tournament of it would hold it: the event's
    shared settings with the part's variant, seats, options, partnerships and seed; each run with that part's
    variant and games scheduled."""
    part = event.config["variants"][i]
    config = {**{k: v for k, v in event.config.items() if k != "variants"}, **part}
    runs = [
        {**{k: v for k, v in r.items() if k != "variants"}, "variant": r["variants"][i]}
        | {"games_scheduled": r["variants"][i].get("games_scheduled")}
        for r in event.runs
    ]
    return About(config, runs, finished, games_played)


def scoring_words(low_wins: bool | None, unit: str = "points") -> str:
    """Which total wins, in words."""
    if low_wins is None:
        return UNKNOWN
    if unit == "chips":
        return "played for chips: a game's score is the chips won or lost, the most net chips wins"
    if low_wins:
        return "lowest total wins (a penalty game: scores are points against)"
    return "highest total wins"


def _when(stamp: str | None) -> str:
    """An ISO UTC timestamp as '2025-06-01 14:03:00 UTC'."""
    return "—" if stamp is None else stamp.replace("T", " ").removesuffix("Z") + " UTC"


def _variant_words(a: About) -> str:
    slug = a.config.get("variant", "?")
    v = a.variant
    if v is None:
        return f"{slug}; name and rules version {UNKNOWN}"
    return f"{slug}: {v['name']} ({v['local_name']}), rules version {v['rules_version']}"


def partnership_words(mode: str | None) -> str:
    """What a team tournament's partnership mode means, in words."""
    if mode == "fixed":
        return (
            "fixed: each entrant fills both seats of one partnership (partners opposite); "
            "both seatings on the same decks"
        )
    if mode == "mixed":
        return (
            "mixed: every pair of entrants is a partnership, against every pair of two others; "
            "openskill team ratings (both partners move by the team's result)"
        )
    return "none"


def seatings(c: dict[str, Any]) -> int:
    """How many seatings each table plays per deal set: every seat rotation, or, in a team tournament, those that
    keep the partnerships (with fixed ones: the team swaps)."""
    seats, teams = c.get("seats") or 0, tuple(tuple(t) for t in c.get("teams") or ())
    if not teams:
        return seats
    make = schedule.mixed_partnerships if c.get("partnerships") == "mixed" else schedule.fixed_partnerships
    return len(schedule.rotations(make([f"entrant {i}" for i in range(seats)], teams)[0], teams))


def _table_words(a: About) -> str:
    c = a.config
    n = len(c.get("entrants", {}))
    kind = c.get("schedule", "round-robin")
    if kind == "gauntlet":
        kind = f"gauntlet of {c.get('candidate')} against the others"
    tables = f"{c.get('seats')} seats"
    per_table = (c.get("deal_sets") or 0) * seatings(c)  # games: deal sets x seatings
    if a.games_scheduled is not None and per_table:
        tables = f"{_plural(a.games_scheduled // per_table, 'table')} of {tables}"
    return f"{tables}; {n} entrants; {kind}"


def _games_words(a: About) -> str:
    c = a.config
    under = {"fixed": "both seatings of the partnerships", "mixed": "every seat rotation that keeps the partnerships"}
    how = under.get(c.get("partnerships") or "", "every seat rotation")
    dealt = f"{c.get('deal_sets')} deal sets per table, each dealt once under {how}"
    if a.games_scheduled is None:
        return f"{a.games_played} played; {dealt}"
    unfinished = "" if a.games_played >= a.games_scheduled else " (unfinished: run it again to resume)"
    return f"{a.games_played} of {a.games_scheduled} played{unfinished}; {dealt}"


def _limits_words(c: dict[str, Any]) -> str:
    limits = ", ".join(
        f"{k} {v:g} s" if isinstance(v, float | int) and not isinstance(v, bool) else f"{k} {v}"
        for k, v in c.get("limits", {}).items()
    )
    return f"{limits}; illegal plays retried per decision: {c.get('retries', 0)}"


def _versions(a: About, key: str) -> str:
    seen = list(dict.fromkeys(str(r[key]) for r in a.runs))
    if not seen:
        return UNKNOWN
    text = seen[0] if len(seen) == 1 else ", ".join(seen) + " (the runs used different versions)"
    return text if a.first_run_recorded else f"{text}; the runs before that: unknown"


def _runs_words(a: About) -> str:
    if not a.runs:
        return UNKNOWN
    started = a.started
    start = f"started {_when(started)}" if started else f"start {UNKNOWN}"
    resumes = a.runs[1:] if started else a.runs
    if not resumes:
        return start
    return f"{start}; resumed {_plural(len(resumes), 'time')}, last {_when(resumes[-1]['started'])}"


def sandbox_words(a: About) -> str:
    """How the bots of the latest run were sandboxed, and which entrants had the network."""
    box = a.runs[-1].get("sandbox") if a.runs else None
    if box is None:
        return UNKNOWN
    if box["mode"] != "bwrap":
        return f"none: {box['warning']} (bots ran unsandboxed, {box['containment']} only)"
    network = ", ".join(box["network"]) or "none"
    return f"bwrap (each bot in a sandbox of its own); network given to: {network}"


PART_FACTS = ("seats", "options")  # what each part of an event has for itself (its section says)
EVENT_SCORING = (
    "each variant by its own scoring (see its section); overall: match points, wins and an openskill rating over "
    "every game of every variant, and no mean score, since scores of different variants do not add up"
)


def facts(a: About) -> list[tuple[str, str]]:
    """(label, text) pairs, in reading order, for the text formats; entrants are listed separately. An event's
    name its variants and what they share; each variant's own facts are in its section."""
    c = a.config
    options = ", ".join(f"{k}={json.dumps(v)}" for k, v in c.get("options", {}).items()) or "none"
    first, last = a.finished
    if a.parts:
        kind = f"{len(c.get('entrants', {}))} entrants; {c.get('schedule', 'round-robin')}"
        head = [
            ("variants", "; ".join(_variant_words(p) for p in a.parts)),
            ("scoring", EVENT_SCORING),
            ("tables", f"{kind}; each variant at its own table size (see its section)"),
            ("games", _games_words(a)),
            ("seed", f"{c.get('seed')} (each variant's seed derives from it and the variant's slug)"),
        ]
    else:
        head = [
            ("variant", _variant_words(a)),
            ("scoring", scoring_words(a.low_wins, a.unit)),
            ("tables", _table_words(a)),
            *([("partnerships", partnership_words(c["partnerships"]))] if c.get("partnerships") else []),
            ("games", _games_words(a)),
            ("seed", str(c.get("seed"))),
            ("options", options + " (defaults filled in)"),
        ]
    return [
        *head,
        ("time limits", _limits_words(c)),
        ("sandbox", sandbox_words(a)),
        ("romis version", _versions(a, "romis")),
        ("protocol version", _versions(a, "protocol")),
        ("run", _runs_words(a)),
        ("games finished", "none yet" if first is None else f"{_when(first)} to {_when(last)}"),
    ]


def entrant_rows(a: About) -> list[tuple[str, str]]:
    """(name, command) of every entrant, by name (the order the results database keeps them in)."""
    return list(a.config.get("entrants", {}).items())


def as_json(a: About) -> dict[str, Any]:
    """A JSON-ready dict of the facts; null where a fact was not recorded. An event's has `variants` (the slugs;
    each variant's facts are in its section) where a single variant's has the variant, its seats and options."""
    c = a.config
    v = a.variant or {}
    variant = {
        "variant": c.get("variant"),
        "variant_name": v.get("name"),
        "local_name": v.get("local_name"),
        "rules_version": v.get("rules_version"),
        "low_wins": a.low_wins,
        "scoring": None if a.low_wins is None else scoring_words(a.low_wins, a.unit),
        "dealer_follows_play": v.get("dealer_follows_play"),
    }
    if a.parts:
        variant = {"variants": [p.config["variant"] for p in a.parts], "scoring": EVENT_SCORING}
    return {
        **variant,
        **{
            k: c.get(k)
            for k in ("seats", "deal_sets", "seed", "schedule", "candidate", "options")
            if not (a.parts and k in PART_FACTS)
        },
        **{k: c.get(k) for k in ("limits", "retries")},
        **{k: c[k] for k in ("partnerships", "teams") if k in c},  # a team tournament's only
        "entrants": [{"name": n, "command": cmd} for n, cmd in entrant_rows(a)],
        "games_played": a.games_played,
        "games_scheduled": a.games_scheduled,
        "romis": a.runs[0]["romis"] if a.runs else None,
        "protocol": a.runs[0]["protocol"] if a.runs else None,
        "started": a.started,
        "runs": [{k: r[k] for k in ("started", "games_before", "romis", "protocol")} for r in a.runs],
        "sandbox": a.runs[-1].get("sandbox") if a.runs else None,
        "games_finished": {"first": a.finished[0], "last": a.finished[1]},
    }


def _fig(x: float) -> str:
    """A spread with two decimals, or two significant digits when it is small."""
    return f"{x:.2f}" if x >= 0.1 or x == 0 else f"{x:.2g}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def duplicate_words(dup: dict[str, Any], a: About | None = None) -> str:
    """One to three plain sentences on what duplicate dealing did, with the figures (see duplicate_summary)."""
    k, units = dup.get("games_per_unit", 0), dup["units"]
    if not units:
        return "Duplicate deals: no game has finished yet."
    head = f"Duplicate deals: each deal set was dealt {_plural(k, 'time')}, so every entrant held each seat's cards."
    if dup["variance_individual"] == 0:
        body = " Every game between the same entrants ended alike, so there was no card luck to cancel."
    elif dup["luck_removed"] is None:
        where = f"{_plural(units, 'deal set')} at {_plural(dup.get('tables', 1), 'table')}"
        body = f" {where} are too few to measure what that did: it takes two deal sets at one table."
    else:
        body = _spread_words(dup, k, units)
    v = a.variant if a else None
    if v and v.get("dealer_follows_play"):
        body += (
            f" In {v['slug']} play decides who deals each later deal, so the same cards can reach"
            " other seats and card luck cancels only partly."
        )
    return head + body


def _spread_words(dup: dict[str, Any], k: int, units: int) -> str:
    """The measured spreads and how much the duplicate deals cut them."""
    text = (
        f" An entrant's average match points per game over a deal set varied by ±{_fig(dup['spread_duplicate'])}"
        f" (standard deviation over {_plural(units, 'deal set')}, against the same opponents);"
        f" {k} independent single deals would vary by ±{_fig(dup['spread_single_deals'])}."
    )
    if dup["spread_cut"] < 0.005:
        return text + " So duplicate dealing cancelled no measurable card luck in this tournament."
    return (
        text + f" So duplicate dealing cut that spread by {dup['spread_cut']:.0%}"
        f" (its variance by {dup['luck_removed']:.0%}) compared with single deals."
    )
