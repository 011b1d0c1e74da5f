"""Persian Rummy (Persų romis): rules/persian.md. Two partnerships, melds score for their side, two deals."""

from collections import Counter
from typing import Any

from protocol.cards import JOKER
from protocol.messages import Decision, Exchange, LayOff, Meld
from referee.rules.cards import deck, rank, suit
from referee.rules.describe import Field
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, TableMeld, is_valid
from referee.rules.solver import best_split

# one pack and 4 jokers that are not wild; aces high only; sets of 3-4 of different suits; joker sets of 3-4
PERSIAN_MELDS = MeldRules(ace_low=False, wilds=frozenset(), set_max=4, joker_sets=True)
ANY_ACE = MeldRules(wilds=frozenset(), wrap=True)  # to tell an ace-low run (A-2-3, K-A-2) from other non-runs


class Persian(DrawMeldDiscard):
    """Persų romis: two against two, partners opposite; melds score for their side (a four-card set doubled),
    25 for going out, and after two deals 50 more for the side ahead."""

    slug = "persian"
    name = "Persian Rummy"
    local_name = "Persų romis"
    min_players = max_players = 4
    teams = ((0, 2), (1, 3))  # Players: partners sit opposite, so turns alternate between the sides
    hand_size = 7
    meld_rules = PERSIAN_MELDS
    low_wins = False
    predraw_plays = False  # Turn structure: every turn starts with the draw (Ambiguity 9)
    deals = 2
    out_bonus = 25  # Special rules 3
    match_win_bonus = 50  # End of the match
    OPTIONS = {
        "deduct_hand_cards": Option(False, help="subtract the cards left in each player's hand from his side's score"),
    }
    CONSTRAINTS = {
        "opened": None,  # lay-offs need no meld of one's own (Ambiguity 2)
        "layoff_melds": Field("int[]", "the ids of the table melds you may lay off on: your own and your partner's"),
    }
    VIEW = {
        "partner": Field("int", "your partner's seat (opposite you); you never see his hand"),
        "teams": Field(
            "int[][]", "the two partnerships, each a list of seats; each seat's scores entry is its partnership's total"
        ),
    }
    CARD_VALUES = {
        "penalty": Field(
            "int", "a card's value (joker 20, ace 15); a card left in hand costs it with deduct_hand_cards"
        ),
        "meld": Field("int", "what a card adds to its side's score in a meld; a four-card set counts double"),
    }

    @property
    def hand_cards_count(self) -> bool:
        return self.opts["deduct_hand_cards"]  # Scoring: cards left in hands are ignored by default

    def make_deck(self) -> list[str]:
        return deck(packs=1, jokers=4)

    def penalty(self, card: str) -> int:
        """Special rules 1: joker 20, A 15, K/Q/J 10, 2-10 face value."""
        return 20 if card == JOKER else 15 if rank(card) == 1 else min(rank(card), 10)

    def meld_points(self, meld: TableMeld) -> int:
        """Special rules 2: the sum of the card values, doubled for a four-card set (four jokers included)."""
        value = sum(map(self.penalty, meld.cards))
        return 2 * value if meld.kind == "set" and len(meld.cards) == 4 else value

    def can_lay_off(self, seat: int) -> bool:
        return True  # Ambiguities 1, 2: no initial meld; the partner's melds are open even without one's own

    def layoff_allowed(self, seat: int, meld: int) -> bool:
        """Turn structure 2: only on one's own or one's partner's melds."""
        return self.team_of(self.table[meld].owner) == self.team_of(seat)

    def layoff_refusal(self, meld: int) -> str:
        return f"meld {meld} is the other side's: lay off only on your own or your partner's melds"

    def decision(self, seat: int) -> Decision:
        d = super().decision(seat)
        del d.constraints["opened"]
        d.constraints["layoff_melds"] = self.reachable(seat)
        return d

    def view(self, seat: int) -> dict[str, Any]:
        return {**super().view(seat), "partner": self.partner(seat), "teams": [list(t) for t in self.teams]}

    # --- the variant's own illegal plays, named before the generic checks ----------------------------------------
    def table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        if not isinstance(op, Exchange):
            on = self.table[op.meld] if isinstance(op, LayOff) and 0 <= op.meld < len(self.table) else None
            check_cards(list(op.cards), on)
        super().table_op(seat, op)

    # --- scoring ------------------------------------------------------------------------------------------------
    def score_deal(self, winner: int | None) -> list[float]:
        """Scoring: each side's melds (whoever of the two made them), 25 for going out (none in a stalemate),
        less the cards in its hands with `deduct_hand_cards`; every seat carries its side's score."""
        sides: list[float] = [0] * len(self.teams)  # whole numbers: the protocol's scores are integers
        for meld in self.table:
            sides[self.team_of(meld.owner)] += self.meld_points(meld)
        if winner is not None:
            sides[self.team_of(winner)] += self.out_bonus
        if self.opts["deduct_hand_cards"]:
            for seat, hand in enumerate(self.hands):
                sides[self.team_of(seat)] -= sum(map(self.penalty, hand))
        return self.team_values(sides)

    def end_deal(self, winner: int | None) -> None:
        """Score the deal for the two sides; after the last deal the side ahead also gets the match bonus, which
        the deal's scores include (as gin adds its game bonus) and its `teams` and `match_bonus` show apart."""
        self.phase = "over"
        scores = self.score_deal(winner)
        sides = [scores[t[0]] for t in self.teams]
        detail: dict[str, Any] = {"hands": [sorted(h) for h in self.hands], "teams": sides}
        last = min(self.deals, self.opts["max_deals"])  # (the shared safety cap could only cut the match shorter)
        if self.deal_no + 1 >= last:  # Ambiguity 14: a stalemated deal counts as one of the two
            detail["match_bonus"] = bonus = self.match_bonus(sides)
            scores = self.team_values([s + b for s, b in zip(sides, bonus)])
        self.finish_deal(scores, winner, **detail)

    def match_bonus(self, sides: list[float]) -> list[float]:
        """End of the match: 50 to the side whose two-deal total (with this last deal's `sides`) is larger;
        nothing to either on a tie (Ambiguity 10)."""
        final = [self.totals[t[0]] + s for t, s in zip(self.teams, sides)]
        best = max(final)
        return [self.match_win_bonus if f == best and final.count(best) == 1 else 0 for f in final]

    def match_ended(self) -> bool:
        return self.deal_no >= self.deals

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """What the hand could score if melded: the melds worth the most (four-card sets doubled), each meld's
        value, the cards left over and their value."""
        game = cls.hooks_only()
        melds = best_melds(game, list(hand))
        rest = list((Counter(hand) - Counter(c for m in melds for c in m.cards)).elements())
        values = [game.meld_points(m) for m in melds]
        return {
            "melds": [list(m.cards) for m in melds],
            "meld_values": values,
            "value": sum(values),
            "deadwood": rest,
            "points": sum(map(game.penalty, rest)),
        }


def check_cards(cards: list[str], meld: TableMeld | None) -> None:
    """The variant's own reasons a meld (`meld` None) or a lay-off of `cards` on `meld` is illegal."""
    ids = list(meld.ids if meld else ()) + cards
    if JOKER in ids and any(c != JOKER for c in ids):
        raise IllegalAction(
            "joker.not-wild", "jokers are not wild: they meld only with each other, as a set of 3 or 4 jokers"
        )
    ace_low = len({suit(c) for c in ids}) == 1 and any(rank(c) == 1 for c in ids) and JOKER not in ids
    if ace_low and not is_valid(ids, "run", PERSIAN_MELDS) and is_valid(ids, "run", ANY_ACE):
        raise IllegalAction(
            "run.ace-high-only", f"{' '.join(ids)}: the ace is high only (Q-K-A); A-2-3 and K-A-2 are not runs"
        )


def best_melds(game: Persian, hand: list[str], fours: list[TableMeld] | None = None) -> list[TableMeld]:
    """The disjoint melds of `hand` worth the most: the least-deadwood split, or one that keeps some four-card
    sets whole where doubling them is worth more (Special rules 2). `fours`: the four-card sets still to try."""
    split = best_split(hand, game.meld_rules, game.penalty)
    best, value = split.melds, sum(map(game.meld_points, split.melds))
    fours = _four_sets(hand) if fours is None else fours
    for i, quad in enumerate(fours):  # each choice of four-card sets once: those after this one, disjoint
        rest = list(hand)
        for c in quad.cards:
            rest.remove(c)
        later = [q for q in fours[i + 1 :] if not set(q.cards) & set(quad.cards)]
        melds = [quad] + best_melds(game, rest, later)
        if sum(map(game.meld_points, melds)) > value:
            best, value = melds, sum(map(game.meld_points, melds))
    return best


def _four_sets(hand: list[str]) -> list[TableMeld]:
    """Every four-card set the hand holds (four of a rank, or four jokers)."""
    out = []
    for r in sorted({JOKER if c == JOKER else c[0] for c in hand}):
        cards = sorted(c for c in hand if (c == JOKER if r == JOKER else c != JOKER and c[0] == r))
        if len(cards) >= 4 and is_valid(cards[:4], "set", PERSIAN_MELDS):
            out.append(TableMeld("set", tuple(cards[:4]), tuple(cards[:4])))
    return out
