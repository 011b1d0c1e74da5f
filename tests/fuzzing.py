"""The project's fuzzer, shared by the fast tests (tests/test_fuzz.py) and `make fuzz` (tests/fuzz_main.py).

Two kinds of target:
- the decoder (`decode_reply`, `decode_from_bot`): hostile byte lines; whatever the bytes, a line decodes to a
  reply or is a recorded fault (`BotFault`);
- the action validator of every registered variant: random plays built from the op grammar, against random
  positions reached by seeded games of the sample bots. Every play is applied or rejected with an
  `IllegalAction` naming a rule (`area.name`); a rejected play leaves the state exactly as it was, and an
  applied one keeps the cards conserved.

A case is fully determined by its `Case` (target, players, game seed, steps into the game, play seed), so a
failure prints the case and `python tests/fuzz_main.py --replay CASE` runs it again.
"""

import pickle
import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from protocol import messages as m
from protocol.cards import JOKER, RANKS, SUITS
from referee.rules.engine import Game, derive_seed
from referee.rules.errors import ConfigError, IllegalAction
from referee.rules.solver import candidate_melds
from referee.rules.variants import VARIANTS
from sample_bots.brain import Brain

CODES = [r + s for r in RANKS for s in SUITS] + [JOKER]
# cards a bot might write: other spellings the protocol accepts, and junk it must reject
ODD_CARDS = ["7h", "10D", "10d", "jk", "Jk", "1S", "11H", "ZZ", "", " 7H", "7H ", "7", "ſ7", "JOKER", "X" * 300]
ODD_IDS = [-1, -(2**63), 2**63 - 1, 10**6]
RULE_ID = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)+$")
BIG_PLAY = 10_000  # the length of the longest plays the validator is sent


class FuzzFailure(AssertionError):
    """A case broke a property; the message names the case so it can be replayed."""


@dataclass(frozen=True)
class Case:
    """One validator case: the position after `step` plays of game (`slug`, `players`, `game_seed`), and the
    random play made from `play_seed` there."""

    slug: str
    players: int
    game_seed: int
    step: int
    play_seed: int

    def __str__(self) -> str:
        return f"{self.slug}:{self.players}:{self.game_seed}:{self.step}:{self.play_seed}"

    @classmethod
    def parse(cls, text: str) -> "Case":
        """The case printed by `str(case)`."""
        slug, *numbers = text.split(":")
        players, game_seed, step, play_seed = map(int, numbers)
        return cls(slug, players, game_seed, step, play_seed)


@dataclass
class Stats:
    """What a run did: cases, plays applied, plays rejected by rule, and the failures (with their cases)."""

    cases: int = 0
    applied: int = 0
    rejected: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def add(self, other: "Stats") -> None:
        """Merge `other` into this."""
        self.cases += other.cases
        self.applied += other.applied
        self.rejected.update(other.rejected)
        self.failures += other.failures


# --- positions ------------------------------------------------------------------------------------------
class Walker:
    """Plays one seeded game with the sample bots, one play per `advance()`; deterministic in the seed."""

    def __init__(self, slug: str, players: int, seed: int):
        self.game: Game = VARIANTS[slug](players, {"max_deals": 3, "max_turns_per_deal": 300}, seed)
        self.rng = random.Random(seed)
        try:
            self.brains: list[Brain] | None = [
                Brain(slug, players, self.game.opts, greedy=bool(s % 2), seed=seed * 10 + s) for s in range(players)
            ]
        except ConfigError:  # a variant the sample bots cannot plan for: random options and the fallback
            self.brains = None
        self.step = 0

    def advance(self) -> bool:
        """Make the next play of the game; False once it is over."""
        game = self.game
        if game.is_over():
            return False
        seat = game.to_act()[0]
        decision = game.decision(seat)
        if self.brains is not None:
            ops = self.brains[seat].choose(decision, game.view(seat))
        else:
            ops = [self.rng.choice(decision.options)] if decision.options else game.fallback(seat)
        game.apply(seat, ops)
        self.step += 1
        return True


def position(slug: str, players: int, game_seed: int, step: int) -> Game:
    """The game after `step` plays (or at its end, if it is shorter)."""
    walker = Walker(slug, players, game_seed)
    while walker.step < step and walker.advance():
        pass
    return walker.game


# --- plays from the op grammar --------------------------------------------------------------------------
class PlayMaker:
    """Random plays for `seat` in `game`, with cards from the seat's hand, the table, the pile and anywhere."""

    def __init__(self, rng: random.Random, game: Game, seat: int):
        self.rng = rng
        self.game = game
        self.view = game.view(seat) if 0 <= seat < game.n else {}
        self.hand: list[str] = list(self.view.get("hand", []))
        self.table: list[dict] = list(self.view.get("table", []))
        self.pile: list[str] = list(self.view.get("discard", []))
        self.decision = game.decision(seat) if seat in game.to_act() else None
        self._melds: list | None = None

    def play(self) -> list[m.Op]:
        """One play: a turn-shaped one (often legal), a short random one, or now and then a very long one."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.01:  # long plays repeat a few random ops: what matters is their number
            few = [self.op() for _ in range(20)]
            return [rng.choice(few) for _ in range(rng.choice([0, 50, 500, BIG_PLAY]))]
        if roll < 0.5:
            return self.turn()
        ops = [self.op() for _ in range(rng.choice([1, 1, 1, 2, 2, 3, 4, 6]))]
        options = self.decision.options if self.decision else None
        if options and roll < 0.75:  # a legal first step takes the validator past the draw
            ops.insert(0, rng.choice(options))
        return ops

    def turn(self) -> list[m.Op]:
        """A play shaped like a turn (a legal option or a draw, melds of the hand, lay-offs, a discard), with
        now and then one op replaced by a random one: the validator's accepting paths need these."""
        rng = self.rng
        options = self.decision.options if self.decision else None
        ops: list[m.Op] = []
        if options and (self.decision is None or self.decision.phase != "play" or rng.random() < 0.3):
            ops.append(rng.choice(options))
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            ops.append(rng.choice([self.meld, self.meld, self.layoff])())
        if rng.random() < 0.6 and self.hand:
            ops.append(m.Discard(rng.choice(self.hand)))
        if ops and rng.random() < 0.3:
            ops[rng.randrange(len(ops))] = self.op()
        return ops or [self.op()]

    def op(self) -> m.Op:
        """One random op of any kind."""
        maker = self.rng.choice(
            [self.draw, self.meld, self.meld, self.layoff, self.layoff, self.take, self.rearrange, self.exchange]
            + [self.discard, self.discard, self.knock, self.pass_, self.claim, self.bid]
        )
        return maker()

    def card(self) -> str:
        """A card from the hand (mostly), the table, the pile, any code, or junk."""
        rng, roll = self.rng, self.rng.random()
        table_cards = [c for meld in self.table for c in meld["cards"]]
        for pool, upto in ((self.hand, 0.55), (table_cards, 0.65), (self.pile, 0.75), (CODES, 0.95)):
            if roll < upto and pool:
                return rng.choice(pool)
        return rng.choice(ODD_CARDS)

    def cards(self, most: int = 5) -> list[str]:
        """A few cards; sometimes none, sometimes a whole plausible meld from the hand."""
        if self.rng.random() < 0.3 and self.hand:
            meld = self.plausible()
            if meld:
                return list(meld[0])
        return [self.card() for _ in range(self.rng.randint(0, most))]

    def plausible(self) -> tuple[list[str], list[str]] | None:
        """A meld the hand can make (cards, identities), if any; the validator's accepting paths need these."""
        if self._melds is None:
            rules_for = getattr(self.game, "meld_rules_for", None)
            self._melds = candidate_melds(self.hand, rules_for(self.view)) if rules_for and self.hand else []
        if not self._melds:
            return None
        meld = self.rng.choice(self._melds)
        return list(meld.cards), list(meld.ids)

    def identities(self, cards: list[str]) -> list[str] | None:
        """Declared wild identities: none, the right number, or a wrong number."""
        roll = self.rng.random()
        if roll < 0.6:
            return None
        count = sum(1 for c in cards if c == JOKER or c.startswith("2")) if roll < 0.85 else self.rng.randint(0, 4)
        return [self.rng.choice(CODES + ODD_CARDS[:4]) for _ in range(count)]

    def meld_id(self) -> int:
        """A meld id: mostly on the table, else just past it or far out of range."""
        if self.table and self.rng.random() < 0.8:
            return self.rng.randrange(len(self.table))
        return self.rng.choice([len(self.table), *ODD_IDS])

    def count(self) -> int:
        """A pile number or a depth: small, the pile's size, or out of range."""
        return self.rng.choice([0, 1, 1, 1, 2, 3, len(self.pile), len(self.pile) + 1, *ODD_IDS])

    def draw(self) -> m.Op:
        """`draw` from either source, any pile, any depth."""
        return m.Draw(self.rng.choice(["stock", "discard"]), self.rng.choice([0, 0, 0, 1, 2, -1]), self.count())

    def meld(self) -> m.Op:
        """`meld`: a plausible one from the hand with its identities, or random cards."""
        found = self.plausible() if self.rng.random() < 0.5 else None
        if found:
            cards, ids = found
            wild = [i for c, i in zip(cards, ids) if c != i]
            return m.Meld(cards, wild or self.identities(cards), self.rng.choice([None, None, "set", "run"]))
        cards = self.cards()
        return m.Meld(cards, self.identities(cards), self.rng.choice([None, None, "set", "run", "odd", ""]))

    def layoff(self) -> m.Op:
        """`layoff` of hand cards (mostly) on a meld, at either end or none."""
        cards = [self.card() for _ in range(self.rng.choice([0, 1, 1, 1, 2, 3]))]
        ends: list[Literal["low", "high"] | None] = [None, None, "low", "high"]
        return m.LayOff(self.meld_id(), cards, self.identities(cards), self.rng.choice(ends))

    def take(self) -> m.Op:
        """`take` cards (mostly the meld's own) from a table meld."""
        meld = self.meld_id()
        own = self.table[meld]["cards"] if 0 <= meld < len(self.table) else []
        picks = self.rng.sample(own, self.rng.randint(1, len(own))) if own and self.rng.random() < 0.7 else []
        return m.Take(meld, picks or self.cards(2))

    def rearrange(self) -> m.Op:
        """`rearrange` some melds into new ones (plausible or random)."""
        melds = [self.meld_id() for _ in range(self.rng.choice([0, 1, 1, 2, 3]))]
        into = [self.meld() for _ in range(self.rng.choice([0, 1, 2, 3]))]
        return m.Rearrange(melds, [op for op in into if isinstance(op, m.Meld)])

    def exchange(self) -> m.Op:
        """`exchange` a card for a wild card on a meld."""
        return m.Exchange(self.meld_id(), self.card())

    def discard(self) -> m.Op:
        """`discard` a card on some pile."""
        return m.Discard(self.card(), self.rng.choice([0, 0, 0, 0, 1, -1, 2**63 - 1]))

    def knock(self) -> m.Op:
        """`knock`, with or without a discard."""
        return m.Knock(self.rng.choice([None, self.card(), self.card()]))

    def pass_(self) -> m.Op:
        """`pass`."""
        return m.Pass()

    def claim(self) -> m.Op:
        """`claim` at some depth."""
        return m.Claim(self.count())

    def bid(self) -> m.Op:
        """`bid` a number or a name."""
        values: list[int | str] = [0, 1, 25, -5, 2**63 - 1, "buyback", "", "pass"]
        return m.Bid(self.rng.choice(values))


def clone(game: Game) -> Game:
    """An independent copy of `game` (a pickle round trip: several times faster than deepcopy)."""
    return pickle.loads(pickle.dumps(game, pickle.HIGHEST_PROTOCOL))


# --- the validator's properties ---------------------------------------------------------------------------
def fingerprint(game: Game) -> tuple:
    """Everything a user of the engine can see: every seat's view and events, who acts and what is asked."""
    seats = game.to_act()
    views = [game.view(s) for s in range(game.n)]
    events = [game.events_since(s, 0)[0] for s in range(game.n)]
    return seats, views, events, [game.decision(s) for s in seats], game.is_over(), game.result()


def check_play(work: Game, pristine: Game, before: tuple, seat: int, ops: list[m.Op], case: Case, stats: Stats) -> bool:
    """Apply `ops` for `seat` to `work` (a copy of `pristine`, whose `fingerprint` is `before`) and check the
    properties; True if the play was applied (`work` moved on). A broken property raises FuzzFailure."""
    try:
        work.apply(seat, ops)
    except IllegalAction as e:
        if not RULE_ID.match(e.rule or ""):
            raise FuzzFailure(f"{case}: rejected with a rule id that is not area.name: {e.rule!r}") from None
        # what a user sees, then the whole state: a change hidden from the views would surface later
        if fingerprint(work) != before or work.__dict__ != pristine.__dict__:
            old, new = pristine.__dict__, work.__dict__
            changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
            raise FuzzFailure(f"{case}: the rejected play ({e.rule}) changed the state: {changed}") from None
        stats.rejected[e.rule] += 1
        return False
    except Exception as e:
        raise FuzzFailure(f"{case}: {type(e).__name__} escaped the validator: {e!r}"[:500]) from e
    stats.applied += 1
    cards = Counter(pristine.cards_in_play()) if hasattr(pristine, "cards_in_play") else None
    check_applied(work, cards, pristine.deal_no, case)
    return True


def check_applied(game: Game, cards: Counter | None, deal: int, case: Case) -> None:
    """An applied play keeps the conformance invariants: cards conserved within a deal; someone acts."""
    try:
        if not game.is_over():
            count = getattr(game, "cards_in_play", None)  # every family has it; a new one might not yet
            if cards is not None and count is not None and game.deal_no == deal and Counter(count()) != cards:
                raise FuzzFailure(f"{case}: an applied play did not conserve the cards")
            if not game.to_act():
                raise FuzzFailure(f"{case}: a match that is not over has no seat to act")
            fingerprint(game)  # views and decisions still work
    except FuzzFailure:
        raise
    except Exception as e:
        raise FuzzFailure(f"{case}: {type(e).__name__} after an applied play: {e}") from e


def run_case(
    case: Case,
    work: Game | None = None,
    pristine: Game | None = None,
    before: tuple | None = None,
    stats: Stats | None = None,
) -> bool:
    """Run one case: on `work`, a copy of `pristine` (the position of `case`) whose fingerprint is `before`, when
    they are given (a batch of cases at one position); True if its play was applied."""
    if pristine is None:
        pristine = position(case.slug, case.players, case.game_seed, case.step)
    work = work if work is not None else clone(pristine)
    before = before if before is not None else fingerprint(pristine)
    rng = random.Random(case.play_seed)
    acting = work.to_act()
    seat = rng.choice(acting) if acting and rng.random() < 0.95 else rng.choice([-1, *range(work.n), work.n])
    ops = PlayMaker(rng, work, seat).play()
    return check_play(work, pristine, before, seat, ops, case, stats if stats is not None else Stats())


def targets() -> list[tuple[str, int]]:
    """Every registered variant at every player count (so a variant registered later is fuzzed too)."""
    return [(slug, n) for slug, cls in sorted(VARIANTS.items()) for n in range(cls.min_players, cls.max_players + 1)]


def fuzz_variant(slug: str, cases: int, seed: int = 0, per_position: int = 20) -> Stats:
    """`cases` cases against `slug`, spread over its player counts and over positions of seeded games."""
    stats = Stats()
    counts = [n for s, n in targets() if s == slug]
    game_no = 0
    while stats.cases < cases:
        n = counts[game_no % len(counts)]
        game_seed = derive_seed(seed, slug, game_no) % 2**32
        game_no += 1
        for case_stats in _fuzz_game(slug, n, game_seed, cases - stats.cases, per_position):
            stats.add(case_stats)
    return stats


def _fuzz_game(slug: str, n: int, game_seed: int, budget: int, per_position: int) -> Iterator[Stats]:
    """Cases at random stopping points of one game, at most `budget` of them."""
    walker = Walker(slug, n, game_seed)
    rng = random.Random(game_seed)
    done = 0
    while done < budget:
        if rng.random() < 0.25:  # stop here: a batch of plays against this position
            stats = Stats()
            pristine = walker.game
            before = fingerprint(pristine)
            work = clone(pristine)
            for _ in range(min(per_position, budget - done)):
                case = Case(slug, n, game_seed, walker.step, rng.getrandbits(32))
                stats.cases += 1
                done += 1
                try:
                    if run_case(case, work, pristine, before, stats):
                        work = clone(pristine)
                except FuzzFailure as failure:
                    stats.failures.append(str(failure))
                    work = clone(pristine)
            yield stats
        if not walker.advance():
            return
