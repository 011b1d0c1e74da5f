"""Speed of the best-split solver: µs per 10-card gin hand and per 13-card classic hand (double pack, 2 jokers)."""
import random
import time

from referee.cards import deck, rank
from referee.melds import MeldRules
from referee.solver import best_discard, best_split

GIN = MeldRules(ace_low=True, ace_high=False, wilds=frozenset())
CLASSIC = MeldRules()


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
        "classic, 13 cards incl. 2 jokers": ([rng.sample(double, 11) + ["JK", "JK"] for _ in range(1000)],
                                             CLASSIC, classic_value, best_split),
        "classic, 13 random cards of 110": ([rng.sample(deck(packs=2, jokers=6), 13) for _ in range(1000)],
                                            CLASSIC, classic_value, best_split),
        "classic, 13 dense cards (A-5, 2 suits) + 2 jokers": (
            [rng.sample([c for c in double if c[0] in "A2345" and c[1] in "SH"], 11) + ["JK", "JK"]
             for _ in range(300)], CLASSIC, classic_value, best_split),
        "kalukis-like, 16 cards incl. 4 jokers": ([rng.sample(double, 12) + ["JK"] * 4 for _ in range(100)],
                                                  CLASSIC, classic_value, best_split),
    }
    for name, (hands, rules, value, fn) in cases.items():
        median, mean, worst = per_call(hands, lambda h: fn(h, rules, value))
        print(f"{name:52s} median {median:7.0f} µs  mean {mean:7.0f} µs  worst {worst:7.0f} µs")


if __name__ == "__main__":
    main()
