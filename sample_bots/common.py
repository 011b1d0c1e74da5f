"""The JSON-lines loop of the Python sample bots."""

import sys

from protocol import messages as m


def serve(name: str, greedy: bool) -> None:
    """Answer the referee on stdin/stdout until shutdown (or end of input)."""
    from sample_bots.brain import Brain

    brain = None
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        msg = m.decode_to_bot(line)
        if isinstance(msg, m.Hello):
            brain = Brain(msg.variant, msg.players, msg.options, greedy, seed=msg.seed or 0)
            out.write(m.encode(m.Ready(name=name, version="1")))
        elif isinstance(msg, m.Request):
            out.write(m.encode(m.Play(msg.id, brain.choose(msg.decision, msg.view))))
        elif isinstance(msg, m.Rejected):
            brain.cautious = True  # the referee asks again: answer with its first legal option
        elif isinstance(msg, m.Shutdown):
            break
        out.flush()
