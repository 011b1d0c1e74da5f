"""In-process throughput of the rules engine on Classic: decisions/s and games/s.

Three loops over the same seeds, each the best of `REPEAT` runs:
  random          decision() + apply() of a random legal option (the baseline);
  random + view   the same, plus the view() a bot would get at every decision;
  sample brains   view() + sample_bots.brain.Brain.choose() (solver included), seats alternating greedy/random.
A game is one whole match with the default options (no max_deals cap: every match ends on its own).
"""

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

# A script's own directory comes first on sys.path: bench/referee.py there would shadow the referee package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from referee.rules.variants import find_variant
from sample_bots.brain import Brain

VARIANT = "classic"
PLAYERS = (2, 3, 4)
RANDOM_SEEDS = range(15)  # per player count; random play stalemates at max_turns_per_deal, so games are long
BRAIN_SEEDS = range(30)
REPEAT = 3


def random_game(players: int, seed: int, with_view: bool) -> tuple[int, int]:
    """Play one match with uniformly random legal options: (decisions, deals)."""
    g = find_variant(VARIANT)(players, {}, seed)
    rng = random.Random(seed)
    n = 0
    while not g.is_over():
        s = g.to_act()[0]
        d = g.decision(s)
        if with_view:
            g.view(s)
        g.apply(s, [rng.choice(d.options)])
        n += 1
    return n, len(g.deal_results)


def brain_game(players: int, seed: int) -> tuple[int, int]:
    """Play one match with the sample bots' brains in-process: (decisions, deals)."""
    g = find_variant(VARIANT)(players, {}, seed)
    brains = [Brain(VARIANT, players, g.opts, greedy=i % 2 == 0, seed=seed * 10 + i) for i in range(players)]
    n = 0
    while not g.is_over():
        s = g.to_act()[0]
        g.apply(s, brains[s].choose(g.decision(s), g.view(s)))
        n += 1
    return n, len(g.deal_results)


def measure(play: Callable[[int, int], tuple[int, int]], seeds: range) -> tuple[int, int, int, float]:
    """(games, decisions, deals, best seconds of REPEAT runs) over every player count and seed."""
    best = float("inf")
    for _ in range(REPEAT):
        games = decisions = deals = 0
        start = time.perf_counter()
        for players in PLAYERS:
            for seed in seeds:
                d, k = play(players, seed)
                games, decisions, deals = games + 1, decisions + d, deals + k
        best = min(best, time.perf_counter() - start)
    return games, decisions, deals, best


def main() -> None:
    print(
        f"variant {VARIANT}, players {', '.join(map(str, PLAYERS))}, default options (no max_deals cap), "
        f"best of {REPEAT} runs"
    )
    print("random play never melds, so its deals end as stalemates at max_turns_per_deal (1000 turns)")
    modes = [
        ("random (baseline)", lambda p, s: random_game(p, s, False), RANDOM_SEEDS),
        ("random + view", lambda p, s: random_game(p, s, True), RANDOM_SEEDS),
        ("sample brains", brain_game, BRAIN_SEEDS),
    ]
    base_us = None
    for name, play, seeds in modes:
        games, decisions, deals, secs = measure(play, seeds)
        us = secs / decisions * 1e6
        base_us = base_us or us
        print(
            f"{name:18s} seeds {seeds.start}-{seeds.stop - 1}: {games:3d} games {deals:4d} deals "
            f"{decisions:7d} decisions in {secs:6.3f} s | {decisions / secs:9.0f} decisions/s "
            f"{games / secs:7.1f} games/s {us:7.1f} µs/decision ({us / base_us:4.1f}x baseline)"
        )


if __name__ == "__main__":
    main()
