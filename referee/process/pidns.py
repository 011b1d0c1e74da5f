"""Run a command as the init of a new PID namespace (--pid): the containment of trusted bots (`--sandbox none`).

Run as a script (`python -I -S pidns.py --pid -- ARGV...`; standard library only, so it starts in
milliseconds). It unshares the namespaces, forks the bot as the namespace's init (PID 1, whose death
makes the kernel kill everything else in the namespace: setsid() and double forks do not escape),
ties it to this process with PR_SET_PDEATHSIG, and waits. Unlike util-linux's `unshare --fork`, it
lets go of the bot's stdin, stdout and stderr, so the referee sees the bot close them; and it exits
as the bot did (the same code, or killed by the same signal).
"""

import ctypes
import os
import select
import signal
import sys

CLONE_NEWPID = 0x20000000
PR_SET_PDEATHSIG = 1


def main(args: list[str]) -> None:
    """Unshare, fork the bot (PID 1 of a new PID namespace), and exit as it exits."""
    split = args.index("--")
    flags, argv = args[:split], args[split + 1 :]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWPID if "--pid" in flags else 0) != 0:
        sys.exit(f"romis sandbox: unshare: {os.strerror(ctypes.get_errno())}")
    alive_r, alive_w = os.pipe()  # this process holds the write end: EOF means it has died
    pid = os.fork()
    if pid == 0:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        os.close(alive_w)
        if select.select([alive_r], [], [], 0)[0]:  # the parent died before the prctl took effect
            os._exit(1)
        os.close(alive_r)
        try:
            os.execvp(argv[0], argv)
        except OSError as e:
            print(f"romis sandbox: cannot run {argv[0]!r}: {e.strerror}", file=sys.stderr)
            os._exit(127)
    os.close(alive_r)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the referee's to handle, not ours
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main(sys.argv[1:])
