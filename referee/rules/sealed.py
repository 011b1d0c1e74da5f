"""Sealed simultaneous decisions: several seats are asked at once, and no answer is seen before all are in.

A `Sealed` round names the seats asked and collects their answers. It is immutable (each answer makes a new
round), so a rejected play that is rolled back by the engine's snapshot leaves the answers as they were. The
engine's `to_act()` returns `round.waiting()`; the match loop asks those seats at once, each on its own clock,
and applies their plays in seat order; the variant resolves the round once `complete`. Used by the out-of-turn
claims of may-i, contract and liverpool (referee/rules/claims.py) and by elimination's rounds and auxiliary steps
(referee/rules/rounds.py); planned for orija's bids and shows.
"""

from dataclasses import dataclass, replace

from protocol.messages import Op


@dataclass(frozen=True)
class Sealed:
    """One round of sealed answers: who is asked (in the order the variant resolves them) and what each said."""

    kind: str
    phase: str
    seats: tuple[int, ...]
    answers: tuple[tuple[int, tuple[Op, ...]], ...] = ()

    def waiting(self) -> list[int]:
        """The seats still to answer, in seat order."""
        done = {s for s, _ in self.answers}
        return sorted(s for s in self.seats if s not in done)

    def add(self, seat: int, ops: list[Op]) -> "Sealed":
        """The round with `seat`'s answer stored."""
        return replace(self, answers=(*self.answers, (seat, tuple(ops))))

    @property
    def complete(self) -> bool:
        """Whether every seat asked has answered."""
        return not self.waiting()

    def answer(self, seat: int) -> list[Op]:
        """What `seat` answered."""
        return next(list(ops) for s, ops in self.answers if s == seat)
