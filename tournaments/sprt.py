"""A sequential probability ratio test on duplicate-paired results (pure arithmetic, no I/O).

Each observation is one deal set's score in [0, 1]: the mean, over every game of the set (the same decks
under every seating), of new's result against old's (1 ahead, 1/2 level, 0 behind). With two seats a deal set
is two games and its score takes the five values 0, 1/4, 1/2, 3/4, 1: fastchess's pentanomial model for a game
pair. The log-likelihood ratio is the generalized one of a multinomial over those values with its mean fixed at
s0 (H0) and at s1 (H1) (M. Van den Bergh, "Comparing the approximations for the generalized log likelihood
ratio of a multinomial distribution", Proposition 1.1); s = 1 / (1 + 10^(-elo / 400)) (logistic Elo).
"""

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

EMPTY = 1e-3  # the weight of a score value never seen: a zero would make log(0) and an impossible MLE


def elo_to_score(elo: float) -> float:
    """The expected score of a player `elo` points stronger (logistic Elo)."""
    return 1 / (1 + 10 ** (-elo / 400))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected score (infinite at 0 and 1)."""
    if score <= 0 or score >= 1:
        return math.copysign(math.inf, score - 0.5)
    return -400 * math.log10(1 / score - 1)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds on the LLR: below the first accept H0, above the second accept H1."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def mle(values: list[float], probs: list[float], s: float) -> list[float]:
    """The distribution over `values` nearest (in likelihood) to the empirical `probs` whose mean is `s`:
    p_i = probs_i / (1 + theta (x_i - s)), theta the root of sum probs_i (x_i - s) / (1 + theta (x_i - s))."""
    lo, hi = -1 / (max(values) - s), -1 / (min(values) - s)  # where every 1 + theta (x_i - s) stays positive

    def slope(theta: float) -> float:  # decreasing in theta, +inf at lo and -inf at hi
        return sum(p * (x - s) / (1 + theta * (x - s)) for x, p in zip(values, probs))

    while hi - lo > 1e-12 * (1 + abs(lo) + abs(hi)):  # bisection: ~45 halvings of a bracket of a few units
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if slope(mid) > 0 else (lo, mid)
    theta = (lo + hi) / 2
    return [p / (1 + theta * (x - s)) for x, p in zip(values, probs)]


def llr(counts: dict[float, float], s0: float, s1: float) -> float:
    """The generalized log-likelihood ratio of H1 (mean score s1) against H0 (mean s0) for observed
    score values and their counts; every value must lie in [0, 1] and they must straddle s0 and s1."""
    values = sorted(counts)
    total = sum(counts.values())
    probs = [counts[x] / total for x in values]
    p0, p1 = mle(values, probs, s0), mle(values, probs, s1)
    return total * sum(p * (math.log(a) - math.log(b)) for p, a, b in zip(probs, p1, p0))


def grid(games_per_set: int) -> list[float]:
    """Every score a deal set of `games_per_set` games can have: multiples of 1 / (2 games)."""
    return [k / (2 * games_per_set) for k in range(2 * games_per_set + 1)]


@dataclass
class Sprt:
    """The test as it runs: deal-set scores in, the LLR and a verdict out."""

    games_per_set: int
    elo0: float = 0.0
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        self.lower, self.upper = bounds(self.alpha, self.beta)
        self.counts: Counter[float] = Counter()

    def add(self, score: float) -> None:
        """Count one deal set's score (rounded onto the grid of possible scores)."""
        step = 2 * self.games_per_set
        self.counts[round(score * step) / step] += 1

    def extend(self, scores: Iterable[float]) -> None:
        """Count several deal sets' scores."""
        for score in scores:
            self.add(score)

    @property
    def sets(self) -> int:
        """Deal sets counted."""
        return sum(self.counts.values())

    def llr(self) -> float:
        """The LLR of the deal sets so far (0 before the first); a value never seen weighs EMPTY."""
        if not self.sets:
            return 0.0
        counts = {x: self.counts.get(x) or EMPTY for x in grid(self.games_per_set)}
        return llr(counts, elo_to_score(self.elo0), elo_to_score(self.elo1))

    def verdict(self) -> str | None:
        """ "H1" (new is better by elo1), "H0" (not better than elo0), or None while undecided."""
        value = self.llr()
        if value >= self.upper:
            return "H1"
        if value <= self.lower:
            return "H0"
        return None

    def score(self) -> tuple[float, float]:
        """The mean deal-set score and its standard error."""
        n = self.sets
        if not n:
            return 0.5, 0.0
        mean = sum(x * c for x, c in self.counts.items()) / n
        var = sum(c * (x - mean) ** 2 for x, c in self.counts.items()) / n
        return mean, math.sqrt(var / n)


def check(alpha: float, beta: float, elo0: float, elo1: float) -> str | None:
    """What is wrong with these test settings, in one line; None if nothing."""
    if not (0 < alpha < 1 and 0 < beta < 1) or alpha + beta >= 1:
        return "--alpha and --beta must lie between 0 and 1 and add up to less than 1"
    if not elo0 < elo1:
        return "--elo0 must be less than --elo1"
    if not all(math.isfinite(x) and abs(x) < 2000 for x in (elo0, elo1)):
        return "--elo0 and --elo1 must be finite Elo differences (under 2000 in size)"
    return None
