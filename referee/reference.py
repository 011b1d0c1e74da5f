"""The project's reference documents: the rules files (docs/rules/) and the per-variant protocol reference
(docs/reference.md), which is generated from the variants' own descriptions (referee/rules/describe.py)."""

from pathlib import Path
from typing import Any

from protocol.cards import JOKER
from referee.rules.describe import describe
from referee.rules.engine import did_you_mean
from referee.rules.errors import ConfigError
from referee.rules.variants import VARIANTS

ROOT = Path(__file__).resolve().parents[1]
RULES_DIR = ROOT / "docs" / "rules"
REFERENCE = ROOT / "docs" / "reference.md"
GENERAL = "general"  # `romis rules general` shows _general.md, the conventions every variant file relies on


# --- the rules files --------------------------------------------------------------------------------------------
def rules_slugs() -> list[str]:
    """Every name `romis rules` knows: the registered variants and the variant files in docs/rules/."""
    files = {p.stem for p in RULES_DIR.glob("*.md") if p.name != "README.md" and not p.name.startswith("_")}
    return sorted(files | set(VARIANTS))


def rules_file(name: str | None) -> Path:
    """The rules file of variant `name` (None: the index; `general`: the shared conventions), which may be
    missing from an installation without the docs; ConfigError for a name that is no variant."""
    if name is None:
        return RULES_DIR / "README.md"
    slug = name.strip().lower()
    if slug in (GENERAL, "_general"):
        return RULES_DIR / "_general.md"
    if slug not in rules_slugs():
        raise ConfigError(f"unknown variant {name!r}{did_you_mean(slug, [*rules_slugs(), GENERAL])}")
    return RULES_DIR / f"{slug}.md"


# --- the per-variant reference ---------------------------------------------------------------------------------
def descriptions() -> list[dict[str, Any]]:
    """`describe()` of every registered variant, with the path of its rules file in the project."""
    return [{**describe(cls), "rules_file": f"docs/rules/{slug}.md"} for slug, cls in VARIANTS.items()]


HEADER = """\
# Per-variant protocol reference

<!-- Generated from the code by `make reference` (`romis variants --markdown > docs/reference.md`). Do not edit:
     tests/test_reference.py fails when this page and the code disagree. -->

[protocol.md](protocol.md) describes the messages; this page says what each variant puts in them: its decisions
(`decision.kind` and `phase`), what `options` lists, every `constraints` key and view field, the cards and their
values, and the meld rules, all for the default options. `romis variants --json` carries the same facts for bots
in any language. The rules themselves are in [docs/rules/](rules/README.md).

- **Options.** A decision's `options` lists the legal one-op plays of the kinds named below (any of them is a
  legal play on its own). Other ops (melds, lay-offs, ...) may join a play where the meaning says so. Where
  `options` can be absent the table says when, and what to send then.
- **Card values.** A card's value is that of its rank unless the card is listed on its own (the joker always is):
  in `romis variants --json`, `cards.get(code, ranks[code[0]])`. Aces in runs and wild cards in melds have their
  own entries.
- **Types.** `card` is a card code, `T[]` a list of T, `T|null` a T or null; `number` may be fractional.
"""


def render_reference(rows: list[dict[str, Any]]) -> str:
    """docs/reference.md: the Markdown page for the variant descriptions `rows`."""
    common = _common_view(rows)
    out = [HEADER, "## View fields every variant sends\n", *_field_table("field", common), ""]
    for row in rows:
        out += _variant(row, {k for k in common if row["view"].get(k) == common[k]})
    return "\n".join(out).rstrip() + "\n"


def _common_view(rows: list[dict[str, Any]]) -> dict[str, dict]:
    first = rows[0]["view"]
    return {k: f for k, f in first.items() if all(r["view"].get(k) == f for r in rows)}


def _variant(row: dict[str, Any], common: set[str]) -> list[str]:
    players = "–".join(map(str, sorted(set(row["players"]))))
    goal = "the lowest total wins" if row["low_wins"] else "the highest total wins"
    if row.get("unit") == "chips":
        goal = "played for chips: the totals are net chips, the most chips wins"
    lines = [
        f"## {row['slug']}: {row['name']} ({row['local_name']})\n",
        f"Family {row['family']}, {players} players, rules version {row['rules_version']}; {goal}. "
        f"Rules: [{row['rules_file'].removeprefix('docs/')}]({row['rules_file'].removeprefix('docs/')}).\n",
        "| players | cards dealt | deck | wild cards |",
        "|---|---|---|---|",
    ]
    for g in row["deals"]:
        wild = _cards(g["meld_rules"]["wild_cards"])
        lines.append(f"| {_players(g['players'])} | {g['hand_size']} | {_deck(g['deck'])} | {wild} |")
    lines += ["", "**Melds.**", "", *_melds(row["deals"]), "", "**Card values.**", "", *_values(row), ""]
    lines += ["**Decisions.**", "", "| kind | phase | options | meaning |", "|---|---|---|---|"]
    lines += [_decision(d) for d in row["decisions"]]
    lines += ["", "**Constraints.**", "", *_field_table("key", row["constraints"]), ""]
    own = {k: f for k, f in row["view"].items() if k not in common}
    if own:
        lines += ["**View fields** (besides those every variant sends).", "", *_field_table("field", own), ""]
    return lines + ["**Options.**", "", *_options(row["options"]), ""]


def _players(ns: list[int]) -> str:
    return str(ns[0]) if len(ns) == 1 else f"{ns[0]}–{ns[-1]}"


def _cards(codes: list[str]) -> str:
    return " ".join(f"`{c}`" for c in codes) or "none"


def _deck(d: dict[str, Any]) -> str:
    packs = f"{d['packs']}×{d['pack_size']}" if d["packs"] > 1 else str(d["pack_size"])
    ranks = "" if d["pack_size"] % 13 == 0 else f" (ranks {d['ranks']})"
    jokers = f" + {d['jokers']} joker{'s' if d['jokers'] > 1 else ''}" if d["jokers"] else ""
    return f"{packs}{ranks}{jokers} ({d['cards']} cards)" if d["packs"] > 1 or jokers else f"{packs}{ranks} cards"


def _field_table(name: str, fields: dict[str, dict]) -> list[str]:
    if not fields:
        return ["none"]
    return [f"| {name} | type | meaning |", "|---|---|---|"] + [
        f"| `{k}` | {_cell(f['type'])} | {_cell(f['help'])} |" for k, f in fields.items()
    ]


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _decision(d: dict[str, Any]) -> str:
    options = ", ".join(f"`{op}`" for op in d["options"]) or "none"
    if d["absent"]:
        options += f"; absent {d['absent']}"
    return f"| `{d['kind']}` | `{d['phase']}` | {options} | {_cell(d['help'])} |"


def _options(options: dict[str, dict]) -> list[str]:
    rows = ["| option | default | choices | meaning |", "|---|---|---|---|"]
    for k, o in options.items():
        choices = ", ".join(f"`{_json(c)}`" for c in o["choices"]) if o["choices"] else ""
        rows.append(f"| `{k}` | `{_json(o['default'])}` | {choices} | {_cell(o['help'])} |")
    return rows


def _json(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


# --- meld rules and card values, in words -------------------------------------------------------------------------
def _melds(groups: list[dict[str, Any]]) -> list[str]:
    texts = [_meld_text(g["meld_rules"]) for g in groups]
    if all(t == texts[0] for t in texts):
        return texts[0]
    out = []
    for g, text in zip(groups, texts):
        out += [f"With {_players(g['players'])} players:", "", *text, ""]
    return out[:-1]


def _meld_text(m: dict[str, Any]) -> list[str]:
    lines = [f"- At least {m['min_size']} cards. Wild cards: {_cards(m['wild_cards'])}."]
    if m.get("kinds"):  # named kinds instead of sets and runs (liverpool)
        return lines + [_kind_text(k) for k in m["kinds"]]
    s, r = m["sets"], m["runs"]
    if s is None:
        lines.append("- No sets.")
    else:
        suits = (
            "each of a different suit"
            if s["repeated_suits_from"] is None
            else f"distinct suits up to {s['repeated_suits_from'] - 1} cards; from {s['repeated_suits_from']} cards "
            + ("all four suits, then " if s["all_suits_first"] else "")
            + f"at most {s['max_same_suit']} cards of a suit (identical cards of several packs included)"
        )
        if s["identical"]:
            suits += "; or any number of one identical card (one rank and suit)"
        lines.append(f"- Sets: {s['min_size']}–{s['max_size']} cards of one rank, {suits}; {_naturals(s)}.")
    if r is None:
        lines.append("- No runs.")
    else:
        aces = [("low (A-2-3)", r["ace_low"]), ("high (Q-K-A)", r["ace_high"])]
        aces += [("around the corner (K-A-2)", r["around_the_corner"]), ("at both ends at once", r["ace_both_ends"])]
        ace = " or ".join(a for a, ok in aces if ok) or "nowhere"
        ace = f"ranks in the order {r['rank_order']}, no wrap" if r["rank_order"] else f"the ace {ace}"
        lines.append(f"- Runs: {m['min_size']}–{r['max_size']} cards of one suit in sequence; {ace}; {_naturals(r)}.")
    if m["extra_rule"]:
        lines.append(f"- Also: {m['extra_rule']}")
    return lines


def _kind_text(k: dict[str, Any]) -> str:
    what = "in sequence, in the rank order" if k["base"] == "run" else "in any mix (repeats allowed) of the ranks"
    wild = "wild cards allowed" if k["wild"] else "no wild cards"
    return f"- `{k['name']}`: cards of the suits {k['suits']} {what} {k['ranks']}; {wild}; at least 1 natural card."


def _naturals(kind: dict[str, Any]) -> str:
    n = kind["naturals"]
    return f"at least {n} natural card{'s' if n > 1 else ''}"


def _values(row: dict[str, Any]) -> list[str]:
    tables = row["card_values"]
    if not tables:
        return ["None: hands are valued as a whole (see the rules file)."]
    ranks = list(next(iter(tables.values()))["ranks"]) if tables else []
    wilds = {w for g in row["deals"] for w in g["meld_rules"]["wild_cards"]}
    joker = JOKER in {c for t in tables.values() for c in t["cards"]} or JOKER in wilds
    columns = ranks + ([JOKER] if joker else [])
    lines = ["| | " + " | ".join(columns) + " | meaning |", "|---" * (len(columns) + 2) + "|"]
    notes = []
    for name, t in tables.items():
        cells = [str(t["cards"].get(c, t["ranks"].get(c, "wild"))) for c in columns]
        label = "in hand" if name == "penalty" else "in a meld"
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {_cell(t['help'])} |")
        odd = [f"`{c}` {v}" for c, v in t["cards"].items() if c != JOKER]
        if odd:
            notes.append(f"- {label.capitalize()}, cards that differ from their rank: {', '.join(odd)}.")
        if name == "meld":
            notes += _meld_notes(t)
    return lines + ([""] + notes if notes else [])


def _meld_notes(t: dict[str, Any]) -> list[str]:
    words = {"low": "low (A-2-…)", "high": "high (…-K-A)", "around": "around the corner (K-A-2)"}
    notes = []
    if t["ace_in_runs"]:
        aces = ", ".join(f"{words[k]} {v}" for k, v in t["ace_in_runs"].items())
        notes.append(f"- In a meld, the ace in a run: {aces}.")
    same: dict[str, list[str]] = {}  # wild cards valued alike share one note
    for w, values in t["wild"].items():
        own = ", ".join(f"{r}: {v}" for r, v in values.items() if t["ranks"].get(r) != v)
        same.setdefault(f" (standing for {own})" if own else "", []).append(w)
    for own, ws in same.items():
        verb, it = ("counts", "it stands") if len(ws) == 1 else ("count", "they stand")
        notes.append(f"- In a meld, wild {_cards(ws)} {verb} as the rank {it} for{own}.")
    return notes
