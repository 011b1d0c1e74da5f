"""The sandbox every bot runs in: bubblewrap (`bwrap`), as the IOI's `isolate` runs each program.

A bot sees the system's read-only directories (`SYSTEM`, a few files of `/etc`), the Python environment romis runs
in (so `python` bots and romis's own `protocol.bot` work), its own folder (read-only, or a private writable copy),
the paths its entrant adds, a private capped `/tmp`, and nothing else: no other process (its own PID namespace and
`/proc`), no network but its own loopback unless its entrant asks, no capabilities, no way to make a user namespace
of its own. Run as root, romis starts each bot under a uid of its own from a pool (`UidPool`), as `isolate` gives
each box its own, so `RLIMIT_NPROC` caps that bot alone and no seat can touch another's files or processes; run as
a normal user, bubblewrap's user namespace maps the bot to that user.

Where bubblewrap cannot run (not installed, or user namespaces refused), `sandbox_mode()` says so in one line and
romis runs bots only with `--sandbox none`: processes are still contained (referee.process.spawn: a PID namespace,
else the subreaper), but nothing is hidden.
"""

import fcntl
import functools
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from referee.process.spawn import PIDNS, SUBREAPER, containment_works
from referee.rules.errors import ConfigError

BWRAP, NONE = "bwrap", "none"
SANDBOX_VAR = "ROMIS_SANDBOX"  # auto (the default), bwrap, none; pid-namespace or subreaper: none, contained so
SANDBOX_CHOICES = ("auto", BWRAP, NONE, PIDNS, SUBREAPER)
UNTRUSTED_WARNING = "not for untrusted bots"
UIDS_VAR = "ROMIS_SANDBOX_UIDS"  # FIRST-LAST: the uids romis may give bots when it runs as root
DEFAULT_UIDS = (62000, 62999)

# what every bot may read: the system's programs and libraries (a merged-/usr system's /bin is a link into /usr)
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
KERNEL = ("/proc", "/sys", "/dev")  # files of the kernel's, never a bot's folder
ETC = (
    "alternatives",  # Debian's links behind /usr/bin/node, /usr/bin/java, ...
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "passwd",
    "group",
    "nsswitch.conf",
    "hosts",
    "host.conf",
    "gai.conf",
    "resolv.conf",
    "ssl",
    "ca-certificates",
)
ROMIS_PACKAGES = ("protocol", "referee", "sample_bots")  # romis's own code: `protocol.bot`, the rules engine
# the environment a bot gets: these names (and ROMIS_*) pass from the referee's; nothing else (keys, tokens)
PASSED_ENV = ("PATH", "LANG", "LANGUAGE", "TZ", "TERM", "PYTHONPATH", "NODE_PATH")
INSIDE_HOME = "/tmp"
STAGE = "/.romis-folder"  # where a writable bot's folder is read from before it is copied
STAGE_ROOT = "/run/romis-stage"  # as root: where stage.py binds what a bot's uid could not reach (an empty folder)
_STAGE_HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stage.py")


@dataclass(frozen=True)
class Box:
    """What one bot may have beyond the default sandbox: its entrant's choices (`network`, `writable`, `paths`).

    `sandbox` overrides the match's mode for this bot alone (the human seat is romis's own program at the
    organiser's terminal, so it runs contained but not sandboxed)."""

    network: bool = False  # the host's network, rather than a loopback of its own
    writable: bool = False  # a private writable copy of its folder (on a capped tmpfs, gone after the match)
    paths: tuple[str, ...] = ()  # more host paths it may read (read-only, at the same place)
    sandbox: str | None = None


_probe: dict[str, str | None] = {}


def unavailable() -> str | None:
    """Why bubblewrap cannot sandbox a bot here (one clause), or None if it can (probed once per process)."""
    if "why" not in _probe:
        _probe["why"] = _probe_bwrap()
    return _probe["why"]


def _probe_bwrap() -> str | None:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)"
    argv = wrap(["/bin/true"], Box(), "/", uid=DEFAULT_UIDS[1] if os.getuid() == 0 else None)
    try:
        r = subprocess.run(argv, capture_output=True, timeout=20, env={})
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap did not run: {e}"
    if r.returncode == 0:
        return None
    said = r.stderr.decode(errors="replace").strip().splitlines()
    return f"bubblewrap cannot make a sandbox here ({said[-1] if said else f'exit code {r.returncode}'})"


def sandbox_mode(wanted: str | None = None, source: str = SANDBOX_VAR) -> str:
    """The sandbox in force: BWRAP, or under `none` the containment of trusted bots (PIDNS, else SUBREAPER).

    `wanted` (default: $ROMIS_SANDBOX, else auto): auto and bwrap need bubblewrap (ConfigError naming why not
    and the way out, `--sandbox none`); none picks the containment; pid-namespace and subreaper force one
    (tests); `source` names the setting in errors.
    """
    if wanted is None:
        wanted = os.environ.get(SANDBOX_VAR, "auto").strip() or "auto"
    if wanted not in SANDBOX_CHOICES:
        raise ConfigError(f"{source} must be auto, {BWRAP} or {NONE}, got {wanted!r}")
    if wanted in ("auto", BWRAP):
        why = unavailable()
        if why is not None:
            raise ConfigError(
                f'this machine cannot sandbox bots: {why}; give --sandbox none (sandbox = "none") to run only '
                "bots you trust, without a sandbox"
            )
        return BWRAP
    if wanted == SUBREAPER:
        return SUBREAPER
    if containment_works("--pid"):
        return PIDNS
    if wanted == PIDNS:
        raise ConfigError(f"{source} {PIDNS}: this machine refuses new PID namespaces")
    return SUBREAPER


def header(mode: str, network: list[int]) -> dict:
    """The record header's `sandbox` entry: the mode, the seats that had the network, and a warning under none."""
    if mode == BWRAP:
        return {"mode": BWRAP, "network": network}
    return {"mode": NONE, "containment": mode, "warning": UNTRUSTED_WARNING}


def describe() -> str:
    """One sentence for `romis play --help`: the sandbox in force here."""
    why = unavailable()
    if why is None:
        who = "a uid of its own (romis runs as root)" if os.getuid() == 0 else "a user namespace"
        return (
            f"Sandbox in force on this machine: {BWRAP} (each bot under {who}, in namespaces of its own, seeing only "
            "the system, its own folder and a private /tmp; no network unless asked)."
        )
    return f"Sandbox: none available ({why}); bots run only with --sandbox none, for bots you trust."


# --- the bubblewrap command line ---------------------------------------------------------------------------


def wrap(
    argv: list[str],
    box: Box,
    cwd: str,
    uid: int | None = None,
    tmp_mb: int = 64,
    env: dict | None = None,
    copy: str | None = None,
) -> list[str]:
    """`argv` as bubblewrap runs it in `box` from `cwd` (run as root: under `uid`, which must be given; `copy`: the
    private copy of its folder to bind in the folder's place, from `private_copy`)."""
    cwd = os.path.abspath(cwd)
    folder = bot_folder(argv, cwd)
    args = [
        shutil.which("bwrap") or "bwrap",
        "--unshare-all",
        "--unshare-user",
        "--disable-userns",
        "--as-pid-1",  # the bot is its namespace's init: when it exits, everything it started dies at once
        "--cap-drop",
        "ALL",
    ]
    if box.network:
        args.append("--share-net")
    # the private mounts first: a folder under /tmp (or a path the entrant adds there) is bound on top of them
    size = str(tmp_mb << 20)
    args += ["--hostname", "bot", "--proc", "/proc", "--dev", "/dev"]
    args += ["--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/dev/shm", "--dir", cwd]
    args += _system_binds()
    own = [(path, path) for path in _runtime_paths(argv[0], folder) + list(box.paths)]
    if folder is not None:
        own.append((copy or str(folder), STAGE if box.writable else str(folder)))
    staged = list(dict.fromkeys(src for src, _ in own if uid is not None and not _reachable(src)))
    if staged:
        os.makedirs(STAGE_ROOT, mode=0o755, exist_ok=True)
    for src, dest in own:
        args += ["--ro-bind", f"{STAGE_ROOT}/{staged.index(src)}" if src in staged else src, dest]
    if folder is not None and box.writable:
        args += ["--size", size, "--tmpfs", str(folder)]
    args += ["--remount-ro", "/", "--remount-ro", "/dev", "--chdir", cwd, "--clearenv"]
    for name, value in _bot_env(env if env is not None else dict(os.environ)).items():
        args += ["--setenv", name, value]
    if folder is not None and box.writable:  # copied inside, by the bot's own uid, into its own capped tmpfs
        argv = ["/bin/sh", "-c", 'cp -a "$0/." "$1" && shift && exec "$@"', STAGE, str(folder), *argv]
    args += ["--", *argv]
    if uid is not None:
        stage = [sys.executable, "-I", "-S", _STAGE_HELPER, STAGE_ROOT, *staged, "--"] if staged else []
        return [
            *stage,
            shutil.which("setpriv") or "setpriv",
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--no-new-privs",
            "--",
            *args,
        ]
    return args


@functools.cache
def _system_binds() -> list[str]:
    binds: list[str] = []
    for path in SYSTEM:
        if os.path.islink(path):
            binds += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            binds += ["--ro-bind", path, path]
    for name in ETC:
        binds += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return binds


def _runtime_paths(program: str, folder: Path | None) -> list[str]:
    """The Python environment romis runs in, romis's own packages, and the installation of an interpreter that lives
    outside the system's directories (under /opt or a home folder: its prefix, above `bin/`); a program in the
    bot's own folder is the folder's."""
    paths = set(_romis_paths())
    real = os.path.realpath(program)
    if os.path.isabs(program) and not _inside(real, SYSTEM) and not (folder and _inside(real, (str(folder),))):
        parent = os.path.dirname(real)
        paths.add(os.path.dirname(parent) if os.path.basename(parent) == "bin" else parent)
    if sys.prefix != os.path.realpath(sys.prefix):  # a venv reached through a link: its own path too
        paths.add(sys.prefix)
    return sorted(p for p in paths if not _inside(p, SYSTEM) and p != "/")


def _reachable(path: str) -> bool:
    """Whether every folder above `path` may be searched by others (as a sandbox's uid must, to bind it)."""
    parent = os.path.dirname(os.path.realpath(path))
    while True:
        try:
            if not os.stat(parent).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
        if parent == "/":
            return True
        parent = os.path.dirname(parent)


@functools.cache
def _romis_paths() -> tuple[str, ...]:
    """The Python environment romis runs in and romis's own packages, as real paths."""
    paths = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix)}
    root = Path(__file__).resolve().parents[2]
    paths |= {str(root / name) for name in ROMIS_PACKAGES if (root / name / "__init__.py").exists()}
    return tuple(paths)


def _inside(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == r or path.startswith(r + "/") for r in roots)


def bot_folder(argv: list[str], cwd: str) -> Path | None:
    """A bot's own folder: the directory of the first word of its command that names an existing file outside the
    system's directories (`./bot`, `python bots/mine/bot.py`, `node /srv/bots/x/main.js`); for `python -m pkg.mod`
    with no such word, the folder `pkg` in the bot's working directory. None if it has neither."""
    for i, word in enumerate(argv):
        if word.startswith("-"):
            if word == "-m" and i + 1 < len(argv):
                package = Path(cwd, argv[i + 1].split(".")[0])
                return package if _is(package, Path.is_dir) else None
            if word == "-c":  # a program given as text (`python -c CODE`) has no folder
                return None
            continue
        path = Path(cwd, word)
        if (
            (os.sep in word or i > 0)
            and _is(path, Path.is_file)
            and not _inside(os.path.realpath(path), SYSTEM + KERNEL)
        ):
            if i == 0 and _is_runtime(str(path)):
                continue
            folder = path.resolve().parent
            return None if str(folder) == "/" else folder  # never the whole machine
    return None


def _is(path: Path, kind: Callable[[Path], bool]) -> bool:
    """`kind(path)` (is_file, is_dir), False for a word that cannot be a path at all (too long, a NUL in it)."""
    try:
        return kind(path)
    except (OSError, ValueError):
        return False


def private_copy(argv: list[str], cwd: str, uid: int) -> str | None:
    """As root: a copy of the bot's folder owned by its `uid`, when others may not read the folder itself (mode
    `o+rX`, as bubblewrap binds it under the bot's uid); None when the folder may be bound as it is. The caller
    removes the copy's parent (`os.path.dirname`) once the bot is gone."""
    folder = bot_folder(argv, cwd)
    if folder is None or os.stat(folder).st_mode & 0o005 == 0o005:
        return None
    root = os.path.join(_state_root(), "copies")
    os.makedirs(root, mode=0o755, exist_ok=True)
    scratch = tempfile.mkdtemp(prefix="bot-", dir=root)
    os.chmod(scratch, 0o755)
    copy = os.path.join(scratch, "folder")
    shutil.copytree(folder, copy, symlinks=True)
    for base, dirs, files in os.walk(copy):
        for name in [base, *(os.path.join(base, n) for n in dirs + files)]:
            os.lchown(name, uid, uid)
    return copy


def _state_root() -> str:
    """romis's own folder for the sandbox's state as root (locks, staging, private copies): /run's where it has one."""
    return "/run/romis-sandbox" if os.path.isdir("/run") else os.path.join(tempfile.gettempdir(), "romis-sandbox")


def _is_runtime(program: str) -> bool:
    """True for romis's own interpreter (a `python` bot's program): the Python environment, not the bot's folder."""
    real = os.path.realpath(program)
    return any(real.startswith(os.path.realpath(p) + "/") for p in (sys.prefix, sys.base_prefix)) or (
        real == os.path.realpath(sys.executable)
    )


def _bot_env(env: dict[str, str]) -> dict[str, str]:
    kept = {k: v for k, v in env.items() if k in PASSED_ENV or k.startswith(("LC_", "ROMIS_"))}
    kept.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    return {**kept, "HOME": INSIDE_HOME, "TMPDIR": INSIDE_HOME}


# --- uids of their own (romis as root) -----------------------------------------------------------------------


class UidPool:
    """The uids bots run under when romis runs as root: each bot holds one, with an flock on its file in a root-only
    folder, for as long as it runs, so no two bots on the machine share one (other romis runs included)."""

    def __init__(self, first: int, last: int, folder: str | None = None):
        self.first, self.last = first, last
        self.folder = folder or os.path.join(_state_root(), "uids")

    @classmethod
    def from_env(cls) -> "UidPool":
        """The pool of $ROMIS_SANDBOX_UIDS (FIRST-LAST), else 62000-62999; ConfigError if malformed."""
        text = os.environ.get(UIDS_VAR, "").strip()
        if not text:
            return cls(*DEFAULT_UIDS)
        try:
            first, last = (int(x) for x in text.split("-"))
        except ValueError:
            raise ConfigError(f"{UIDS_VAR} must be FIRST-LAST (two uids), got {text!r}") from None
        if not 0 < first <= last < 2**31:
            raise ConfigError(f"{UIDS_VAR}: {text!r} is not a range of uids above 0")
        return cls(first, last)

    def take(self) -> tuple[int, int]:
        """(uid, lock descriptor) of a free uid; close the descriptor to give it back. ConfigError if none is free."""
        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        count = self.last - self.first + 1
        start = os.getpid() % count
        for k in range(count):
            uid = self.first + (start + k) % count
            fd = os.open(f"{self.folder}/{uid}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            return uid, fd
        raise ConfigError(f"no sandbox uid is free in {self.first}-{self.last} ({UIDS_VAR})")


_pool: list[UidPool] = []


def take_uid() -> tuple[int, int] | tuple[None, None]:
    """A uid of its own for a bot (and the lock to close after it) when romis runs as root, else (None, None)."""
    if os.getuid() != 0:
        return None, None
    if not _pool:
        _pool.append(UidPool.from_env())
    return _pool[0].take()


def give_back(fd: int | None, copy: str | None = None) -> None:
    """Return a uid taken by `take_uid`, and remove the private copy of a folder made for its bot."""
    if copy is not None:
        shutil.rmtree(os.path.dirname(copy), ignore_errors=True)
    if fd is not None:
        with suppress(OSError):
            os.close(fd)
