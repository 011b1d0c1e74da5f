"""Hungarian Rummy (Vengrų romis): rules/hungarian.md. Ten cards, nothing melded during play: a player wins the deal
by declaring all ten at once in combinations, sets only of three or four cards, and a kvartetas or two same-rank
tercijas showing all four suits. The winner writes −10, the others their hands; out at 101, the last one left wins.

The deck, combinations and card values are also carpathian's (rules/carpathian.md), which imports them from here."""

from collections import Counter
from itertools import permutations, product
from typing import Any

from protocol.cards import SUITS
from protocol.messages import Draw
from referee.rules.allatonce import AllAtOnce
from referee.rules.cards import deck, rank, suit
from referee.rules.describe import Field, Phase
from referee.rules.errors import IllegalAction
from referee.rules.melds import MeldRules, TableMeld
from referee.rules.solver import Split, Value, best_split, candidate_melds

# Valid combinations: tercija and kvartetas (distinct suits), sequences with the ace low or high, jokers wild
HUNGARIAN_MELDS = MeldRules(set_max=4)
WIN_BONUS = 10  # Scoring: the winner's 10, written as a minus
LIMIT = 101  # End of the match: 101 or more eliminates (Ambiguity 7)


def hungarian_deck() -> list[str]:
    """Players, deck and deal: two packs and two jokers, 106 cards."""
    return deck(packs=2, jokers=2)


def card_value(card: str) -> int:
    """Scoring: joker 15, ace 11, K, Q, J 10, 2-10 face value."""
    return 15 if card == "JK" else 11 if rank(card) == 1 else min(rank(card), 10)


def short_groups(melds: list[TableMeld]) -> list[str]:
    """The ranks whose sets among `melds` are two or more without all four suits between them (Valid
    combinations; Ambiguity 11), judged on what each card stands for."""
    suits: dict[str, set[str]] = {}
    count: Counter[str] = Counter()
    for m in melds:
        if m.kind == "set" and m.ids:
            r = m.ids[0][0]
            count[r] += 1
            suits.setdefault(r, set()).update(suit(x) for x in m.ids)
    return [r for r in count if count[r] > 1 and len(suits[r]) < 4]


def check_groups(melds: list[TableMeld]) -> None:
    """Raise IllegalAction unless every group of same-rank sets in `melds` shows all four suits."""
    short = short_groups(melds)
    if short:
        raise IllegalAction(
            "set.four-suits",
            f"two or more sets of rank {short[0]} must show all four suits between them (state the jokers' suits)",
        )


def _suit_choices(meld: TableMeld) -> list[TableMeld]:
    """`meld` with every choice of suits its wild cards may state (a set's missing suits; a run as it is)."""
    wild = meld.wild_positions()
    if meld.kind != "set" or not wild:
        return [meld]
    natural = {suit(x) for i, x in enumerate(meld.ids) if i not in wild}
    free = [s for s in SUITS if s not in natural]
    out = []
    for picked in permutations(free, len(wild)):
        ids = list(meld.ids)
        for i, s in zip(wild, picked):
            ids[i] = ids[i][0] + s
        out.append(TableMeld(meld.kind, meld.cards, tuple(ids), meld.owner))
    return out


def regroup(melds: list[TableMeld]) -> list[TableMeld] | None:
    """`melds` with their jokers' suits chosen so that every same-rank group shows all four suits; None if no
    choice does (Ambiguity 4: the holder states the suit)."""
    if not short_groups(melds):
        return melds
    for choice in product(*(_suit_choices(m) for m in melds)):
        if not short_groups(list(choice)):
            return list(choice)
    return None


def arrange(cards: list[str], rules: MeldRules, value: Value) -> Split:
    """The least-deadwood split of `cards` into combinations whose same-rank sets show all four suits."""
    split = best_split(cards, rules, value)
    fixed = regroup(split.melds)
    if fixed is not None:
        return Split(fixed, split.deadwood, split.points)
    candidates = candidate_melds(cards, rules)
    best: list[Split] = []

    def search(left: Counter[str], chosen: list[TableMeld], dead: list[str], points: int) -> None:
        if best and points > best[0].points:
            return
        if not left:
            grouped = regroup(chosen)
            if grouped is not None and (not best or (points, len(dead)) < (best[0].points, len(best[0].deadwood))):
                best[:] = [Split(grouped, sorted(dead), points)]
            return
        low = min(left, key=lambda c: (c == "JK", rank(c) if c != "JK" else 0, c))
        for m in candidates:
            need = Counter(m.cards)
            if low in need and not need - left:
                search(left - need, [*chosen, m], dead, points)
        search(left - Counter([low]), chosen, [*dead, low], points + value(low))

    search(Counter(cards), [], [], 0)
    return best[0]


class Hungarian(AllAtOnce):
    """Vengrų romis: 106 cards, 10 each dealt in twos, Pirmasis opens with an 11th card; a declaration shows all 10
    cards in combinations; the winner −10, the others their hand; eliminated at 101, the last one left wins."""

    slug = "hungarian"
    name = "Hungarian Rummy"
    local_name = "Vengrų romis"
    min_players, max_players = 2, 6
    hand_size = 10
    packet = 2  # Players, deck and deal: two cards at a time
    meld_rules = HUNGARIAN_MELDS
    elimination_limit = LIMIT
    starter = False  # no starter card: Pirmasis's opening discard begins the pile
    first_opens = True
    immediate_rummy = False  # Ambiguity 5: every declaration follows a draw (Pirmasis's opening turn has none)
    interruption = False  # End of a deal: the classic turn-over of the discard pile
    rebuild_stock = True
    rummy_discards = True  # Ambiguity 2: discard one card and show exactly 10
    PHASES = {
        ("turn", "draw"): Phase("the start of your turn: draw one card (stock or top discard)", ("draw",)),
        ("turn", "play"): Phase(
            "after the draw (Pirmasis's opening turn has none): discard; or declare: meld all 10 other cards in "
            "combinations (tercija, kvartetas, sequence; same-rank sets showing all four suits), then discard the 11th",
            ("discard",),
        ),
    }
    CONSTRAINTS = {"immediate_rummy": Field("bool", "always false: a declaration follows the draw (or opens the deal)")}
    CARD_VALUES = {
        "penalty": Field(
            "int", "what each card in your hand costs when another player declares (hands are not arranged)"
        )
    }

    def make_deck(self) -> list[str]:
        return hungarian_deck()

    def penalty(self, card: str) -> int:
        return card_value(card)

    def split(self, cards: list[str]) -> Split:
        """The best arrangement, its same-rank sets showing all four suits (Valid combinations)."""
        return arrange(cards, self.meld_rules, self.penalty)

    # --- plays ---------------------------------------------------------------------------------------------
    def draw(self, seat: int, op: Draw) -> None:
        if self.phase == "play" and self.turns == 0:
            raise IllegalAction("draw.first-opens", "Pirmasis opens the deal with a discard, without drawing")
        super().draw(seat, op)

    def end_play(self, seat: int, was_opened: bool) -> None:
        """A declaration's same-rank sets show all four suits between them (Valid combinations; Ambiguity 11)."""
        if self.placed_now and not self.hands[seat]:
            check_groups([m for m in self.table if m.owner == seat])
        super().end_play(seat, was_opened)

    # --- scoring ---------------------------------------------------------------------------------------------
    def settle(self, kind: str, winner: int | None) -> None:
        """Scoring: the winner −10, everyone else the value of his whole hand (Ambiguity 12: no doublings); a
        stalemate: every player his hand."""
        scores: list[float] = [sum(map(self.penalty, h)) for h in self.hands]
        if winner is not None:
            scores[winner] = -WIN_BONUS
        self.finish_deal(scores, winner, hands=[sorted(h) for h in self.hands], finish={"kind": kind})

    @classmethod
    def evaluate(cls, hand: list[str]) -> dict[str, Any]:
        """A hand's best combinations, and for 10 cards whether they make a declaration; `points` is what the hand
        costs after another player's declaration (every card counts)."""
        game = cls.hooks_only()
        split = game.split(hand)
        declares = len(hand) == cls.hand_size and not split.deadwood
        points = sum(map(card_value, hand))
        verdict = f"declares: scores -{WIN_BONUS}" if declares else f"no declaration: pays {points}"
        return {
            "melds": [list(m.cards) for m in split.melds],
            "identities": [list(m.ids) for m in split.melds],
            "kinds": [m.kind for m in split.melds],
            "deadwood": list(split.deadwood),
            "deadwood_points": split.points,
            "points": points,
            "declares": declares,
            "verdict": verdict if len(hand) == cls.hand_size else f"not a 10-card hand: pays {points}",
        }
