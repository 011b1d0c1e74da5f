"""The compiled best-split search (_solver.c): solver.py calls it, and falls back to its own where it gives None."""

from collections.abc import Callable

def split(
    hand: list[str], spec: tuple, value: Callable[[str], int], discard: bool
) -> tuple[str | None, list[tuple[bool, tuple[str, ...]]], list[str], int] | None: ...
