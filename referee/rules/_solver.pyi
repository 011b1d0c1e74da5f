"""The compiled core (_solver.c): solver.py calls its search and falls back to its own where it gives None; engine.py
calls its state copy."""

from collections.abc import Callable
from typing import Any, Literal, overload

from referee.rules.solver import Split

@overload
def split(hand: list[str], spec: tuple, value: Callable[[str], int], discard: Literal[False]) -> Split | None: ...
@overload
def split(
    hand: list[str], spec: tuple, value: Callable[[str], int], discard: Literal[True]
) -> tuple[str | None, Split] | None: ...
@overload
def split(
    hand: list[str], spec: tuple, value: Callable[[str], int], discard: bool
) -> Split | tuple[str | None, Split] | None: ...
def types(split: type, meld: type) -> None: ...
def least(hand: list[str], spec: tuple, value: Callable[[str], int]) -> int | None: ...
def snapshot(state: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]: ...
