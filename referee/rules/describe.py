"""What a variant tells a bot, described from the code: its decisions, `constraints` keys, view fields, card
values, decks and meld rules.

The meanings are declared next to the code that emits them, as class attributes merged along the class
hierarchy the way `Game.all_options()` merges `OPTIONS` (a subclass's `None` removes an inherited entry):
`PHASES` (decision kind and phase), `CONSTRAINTS` (keys of `decision.constraints`), `VIEW` (fields of the view)
and `CARD_VALUES` (which value tables apply). Everything else (values, decks, meld rules) is computed by calling
the variant's own hooks, so the description cannot drift from the rules it describes.
"""

from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from protocol.cards import JOKER, RANKS, SUITS
from referee.rules.melds import MeldRules, TableMeld, is_valid, naturals_needed, size_needed

if TYPE_CHECKING:
    from referee.rules.engine import Game


@dataclass(frozen=True)
class Field:
    """The meaning of one key a variant sends (a `constraints` key, a view field) or of one card-value table.

    `type` is the JSON type of the value: `int`, `number`, `bool`, `str`, `card` (a card code), `object`,
    `T[]` (a list of T) and `T|null`."""

    type: str
    help: str
    rare: bool = False  # may not show up in a short random playout
    requires: str = ""  # an attribute of the game that must be true for the key to exist at all


@dataclass(frozen=True)
class Phase:
    """One decision a variant asks (kind and phase): what it is for, the ops that `options` lists (their `op`
    tags), and when `options` is absent, what to send then ("": it is always sent)."""

    help: str
    options: tuple[str, ...] = ()
    absent: str = ""
    rare: bool = False
    requires: str = ""


def declared(game: Any, attr: str) -> dict:
    """The declarations `attr` of the game's class merged along its hierarchy, less those a subclass removed
    (None) and those whose `requires` attribute is false for this game."""
    out: dict = {}
    for klass in reversed(type(game).__mro__):
        out.update(vars(klass).get(attr, {}))
    return {k: d for k, d in out.items() if d is not None and (not d.requires or getattr(game, d.requires))}


def describe(cls: "type[Game]") -> dict[str, Any]:
    """Everything a bot needs to know about variant `cls` that is not in the protocol itself, JSON-ready, for
    the default options."""
    game: Any = cls(cls.min_players, {}, 0)  # its value hooks are the draw-meld-discard family's, which all have
    deck = game.make_deck()
    return {
        "slug": cls.slug,
        "name": cls.name,
        "local_name": cls.local_name,
        "family": cls.family,
        "players": [cls.min_players, cls.max_players],
        "rules_version": cls.rules_version,
        "options": {
            k: {"default": o.default, "choices": list(o.choices) if o.choices else None, "help": o.help}
            for k, o in cls.all_options().items()
        },
        "low_wins": cls.low_wins,
        "unit": cls.unit,  # "chips": the totals are net chip balances (referee/rules/chips.py)
        "deals": deal_groups(cls),
        "card_values": card_values(game, deck),
        "decisions": [
            {
                "kind": kind,
                "phase": phase,
                "help": p.help,
                "options": list(p.options),
                "absent": p.absent or None,
            }
            for (kind, phase), p in declared(game, "PHASES").items()
        ],
        "constraints": _fields(declared(game, "CONSTRAINTS")),
        "view": _fields(declared(game, "VIEW")),
    }


def _fields(fields: dict[str, Field]) -> dict[str, dict]:
    return {k: {"type": f.type, "help": f.help} for k, f in fields.items()}


# --- decks and meld rules, by the number of players dealt in ------------------------------------------------------
def deal_groups(cls: "type[Game]") -> list[dict]:
    """Hand size, deck and meld rules of a deal by the number of players dealt in (in elimination variants, the
    seats still in), with the player counts that share them grouped together."""
    groups: list[dict] = []
    for n in range(cls.min_players, cls.max_players + 1):
        game: Any = cls(n, {}, 0)
        deck = game.make_deck()
        facts = {
            "hand_size": game.hand_size,
            "deck": deck_summary(deck),
            "meld_rules": meld_rules(game.meld_rules, deck),
        }
        if groups and {k: v for k, v in groups[-1].items() if k != "players"} == facts:
            groups[-1]["players"].append(n)
        else:
            groups.append({"players": [n], **facts})
    return groups


def deck_summary(cards: list[str]) -> dict[str, Any]:
    """A deck as packs of identical cards plus jokers."""
    counts = Counter(cards)
    jokers = counts.pop(JOKER, 0)
    return {
        "cards": len(cards),
        "packs": max(counts.values(), default=0),
        "pack_size": len(counts),
        "ranks": "".join(r for r in RANKS if any(c[0] == r for c in counts)),
        "jokers": jokers,
    }


def meld_rules(rules: MeldRules, deck: list[str]) -> dict[str, Any]:
    """The meld rules as a bot in any language can apply them; sizes and suit limits are found by asking the
    validator itself (melds.is_valid), so they are what the referee enforces."""
    extra = [_summary(rules.meld_check.__doc__) or ""] if rules.meld_check else []
    extra += [w.text() for w in rules.wholes]
    if rules.joker_sets:
        extra.append("3 or 4 jokers, which are not wild, form a set of their own; a joker joins no other meld.")
    if rules.max_wilds:
        extra.append(f"At most {rules.max_wilds} wild card(s) in one meld.")
    out = {
        "min_size": rules.min_size,
        "wild_cards": sorted(c for c in set(deck) if c in rules.wilds),
        "sets": _set_rules(rules) if rules.allow_sets else None,
        "runs": _run_rules(rules) if rules.allow_runs else None,
        "extra_rule": " ".join(extra) or None,
    }
    if rules.kinds:  # named kinds (referee/rules/kinds.py): `meld.kind` names one of them
        out["kinds"] = [
            {
                "name": k.name,
                "base": k.base,
                "suits": k.suits,
                "ranks": "".join(RANKS[r - 1] for r in k.ranks),
                "wild": k.wild,
            }
            for k in rules.kinds
        ]
    return out


def _summary(doc: str | None) -> str | None:
    """The first paragraph of a docstring, on one line."""
    return " ".join(doc.split("\n\n")[0].split()) if doc else None


def _set_rules(rules: MeldRules) -> dict[str, Any]:
    def ok(suits: str) -> bool:
        return is_valid(["7" + s for s in suits], "set", rules)

    cycle = SUITS * 8  # all four suits before any suit repeats
    size = max(n for n in range(1, len(cycle) + 1) if ok(cycle[:n]))
    patterns = {n: cycle[:n] if n > 4 else cycle[: n - 1] + "S" for n in range(2, size + 1)}
    if rules.identical_sets:  # "SS" is a set of identical cards, which `identical` covers
        patterns.pop(2, None)
    first = next((n for n, p in patterns.items() if ok(p)), None)
    return {
        "min_size": size_needed("set", rules),
        "max_size": size,
        "identical": rules.identical_sets,  # cards of one rank and one suit form a set at any size
        "repeated_suits_from": first,  # the smallest set that may hold two cards of one suit (None: never)
        "all_suits_first": first is not None and not ok(("SHD" * 8)[:first]),  # a suit repeats only once all 4 are in
        "max_same_suit": max((k for k in range(1, size - 2) if ok("S" * k + "HDC")), default=1),
        "naturals": naturals_needed("set", rules),
    }


def _run_rules(rules: MeldRules) -> dict[str, Any]:
    order = "".join(RANKS[r - 1] for r in rules.run_ranks) or None  # a stripped pack's own order (7 then J)
    line = order or "A23456789TJQKA"
    size = max(
        n
        for n in range(1, 15)
        if any(is_valid([r + "S" for r in line[i : i + n]], "run", rules) for i in range(len(line) - n + 1))
    )
    return {
        "min_size": size_needed("run", rules),
        "max_size": size,
        "ace_low": rules.ace_low,
        "ace_high": rules.ace_high,
        "around_the_corner": rules.wrap,
        "ace_both_ends": rules.ace_both_ends,
        "rank_order": order,  # null: A-K (with the ace modes above); else the ranks in run order, no wrap
        "naturals": naturals_needed("run", rules),
    }


# --- card values ---------------------------------------------------------------------------------------------------
def card_values(game: Any, deck: list[str]) -> dict[str, dict]:
    """The value tables the variant declares (`CARD_VALUES`), computed from its hooks: `penalty` (a card left in
    hand) and `meld` (a card placed in a meld). Look a card up as `cards.get(code, ranks[code[0]])`."""
    out = {}
    tables = declared(game, "CARD_VALUES")
    if "penalty" in tables:
        out["penalty"] = {"help": tables["penalty"].help, **by_rank(game.penalty, deck)}
    if "meld" in tables:
        out["meld"] = {"help": tables["meld"].help, **meld_values(game, deck)}
    return out


def by_rank(value: Any, deck: list[str]) -> dict[str, dict]:
    """`value(card)` for every card of the deck as the value of each rank plus the cards that differ from their
    rank's (the joker among them)."""
    codes = sorted(set(deck))
    ranks, cards = {}, {}
    for r in RANKS:
        values = {c: value(c) for c in codes if c[0] == r}
        if values:
            ranks[r] = Counter(values.values()).most_common(1)[0][0]
            cards.update({c: v for c, v in values.items() if v != ranks[r]})
    if JOKER in codes:
        cards[JOKER] = value(JOKER)
    return {"ranks": ranks, "cards": cards}


def _placed(game: Any, kind: str, pairs: list[tuple[str, str]], i: int) -> int:
    """What the card at position `i` of a meld of (card, identity) `pairs` adds to the meld's value."""

    def meld(ps: list[tuple[str, str]]) -> TableMeld:
        return TableMeld(kind, tuple(c for c, _ in ps), tuple(x for _, x in ps))

    return game.meld_points(meld(pairs)) - game.meld_points(meld(pairs[:i] + pairs[i + 1 :]))


def meld_values(game: Any, deck: list[str]) -> dict[str, Any]:
    """What a card counts in a meld (`meld_points`): natural cards by rank (as in a set), the ace by where it
    lies in a run, and each wild card by the rank it stands for."""
    naturals = [c for c in deck if c not in game.meld_rules.wilds]
    table = by_rank(lambda c: _placed(game, "set", [(c, c)], 0), naturals)
    rules = game.meld_rules
    ace = {}
    if rules.allow_runs and rules.ace_low:
        ace["low"] = _placed(game, "run", [("AS", "AS"), ("2S", "2S")], 0)
    if rules.allow_runs and rules.ace_high:
        ace["high"] = _placed(game, "run", [("KS", "KS"), ("AS", "AS")], 1)
    if rules.allow_runs and rules.wrap:
        ace["around"] = _placed(game, "run", [("KS", "KS"), ("AS", "AS"), ("2S", "2S")], 1)
    wilds = sorted(set(deck) & rules.wilds)
    return {
        **table,
        "ace_in_runs": ace,
        "wild": {w: {r: _placed(game, "set", [(w, r + "S")], 0) for r in RANKS} for w in wilds},
    }
