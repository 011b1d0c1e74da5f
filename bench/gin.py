"""In-process random-play throughput of Gin: romis beside OpenSpiel's gin_rummy and RLCard's gin-rummy game.

Every engine picks uniformly random legal actions over fixed seeds, best of `REPEAT` rounds (a round runs every
engine once, in turn), and counts player decisions only: OpenSpiel's chance nodes (the deal and stock draws,
sampled from `chance_outcomes()`) and RLCard's two score-bookkeeping steps at the end of a deal are not decisions.
A romis game is a whole match (deals until 100 points); an OpenSpiel or RLCard game is one deal, so decisions/s
is the figure to compare.
Targets: romis decisions/s >= 1.0x OpenSpiel's and >= 3x RLCard's. `make test-diff` installs both baselines.
`--only ENGINE` (romis, openspiel, rlcard) and `--scale K` (K times the seeds) make a shortened run, e.g. under
`valgrind --tool=callgrind`, where the difference between two scales gives instructions per decision.
"""

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

# A script's own directory comes first on sys.path: bench/referee.py there would shadow the referee package.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

from referee.rules.variants import VARIANTS

ROMIS_SEEDS = range(4)  # whole matches: random play needs some 70-180 deals to reach 100
OPENSPIEL_SEEDS = range(1000)  # single deals
RLCARD_SEEDS = range(300)  # single deals
REPEAT = 5

Tally = tuple[int, int, int]  # (games, deals, decisions)


def romis(seeds: range) -> Tally:
    """Random matches of romis's gin."""
    games = deals = decisions = 0
    for seed in seeds:
        g, rng = VARIANTS["gin"](2, {}, seed), random.Random(seed)
        while not g.is_over():
            s = g.to_act()[0]
            g.apply(s, [rng.choice(g.decision(s).options)])
            decisions += 1
        games, deals = games + 1, deals + len(g.deal_results)
    return games, deals, decisions


def openspiel(seeds: range) -> Tally:
    """Random deals of OpenSpiel's gin_rummy, each from a clone of the initial state."""
    import pyspiel

    initial = pyspiel.load_game("gin_rummy").new_initial_state()
    decisions = 0
    for seed in seeds:
        s, rng = initial.clone(), random.Random(seed)
        while not s.is_terminal():
            if s.is_chance_node():  # every outcome is a card left in the stock, all equally likely
                s.apply_action(rng.choice(s.chance_outcomes())[0])
            else:
                s.apply_action(rng.choice(s.legal_actions()))
                decisions += 1
    return len(seeds), len(seeds), decisions


def rlcard(seeds: range) -> Tally:
    """Random deals of RLCard's raw GinRummyGame (no env wrapper, no state encoding)."""
    import numpy as np
    from rlcard.games.gin_rummy.game import GinRummyGame
    from rlcard.games.gin_rummy.utils.action_event import ScoreNorthPlayerAction, ScoreSouthPlayerAction

    bookkeeping = (ScoreNorthPlayerAction, ScoreSouthPlayerAction)
    decisions = 0
    for seed in seeds:
        g, rng = GinRummyGame(), random.Random(seed)
        g.np_random = np.random.RandomState(seed)
        g.init_game()
        while not g.is_over():
            action = rng.choice(g.judge.get_legal_actions())
            decisions += not isinstance(action, bookkeeping)
            g.step(action)
    return len(seeds), len(seeds), decisions


def measure(runs: dict[str, tuple[Callable[[range], Tally], range]]) -> dict[str, tuple[Tally, float]]:
    """Each engine's tally and best seconds of `REPEAT` rounds; a round runs every engine once, in turn, so that a
    spell of load on the machine falls on all of them rather than on one engine's runs."""
    best: dict[str, tuple[Tally, float]] = {}
    for _ in range(REPEAT):
        for name, (play, seeds) in runs.items():
            start = time.perf_counter()
            tally = play(seeds)
            secs = time.perf_counter() - start
            best[name] = (tally, min(secs, best.get(name, (tally, secs))[1]))
    return best


def _has(module: str) -> bool:
    """Whether `module` can be imported."""
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def main() -> None:
    from referee.rules import solver

    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--only", action="append", choices=["romis", "openspiel", "rlcard"], help="run only this engine")
    p.add_argument("--scale", type=float, default=1.0, help="play this many times the seeds (default 1)")
    args = p.parse_args()
    path = "compiled" if solver.core else "pure Python (ROMIS_PURE=1 or not built)"
    print(f"gin, 2 players, uniformly random legal actions, best of {REPEAT} rounds; romis's best-split search: {path}")
    engines = [
        ("romis gin", "romis", romis, ROMIS_SEEDS, "gin" in VARIANTS, "not registered yet"),
        (
            "OpenSpiel gin_rummy",
            "openspiel",
            openspiel,
            OPENSPIEL_SEEDS,
            _has("pyspiel"),
            "not installed (pip install open-spiel)",
        ),
        ("RLCard gin-rummy", "rlcard", rlcard, RLCARD_SEEDS, _has("rlcard"), "not installed (pip install rlcard)"),
    ]
    runs = {}
    for name, key, play, seeds, present, missing in engines:
        if args.only and key not in args.only:
            continue
        if not present:
            print(f"{name}: {missing}")
            continue
        runs[name] = (play, range(max(1, round(len(seeds) * args.scale))))
    rate = {}
    for name, ((games, deals, decisions), secs) in measure(runs).items():
        rate[name] = decisions / secs
        print(
            f"{name:20s} {games:5d} games {deals:5d} deals {decisions:7d} decisions in {secs:6.2f} s | "
            f"{decisions / secs:8.0f} decisions/s {games / secs:7.1f} games/s {deals / secs:7.1f} deals/s "
            f"{secs / decisions * 1e6:6.1f} µs/decision"
        )
    for base, target in (("OpenSpiel gin_rummy", 1.0), ("RLCard gin-rummy", 3.0)):
        if "romis gin" in rate and base in rate:
            ratio = rate["romis gin"] / rate[base]
            print(
                f"romis / {base}: {ratio:5.2f}x decisions/s (target >= {target:.1f}x: "
                f"{'met' if ratio >= target else 'NOT met'})"
            )


if __name__ == "__main__":
    main()
