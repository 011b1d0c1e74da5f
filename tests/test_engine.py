"""The generic engine (referee/rules/engine.py): what every variant inherits."""

import pytest

from referee.rules.engine import Game, Option
from referee.rules.errors import ConfigError
from referee.rules.moves import TableMoves
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
