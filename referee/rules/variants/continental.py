"""Continental Rummy (Žemyninis romis): rules/continental.md. Two to twelve players, 15 cards dealt three at a
time, sequences only, and laying down is going out: the whole hand in one of three fixed patterns."""

from collections import Counter
from typing import Any

from protocol.cards import JOKER
from referee.rules.cards import deck
from referee.rules.contracts import ContractGame, Part, Requirement, find_cover, match
from referee.rules.describe import Field, Phase
from referee.rules.engine import Option
from referee.rules.errors import ConfigError
from referee.rules.melds import MeldRules, TableMeld
from referee.rules.solver import best_split, candidate_melds

# Valid combinations: runs only, the ace high or low but not round the corner, jokers wild (one natural card per
# run: Ambiguity 4), 2s natural
CONTINENTAL_MELDS = MeldRules(wrap=False, ace_both_ends=False, wilds=frozenset({JOKER}), allow_sets=False)

# Valid combinations, allowed laying-down patterns a), b), c); several runs may share a suit, be identical
# (a multiple pack) or join into one (a split run: Ambiguity 2), so the "not alike" rules are off
PATTERNS = tuple(
    Requirement(tuple(Part("run", k) for k in sizes), name, distinct_runs=False)
    for sizes, name in (
        ((3, 3, 3, 3, 3), "a (five sequences of 3+)"),
        ((4, 4, 4, 3), "b (three sequences of 4+ and one of 3+)"),
        ((5, 4, 3, 3), "c (sequences of 5+, 4+, 3+ and 3+)"),
    )
)
LAY_DOWN_SIZES = (15, 16)  # every pattern needs 15 cards; a hand holds 16 after the draw (Special rules)


def packs_for(players: int) -> int:
    """Deck by number of players: two packs for 2-5, three for 6-8, four for 9-12 (one joker per pack)."""
    return 2 if players <= 5 else 3 if players <= 8 else 4


def patterns_of(melds: list[TableMeld]) -> list[str]:
    """The names of the patterns that `melds` (holding every card laid down) meet."""
    return [p.name for p in PATTERNS if not isinstance(match(p, melds, exact=True), str)]


def lay_down(hand: list[str], rules: MeldRules) -> tuple[list[TableMeld], str | None] | None:
    """How a 15- or 16-card hand is laid down: the melds and the card discarded (None: every card is laid down,
    which a 16-card hand tries first, as its jokers then score); None if it cannot be."""
    if len(hand) not in LAY_DOWN_SIZES:
        return None
    candidates = candidate_melds(hand, rules)
    melds = find_cover(hand, PATTERNS, candidates)
    if melds is None and len(hand) == LAY_DOWN_SIZES[-1]:
        melds = find_cover(hand, PATTERNS, candidates, spare=1)
    if melds is None:
        return None
    left = Counter(hand) - Counter(c for m in melds for c in m.cards)
    return melds, next(iter(left), None)


class Continental(ContractGame):
    """Žemyninis romis: the whole hand goes down at once in a pattern of sequences; the winner deals next."""

    slug = "continental"
    name = "Continental Rummy"
    local_name = "Žemyninis romis"
    min_players, max_players = 2, 12
    low_wins = False  # End of the match: the highest total wins
    meld_rules = CONTINENTAL_MELDS
    whole_hand = True
    melds_after = False
    packet = 3  # Players, deck and deal: packets of three, five rounds
    OPTIONS = {
        "match_deals": Option(10, help="deals in the match, void deals included (End of the match)"),
        "joker_payment": Option(
            "per_opponent",
            ("per_opponent", "flat"),
            "the 2 points per joker in the winner's sequences: from each opponent, or once (Ambiguity 1)",
        ),
    }
    PHASES = {
        ("turn", "draw"): Phase(
            "the start of your turn: draw one card, the top of the stock or of the discard pile (nothing may be laid "
            "down before the draw)",
            ("draw",),
        ),
        ("turn", "play"): Phase(
            "after the draw: go out by laying the whole hand down in one play (melds of one pattern holding all 16 "
            "cards, or 15 and a final discard), or discard one card to end the turn",
            ("discard",),
        ),
    }
    CONSTRAINTS = {
        "opened": Field("bool", "whether you have laid down this deal (always false: laying down ends the deal)"),
        "contract": Field(
            "object",
            "the laying-down patterns, {patterns: [{name, parts: [{kind, min_size}], min_cards, distinct_runs}]}: "
            "meld the whole hand in one play in one of them (all 16 cards, or 15 and a final discard)",
        ),
    }
    CARD_VALUES = {
        "penalty": Field(
            "int",
            "no card counts at the end of a deal (Scoring); each card counts 1 in `romis eval`'s deadwood, the "
            "cards left out of sequences",
        ),
    }

    @classmethod
    def parse_options(cls, given: dict[str, Any]) -> dict[str, Any]:
        opts = super().parse_options(given)
        if opts["match_deals"] < 1:
            raise ConfigError("option match_deals: a match needs at least 1 deal")
        return opts

    @property
    def hand_size(self) -> int:
        return 15

    @property
    def predraw_plays(self) -> bool:
        return False  # Ambiguity 5: draw first, even holding a pattern

    @property
    def deals(self) -> int:
        return self.opts["match_deals"]

    def make_deck(self) -> list[str]:
        packs = packs_for(self.n)
        return deck(packs=packs, jokers=packs)

    def penalty(self, card: str) -> int:
        """No card values (Scoring); a card counts 1, so a best split leaves the fewest cards out of sequences."""
        return 1

    def requirements(self, seat: int) -> tuple[Requirement, ...]:
        return PATTERNS

    def may_go_out(self, seat: int) -> bool:
        # the final discard follows the play's melds, which end_play then judges as a pattern
        return self.opened[seat] or bool(self.down_melds[seat])

    def go_out_message(self, seat: int) -> str:
        return "you may empty your hand only by laying it down in a pattern"

    # --- the end of a deal -------------------------------------------------------------
    def next_dealer(self, winner: int | None) -> int:
        """The winner deals the next deal; after a void deal the same dealer deals again (Ambiguity 8)."""
        return self.dealer if winner is None else winner

    def score_deal(self, winner: int | None) -> list[float]:
        """Scoring: each opponent pays the winner 1, and 2 per joker in his sequences (from each opponent, or with
        `joker_payment: flat` once, from nowhere); a void deal scores nothing (Stalemate)."""
        if winner is None:
            return [0] * self.n
        jokers = sum(m.cards.count(JOKER) for m in self.table if m.owner == winner)
        each = 1 + 2 * jokers if self.opts["joker_payment"] == "per_opponent" else 1
        bonus = 0 if self.opts["joker_payment"] == "per_opponent" else 2 * jokers
        return [(self.n - 1) * each + bonus if s == winner else -each for s in range(self.n)]

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """Whether a 15- or 16-card hand can be laid down, in which patterns and with which final discard; else the
        best arrangement into sequences and the cards it leaves out."""
        found = lay_down(hand, CONTINENTAL_MELDS)
        if found is None:
            split = best_split(hand, CONTINENTAL_MELDS, lambda card: 1)
            melds, deadwood, patterns, discard = split.melds, list(split.deadwood), [], None
            why = "no pattern holds the whole hand" if len(hand) in LAY_DOWN_SIZES else "it takes 15 or 16 cards"
            verdict = f"no: {why} ({len(hand)} cards, {len(melds)} sequences, left out: {len(deadwood)})"
        else:
            melds, discard = found
            deadwood, patterns = [discard] if discard else [], patterns_of(melds)
            how = f"discarding {discard}" if discard else f"all {len(hand)} cards"
            verdict = f"yes, in pattern {' or '.join(patterns)}, {how}"
        return {
            "laid_down": found is not None,
            "patterns": patterns,
            "discard": discard,
            "verdict": verdict,
            "melds": [list(m.cards) for m in melds],
            "identities": [list(m.ids) for m in melds],
            "deadwood": deadwood,
            "deadwood_points": len(deadwood),
            "points": len(deadwood),
        }
