"""A bot that plays legally (the random sample bot's brain) and then misbehaves at a chosen moment.

`python -m sample_bots.bad.chaos --kind crash --after 7 [--seed S]` answers its first 7 requests
legally and misbehaves on the 8th (`--after 0`: on the first). Kinds (KINDS) and the fault the
referee should record against the seat (EXPECTED; None: the match goes on without a fault):

crash        writes a line to stderr and exits with code 3
hang         stops answering (sleeps; bounded, so an orphan cannot outlive a broken referee for long)
garbage      writes a line that is not JSON
illegal      discards a well-formed card that is not in its hand
exit         exits quietly with code 0 in the middle of the match
stderr_flood writes 4 MB to stderr before this and every later reply, and plays on
memhog       allocates memory in 32 MB blocks until the referee's RLIMIT_DATA stops it (MemoryError)
forkbomb     forks sleeping children until the kernel refuses (RLIMIT_NPROC) or FORK_CAP, and plays on
escapee      double-forks a child that calls setsid() (leaving the bot's session), and plays on

Every child it leaves behind dies by itself within ORPHAN_LIFE seconds, whatever the referee does.
"""

import argparse
import json
import mmap
import os
import random
import signal
import sys
import time

import msgspec

from protocol import messages as m

KINDS = ("crash", "hang", "garbage", "illegal", "exit", "stderr_flood", "memhog", "forkbomb", "escapee")
EXPECTED: dict[str, str | None] = {
    "crash": "crash",
    "hang": "timeout",
    "garbage": "malformed",
    "illegal": "illegal",
    "exit": "crash",
    "stderr_flood": None,
    "memhog": "crash",
    "forkbomb": None,
    "escapee": None,
}
FORK_CAP = 50  # children per forkbomb bot: a bound on a shared machine, where root ignores RLIMIT_NPROC
ORPHAN_LIFE = 300  # seconds any child of this bot lives at most
MEMHOG_CAP_MB = 3072  # stop by itself (and fail) if no limit stopped it: the machine is shared
_BLOCK_MB = 32
_CODES = [rank + suit for suit in "SHDC" for rank in "A23456789TJQK"]
_FLOOD = ("noise " * 1000 + "\n") * 699  # about 4 MB


def parse_args(argv: list[str]) -> argparse.Namespace:
    """--kind, --after and --seed from the command line."""
    parser = argparse.ArgumentParser(prog="chaos", description="a bot that misbehaves after N decisions")
    parser.add_argument("--kind", required=True, choices=KINDS)
    parser.add_argument("--after", type=int, default=0, help="legal replies before misbehaving")
    parser.add_argument("--seed", type=int, default=0, help="seeds the legal play (with the match seed)")
    return parser.parse_args(argv)


def _orphan() -> None:
    """The body of a child left behind: detach from the pipes, then sleep until killed or ORPHAN_LIFE passes."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    signal.alarm(ORPHAN_LIFE)  # SIGALRM's default action ends the process
    while True:
        signal.pause()


def fork_bomb(cap: int = FORK_CAP) -> int:
    """Fork sleeping children until the kernel refuses or `cap` is reached; the number forked."""
    forked = 0
    while forked < cap:
        try:
            pid = os.fork()
        except OSError:  # EAGAIN: RLIMIT_NPROC (or the kernel's own task limit) said no
            break
        if pid == 0:
            _orphan()
        forked += 1
    return forked


def escape() -> None:
    """Leave a grandchild in a session of its own (setsid), out of reach of a kill of the bot's session."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            _orphan()
        os._exit(0)
    os.waitpid(pid, 0)


def memory_hog() -> None:
    """Map memory until the kernel refuses; the MemoryError's traceback and exit 1 are the crash the referee sees."""
    hoard: list[mmap.mmap] = []
    while len(hoard) * _BLOCK_MB < MEMHOG_CAP_MB:
        # Private anonymous mappings are what malloc uses for large blocks, and what RLIMIT_DATA counts,
        # touched or not. Left untouched they keep the shared machine's RAM free: touching 2 GB costs
        # ~4 s of kernel time here, past any move time, so the fault would be a timeout, not the limit.
        try:
            hoard.append(mmap.mmap(-1, _BLOCK_MB << 20, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS))
        except OSError as e:
            raise MemoryError(f"chaos: memhog stopped after {len(hoard) * _BLOCK_MB} MB: {e.strerror}") from None
    sys.exit(f"chaos: memhog reached {MEMHOG_CAP_MB} MB and no limit stopped it")


def illegal_play(request: m.Request) -> bytes:
    """A discard of a well-formed card that is not in the hand."""
    hand = set(request.view.get("hand", []))
    card = next(code for code in _CODES if code not in hand)
    return json.dumps({"type": "play", "id": request.id, "ops": [{"op": "discard", "card": card}]}).encode() + b"\n"


def misbehave(kind: str, request: m.Request) -> bytes | None:
    """Do `kind` once; the line to send instead of a legal reply, or None to reply legally (kinds that play on)."""
    print(f"chaos: {kind} at request {request.id}", file=sys.stderr, flush=True)
    if kind == "crash":
        sys.exit(3)
    if kind == "exit":
        os._exit(0)
    if kind == "hang":
        time.sleep(ORPHAN_LIFE)
        os._exit(0)
    if kind == "memhog":
        memory_hog()
    if kind == "forkbomb":
        print(f"chaos: forked {fork_bomb()} children", file=sys.stderr, flush=True)
    if kind == "escapee":
        escape()
    if kind == "garbage":
        return b"this is not json {\n"
    if kind == "illegal":
        return illegal_play(request)
    return None


def _seed(seed: int, match_seed: int | None) -> int:
    """The brain's seed: this bot's `--seed` mixed with the match's, so every match plays differently."""
    return random.Random(f"{seed}/{match_seed}").getrandbits(32)


def serve(kind: str, after: int, seed: int) -> None:
    """Play legally for `after` requests, then misbehave as `kind`; stop at shutdown or end of input."""
    from sample_bots.brain import Brain

    brain, answered, done = None, 0, False
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        try:
            msg = m.decode_to_bot(line)
        except msgspec.DecodeError as e:
            sys.exit(f"chaos: {e}")
        if isinstance(msg, m.Hello):
            brain = Brain(msg.variant, msg.players, msg.options, greedy=False, seed=_seed(seed, msg.seed))
            out.write(m.encode(m.Ready(name=f"chaos-{kind}", version="1")))
        elif isinstance(msg, m.Request) and brain is not None:
            reply = None
            if answered >= after and not done:
                done = True
                reply = misbehave(kind, msg)
            if kind == "stderr_flood" and done:
                sys.stderr.write(_FLOOD)
                sys.stderr.flush()
            out.write(reply or m.encode(m.Play(msg.id, brain.choose(msg.decision, msg.view))))
            answered += 1
        elif isinstance(msg, m.Rejected) and brain is not None:
            brain.cautious = True
        elif isinstance(msg, m.Shutdown):
            break
        out.flush()


def main(argv: list[str] | None = None) -> None:
    """The command line: `python -m sample_bots.bad.chaos --kind KIND --after N --seed S`."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    serve(args.kind, args.after, args.seed)


if __name__ == "__main__":
    main()
