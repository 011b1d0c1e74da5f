"""Running a tournament's games on a Dask cluster (`executor = "dask"`, the optional extra `romis[dask]`).

Only this module imports Dask, and only a run with the dask executor imports this module. Each game is one task
under a key of its own (the game's key, this run's nonce and a retry counter: Dask would merge identical calls,
and another tournament on the same cluster has the same game keys). At most a window of games is submitted at a
time and each future is released once its result is stored, so the client's memory stays bounded and a worker
that dies later does not make Dask play finished games again. Results come back to this process, where the
store's one writer commits them (`on_result`), so resuming after a SIGKILL of the client works as for the local
executor. A worker that dies takes only its game along: Dask plays it again elsewhere (up to its
`distributed.scheduler.allowed-failures`), then this executor resubmits it once under a new key. A game that fails
for a reason of its own (a bot program missing on the worker, the referee raising) comes back as a failure, not
an exception, so nothing retries it.

No shared file system is needed. A game's record is written by its worker to a private file in the worker's local
directory (never at the configured path), read back, deleted, and returned compressed with the result; this
process writes it at the configured path (RecordWriter's guarantees: a temporary file, fsync, rename) and signs
it, where the key file is, before the result is stored, so a stored game always has its record. A records disk
that refuses it stops the run as it does for the local executor (tournaments.run, RECORD_ERROR).

A bot that is a folder (a relative path to a file in its command: `bots/mine/run.sh`, `python bots/mine/bot.py`)
is shipped as a tar of that folder, keyed by its SHA-256, in a worker plugin: every worker, one that joins later
too, unpacks it once into its local directory (executable bits kept; Dask's UploadDirectory loses them), and the
bot runs there. Every bot a worker starts dies with it (referee.process.reaper's watchdog, started by another plugin).

Whoever can connect to a Dask scheduler (or worker) can make it run code, and a bot with network access can reach
this machine's ports. So the local cluster speaks TLS only (scheduler, workers, nannies and this client), under a
self-signed certificate made for the run and held in memory (the scheduler refuses a client without it), and a
scheduler of the organiser's is reached over TLS with the files the configuration names (tournaments.config
refuses a plain one unless told it is on a network no bot reaches).
"""

import hashlib
import io
import logging
import os
import posixpath
import secrets
import shlex
import shutil
import sys
import tarfile
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any

from distributed import Client, Future, LocalCluster, WorkerPlugin, as_completed, get_worker
from distributed.scheduler import KilledWorker
from distributed.security import Security

from referee.process.reaper import Guard
from referee.records import RecordError, load_key, sign_record, write_record
from referee.rules.errors import ConfigError
from tournaments.run import OnFailure, OnResult, play_game
from tournaments.spec import GameSpec
from tournaments.workers import Reply, _play, describe_error

FOLDER_CAP = 64 << 20  # bytes of a bot folder's archive: each worker holds it in memory and on disk
CONNECT_TIMEOUT = 10  # seconds to reach a scheduler before the run is refused
RESUBMITS = 1  # times a game whose task was lost (not one that failed on its own) is submitted again


@dataclass(frozen=True)
class Folder:
    """A bot folder shipped to the workers: its archive's digest, and which word of the command names which of
    its files."""

    sha: str
    word: int
    path: str  # relative to the folder


class BotFolder(WorkerPlugin):
    """Unpacks one bot folder on every worker (registered once per archive: the name is its digest)."""

    idempotent = True  # a later run's registration of the same archive leaves it be

    def __init__(self, sha: str, archive: bytes):
        self.sha, self.archive = sha, archive
        self.name = f"romis-bot-{sha}"

    def setup(self, worker: Any) -> None:  # distributed's Worker
        unpack(self.archive, folder_root(worker.local_directory, self.sha))


class Watchdog(WorkerPlugin):
    """referee.process.reaper's guard in every worker process: a worker that dies (SIGKILL included) takes its bots."""

    name = "romis-watchdog"
    idempotent = True  # a later run (or another tournament) must not replace it: that would kill running bots

    def setup(self, worker: Any) -> None:
        self.guard = Guard()

    def teardown(self, worker: Any) -> None:
        self.guard.close()


def folder_root(local_directory: str, sha: str) -> Path:
    """Where a worker keeps an unpacked bot folder."""
    return Path(local_directory) / "romis-bots" / sha


def archive(folder: Path) -> bytes:
    """A tar of `folder` that depends only on its contents (names sorted, no owners, no times), modes kept."""
    buf = io.BytesIO()

    def clean(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0
        return info

    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(folder.rglob("*")):
            if path.is_symlink() or path.is_file() or path.is_dir():
                tar.add(path, path.relative_to(folder).as_posix(), recursive=False, filter=clean)
    return buf.getvalue()


def unpack(data: bytes, root: Path) -> None:
    """Unpack an archive into `root` once (an unpacked folder is whole: it is renamed into place)."""
    if root.exists():
        return
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = root.with_name(f".{root.name}.{secrets.token_hex(4)}")
    try:
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            extract_data(tar, tmp)  # no path out of the folder; the owner's executable bits stay
    except BaseException:  # a refused member: no partial folder is left in the worker's directory
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    try:
        tmp.rename(root)
    except OSError:  # another task of this worker got there first
        shutil.rmtree(tmp, ignore_errors=True)


def extract_data(tar: tarfile.TarFile, dest: Path) -> None:
    """Extract `tar` into `dest` under tarfile's "data" filter. A Python older than 3.11.4 (Debian 12's python3.11
    is 3.11.2) has no filters: there each member is checked here as that filter would, for what a bot folder holds
    (files, folders and links, none leading out of `dest`; no setuid bits, no write bits for group or others), and
    a tarfile.TarError names the first member that fails."""
    if hasattr(tarfile, "data_filter"):
        tar.extractall(dest, filter="data")
        return
    members = tar.getmembers()
    for info in members:
        names = [info.name]
        if info.issym():
            names.append(posixpath.join(posixpath.dirname(info.name), info.linkname))
        elif info.islnk():
            names.append(info.linkname)
        plain = info.isfile() or info.isdir() or info.issym() or info.islnk()
        if not plain or any(posixpath.isabs(n) or posixpath.normpath(n).split("/")[0] == ".." for n in names):
            raise tarfile.TarError(f"{info.name!r} is not a file, folder or link inside a bot folder")
        info.mode = (info.mode & 0o755) | (0o600 if info.isfile() else 0)
    tar.extractall(dest, members)


def bot_folder(command: str) -> tuple[Folder, bytes] | None:
    """The folder of a bot command and its archive: the directory of the command's first word that is a relative
    path to a file here (relative: an absolute path names the same file on every worker). None if it has none."""
    words = shlex.split(command)
    for i, word in enumerate(words):
        path = Path(word)
        if os.sep in word and not path.is_absolute() and path.is_file():
            data = archive(path.parent)
            if len(data) > FOLDER_CAP:
                raise ConfigError(
                    f"bot command {command!r}: its folder {path.parent} is {len(data) >> 20} MB, more than the "
                    f"{FOLDER_CAP >> 20} MB shipped to each Dask worker"
                )
            return Folder(hashlib.sha256(data).hexdigest(), i, path.name), data
    return None


def play_on_worker(spec: GameSpec, folders: dict[str, Folder]) -> Reply:
    """A game on a Dask worker: its reply (a failure names the worker) and, last, its record or None. The record
    (if the game keeps one; a failed game's may end `interrupted`, or be missing) is written to a private file of
    the worker's, never at the configured path, and comes back compressed; the client signs it, where the key is."""
    worker = get_worker()
    private = Path(worker.local_directory) / "romis-records" / f"{secrets.token_hex(8)}.jsonl"
    if spec.record is not None:
        private.parent.mkdir(exist_ok=True)
        spec = replace(spec, record=str(private), sign_key=None)
    try:
        reply = _play_here(spec, folders, worker)
        return (*reply, zlib.compress(private.read_bytes(), 1) if private.exists() else None)  # 1/3 the bytes, 0.3 ms
    finally:
        private.unlink(missing_ok=True)


def _play_here(spec: GameSpec, folders: dict[str, Folder], worker: Any) -> Reply:
    """Play a game on this worker (distributed's Worker), its bot folders run where the plugins unpacked them."""
    commands, cwds = [], []
    for command in spec.commands:
        folder = folders.get(command)
        cwd = None
        if folder is not None:
            root = folder_root(worker.local_directory, folder.sha)
            words = shlex.split(command)
            words[folder.word] = str(root / folder.path)
            command, cwd = shlex.join(words), str(root)
        commands.append(command)
        cwds.append(cwd)
    # a worker's tasks run in threads: only a main thread may watch signals
    reply = _play(partial(play_game, stop_on=(), cwds=cwds), replace(spec, commands=tuple(commands)))
    if reply[0] == "failed":
        return ("failed", f"{reply[1]} (on Dask worker {worker.address})", reply[2])
    return reply


class DaskExecutor:
    """Runs games on a Dask cluster: the scheduler at `scheduler`, or a LocalCluster of `workers` processes (TLS,
    see `local_cluster`). `tls` (the CA, and this client's certificate and key: paths or PEM text) makes the client
    of `scheduler` speak TLS only; without it, Dask's configuration decides (plain TCP by default)."""

    def __init__(self, workers: int, scheduler: str | None = None, tls: tuple[str, str, str] | None = None):
        self.workers, self.scheduler, self.tls = workers, scheduler, tls

    def run(self, specs: Iterable[GameSpec], on_result: OnResult, on_failure: OnFailure) -> None:
        """Run every spec on the cluster; call `on_result` or `on_failure` here as each game ends."""
        specs = list(specs)
        keys = {k: load_key(k, "sign_key") for k in {s.sign_key for s in specs} if k}  # the client signs records
        with self._client() as client:
            folders = self._ship(client, {c for s in specs for c in s.commands})
            client.register_plugin(Watchdog())
            nonce = secrets.token_hex(4)
            futures: dict[Future, tuple[GameSpec, int]] = {}
            done = as_completed(loop=client.loop)

            def submit(spec: GameSpec, attempt: int = 0) -> None:
                key = f"romis-{spec.key}-{nonce}-{attempt}"
                future = client.submit(play_on_worker, spec, folders, key=key, pure=False)
                futures[future] = (spec, attempt)
                done.add(future)

            pending = iter(specs)
            for spec in islice(pending, self._window(client)):
                submit(spec)
            for future in done:
                spec, attempt = futures.pop(future)
                reply = _reply(future)
                future.release()  # before anything else can happen: a finished game is never played again
                if reply is None and attempt < RESUBMITS:
                    submit(spec, attempt + 1)
                    continue
                deliver(spec, reply, keys, on_result, on_failure)
                if (following := next(pending, None)) is not None:
                    submit(following)

    def _window(self, client: Client) -> int:
        """Games submitted at once: enough to keep every worker thread busy while results come back."""
        threads = sum(client.nthreads().values())
        if not threads:
            sys.stderr.write(f"romis: the Dask scheduler {self.scheduler} has no workers yet; waiting for them\n")
        return 2 * max(threads, self.workers)

    @staticmethod
    def _ship(client: Client, commands: set[str]) -> dict[str, Folder]:
        """Register a plugin for each bot folder among `commands`; the folder of each command that has one."""
        folders = {}
        for command in sorted(commands):
            found = bot_folder(command)
            if found is not None:
                folders[command], data = found
                client.register_plugin(BotFolder(found[0].sha, data))
        return folders

    @contextmanager
    def _client(self) -> Iterator[Client]:
        """A client of the scheduler, or of a LocalCluster started here and closed at the end."""
        if self.scheduler is None:
            with local_cluster(self.workers) as cluster, Client(cluster, set_as_default=False) as client:
                yield client
            return
        security = None
        if self.tls is not None:
            ca, cert, key = self.tls
            security = Security(tls_ca_file=ca, tls_client_cert=cert, tls_client_key=key, require_encryption=True)
        try:  # a bad certificate is an ssl.SSLError (an OSError); one the scheduler refuses, a timeout
            client = Client(self.scheduler, timeout=CONNECT_TIMEOUT, security=security, set_as_default=False)
        except (OSError, ValueError, TypeError) as e:
            raise ConfigError(f"cannot reach the Dask scheduler {self.scheduler}: {describe_error(e)}") from None
        with client:
            yield client


def local_cluster(workers: int) -> LocalCluster:
    """A cluster of `workers` single-threaded worker processes on this machine (a context manager: closed on exit),
    all of it on loopback over TLS under a temporary certificate of its own (`cluster.security`, which a Client of
    the cluster takes): a process without it, a bot with network access among them, cannot connect to it."""
    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        protocol="tls",
        security=Security.temporary(),
        # its HTTP server (read-only pages) on loopback, on a port of its own: the default 8787 may be another
        # cluster's (Dask warns, then moves), and ":0" would be every interface
        dashboard_address="127.0.0.1:0",
        silence_logs=logging.ERROR,
    )


def deliver(
    spec: GameSpec, reply: Reply | None, keys: dict[str, bytes], on_result: OnResult, on_failure: OnFailure
) -> None:
    """Report a game that came back from a worker (`play_on_worker`'s reply; None: its task was lost), once its
    record is in place: a stored game always has its record, and a failed one keeps what its record says."""
    if reply is None:
        on_failure(spec, f"the game's Dask task was lost {RESUBMITS + 1} times", "")
    elif refused := keep_record(spec, reply[-1], keys):
        on_failure(spec, refused, "")
    elif reply[0] == "done":
        on_result(reply[1])
    else:
        on_failure(spec, reply[1], reply[2])


def keep_record(spec: GameSpec, data: bytes | None, keys: dict[str, bytes]) -> str | None:
    """Put the record a worker sent back at the game's configured path (signed here, with the key of `keys` its
    spec names); why not if the disk refused, in the words a worker of the local executor would use."""
    if spec.record is None or data is None:
        return None
    record = zlib.decompress(data)
    if spec.sign_key:
        record = sign_record(record, keys[spec.sign_key])
    try:
        write_record(spec.record, record)
    except RecordError as e:  # tournaments.run stops the run: the next one plays the game again
        return describe_error(e)
    except OSError as e:
        return describe_error(ConfigError(f"cannot write record {spec.record}: {e.strerror}"))
    return None


def _reply(future: Future) -> Reply | None:
    """What a finished task says: its game's reply, a failure if Dask gave up on it (its workers kept dying), or
    None if the task was lost otherwise (cancelled, its scheduler restarted): then it may be submitted again."""
    try:
        return future.result()
    except KilledWorker as e:
        return ("failed", f"every Dask worker that played this game died ({describe_error(e)})", "", None)
    except Exception:
        return None
