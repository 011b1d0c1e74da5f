"""The JSON-lines loop of the Python sample bots."""

import sys

import msgspec

from protocol import messages as m
from referee.rules.errors import ConfigError


def serve(name: str, greedy: bool) -> None:
    """Answer the referee on stdin/stdout until shutdown (or end of input). A line it cannot read, a variant it
    cannot play or a request before hello ends the bot with one line on stderr and exit code 1."""
    from sample_bots.brain import Brain

    brain: Brain | None = None
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            msg = m.decode_to_bot(line)
            if isinstance(msg, m.Hello):
                brain = Brain(msg.variant, msg.players, msg.options, greedy, seed=msg.seed or 0)
                out.write(m.encode(m.Ready(name=name, version="1")))
        except (msgspec.DecodeError, ConfigError) as e:  # msgspec.ValidationError is a DecodeError
            sys.exit(f"{name}: {e}")
        if isinstance(msg, m.Request):
            if brain is None:
                sys.exit(f"{name}: a request came before hello")
            out.write(m.encode(m.Play(msg.id, brain.choose(msg.decision, msg.view))))
        elif isinstance(msg, m.Rejected) and brain is not None:
            brain.cautious = True  # the referee asks again: answer with its first legal option
        elif isinstance(msg, m.Shutdown):
            break
        out.flush()
