"""Elimination Rummy (Romis su iškritimu): rules/elimination.md, on the simultaneous-rounds engine."""

from itertools import combinations
from typing import Any

from protocol.messages import Meld
from referee.rules.cards import pack
from referee.rules.describe import Field
from referee.rules.engine import Option
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, TableMeld
from referee.rules.related import chain, groups, related, touches
from referee.rules.rounds import Rounds

NEW_GROUP = "new-group"


def no_melds(meld: TableMeld) -> None:
    """There are no melds: a show turns up cards related pairwise (same rank, or same suit and adjacent in
    A-K-Q-...-2, the ace only with its king and other aces), as the `show` decisions say.

    Never reached (the rules allow neither sets nor runs); it only describes the shows in the reference."""
    raise IllegalAction("meld.none", "elimination has no melds: a show is a `meld` answer to a `show` decision")


class Elimination(Rounds):
    """Romis su iškritimu: no turns; every round each active player turns up related cards at once, a player who
    cannot (even with his auxiliary cards) is out, and the last one left wins the deal."""

    slug = "elimination"
    name = "Elimination Rummy"
    local_name = "Romis su iškritimu"
    min_players, max_players = 2, 4
    meld_rules = MeldRules(wilds=frozenset(), min_size=1, allow_sets=False, allow_runs=False, meld_check=no_melds)
    OPTIONS = {
        "target": Option(100, help="the match ends when a total reaches this with one player alone at the top"),
    }
    CONSTRAINTS = {
        "round": Field("int", "the round number of the deal (1, 2, 3, ...)"),
        "cards": Field("int", "how many cards a show turns up from hand (2 in rounds 1 and 2, then 1)"),
        "requirement": Field(
            "str",
            "`pair` (two cards related to each other), `pair-or-each` (related to each other, or each to one of "
            "your face-up cards) or `one` (one card, from hand or reserved, related to one of your face-up cards)",
        ),
        "new_group": Field("bool", "whether you may start a new group (`kind: new-group`) now"),
    }
    CARD_VALUES = {"penalty": Field("int", "every card counts 1: scores count the cards turned up")}

    def make_deck(self) -> list[str]:
        return pack(52)

    def penalty(self, card: str) -> int:
        """What a card counts: one (rules/elimination.md, Scoring: one point per face-up card)."""
        return 1

    # --- shows ----------------------------------------------------------------------------------------------
    def need(self) -> int:
        """Cards a show turns up from hand: 2 in rounds 1 and 2, then 1."""
        return 2 if self.round_no <= 2 else 1

    def can_start_group(self, seat: int) -> bool:
        """The new-group option: rounds 3 and later, once 4 cards are face up (Ambiguity 6)."""
        return self.round_no >= 3 and len(self.up[seat]) >= 4

    def requirement(self, seat: int) -> dict[str, Any]:
        kind = {1: "pair", 2: "pair-or-each"}.get(self.round_no, "one")
        return {
            "round": self.round_no,
            "cards": self.need(),
            "requirement": kind,
            "new_group": self.can_start_group(seat),
        }

    def fits(self, seat: int, cards: list[str]) -> bool:
        """Whether `cards` (the right number, held) meet the round requirement (Turn structure; Ambiguity 4)."""
        up = self.up[seat]
        if self.round_no == 1:
            return related(*cards)
        if self.round_no == 2:
            return related(*cards) or all(touches(c, up) for c in cards)
        return touches(cards[0], up)

    def legal_shows(self, seat: int) -> list[Meld]:
        hand = sorted(self.hands[seat])
        if self.round_no <= 2:
            return [Meld(list(p)) for p in combinations(hand, 2) if self.fits(seat, list(p))]
        shows = [Meld([c]) for c in sorted(hand + self.reserved[seat]) if self.fits(seat, [c])]
        return shows + self.new_groups(seat, hand)

    def new_groups(self, seat: int, hand: list[str]) -> list[Meld]:
        """New-group shows: X unrelated to the face-up cards with each related card of the hand reserved, and with
        all of them (any non-empty subset is legal)."""
        if not self.can_start_group(seat):
            return []
        out = []
        for x in hand:
            if touches(x, self.up[seat]):
                continue
            kin = [c for c in hand if c != x and related(c, x)]
            out += [Meld([x, r], kind=NEW_GROUP) for r in kin]
            if len(kin) > 1:
                out.append(Meld([x, *kin], kind=NEW_GROUP))
        return out

    def check_show(self, seat: int, meld: Meld) -> tuple[list[str], list[str]]:
        cards = meld.cards
        if meld.kind not in (None, NEW_GROUP):
            raise IllegalAction("show.kind", f"a show has no kind, or kind {NEW_GROUP!r}; not {meld.kind!r}")
        if len(set(cards)) != len(cards):
            raise IllegalAction("show.duplicate", "a show names each card once")
        held = self.hands[seat] + ([] if meld.kind else self.reserved[seat])
        missing = [c for c in cards if c not in held]
        if missing:
            where = "hand" if meld.kind else "hand or reserved cards"
            raise IllegalAction("hand.missing-card", f"{missing[0]} is not in your {where}")
        if meld.kind == NEW_GROUP:
            return self.check_new_group(seat, cards)
        if len(cards) != self.need():
            raise IllegalAction("show.count", f"round {self.round_no} turns up {self.need()} card(s), not {len(cards)}")
        if not self.fits(seat, cards):
            raise IllegalAction("show.unrelated", self.unrelated_why(cards))
        return list(cards), []

    def unrelated_why(self, cards: list[str]) -> str:
        """The message for a show that does not meet the requirement."""
        if self.round_no == 1:
            ace = " (an ace relates only to its king and to other aces)" if "A" in {c[0] for c in cards} else ""
            return f"{' and '.join(cards)} are not related{ace}"
        if self.round_no == 2:
            return f"{' and '.join(cards)} are neither related to each other nor each to one of your face-up cards"
        return f"{cards[0]} is not related to any of your face-up cards"

    def check_new_group(self, seat: int, cards: list[str]) -> tuple[list[str], list[str]]:
        """X turned up, unrelated to the face-up cards; one or more cards related to X reserved (Ambiguity 6)."""
        if not self.can_start_group(seat):
            raise IllegalAction("new-group.too-early", "a new group needs round 3 or later and 4 face-up cards")
        x, kept = cards[0], cards[1:]
        if not kept:
            raise IllegalAction("new-group.reserve", "a new group reserves at least one card related to it")
        if touches(x, self.up[seat]):
            raise IllegalAction("new-group.related", f"{x} is related to your face-up cards: show it as one card")
        stray = [c for c in kept if not related(c, x)]
        if stray:
            raise IllegalAction("new-group.unrelated", f"{stray[0]} is not related to {x}")
        return [x], list(kept)

    # --- scores ----------------------------------------------------------------------------------------------
    def refill(self, round_no: int) -> int:
        return {1: 3, 2: 1}.get(round_no, 0)  # Turn structure: after round 1, 3 cards; after round 2, 1

    def lay_down(self, seat: int) -> list[str]:
        """Every hand and reserved card related to a face-up card, in a chain (Special rules)."""
        laid = chain(self.up[seat], self.hands[seat] + self.reserved[seat])
        for card in laid:
            (self.hands[seat] if card in self.hands[seat] else self.reserved[seat]).remove(card)
        self.up[seat] += laid
        return laid

    def winner_score(self, seat: int) -> int:
        """Face-up cards x m (1, 2 or 4 by unused auxiliary cards) + P x B (Scoring; Ambiguity 8)."""
        return len(self.up[seat]) * 2 ** len(self.aux[seat]) + self.n * self.bonus

    def match_ended(self) -> bool:
        top = max(self.totals)
        if super().match_ended():
            return True
        return top >= self.opts["target"] and self.totals.count(top) == 1  # End of the match; Ambiguity 13

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """A hand's groups of related cards (the cards it could turn up) and its cards related to no other."""
        found = groups(hand)
        melds = [g for g in found if len(g) > 1]
        lone = sorted(c for g in found if len(g) == 1 for c in g)
        return {"melds": melds, "deadwood": lone, "points": sum(map(len, melds)), "deadwood_points": len(lone)}
