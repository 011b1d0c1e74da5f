"""The compiled best-split search (_solver.c): solver.py calls it, and falls back to its own where it gives None."""

from collections.abc import Callable
from typing import Literal, overload

from referee.rules.solver import Split

@overload
def split(hand: list[str], spec: tuple, value: Callable[[str], int], discard: Literal[False]) -> Split | None: ...
@overload
def split(
    hand: list[str], spec: tuple, value: Callable[[str], int], discard: Literal[True]
) -> tuple[str | None, Split] | None: ...
@overload
def split(hand: list[str], spec: tuple, value: Callable[[str], int], discard: Literal[2]) -> int | None: ...
@overload
def split(
    hand: list[str], spec: tuple, value: Callable[[str], int], discard: bool
) -> Split | tuple[str | None, Split] | None: ...
def types(split: type, meld: type) -> None: ...
