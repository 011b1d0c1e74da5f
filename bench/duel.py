"""How many deal sets `romis duel`'s SPRT needs, and how often it errs, on simulated 2-seat deal sets.

Each deal set is two games, each won by new with the probability of the true Elo difference (no draws, the
two games independent: duplicate deals make them correlated and the real test shorter, so these figures are
an upper bound on the games). Prints, per true Elo, the share of runs that said "better", "not better" or
ran out, and the median and 90th percentile of games, with the defaults (elo0 0, elo1 50, alpha = beta 0.05).
"""

import random
import statistics
import sys
from pathlib import Path

sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from tournaments.sprt import Sprt, elo_to_score

RUNS = 200
MAX_SETS = 2000  # 4000 games
CHECK_EVERY = 4  # deal sets between LLR evaluations: the verdict at most 3 sets late, and the script 4x faster


def one_run(elo: float, rng: random.Random) -> tuple[str | None, int]:
    """(verdict, games) of one simulated duel."""
    p = elo_to_score(elo)
    s = Sprt(2)
    for n in range(1, MAX_SETS + 1):
        s.add(((rng.random() < p) + (rng.random() < p)) / 2)
        if n % CHECK_EVERY == 0 and (verdict := s.verdict()) is not None:
            return verdict, 2 * n
    return None, 2 * MAX_SETS


def main() -> None:
    rng = random.Random(1)
    print(f"{'true Elo':>8} {'better':>7} {'not':>7} {'out':>7} {'median games':>13} {'p90 games':>10}")
    for elo in (-50, 0, 25, 50, 100, 200):
        runs = [one_run(elo, rng) for _ in range(RUNS)]
        share = {v: sum(r[0] == v for r in runs) / RUNS for v in ("H1", "H0", None)}
        games = sorted(r[1] for r in runs)
        p90 = games[int(0.9 * len(games)) - 1]
        print(
            f"{elo:>8} {share['H1']:>7.1%} {share['H0']:>7.1%} {share[None]:>7.1%} "
            f"{statistics.median(games):>13.0f} {p90:>10}"
        )


if __name__ == "__main__":
    main()
