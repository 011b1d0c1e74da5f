"""The Python sample bots on the bot helper (protocol/bot.py): the helper reads and writes the lines, the brain
decides."""

import sys
from typing import Any

import msgspec

from protocol import messages as m
from protocol.bot import run
from referee.rules.errors import ConfigError


def serve(name: str, greedy: bool) -> None:
    """Answer the referee on stdin/stdout until shutdown (or end of input). A line it cannot read, a variant it
    cannot play or a request before hello ends the bot with one line on stderr and exit code 1."""
    from sample_bots.brain import Brain

    brain: Brain | None = None

    def hello(msg: dict[str, Any]) -> None:
        nonlocal brain
        try:
            brain = Brain(msg["variant"], msg["players"], msg.get("options", {}), greedy, seed=msg.get("seed") or 0)
        except (KeyError, ConfigError) as e:
            sys.exit(f"{name}: {e}")

    def decide(msg: dict[str, Any]) -> list[Any]:
        assert brain is not None  # the helper asks only after hello
        try:
            decision = msgspec.convert(msg["decision"], m.Decision)
        except (KeyError, msgspec.ValidationError) as e:
            sys.exit(f"{name}: {e}")
        return m.to_builtins(brain.choose(decision, msg["view"]))

    def rejected(msg: dict[str, Any]) -> None:
        if brain is not None:
            brain.cautious = True  # the referee asks again: answer with its first legal option

    run(decide, name, "1", on_hello=hello, on_rejected=rejected)
