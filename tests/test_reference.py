"""The per-variant protocol reference: `romis variants --json` and docs/reference.md say what the engine does.

The playout test is what keeps the reference honest: every decision, `constraints` key and view field that a
variant actually sends must be declared (with its type), and every declared one must show up."""

import json
import random
from collections import Counter, defaultdict
from pathlib import Path

import msgspec
import pytest
from typer.testing import CliRunner

from protocol.cards import JOKER, RANKS, SUITS
from referee.cli import app
from referee.reference import REFERENCE, descriptions, render_reference
from referee.rules.describe import declared, describe
from referee.rules.errors import IllegalAction
from referee.rules.melds import new_meld
from referee.rules.solver import candidate_melds
from referee.rules.variants import VARIANTS
from referee.rules.variants.tonk import Tonk
from sample_bots.brain import Brain

OPTIONS = {"max_deals": 3, "max_turns_per_deal": 300}
SEEDS = range(3)


def test_generated_reference_page_is_current():
    page = render_reference(descriptions())
    assert Path(REFERENCE).read_text(encoding="utf-8") == page, "docs/reference.md is stale: run `make reference`"


def test_variants_json_carries_the_reference_for_every_variant():
    result = CliRunner().invoke(app, ["variants", "--json"])
    assert result.exit_code == 0
    rows = {row["slug"]: row for row in json.loads(result.stdout)}
    assert set(rows) == set(VARIANTS)
    for slug, row in rows.items():
        cls = VARIANTS[slug]
        assert row["players"] == [cls.min_players, cls.max_players] and row["local_name"] == cls.local_name
        assert {k: o["default"] for k, o in row["options"].items()} == {
            k: o.default for k, o in cls.all_options().items()
        }
        assert all(o["help"] for o in row["options"].values()), slug
        if row["card_values"]:  # a variant that values whole hands (two-candles) has no card values
            assert row["card_values"]["penalty"]["ranks"].keys() == set(RANKS), slug
        assert {"kind", "phase", "options"} <= set(row["decisions"][0]) and row["constraints"], slug
        for group in row["deals"]:
            assert {"wild_cards", "sets", "runs", "min_size"} <= set(group["meld_rules"]), slug
        assert Path(row["rules_file"]).name == f"{slug}.md"


def test_variants_text_listing_is_unchanged():
    lines = CliRunner().invoke(app, ["variants"]).stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(VARIANTS)
    assert "Klasikinis romis" in lines[0] and lines[0].endswith("2-6 players  draw-meld-discard")


# --- the playouts: what the engine sends is what the reference declares ------------------------------------------
def conforms(value, kind: str) -> bool:
    """Whether a JSON value has the reference's type `kind` (int, number, bool, str, card, object, T[], T|null)."""
    if kind.endswith("|null"):
        return value is None or conforms(value, kind.removesuffix("|null"))
    if kind.endswith("[]"):
        return isinstance(value, list) and all(conforms(v, kind.removesuffix("[]")) for v in value)
    simple = {"int": int, "number": (int, float), "bool": bool, "str": str, "object": dict}
    if kind == "card":
        return value == JOKER or (
            isinstance(value, str) and len(value) == 2 and value[0] in RANKS and value[1] in SUITS
        )
    return isinstance(value, simple[kind]) and (kind == "bool" or not isinstance(value, bool))


def observe(cls, seeds=SEEDS):
    """Play seeded matches of `cls` at every player count with the sample bots; what the engine sent."""
    seen = {"phases": Counter(), "constraints": defaultdict(list), "view": defaultdict(list)}
    seen["options"], seen["absent"] = defaultdict(set), set()
    for n in range(cls.min_players, cls.max_players + 1):
        for seed in seeds:
            game = cls(n, OPTIONS, seed)
            brains = [Brain(cls.slug, n, game.opts, greedy=bool(s % 2), seed=seed * 10 + s) for s in range(n)]
            while not game.is_over():
                for seat in game.to_act():
                    decision, view = game.decision(seat), game.view(seat)
                    key = (decision.kind, decision.phase)
                    seen["phases"][key] += 1
                    for k, v in decision.constraints.items():
                        seen["constraints"][k].append(v)
                    for k, v in view.items():
                        seen["view"][k].append(v)
                    if decision.options is None:
                        seen["absent"].add(key)
                    for op in decision.options or []:
                        seen["options"][key].add(msgspec.to_builtins(op)["op"])
                    game.apply(seat, brains[seat].choose(decision, view))
    return seen, cls(cls.min_players, OPTIONS, 0)


def problems(cls, seeds=SEEDS) -> list[str]:
    """Everything the playouts of `cls` sent that its description does not declare, or declares wrongly."""
    seen, game = observe(cls, seeds)
    phases = declared(game, "PHASES")
    out = [f"undeclared decision {k}" for k in seen["phases"] if k not in phases]
    out += [f"decision {k} never asked" for k, p in phases.items() if not p.rare and k not in seen["phases"]]
    out += [f"decision {k} sent no options" for k in seen["absent"] if k in phases and not phases[k].absent]
    for k, ops in seen["options"].items():
        allowed = set(phases[k].options) if k in phases else set()
        out += [f"decision {k} offered undeclared {op}" for op in sorted(ops - allowed)]
    for attr, where in (("CONSTRAINTS", "constraints"), ("VIEW", "view")):
        fields = declared(game, attr)
        out += [f"undeclared {where} key {k!r}" for k in seen[where] if k not in fields]
        out += [f"{where} key {k!r} never sent" for k, f in fields.items() if not f.rare and k not in seen[where]]
        for k, values in seen[where].items():
            bad = [v for v in values if k in fields and not conforms(v, fields[k].type)]
            out += [f"{where} key {k!r} is not {fields[k].type}: {bad[0]!r}"] if bad else []
    return out


@pytest.mark.parametrize("slug", sorted(VARIANTS))
def test_playouts_send_exactly_what_the_reference_declares(slug):
    assert problems(VARIANTS[slug]) == []


def test_an_undeclared_view_field_or_constraint_fails_the_check():
    class Undocumented(Tonk):  # as if tonk had shipped its deck size and knocker without saying what they are
        VIEW = {"packs": None}
        CONSTRAINTS = {"knocker": None}

    found = problems(Undocumented, seeds=[0])
    assert "undeclared view key 'packs'" in found and "undeclared constraints key 'knocker'" in found


# --- a bot that reads only the JSON gets meld validity and card values right --------------------------------------
def valid_by_the_reference(cards: list[str], kind: str, rules: dict) -> bool:
    """Whether natural `cards` form a `kind` meld, judged only from the reference's meld rules."""
    if len(cards) < rules["min_size"]:
        return False
    if kind == "set":
        s, suits = rules["sets"], Counter(c[1] for c in cards)
        if s is None or len({c[0] for c in cards}) != 1 or not s["min_size"] <= len(cards) <= s["max_size"]:
            return False
        if s["identical"] and len(set(cards)) == 1:
            return True
        if s["repeated_suits_from"] is None or len(cards) < s["repeated_suits_from"]:
            return max(suits.values()) == 1
        return (len(suits) == 4 or not s["all_suits_first"]) and max(suits.values()) <= s["max_same_suit"]
    r = rules["runs"]
    if r is None or len({c[1] for c in cards}) != 1 or not r["min_size"] <= len(cards) <= r["max_size"]:
        return False
    if r["rank_order"]:  # the variant's own rank order: consecutive places, each once
        if any(c[0] not in r["rank_order"] for c in cards):
            return False
        places = sorted(r["rank_order"].index(c[0]) for c in cards)
        return len(set(places)) == len(places) and places[-1] - places[0] == len(places) - 1
    ranks = sorted(RANKS.index(c[0]) for c in cards)
    if r["ace_both_ends"] and ranks == [0, *range(13)]:
        return True
    if len(set(ranks)) != len(ranks):
        return False
    low = ranks[-1] - ranks[0] == len(ranks) - 1 and (r["ace_low"] or ranks[0] != 0)
    high = sorted(13 if x == 0 else x for x in ranks)
    high_ok = r["ace_high"] and 0 in ranks and high[-1] - high[0] == len(ranks) - 1
    gaps = [(b - a) % 13 for a, b in zip(ranks, ranks[1:] + ranks[:1])]
    around = r["around_the_corner"] and gaps.count(1) >= len(ranks) - 1
    return low or high_ok or around


def engine_accepts(cards: list[str], kind: str, game) -> bool:
    try:
        new_meld(cards, game.meld_rules, kind=kind)
        return True
    except IllegalAction:
        return False


def near_melds(deck: list[str], rng: random.Random):
    """Natural card groups that are valid melds or nearly so: one rank in several suits, or a stretch of one suit."""
    for _ in range(400):
        size = rng.randint(2, 15)
        if rng.random() < 0.5:
            rank = rng.choice(RANKS)
            pool = [c for c in deck if c[0] == rank]
            yield "set", rng.sample(pool, min(size, len(pool)))
        else:
            suit, start = rng.choice(SUITS), rng.randrange(13)
            stretch = [RANKS[(start + i) % 13] + suit for i in range(size)]
            if rng.random() < 0.3:
                del stretch[rng.randrange(len(stretch))]
            if rng.random() < 0.1:
                stretch.append(stretch[0])
            yield "run", [c for c in stretch if c in deck]


@pytest.mark.parametrize("slug", sorted(VARIANTS))
def test_the_json_meld_rules_say_which_melds_the_engine_accepts(slug):
    cls, rng = VARIANTS[slug], random.Random(slug)
    for group in describe(cls)["deals"]:
        game = cls(group["players"][0], {}, 0)
        wild = set(group["meld_rules"]["wild_cards"])
        deck = [c for c in game.make_deck() if c not in wild and c != JOKER]
        for kind, cards in near_melds(deck, rng):
            expected = engine_accepts(cards, kind, game)
            assert valid_by_the_reference(cards, kind, group["meld_rules"]) == expected, (kind, cards, expected)


def value_of(card: str, table: dict) -> int:
    """A card's value as the reference tells a bot to look it up."""
    return table["cards"].get(card, table["ranks"].get(card[0]))


def meld_value(meld, table: dict, wilds: set[str]) -> int:
    """A meld's value from the reference's meld table: aces in runs by their neighbours, wild cards by the rank
    they stand for, other cards by value_of."""
    total = 0
    for i, (card, ident) in enumerate(zip(meld.cards, meld.ids)):
        if meld.kind == "run" and ident[0] == "A":
            near = {meld.ids[j][0] for j in (i - 1, i + 1) if 0 <= j < len(meld.ids)}
            total += table["ace_in_runs"]["around" if near >= {"K", "2"} else "high" if "K" in near else "low"]
        elif card in wilds:
            total += table["wild"][card][ident[0]]
        else:
            total += value_of(card, table)
    return total


@pytest.mark.parametrize("slug", sorted(VARIANTS))
def test_the_json_card_values_give_the_engines_points(slug):
    cls, rng = VARIANTS[slug], random.Random(slug)
    row, game = describe(cls), cls(cls.min_players, {}, 0)
    if "penalty" not in row["card_values"]:
        pytest.skip(f"{slug} values whole hands, not cards")
    penalty, meld = row["card_values"]["penalty"], row["card_values"].get("meld")
    wilds = set(row["deals"][0]["meld_rules"]["wild_cards"])
    deck = game.make_deck()
    for _ in range(60):
        hand = rng.sample(deck, game.hand_size)
        res = cls.evaluate(hand)
        assert sum(value_of(c, penalty) for c in res["deadwood"]) == res.get("deadwood_points", res["points"]), hand
        for m in candidate_melds(hand, game.meld_rules)[:10] if meld else []:
            assert meld_value(m, meld, wilds) == game.meld_points(m), (m.cards, m.ids)
