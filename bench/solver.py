"""Speed of the best-split solver: µs per 10-card gin hand and per 13-card classic hand (double pack, 2 jokers),
then gin hands/s beside OpenSpiel's `min_deadwood` and RLCard's meld clusters on the same hands when they are
installed (target: romis >= 0.5x OpenSpiel's hands/s; `make test-diff` installs both).

romis is timed on both of its paths: the compiled search (referee/rules/_solver.c) and the pure-Python one
(as with ROMIS_PURE=1, on a tenth of the hands: it is that much slower), each with the deadwood values given
as a function (one Python call per card) and as a table (a dict's __getitem__, read by the compiled search
without a call; the knock engine passes its penalties so)."""

import functools
import random
import sys
import time
from pathlib import Path

# A script's own directory comes first on sys.path: bench/referee.py there would shadow the referee package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from protocol.cards import RANKS
from referee.rules import solver
from referee.rules.cards import deck, rank
from referee.rules.melds import MeldRules
from referee.rules.solver import best_discard, best_split
from referee.rules.variants.gin import GIN_MELDS as GIN

CLASSIC = MeldRules()
BATCH_REPEAT = 3


def gin_value(card: str) -> int:
    return min(rank(card), 10)


def classic_value(card: str) -> int:
    return 20 if card == "JK" else 11 if card[0] == "A" else min(rank(card), 10)


def per_call(hands: list[list[str]], solve, repeat: int = 3) -> tuple[float, float, float]:
    """(median, mean, worst) µs per call, each hand timed as the best of `repeat` calls."""
    times = []
    for hand in hands:
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            solve(hand)
            best = min(best, time.perf_counter() - t)
        times.append(best * 1e6)
    times.sort()
    return times[len(times) // 2], sum(times) / len(times), times[-1]


def main() -> None:
    rng = random.Random(1)
    single, double = deck(), deck(packs=2)
    cases = {
        "gin, 10 random cards": ([rng.sample(single, 10) for _ in range(3000)], GIN, gin_value, best_split),
        "gin, best discard of 11": ([rng.sample(single, 11) for _ in range(1000)], GIN, gin_value, best_discard),
        "classic, 13 cards incl. 2 jokers": (
            [rng.sample(double, 11) + ["JK", "JK"] for _ in range(1000)],
            CLASSIC,
            classic_value,
            best_split,
        ),
        "classic, 13 random cards of 110": (
            [rng.sample(deck(packs=2, jokers=6), 13) for _ in range(1000)],
            CLASSIC,
            classic_value,
            best_split,
        ),
        "classic, 13 dense cards (A-5, 2 suits) + 2 jokers": (
            [
                rng.sample([c for c in double if c[0] in "A2345" and c[1] in "SH"], 11) + ["JK", "JK"]
                for _ in range(300)
            ],
            CLASSIC,
            classic_value,
            best_split,
        ),
        "kalukis-like, 16 cards incl. 4 jokers": (
            [rng.sample(double, 12) + ["JK"] * 4 for _ in range(100)],
            CLASSIC,
            classic_value,
            best_split,
        ),
    }
    for name, (hands, rules, value, fn) in cases.items():
        median, mean, worst = per_call(hands, functools.partial(fn, rules=rules, value=value))
        print(f"{name:52s} median {median:7.0f} µs  mean {mean:7.0f} µs  worst {worst:7.0f} µs")
    print()
    against_openspiel(rng)


def dense(rng: random.Random, n: int) -> list[str]:
    """`n` cards from a band of 5 ranks in 3 or 4 suits: many crossing sets and runs."""
    low, suits = rng.randint(1, 9), rng.sample("SHDC", rng.choice((3, 4)))
    return rng.sample([c for c in deck() if low <= rank(c) < low + 5 and c[1] in suits], n)


def hands_per_s(hands: list, solve) -> float:
    """Hands solved per second over the whole batch, best of `BATCH_REPEAT` runs (per-call timers would swamp
    OpenSpiel's microsecond calls)."""
    best = float("inf")
    for _ in range(BATCH_REPEAT):
        start = time.perf_counter()
        for hand in hands:
            solve(hand)
        best = min(best, time.perf_counter() - start)
    return len(hands) / best


def romis_rate(hands: list, value, compiled: bool) -> float:
    """romis's best_split hands/s on one path (the pure one on a tenth of the hands)."""
    core = solver.core
    if compiled and core is None:
        return float("nan")
    solver.core = core if compiled else None
    try:
        return hands_per_s(
            hands if compiled else hands[: max(1, len(hands) // 10)], lambda h: best_split(h, GIN, value)
        )
    finally:
        solver.core = core


def rlcard_solver():
    """RLCard's least deadwood of a gin hand (its meld clusters, each scored), or None if it is not installed."""
    try:
        from rlcard.games.gin_rummy.utils import melding, utils
    except ImportError:
        return None

    def deadwood(hand) -> int:
        total = sum(map(utils.get_deadwood_value, hand))
        return min(
            [total]
            + [
                total - sum(utils.get_deadwood_value(c) for m in cl for c in m)
                for cl in melding.get_meld_clusters(hand)
            ]
        )

    return deadwood


def against_openspiel(rng: random.Random) -> None:
    """Gin deadwood of the same hands: romis's best_split beside OpenSpiel's GinRummyUtils.min_deadwood and
    RLCard's meld clusters."""
    try:
        import pyspiel

        utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    except ImportError:
        utils = None
        print("OpenSpiel not installed (pip install open-spiel): no ratio")
    rlcard = rlcard_solver()
    print(
        f"gin deadwood, hands/s on the same hands, best of {BATCH_REPEAT} batch runs"
        + ("" if solver.core else " (romis's C search not built: its C columns are nan)")
    )
    print(
        f"{'':24s} {'C, table':>9s} {'C, func':>9s} {'pure, tbl':>9s} {'OpenSpiel':>9s} {'RLCard':>9s}  "
        "C table / OpenSpiel (target >= 0.5x), C table / pure"
    )
    table = {c: gin_value(c) for c in deck()}.__getitem__
    single = deck()
    cases = {
        "10 random cards": [rng.sample(single, 10) for _ in range(5000)],
        "10 cards, 5-rank band": [dense(rng, 10) for _ in range(2000)],
        "13 random cards": [rng.sample(single, 13) for _ in range(3000)],
        "13 cards, 5-rank band": [dense(rng, 13) for _ in range(500)],
    }
    for name, hands in cases.items():
        ours = romis_rate(hands, table, True)
        rates = [ours, romis_rate(hands, gin_value, True), romis_rate(hands, table, False)]
        ints = [["SCDH".index(c[1]) * 13 + RANKS.index(c[0]) for c in h] for h in hands]  # OpenSpiel's card ints
        theirs = hands_per_s(ints, utils.min_deadwood) if utils else float("nan")
        if rlcard:
            from rlcard.games.gin_rummy.utils.utils import card_from_text

            rl_hands = [[card_from_text(c) for c in h] for h in hands[: max(1, len(hands) // 10)]]
            rates += [theirs, hands_per_s(rl_hands, rlcard)]
        else:
            rates += [theirs, float("nan")]
        ratio = ours / theirs
        verdict = "met" if ratio >= 0.5 else "NOT met" if ratio == ratio else "no OpenSpiel"
        print(
            f"{name:24s} "
            + " ".join(f"{r:9.0f}" for r in rates)
            + f"  {ratio:5.2f}x ({verdict}), {ours / rates[2]:5.0f}x"
        )


if __name__ == "__main__":
    main()
