"""The generic engine (referee/rules/engine.py): what every variant inherits."""

import random
from collections import Counter

import pytest

from referee.rules import engine
from referee.rules.engine import Game, Option
from referee.rules.errors import ConfigError
from referee.rules.moves import TableMoves
from referee.rules.variants import VARIANTS
from referee.rules.variants.classic import Classic


class _FewRebuilds(Classic):
    OPTIONS = {"max_stock_rebuilds": Option(5, help="overrides the family's 20")}


class _WithMoves(TableMoves, _FewRebuilds):
    slug = "with-moves"
    OPTIONS = {"target": Option(300, help="overrides classic's 100")}


def test_a_mixin_does_not_undo_an_option_its_base_overrides():
    opts = _WithMoves.all_options()
    assert opts["max_stock_rebuilds"].default == 5 and opts["target"].default == 300
    assert _WithMoves(2).opts["max_stock_rebuilds"] == 5


def test_a_game_without_a_hand_evaluation_says_so():
    class NoMelds(Game):
        slug = "no-melds"

    with pytest.raises(ConfigError, match="no-melds has no hand evaluation"):
        NoMelds.evaluate(["7H"])


@pytest.mark.parametrize("slug", sorted(VARIANTS))
def test_the_compiled_state_copy_is_the_pure_one(slug):
    """Before every play the engine copies the state a rejected play is undone to; the compiled copy
    (referee/rules/_solver.c) gives what Game.copy_state gives, at every decision of random matches, with every
    container a fresh object."""
    assert engine.compiled_snapshot is not None, "referee/rules/_solver.c was not built"
    cls, rng = VARIANTS[slug], random.Random(slug)
    g = cls(cls.min_players, {"max_deals": 2}, 1)
    for _ in range(300):
        if g.is_over():
            break
        state, mutable = g.__dict__, g._mutable
        compiled, pure = engine.compiled_snapshot(state, mutable), Game.copy_state(state, mutable)
        assert compiled == pure and compiled.keys() == state.keys()
        for k in mutable:
            assert type(compiled[k]) is type(pure[k]), k
            if isinstance(state[k], list | dict):
                assert compiled[k] is not state[k], k
                if isinstance(state[k], list) and state[k] and isinstance(state[k][0], list):
                    assert all(a is not b for a, b in zip(compiled[k], state[k])), k
        for s in g.to_act()[:1]:
            g.apply(s, g.fallback(s) if rng.random() < 0.5 else [rng.choice(g.decision(s).options or g.fallback(s))])


def test_a_rejected_play_is_undone_on_the_pure_copy_too(monkeypatch):
    """ROMIS_PURE=1 (or an install without a C compiler) copies the state in Python: the validator still leaves
    no trace of a rejected play."""
    from fuzzing import fuzz_variant

    monkeypatch.setattr(engine, "snapshot_copy", None)
    for slug in ("gin", "classic", "french"):
        stats = fuzz_variant(slug, 100, seed=7)
        assert not stats.failures and sum(stats.rejected.values()) > 0, slug


def test_the_compiled_state_copy_refuses_what_it_cannot_copy():
    assert engine.compiled_snapshot is not None
    with pytest.raises(KeyError):
        engine.compiled_snapshot({"a": []}, ("hands",))
    with pytest.raises(TypeError):
        engine.compiled_snapshot({"a": []}, ["a"])
    counter = Counter("aab")
    copied = engine.compiled_snapshot({"c": counter}, ("c",))["c"]
    assert type(copied) is Counter and copied == counter and copied is not counter
