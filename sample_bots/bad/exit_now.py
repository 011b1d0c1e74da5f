"""Exits with code 1 at once, before saying ready."""

import sys

print("exit_now: not today", file=sys.stderr)
sys.exit(1)
