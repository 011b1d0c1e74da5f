"""Setting up a draw-meld-discard game in a chosen position, for the variants' rule tests."""

import pytest

from referee.rules.errors import IllegalAction
from referee.rules.melds import TableMeld, new_meld


def rig(
    cls, hands, table=(), stock=("2C",) * 20, discard=("9D",), opened=None, turn=0, placed=None, owner=0, **options
):
    """A `cls` game with one seat per hand (space-separated codes), at the start of seat `turn`'s turn.
    A table entry is "cards" (owned by `owner`), (owner, "cards"), or a TableMeld."""
    g = cls(len(hands), options, seed=1)
    g.hands = [h.split() for h in hands]
    g.table = [
        t
        if isinstance(t, TableMeld)
        else new_meld(t[1].split(), g.meld_rules, owner=t[0])
        if isinstance(t, tuple)
        else new_meld(t.split(), g.meld_rules, owner=owner)
        for t in table
    ]
    g.stock, g.piles = list(stock), [list(discard)]
    g.opened = list(opened or [False] * len(hands))
    g.placed_before = list(placed or [False] * len(hands))
    g.turn, g.phase = turn, "draw"
    return g


def illegal(g, seat, ops):
    """The rule id of the IllegalAction that `ops` raise (the test fails if they are accepted)."""
    with pytest.raises(IllegalAction) as e:
        g.apply(seat, ops)
    return e.value.rule
