"""Golden games: seed -> plays -> final totals, per variant. They change only on purpose:
regenerate with `ROMIS_REGEN_GOLDEN=1 pytest tests/test_golden.py` after a deliberate change of the rules
or of the sample bots, which make the plays."""

import hashlib
import json
import os
from pathlib import Path

import pytest
from test_conformance import playout

from protocol.messages import to_builtins

GOLDEN = Path(__file__).parent / "golden"
CASES = [("classic", 2, 7), ("classic", 4, 8)]


def summary(slug, n, seed):
    game, plays = playout(slug, n, seed, check_views=False)
    digest = hashlib.sha256(json.dumps([(s, to_builtins(ops)) for s, ops in plays]).encode()).hexdigest()
    return {
        "variant": slug,
        "players": n,
        "seed": seed,
        "plays": len(plays),
        "plays_sha256": digest,
        "deals": [{"winner": d["winner"], "scores": d["scores"]} for d in game.deal_results],
        "totals": game.totals,
    }


@pytest.mark.parametrize("slug,n,seed", CASES)
def test_golden_game(slug, n, seed):
    path = GOLDEN / f"{slug}-{n}p-seed{seed}.json"
    got = summary(slug, n, seed)
    if os.environ.get("ROMIS_REGEN_GOLDEN"):
        path.write_text(json.dumps(got, indent=1) + "\n")
    assert got == json.loads(path.read_text())
