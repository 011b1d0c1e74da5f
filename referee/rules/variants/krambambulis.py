"""Krambambuli (Krambambulis): rules/krambambulis.md, based on rules/classic.md."""

from referee.rules.engine import Option
from referee.rules.moves import TableMoves
from referee.rules.variants.classic import CLASSIC_OWN, Classic


class Krambambulis(TableMoves, Classic):
    """Krambambulis: 104 cards without jokers, 11 each, any first meld opens, own melds may be rearranged
    into new melds with a hand card; played to 500 penalty points."""

    slug = "krambambulis"
    name = "Krambambuli"
    local_name = "Krambambulis"
    hand_size = 11
    initial_meld = 0  # Special rules 1: no minimum; the first meld opens (lay-offs from then on)
    rearranging = True  # Special rules 2 (TableMoves.rearrange; only once opened)
    unused_options = CLASSIC_OWN
    OPTIONS = {
        "target": Option(500, (500, 1000), "the match ends when a total reaches this"),
        "max_stock_rebuilds": Option(3, help="safety cap: stock rebuilds per deal before a stalemate"),
    }
