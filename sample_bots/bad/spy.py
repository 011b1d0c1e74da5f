"""A hostile entrant: before it plays, it tries every way out of its seat that a cheat would, then becomes the random
sample bot (exec), so the match goes on. What it found goes to stderr as one line, `SPY {json}` (the record keeps a
bot's stderr): for each attack, "blocked: why" or "SUCCEEDED: evidence".

Attacks: other processes (their command lines and environments, searched for `--needle`, given reversed so that this
bot's own command line does not hold it; their pipes through /proc/PID/fd; signals and ptrace to every PID it can
see), files (`--read PATH`, `--write PATH`: a key, the results database, the record, another entrant's program),
the network (`--connect HOST:PORT`, also after trying to setns() into every network namespace it can see; `--dask
ADDRESS`: a Dask scheduler, as a client that submits code), a mount (`--mount-at DIR`, default /tmp/spy-mount), a
user namespace of its own, the capabilities it holds, a fork bomb (`--fork-bomb`), and filling the disk (`--fill`:
/tmp, its folder, the root).
"""

import contextlib
import ctypes
import errno
import json
import os
import signal
import socket
import sys
import time

LIBC = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000
PTRACE_ATTACH, PTRACE_DETACH = 16, 17
FOREIGN_LIMIT = 65536  # PIDs probed with signals


def args(flag: str) -> list[str]:
    return [sys.argv[i + 1] for i, a in enumerate(sys.argv[:-1]) if a == flag]


def failed(what: str) -> str:
    return f"blocked: {what}"


def errno_text() -> str:
    return os.strerror(ctypes.get_errno())


def others() -> list[int]:
    """The PIDs this bot can see that are not its own process or its ancestors inside the sandbox."""
    me = os.getpid()
    mine = {me, os.getppid(), 1}
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) not in mine]


def hunt_processes(needle: str) -> dict[str, str]:
    found = {}
    seen, readable, hits = others(), [], []
    for pid in seen:
        for part in ("cmdline", "environ"):
            try:
                with open(f"/proc/{pid}/{part}", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            readable.append(f"{pid}/{part}")
            if needle and needle.encode() in data:
                hits.append(f"{pid}/{part}")
    found["processes"] = f"SUCCEEDED: sees {len(seen)} other processes" if seen else failed("no other process visible")
    found["seed"] = f"SUCCEEDED: found in {hits[:3]}" if hits else failed(f"not in {len(readable)} readable files")
    return found


def steal_pipes() -> str:
    stolen = []
    for pid in others():
        with contextlib.suppress(OSError):
            for fd in os.listdir(f"/proc/{pid}/fd"):
                with contextlib.suppress(OSError):
                    os.close(os.open(f"/proc/{pid}/fd/{fd}", os.O_RDONLY | os.O_NONBLOCK))
                    stolen.append(f"{pid}/{fd}")
    return f"SUCCEEDED: opened {stolen[:5]}" if stolen else failed("no other process's descriptors")


def signal_everyone() -> str:
    hit = []
    mine = {os.getpid(), os.getppid(), 1}
    for pid in range(2, FOREIGN_LIMIT):
        if pid in mine:
            continue
        try:
            os.kill(pid, 0)
            hit.append(pid)
        except ProcessLookupError:
            pass
        except PermissionError:
            pass
    return f"SUCCEEDED: may signal {hit[:5]}" if hit else failed("no process to signal")


def ptrace_everyone() -> str:
    """Attach to each process it sees, from a child that waits for the stop and detaches (and whose exit would
    detach anyway), so that no victim is left stopped."""
    child = os.fork()
    if child == 0:
        hit = 0
        for pid in others():
            if pid != os.getppid() and LIBC.ptrace(PTRACE_ATTACH, pid, None, None) == 0:
                hit += 1
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0x40000000)  # __WALL
                LIBC.ptrace(PTRACE_DETACH, pid, None, None)
        os._exit(min(hit, 255))
    _, status = os.waitpid(child, 0)
    hit = os.waitstatus_to_exitcode(status)
    return f"SUCCEEDED: attached to {hit} processes" if hit else failed("no process to attach to")


def files() -> dict[str, str]:
    found = {}
    for path in args("--read"):
        try:
            with open(path, "rb") as f:
                found[f"read {path}"] = f"SUCCEEDED: {len(f.read())} bytes"
        except OSError as e:
            found[f"read {path}"] = failed(e.strerror or str(e))
    for path in args("--write"):
        try:
            with open(path, "r+b") as f:
                f.write(b"#!/bin/sh\nexit 3\n")
            found[f"write {path}"] = "SUCCEEDED: overwritten"
        except OSError as e:
            found[f"write {path}"] = failed(e.strerror or str(e))
    return found


def connect(target: str) -> str:
    host, port = target.rsplit(":", 1)
    try:
        with socket.create_connection((host, int(port)), timeout=2):
            return "SUCCEEDED: connected"
    except OSError as e:
        return failed(e.strerror or str(e))


def drive_dask(address: str) -> str:
    """Connect to a Dask scheduler as a client (without its certificate, which it cannot read) and run code there."""
    from distributed import Client
    from distributed.security import Security

    # a certificate of its own: a TLS client the scheduler can only refuse by checking who signed it
    security = Security.temporary() if address.startswith("tls://") else None
    try:
        with Client(address, security=security, timeout=5, set_as_default=False) as client:
            client.submit(os.getpid, pure=False).result(timeout=5)
        return "SUCCEEDED: ran code on the cluster"
    except Exception as e:  # whatever refuses it: the report names it
        return failed(f"{type(e).__name__}: {str(e)[:160]}")


def network() -> dict[str, str]:
    found = {f"connect {t}": connect(t) for t in args("--connect")}
    found |= {f"dask {a}": drive_dask(a) for a in args("--dask")}
    moved = []
    for pid in [1, *others()]:
        with contextlib.suppress(OSError):
            fd = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY)
            if LIBC.setns(fd, CLONE_NEWNET) == 0:
                moved.append(pid)
            os.close(fd)
    found["setns"] = f"SUCCEEDED: joined the network of {moved}" if moved else failed("no namespace joined")
    if moved:
        found.update({f"connect {t} after setns": connect(t) for t in args("--connect")})
    return found


def privileges() -> dict[str, str]:
    found = {}
    with open("/proc/self/status") as f:
        caps = next(line.split()[1] for line in f if line.startswith("CapEff"))
    found["capabilities"] = f"SUCCEEDED: CapEff {caps}" if int(caps, 16) else failed("CapEff 0")
    target = (args("--mount-at") or ["/tmp/spy-mount"])[0].encode()
    os.makedirs(target, exist_ok=True)
    if LIBC.mount(b"none", target, b"tmpfs", 0, None) == 0:
        found["mount"] = "SUCCEEDED: mounted a tmpfs"
        LIBC.umount(target)
    else:
        found["mount"] = failed(errno_text())
    pid = os.fork()
    if pid == 0:  # unshare in a child, so that this process stays as it was
        os._exit(0 if LIBC.unshare(CLONE_NEWUSER) == 0 else 1)
    _, status = os.waitpid(pid, 0)
    found["userns"] = "SUCCEEDED: made a user namespace" if status == 0 else failed("unshare(CLONE_NEWUSER) refused")
    found["uid"] = str(os.getuid())
    return found


def fork_bomb() -> str:
    children = []
    error = ""
    try:
        for _ in range(5000):
            pid = os.fork()
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            children.append(pid)
    except OSError as e:
        error = errno.errorcode.get(e.errno or 0, str(e))
    for pid in children:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    return f"forked {len(children)}" + (f", then {error}" if error else "")


def fill() -> dict[str, str]:
    found = {}
    for where in ("/tmp", os.getcwd(), "/"):
        path, written = os.path.join(where, "spy-fill"), 0
        try:
            with open(path, "wb") as f:
                chunk = b"\0" * (1 << 20)
                while written < (1 << 30):
                    f.write(chunk)
                    f.flush()
                    written += len(chunk)
            found[f"fill {where}"] = f"SUCCEEDED: wrote {written >> 20} MB"
        except OSError as e:
            found[f"fill {where}"] = f"blocked after {written >> 20} MB: {e.strerror}"
        with contextlib.suppress(OSError):
            os.remove(path)
    return found


def main() -> None:
    needle = "".join(reversed(args("--needle")[0])) if args("--needle") else ""
    report = {**hunt_processes(needle), "pipes": steal_pipes(), "signals": signal_everyone()}
    report["ptrace"] = ptrace_everyone()
    report |= files() | network() | privileges()
    if "--fork-bomb" in sys.argv:
        report["fork bomb"] = fork_bomb()
    if "--fill" in sys.argv:
        report |= fill()
    sys.stderr.write("SPY " + json.dumps(report) + "\n")
    sys.stderr.flush()
    os.execv(sys.executable, [sys.executable, "-m", "sample_bots.random"])


main()
