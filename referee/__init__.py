"""romis referee: cards, melds, the rules engine, variants, the bot runner, the match loop and the CLI."""

import os

# ROMIS_PURE=1: the rules use their pure-Python best-split search even where the compiled one is built (read here,
# outside referee.rules, which does no I/O and reads no environment: tests/test_layout.py)
PURE_PYTHON = bool(os.environ.get("ROMIS_PURE"))
