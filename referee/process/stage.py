"""Run a command in a mount namespace of its own in which host folders that a sandboxed bot's uid could not reach are
bound under a staging folder it can reach (romis as root only).

bubblewrap resolves every path it binds as the uid it runs the bot under, so a bot's folder (or romis's own Python)
under a parent that others may not search (`/root`, a 0700 home or temporary folder) cannot be bound. This helper
gives the path another way in: `python -I -S stage.py STAGE SRC... -- ARGV...` unshares a mount namespace, makes it
private (nothing it mounts reaches the host), mounts a small tmpfs on STAGE, binds each SRC read-only on STAGE/0,
STAGE/1, ..., and execs ARGV (setpriv, then bubblewrap, which binds STAGE/i where the bot expects SRC). The bound
folders' own permissions still apply. The namespace goes with the bot's processes. Standard library only, so it
starts in milliseconds.
"""

import ctypes
import os
import sys

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 0x1, 0x20, 0x1000, 0x4000, 0x40000


def main(args: list[str]) -> None:
    """Unshare a private mount namespace, stage the sources, exec the command."""
    split = args.index("--")
    (stage, *sources), argv = args[:split], args[split + 1 :]
    libc = ctypes.CDLL(None, use_errno=True)

    def check(result: int, what: str) -> None:
        if result != 0:
            sys.exit(f"romis sandbox: {what}: {os.strerror(ctypes.get_errno())}")

    check(libc.unshare(CLONE_NEWNS), "unshare")
    check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "private mounts")
    check(libc.mount(b"tmpfs", stage.encode(), b"tmpfs", 0, b"mode=0755,size=64k"), f"tmpfs on {stage}")
    for i, source in enumerate(sources):
        target = os.path.join(stage, str(i))
        if os.path.isdir(source):
            os.mkdir(target)
        else:
            open(target, "w").close()
        check(libc.mount(source.encode(), target.encode(), None, MS_BIND | MS_REC, None), f"bind {source}")
        flags = MS_BIND | MS_REC | MS_REMOUNT | MS_RDONLY
        check(libc.mount(None, target.encode(), None, flags, None), f"read-only {source}")
    os.execvp(argv[0], argv)


if __name__ == "__main__":
    main(sys.argv[1:])
