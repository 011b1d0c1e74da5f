"""Moving cards that are already on the table, for the draw-meld-discard family: robbing other players' melds
(`take`) and rearranging one's own melds into new ones (`rearrange`).

`TableMoves` is a mixin placed before the variant's base (`class Krambambulis(TableMoves, Classic)`); it derives
from `DrawMeldDiscard`, whose state and hooks it extends, so it fits under any engine of that family. A variant
switches each move on with a class attribute and narrows it with the hooks `check_rob` / `check_rearrange`.
Melds keep their indices: a meld that loses every card stays as an empty placeholder (`melds.emptied`).
"""

from collections import Counter

from protocol.messages import Decision, Exchange, LayOff, Meld, Op, Rearrange, Take
from referee.rules.describe import Field
from referee.rules.dmd import DrawMeldDiscard
from referee.rules.errors import IllegalAction
from referee.rules.melds import TableMeld, emptied, new_meld, validate, without


def each_gets_one(groups: list[list[str]], supply: Counter[str]) -> bool:
    """Whether every group can be given its own card of `supply` that it holds (identical copies are
    interchangeable, so this is a matching of groups to the copies in `supply`)."""
    holder: dict[tuple[str, int], int] = {}  # (code, copy) -> group

    def place(g: int, seen: set[tuple[str, int]]) -> bool:
        for slot in ((c, k) for c in sorted(set(groups[g])) for k in range(supply[c])):
            if slot not in seen:
                seen.add(slot)
                if slot not in holder or place(holder[slot], seen):
                    holder[slot] = g
                    return True
        return False

    return all(place(g, set()) for g in range(len(groups)))


class TableMoves(DrawMeldDiscard):
    """Mixin: the `take` (rob) and `rearrange` operations, checked per operation and for the play as a whole."""

    robbing = False  # `take` from other players' melds is an operation of the variant
    rearranging = False  # `rearrange` of one's own melds is an operation of the variant
    rearrange_hand_card = True  # each new meld of a rearrangement needs a card from the hand (rules/krambambulis.md
    #                             §2); without it a meld may also be split into parts (rules/panguingue.md)
    rearrange_regroup = False  # `rearrange` regroups the melds named as a whole: `into` holds every card of them,
    #                            plus cards from hand, in any valid melds (cards move between own melds, and melds
    #                            may also gain cards or merge: rules/conquian.md, Special rules)
    short_remainder_to_owner = False  # a robbed meld left below the minimum goes back to its owner's hand
    #                                   (rules/robbers.md §4c) instead of making the rob illegal
    CONSTRAINTS: dict[str, Field | None] = {
        "rearrange": Field(
            "bool", "whether you may rearrange your own melds now (op rearrange; once opened)", requires="rearranging"
        )
    }

    def check_rob(self, seat: int) -> None:
        """Hook: raise IllegalAction if `seat` may not rob now; by default it may."""

    def check_rearrange(self, seat: int) -> None:
        """Hook: raise IllegalAction if `seat` may not rearrange now; by default only once opened."""
        if not self.opened[seat]:
            raise IllegalAction("rearrange.not-opened", "only an opened player may rearrange his melds")

    def decision(self, seat: int) -> Decision:
        d = super().decision(seat)
        if self.rearranging:
            d.constraints["rearrange"] = self.opened[seat]
        return d

    # --- per-play bookkeeping -------------------------------------------------------------
    def _apply(self, seat: int, ops: list[Op]) -> None:
        self.robbed: list[str] = []  # cards robbed in this play: each must end in a new meld of it
        self.play_new: list[int] = []  # the melds the seat made in this play
        self.play_placed: Counter[str] = Counter()  # the cards the seat put on the table from his hand in this play
        super()._apply(seat, ops)

    def after_table_op(self, seat: int, op: Meld | LayOff | Exchange) -> None:
        if isinstance(op, Meld):
            self.play_new.append(len(self.table) - 1)
        self.play_placed.update([op.card] if isinstance(op, Exchange) else op.cards)
        super().after_table_op(seat, op)

    def do(self, seat: int, op: Op) -> None:
        if not isinstance(op, (Take, Rearrange)):
            return super().do(seat, op)
        if not (self.robbing if isinstance(op, Take) else self.rearranging):
            raise IllegalAction("op.unsupported", f"{type(op).__name__.lower()} is not an operation of {self.slug}")
        if self.phase == "draw" and not self.predraw_plays:
            raise IllegalAction("play.before-draw", "draw before you meld or lay off")
        if isinstance(op, Take):
            self.rob(seat, op)
        elif self.rearrange_regroup:
            self.regroup(seat, op)
        else:
            self.rearrange(seat, op)
        self.placed_now = True

    def end_play(self, seat: int, was_opened: bool) -> None:
        if self.robbed:
            self.check_robbed()
        super().end_play(seat, was_opened)

    def live_meld(self, index: int, move: str) -> TableMeld:
        """The table meld `index`, which must exist and hold cards."""
        if not 0 <= index < len(self.table) or not self.table[index].cards:
            raise IllegalAction(f"{move}.no-such-meld", f"there is no meld {index} on the table")
        return self.table[index]

    # --- robbing (rules/robbers.md §4; rules/carousel.md §2) ----------------------------------
    def rob(self, seat: int, op: Take) -> None:
        """Take cards out of another player's meld into the hand; they must go into new melds of this play."""
        self.check_rob(seat)
        meld = self.live_meld(op.meld, "rob")
        if meld.owner == seat:
            raise IllegalAction("rob.own-meld", "only other players' melds may be robbed")
        if not op.cards:
            raise IllegalAction("rob.empty", "name the cards to take")
        try:
            left, out = without(meld, op.cards, self.meld_rules)
        except IllegalAction as e:
            raise IllegalAction("rob.missing-card", str(e)) from None
        back: list[str] = []
        if len(left.cards) < self.meld_rules.min_size and self.short_remainder_to_owner:
            back, left = list(left.cards), emptied(meld)
            self.hands[meld.owner] += back
        else:
            try:
                validate(left, self.meld_rules)
            except IllegalAction as e:
                raise IllegalAction(
                    "rob.remainder",
                    f"what is left of meld {op.meld} ({' '.join(left.ids)}) must still be one valid meld ({e.rule})",
                ) from None
        self.table[op.meld] = left
        cards = [c for c, _ in out]
        self.hands[seat] += cards
        self.robbed += cards
        self.emit({"type": "take", "seat": seat, "meld": op.meld, "cards": cards, "returned": back})

    def check_robbed(self) -> None:
        """Every robbed card is in a new meld of this play, and each new meld holds a card from the hand."""
        melds = [list(self.table[k].cards) for k in self.play_new]
        have = Counter(c for m in melds for c in m)
        missing = Counter(self.robbed) - have
        if missing:
            raise IllegalAction(
                "rob.unplaced",
                f"robbed cards must go into new melds of the same play: {' '.join(sorted(missing.elements()))} did not",
            )
        if not each_gets_one(melds, have - Counter(self.robbed)):
            raise IllegalAction("rob.hand-card", "each new meld holding robbed cards needs a card from your hand")

    # --- rearranging own melds (rules/krambambulis.md §2) -----------------------------------
    def rearrange(self, seat: int, op: Rearrange) -> None:
        """`into` holds what each meld of `melds` becomes (some of its cards, keeping their identities), then
        the new melds made of the cards taken out plus at least one card from the hand each."""
        self.check_rearrange(seat)
        if len(set(op.melds)) != len(op.melds) or len(op.into) <= len(op.melds):
            raise IllegalAction("rearrange.shape", "name each meld once, give what each becomes, then the new melds")
        sources = [self.live_meld(k, "rearrange") for k in op.melds]
        if any(m.owner != seat for m in sources):
            raise IllegalAction("rearrange.not-own", "only your own melds may be rearranged")
        kept: list[TableMeld] = []
        removed: Counter[str] = Counter()
        for k, src, m in zip(op.melds, sources, op.into):
            if Counter(m.cards) - Counter(src.cards):
                raise IllegalAction("rearrange.not-subset", f"meld {k} may only lose cards in a rearrangement")
            left, out = without(
                src, list((Counter(src.cards) - Counter(m.cards)).elements()), self.meld_rules, m.identities
            )
            try:
                validate(left, self.meld_rules)
            except IllegalAction as e:
                raise IllegalAction(
                    "rearrange.remainder",
                    f"meld {k} must keep at least {self.meld_rules.min_size} cards forming one valid meld ({e.rule})",
                ) from None
            kept.append(left)
            removed += Counter(c for c, _ in out)
        new = [self.rearranged_meld(seat, m) for m in op.into[len(op.melds) :]]
        used = Counter(c for m in new for c in m.cards)
        if removed - used:
            raise IllegalAction("rearrange.unused", "every card taken out must go into one of the new melds")
        from_hand = used - removed
        self.take_from_hand(seat, list(from_hand.elements()))
        if self.rearrange_hand_card and not each_gets_one([list(m.cards) for m in new], from_hand):
            raise IllegalAction("rearrange.hand-card", "each new meld needs at least one card from your hand")
        self.lay_rearranged(seat, op.melds, kept, new, from_hand, kept + new)

    def regroup(self, seat: int, op: Rearrange) -> None:
        """With `rearrange_regroup`: the melds named are replaced by `into`, which must hold every card of them
        plus any cards from the hand, each a valid meld. `into[i]` takes the place of `melds[i]`; further melds
        are new, and a meld named with no meld of `into` left for it stays as an empty placeholder."""
        self.check_rearrange(seat)
        if not op.melds or not op.into or len(set(op.melds)) != len(op.melds):
            raise IllegalAction("rearrange.shape", "name each of your melds once and give the melds they become")
        sources = [self.live_meld(k, "rearrange") for k in op.melds]
        if any(m.owner != seat for m in sources):
            raise IllegalAction("rearrange.not-own", "only your own melds may be rearranged")
        new = [self.rearranged_meld(seat, m) for m in op.into]
        used, held = Counter(c for m in new for c in m.cards), Counter(c for m in sources for c in m.cards)
        if held - used:
            missing = " ".join(sorted((held - used).elements()))
            raise IllegalAction("rearrange.unused", f"every card of the melds named must stay in a meld: {missing}")
        from_hand = used - held
        self.take_from_hand(seat, list(from_hand.elements()))
        replaced = [new[i] if i < len(new) else emptied(src) for i, src in enumerate(sources)]
        self.lay_rearranged(seat, op.melds, replaced, new[len(op.melds) :], from_hand, new)

    def lay_rearranged(
        self,
        seat: int,
        named: list[int],
        replaced: list[TableMeld],
        added: list[TableMeld],
        from_hand: Counter[str],
        shown: list[TableMeld],
    ) -> None:
        """Put a rearrangement on the table: the melds `named` become `replaced`, `added` are new melds, and one
        public `rearrange` event gives the identities of the melds `shown`."""
        for k, meld in zip(named, replaced):
            self.table[k] = meld
        first = len(self.table)
        self.table += added
        self.play_new += range(first, len(self.table))
        self.play_placed += from_hand
        self.emit(
            {
                "type": "rearrange",
                "seat": seat,
                "melds": list(named),
                "new": list(range(first, len(self.table))),
                "from_hand": sorted(from_hand.elements()),
                "identities": [list(m.ids) for m in shown],
            }
        )

    def rearranged_meld(self, seat: int, m: Meld) -> TableMeld:
        """One new meld of a rearrangement, validated."""
        try:
            return new_meld(m.cards, self.meld_rules, seat, m.identities, m.kind)
        except IllegalAction as e:
            raise IllegalAction(
                "rearrange.invalid", f"{' '.join(m.cards)} is not a valid new meld ({e.rule})"
            ) from None
