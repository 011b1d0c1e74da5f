"""The Dask executor against a real `dask scheduler` and two real `dask worker --nthreads 1` on loopback, over TLS."""

import asyncio
import json
import os
import shutil
import signal
import sqlite3
import ssl
import subprocess
import sys
import time
import uuid
import zlib
from dataclasses import dataclass
from pathlib import Path

import pytest
from procs import TOKEN_VAR, Tree, group_gone, is_alive, leftovers, marked, wait_until
from test_store_safety import fill, remount, romis_lines, tmpfs, whole_records
from test_tournament import ROOT, kill_and_resume, report, start_tournament, stored_games, tournament, untimed

from referee.records import read_record, replay
from referee.rules.errors import ConfigError
from tournaments.spec import GameSpec

pytest.importorskip("distributed", reason="the dask extra (pip install -e '.[test,dask]', as make test does)")
pytestmark = pytest.mark.e2e
DASK = str(Path(sys.executable).parent / "dask")
C_BOT = ROOT / "sample_bots/c/random"  # seeded by its hello; it starts in a millisecond, where a Python bot takes 1 s
# 1 table of 2 seats, 3 deal sets, 2 rotations: 6 games of classic, one short deal each
SMALL = f"""
variant = "classic"
seats = 2
deal_sets = 3
seed = 4
options = {{max_deals = 1, max_turns_per_deal = 40}}
entrants = [{{name = "one", command = "{C_BOT}"}}, {{name = "two", command = "{C_BOT}"}}]
"""


def small(tmp: Path, extra: str = "") -> str:
    """The path of a configuration file of SMALL (with `extra` settings before it)."""
    path = tmp / "small.toml"
    path.write_text(extra + SMALL)
    return str(path)


@pytest.fixture(scope="module", autouse=True)
def _c_bot(c_bot):
    """SMALL's bot, built by make."""


@dataclass
class Cluster:
    """A scheduler and its workers, each the leader of a process group of its own, speaking TLS."""

    address: str
    scheduler: subprocess.Popen
    workers: list[subprocess.Popen]
    token: str  # in the environment of every process of the cluster (and of the bots its workers start)
    tls: tuple[str, str, str]  # the files of its certificate: CA, certificate, key

    def dask(self, *args: str) -> list[str]:
        """The arguments of a tournament run on this cluster (its configuration file names the `settings`)."""
        return [*args, "--executor", "dask", "--scheduler", self.address]

    @property
    def settings(self) -> str:
        """The TOML lines of its certificate's files."""
        return "".join(f'{key} = "{path}"\n' for key, path in zip(("tls_ca_file", "tls_cert", "tls_key"), self.tls))


def certificate(tmp: Path) -> tuple[str, str, str]:
    """The files (CA, certificate, key) of a new self-signed certificate, its own CA, as a cluster may use."""
    from distributed.security import Security

    made = Security.temporary()
    for name, pem in [("cert.pem", made.tls_client_cert), ("key.pem", made.tls_client_key)]:
        (tmp / name).write_text(pem)
    return str(tmp / "cert.pem"), str(tmp / "cert.pem"), str(tmp / "key.pem")


def start_cluster(tmp: Path, workers: int = 2) -> Cluster:
    token = uuid.uuid4().hex
    env = {**os.environ, TOKEN_VAR: token}
    common = {"env": env, "start_new_session": True, "stdout": subprocess.DEVNULL, "cwd": tmp}
    info = tmp / "scheduler.json"
    tls = certificate(tmp)
    tls_args = [
        arg for option, path in zip(("--tls-ca-file", "--tls-cert", "--tls-key"), tls) for arg in (option, path)
    ]
    with open(tmp / "scheduler.log", "w") as log:
        scheduler = subprocess.Popen(
            [DASK, "scheduler", "--protocol", "tls", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
            + ["--scheduler-file", str(info), *tls_args],
            stderr=log,
            **common,
        )
    cluster = Cluster("", scheduler, [], token, tls)
    try:
        assert wait_until(lambda: info.exists() and info.stat().st_size > 0, 60), "the scheduler did not start"
        cluster.address = json.loads(info.read_text())["address"]
        assert cluster.address.startswith("tls://"), cluster.address
        for i in range(workers):
            with open(tmp / f"worker{i}.log", "w") as log:
                argv = [DASK, "worker", cluster.address, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"]
                argv += ["--local-directory", str(tmp / f"worker{i}"), *tls_args]
                cluster.workers.append(subprocess.Popen(argv, stderr=log, **common))
        assert wait_until(lambda: _workers(cluster, tmp) == workers, 60), "the workers did not join"
    except BaseException:
        stop_cluster(cluster)
        raise
    return cluster


def _workers(cluster: Cluster, tmp: Path) -> int:
    """How many workers the scheduler has registered (from the workers' logs: no client needed)."""
    return sum("Registered to:" in (tmp / f"worker{i}.log").read_text() for i in range(len(cluster.workers)))


def stop_cluster(cluster: Cluster) -> None:
    """SIGKILL every process group of the cluster, reap the leaders, and check that nothing of it is left: no
    process of those groups, and no process carrying its token (the watchdogs and bots of its workers)."""
    leaders = [cluster.scheduler, *cluster.workers]
    for proc in leaders:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert all(group_gone(p.pid) for p in leaders), "a process of the cluster's groups is left"
    assert wait_until(lambda: not marked(cluster.token), 10), [p.cmd for p in marked(cluster.token)]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = start_cluster(tmp_path_factory.mktemp("cluster"))
    yield c
    stop_cluster(c)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> Path:
    """A directory with SMALL played by the local executor: its database `local.db` and its `records`."""
    tmp = tmp_path_factory.mktemp("local")
    r = tournament("run", small(tmp), "--concurrency", "2", "--db", str(tmp / "local.db"), "--records", tmp / "records")
    assert r.returncode == 0, r.stderr
    return tmp


@pytest.fixture(scope="module")
def local_report(local_run):
    """The report of SMALL played by the local executor, without its timings."""
    return untimed(report(local_run / "local.db"))


def tournament_in(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    """`romis tournament run ARGS` started in `cwd` (the workers of the module's cluster run in another one)."""
    return subprocess.run(
        [sys.executable, "-m", "referee", "tournament", "run", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def events(record: Path) -> list[dict]:
    """The lines of a record without their chain, signature and timings; the bots' `ready` lines (in the order the
    bots got ready) moved to the end, by seat."""
    drop = {"chain", "signature", "wall", "cpu"}
    lines = [{k: v for k, v in line.items() if k not in drop} for line in read_record(record)]
    return sorted(lines, key=lambda line: line["seat"] if line["type"] == "ready" else -1)  # a stable sort


def same(a, b) -> bool:
    """Two JSON reports equal byte for byte."""
    return json.dumps(a, sort_keys=True).encode() == json.dumps(b, sort_keys=True).encode()


def test_the_standings_on_the_cluster_are_those_of_the_local_executor(cluster, local_report, tmp_path):
    config = small(tmp_path, f'executor = "dask"\nscheduler = "{cluster.address}"\n' + cluster.settings)  # the file's
    db = tmp_path / "dask.db"
    r = tournament("run", config, "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert stored_games(db) == (6, 12)
    assert same(untimed(report(db)), local_report)


def test_without_a_scheduler_a_local_cluster_over_tls_plays_and_is_gone_at_the_end(
    local_report, tmp_path, monkeypatch, capfd
):
    """In this process, to see the scheduler the run starts (through the function it starts it with)."""
    from tournaments import cluster as dask_executor
    from tournaments.config import load
    from tournaments.run import run_tournament

    start, addresses = dask_executor.local_cluster, []

    def seen(workers: int):
        cluster = start(workers)
        addresses.append(cluster.scheduler_address)
        return cluster

    monkeypatch.setattr(dask_executor, "local_cluster", seen)
    db = tmp_path / "r.db"
    run_tournament(load(small(tmp_path), {"executor": "dask", "concurrency": 2, "db": str(db)})).close()
    assert len(addresses) == 1 and addresses[0].startswith("tls://127.0.0.1:")
    assert "Warning" not in capfd.readouterr().err and same(untimed(report(db)), local_report)
    # its scheduler, workers, watchdogs and bots; not the resource tracker multiprocessing started for this process
    # (it ends with this process: with a run's, as `romis tournament run` does)
    assert [p for p in leftovers() if "multiprocessing.resource_tracker" not in p.cmd] == []


def test_a_client_without_the_local_clusters_certificate_can_neither_connect_nor_run_code(tmp_path):
    """What a bot with network access on this machine could try against the cluster a run starts: Dask's client
    over plain TCP, or over TLS with a certificate of its own; a connection to the scheduler, a worker or a nanny
    over TCP, or over TLS without a certificate. Each is refused at once; the run's own client plays on."""
    from distributed import Client
    from distributed.comm import connect
    from distributed.security import Security

    from tournaments.cluster import local_cluster

    ran = tmp_path / "ran"
    no_certificate = ssl.create_default_context()
    no_certificate.check_hostname, no_certificate.verify_mode = False, ssl.CERT_NONE
    with local_cluster(1) as cluster:
        address = cluster.scheduler_address
        workers = cluster.scheduler_info["workers"]
        servers = [address, *workers, *(w["nanny"] for w in workers.values())]
        assert len(servers) == 3 and all(a.startswith("tls://127.0.0.1:") for a in servers), servers
        for hostile in [{"address": "tcp" + address[3:]}, {"address": address, "security": Security.temporary()}]:
            t0 = time.monotonic()
            with pytest.raises(OSError), Client(**hostile, timeout=5, set_as_default=False) as client:
                client.submit(ran.touch).result(timeout=5)
            assert time.monotonic() - t0 < 5, hostile
        for server in servers:
            for attempt in [{"addr": "tcp" + server[3:]}, {"addr": server, "ssl_context": no_certificate}]:
                with pytest.raises(OSError):
                    asyncio.run(connect(**attempt, timeout=5))
        with Client(cluster, set_as_default=False) as client:
            assert client.submit(sum, [1, 2]).result(timeout=30) == 3
    assert not ran.exists()


def test_romis_with_another_certificate_than_its_schedulers_is_one_line_and_exit_2(cluster, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    settings = "".join(f'{k} = "{v}"\n' for k, v in zip(("tls_ca_file", "tls_cert", "tls_key"), certificate(other)))
    t0 = time.monotonic()
    r = tournament("run", *cluster.dask(small(tmp_path, settings)), "--db", str(tmp_path / "r.db"))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    [line] = r.stderr.strip().splitlines()
    assert line.startswith(f"romis: cannot reach the Dask scheduler {cluster.address}: "), line
    assert time.monotonic() - t0 < 30 and stored_games(tmp_path / "r.db") == (0, 0)


def test_a_sigkill_of_the_client_then_resume_gives_the_same_standings(cluster, local_report, tmp_path):
    cut = tmp_path / "cut.db"
    args = cluster.dask(small(tmp_path, cluster.settings))
    proc = start_tournament(*args, "--db", str(cut), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    kill_and_resume(proc, args, cut, 6, stored=1)
    assert stored_games(cut) == (6, 12)
    assert same(untimed(report(cut)), local_report)


def test_a_bot_folder_is_shipped_to_the_workers_with_its_executable_script(cluster, tmp_path):
    folder = tmp_path / "mybot"
    folder.mkdir()
    shutil.copy2(C_BOT, folder / "random")  # executable, as the script is
    run = folder / "run.sh"
    run.write_text('#!/bin/sh\necho "cwd $(pwd)" >&2\nexec ./random\n')  # ./random: it runs in its folder
    run.chmod(0o755)
    db = tmp_path / "r.db"
    args = cluster.dask("--entrant", "mine=mybot/run.sh", "--entrant", f"c={C_BOT}", "--records", "recs")
    r = tournament_in(tmp_path, "--db", str(db), *args, small(tmp_path, cluster.settings), "--deal-sets", "1")
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT count(*), count(fault) FROM seats WHERE entrant = 'mine'").fetchone()
    assert rows == (2, 0)  # it played both games, and never faulted
    # the bot says where it ran on stderr (in the sandbox it can write nothing of the host's), which records keep
    lines = [json.loads(x) for record in (tmp_path / "recs").glob("*.jsonl") for x in record.read_text().splitlines()]
    cwds = {
        w.split(" ", 1)[1] for x in lines if x["type"] == "stderr" for w in x["tail"].splitlines() if w[:4] == "cwd "
    }
    assert cwds and all("romis-bots" in c and Path(c).is_relative_to(cluster_dir(cluster)) for c in cwds)
    assert all(os.access(Path(c) / "run.sh", os.X_OK) for c in cwds)


def cluster_dir(cluster: Cluster) -> Path:
    """The directory the cluster's workers keep their local directories under."""
    return Path(cluster.scheduler.args[cluster.scheduler.args.index("--scheduler-file") + 1]).parent


def test_a_bot_program_missing_on_the_workers_fails_its_games_naming_worker_and_command(cluster, tmp_path):
    db = tmp_path / "r.db"
    args = ["--entrant", "ghost=no-such-bot-program --fast", "--entrant", f"c={C_BOT}"]
    r = tournament("run", *cluster.dask(small(tmp_path, cluster.settings), *args, "--deal-sets", "1"), "--db", db)
    assert r.returncode == 1, r.stderr
    assert "Traceback" not in r.stderr and "2 of 2 games failed" in r.stderr
    with sqlite3.connect(db) as con:
        failures = con.execute("SELECT reason, attempts FROM failures").fetchall()
    assert len(failures) == 2
    for reason, attempts in failures:
        assert "'no-such-bot-program --fast'" in reason and "not found" in reason and attempts == 1
        assert "on Dask worker tls://127.0.0.1:" in reason


def test_records_land_at_the_clients_relative_path_signed_there_with_the_local_executors_events(
    cluster, local_run, tmp_path
):
    """The workers run in another directory: they could neither find the key file nor write at `recs` here."""
    (tmp_path / "key.bin").write_bytes(b"the organiser's key")
    settings = f'executor = "dask"\nscheduler = "{cluster.address}"\nrecords = "recs"\nsign_key = "key.bin"\n'
    settings += cluster.settings
    r = tournament_in(tmp_path, small(tmp_path, settings), "--db", "r.db")
    assert r.returncode == 0, r.stderr
    names = whole_records(tmp_path / "recs")
    assert names == whole_records(local_run / "records") and len(names) == 6
    for name in names:
        record = tmp_path / "recs" / f"{name}.jsonl"
        assert replay(record, b"the organiser's key")["signature"] == "ok"
        assert events(record) == events(local_run / "records" / f"{name}.jsonl")
    here = cluster_dir(cluster)
    assert not (here / "recs").exists()
    scratch = list(here.rglob("romis-records"))  # in the workers' local directories
    assert scratch and all(list(d.iterdir()) == [] for d in scratch)  # every private copy is gone


def test_a_record_the_clients_disk_refuses_stops_the_run_keeping_whole_records_and_the_resume_plays_on(
    cluster, tmp_path
):
    db = tmp_path / "r.db"
    with tmpfs("200k") as disk:
        records = disk / "records"
        records.mkdir()
        fill(disk, 45_000)  # two records of SMALL's games fit (20 kB each), a third does not
        args = cluster.dask(small(tmp_path, cluster.settings), "--db", str(db), "--records", str(records))
        r = tournament("run", *args)
        assert r.returncode == 3 and "Traceback" not in r.stderr, r.stderr
        [line] = romis_lines(r.stderr)
        assert "cannot write record" in line and "No space left on device" in line, line
        assert 1 <= stored_games(db)[0] < 6
        assert len(whole_records(records)) == stored_games(db)[0]  # each stored game has its whole record
        remount(disk, "size=20m")
        again = tournament("run", *args)
        assert again.returncode == 0, again.stderr
        assert stored_games(db) == (6, 12) and len(whole_records(records)) == 6


def test_registering_the_watchdog_again_leaves_the_running_games_and_their_bots_alone(cluster, tmp_path):
    db = tmp_path / "r.db"
    sleepy = "sleepy=python -m sample_bots.bad.sleepy 1.0 3"  # about 3 s of a game are left once its bots are seen
    args = cluster.dask(small(tmp_path, cluster.settings), "--entrant", sleepy, "--entrant", f"c={C_BOT}")
    args += ["--deal-sets", "1"]
    proc = start_tournament(*args, "--db", str(db), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        playing = register_the_watchdog_mid_game(cluster)
        assert all(is_alive(p) for p in playing)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()  # a failing test leaves no run behind (the cluster's teardown takes the bots)
    assert proc.returncode == 0, err
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*), count(fault) FROM seats").fetchone() == (4, 0)


def register_the_watchdog_mid_game(cluster: Cluster) -> list:
    """Once both games of the run are under way on the cluster, register the Watchdog plugin again, as a second
    run on the cluster does; the bots that were playing."""
    from distributed import Client
    from distributed.security import Security

    from tournaments.cluster import Watchdog

    trees = [Tree(w.pid) for w in cluster.workers]
    # the bots, not their sandbox's wrappers (bwrap and setpriv, or pidns.py): the 4 of both games, from their start
    # to the first one's end
    wrappers = ("pidns.py", "bwrap", "setpriv", "stage.py")
    bots = lambda: [  # noqa: E731
        p for t in trees for p in t.poll() if "sample_bots" in p.cmd and not any(w in p.cmd for w in wrappers)
    ]
    assert wait_until(lambda: len(bots()) == 4, 60), "the two games did not start on the workers"
    playing = bots()
    ca, cert, key = cluster.tls
    security = Security(tls_ca_file=ca, tls_client_cert=cert, tls_client_key=key, require_encryption=True)
    with Client(cluster.address, security=security, set_as_default=False) as client:
        client.register_plugin(Watchdog())
    return playing


def delivered(spec: GameSpec, reply: tuple) -> tuple[list, list]:
    """(results, failures) the client reports for a game that came back from a worker with `reply`."""
    from tournaments.cluster import deliver

    results: list = []
    failures: list = []
    deliver(spec, reply, {}, results.append, lambda *failure: failures.append(failure))
    return results, failures


def a_spec(record: Path) -> GameSpec:
    return GameSpec("t0-d0-r0", 0, 0, 0, 1, "classic", ("one", "two"), (str(C_BOT), str(C_BOT)), record=str(record))


def test_a_failed_games_record_is_kept_at_its_path_before_its_failure_is_reported(tmp_path):
    spec, record = a_spec(tmp_path / "g.jsonl"), b'{"type":"header"}\n{"type":"interrupted"}\n'
    failure = ("failed", "ValueError: boom (on Dask worker tcp://10.0.0.7:4000)", "Traceback ...")
    assert delivered(spec, (*failure, zlib.compress(record))) == ([], [(spec, *failure[1:])])
    assert [p.name for p in tmp_path.iterdir()] == ["g.jsonl"] and (tmp_path / "g.jsonl").read_bytes() == record


def test_a_record_that_cannot_be_created_fails_its_game_as_on_the_local_executor(tmp_path):
    spec = a_spec(tmp_path / "gone" / "g.jsonl")  # its directory was removed during the run
    results, failures = delivered(spec, ("done", "the result", zlib.compress(b"a record\n")))
    assert results == [] and failures == [
        (spec, f"ConfigError: cannot write record {spec.record}: No such file or directory", "")
    ]


def test_a_worker_killed_mid_game_costs_only_that_game(cluster, tmp_path):
    """The last test on the module's cluster: it leaves one worker."""
    db = tmp_path / "r.db"
    sleepy = "sleepy=python -m sample_bots.bad.sleepy 0.4 3"  # a game lasts a second or more
    args = cluster.dask(small(tmp_path, cluster.settings), "--entrant", sleepy, "--entrant", f"c={C_BOT}")
    args += ["--deal-sets", "2"]
    proc = start_tournament(*args, "--db", str(db), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    victim = cluster.workers[0]
    tree = Tree(victim.pid)
    bots = lambda: [p for p in tree.poll() if "sample_bots" in p.cmd]  # noqa: E731
    assert wait_until(lambda: bool(bots()), 60), "no game started on the worker"
    playing = bots()
    os.killpg(victim.pid, signal.SIGKILL)
    victim.wait()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert stored_games(db) == (4, 8) and "FAILED" not in err.decode()
    assert wait_until(lambda: not any(is_alive(p) for p in playing), 10), "the killed worker's bots live on"


def test_without_dask_the_dask_executor_is_one_clear_line_and_exit_2(tmp_path):
    blocked = "import sys; sys.modules['distributed'] = sys.modules['dask'] = None; "
    run = "from referee.__main__ import main; sys.argv[1:] = sys.argv[2:]; main()"
    r = subprocess.run(
        [sys.executable, "-c", blocked + "import tournaments.run, tournaments.cli; " + run, "-", "tournament", "run"]
        + [small(tmp_path), "--executor", "dask", "--db", str(tmp_path / "r.db")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [
        "romis: the dask executor needs Dask distributed, which is not installed: pip install 'romis[dask]'"
    ]
    assert not (tmp_path / "r.db").exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--executor", "ray"], "executor must be local or dask, not 'ray'"),
        (["--scheduler", "tcp://127.0.0.1:8786"], "it needs executor = dask"),
    ],
)
def test_bad_executor_settings_are_one_line_and_exit_2(args, words, tmp_path):
    r = tournament("run", small(tmp_path), *args, "--db", str(tmp_path / "r.db"))
    assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr


def tls_settings(tmp: Path) -> dict[str, str]:
    """TOML lines naming TLS files made in `tmp`: `two` the CA and the certificate, `no_key` those and a key
    file that is not there."""
    lines = {key: f'{key} = "{tmp / key}"\n' for key in ("tls_ca_file", "tls_cert", "tls_key")}
    for key in ("tls_ca_file", "tls_cert"):
        (tmp / key).write_text("PEM")
    two = lines["tls_ca_file"] + lines["tls_cert"]
    return {"two": two, "no_key": two + lines["tls_key"]}


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ('scheduler = "tcp://10.0.0.7:8786"', "scheduler tcp://10.0.0.7:8786 is not TLS: whoever reaches it"),
        ('scheduler = "10.0.0.7:8786"', "scheduler 10.0.0.7:8786 is not TLS"),
        ('scheduler = "tls://10.0.0.7:8786"', "scheduler tls://10.0.0.7:8786 needs tls_ca_file = the path of a PEM"),
        ('scheduler = "tls://10.0.0.7:8786"\n{two}tls_key = 7', "needs tls_key = the path of a PEM file"),
        ('scheduler = "tls://10.0.0.7:8786"\n{no_key}', "tls_key: no file "),
        ('scheduler = "tcp://10.0.0.7:8786"\ninsecure_scheduler = "yes"', "insecure_scheduler must be true or false"),
        ('scheduler = "tcp://10.0.0.7:8786"\ninsecure_scheduler = true\n{two}', "tls_ca_file is for a tls:// sch"),
        ("{two}", "tls_ca_file is for scheduler = ADDRESS (a local Dask cluster makes its own certificate)"),
        ("insecure_scheduler = true", "insecure_scheduler is for scheduler = ADDRESS"),
    ],
)
def test_bad_scheduler_security_settings_are_one_line(settings, words, tmp_path):
    from tournaments.config import load

    settings = settings.format(**tls_settings(tmp_path))
    with pytest.raises(ConfigError) as e:
        load(small(tmp_path, f'executor = "dask"\n{settings}\n'), {})
    assert words in str(e.value) and "\n" not in str(e.value), str(e.value)


def test_a_tls_schedulers_files_reach_the_executor_and_a_plain_one_said_insecure_is_taken(tmp_path):
    from tournaments.cluster import DaskExecutor
    from tournaments.config import load
    from tournaments.run import make_executor

    (tmp_path / "key.pem").write_text("PEM")
    files = tls_settings(tmp_path)["two"] + f'tls_key = "{tmp_path / "key.pem"}"\n'
    cfg = load(small(tmp_path, f'executor = "dask"\nscheduler = "tls://10.0.0.7:8786"\n{files}'), {})
    executor = make_executor(cfg)
    assert isinstance(executor, DaskExecutor)
    assert executor.tls == (str(tmp_path / "tls_ca_file"), str(tmp_path / "tls_cert"), str(tmp_path / "key.pem"))
    cfg = load(small(tmp_path, 'executor = "dask"\nscheduler = "tcp://10.0.0.7:8786"\ninsecure_scheduler = true\n'), {})
    executor = make_executor(cfg)
    assert isinstance(executor, DaskExecutor) and executor.tls is None
    assert cfg.fingerprint() == load(small(tmp_path), {}).fingerprint()


@pytest.fixture(params=["filter", "checked here"])
def extract_path(request, monkeypatch):
    """Both ways a worker unpacks a bot folder: under tarfile's "data" filter, and, as on a Python before 3.11.4
    that has none, with the members checked by tournaments.cluster itself."""
    import tarfile

    if request.param == "filter" and not hasattr(tarfile, "data_filter"):
        pytest.skip("this Python's tarfile has no extraction filters")
    if request.param == "checked here":
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    return request.param


def test_a_bot_folder_unpacks_whole_with_its_executable_bits_and_inner_links(extract_path, tmp_path):
    from tournaments.cluster import archive, unpack

    folder = tmp_path / "bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (folder / "run.sh").chmod(0o4777)  # setuid and writable by all: neither survives the trip
    (folder / "lib" / "data.txt").write_text("cards\n")
    (folder / "data").symlink_to("lib/data.txt")
    unpack(archive(folder), tmp_path / "out")
    out = tmp_path / "out"
    assert (out / "run.sh").stat().st_mode & 0o7777 == 0o755
    assert (out / "data").is_symlink() and (out / "data").read_text() == "cards\n"
    assert (out / "lib" / "data.txt").read_text() == "cards\n"


@pytest.mark.parametrize("target", ["/etc/passwd", "../../outside"])
def test_a_bot_folder_with_a_link_out_of_it_is_refused_and_nothing_is_left(extract_path, target, tmp_path):
    import tarfile

    from tournaments.cluster import archive, unpack

    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "run.sh").write_text("#!/bin/sh\n")
    (folder / "z-escape").symlink_to(target)  # after run.sh in the archive: a partial unpack happens first
    with pytest.raises(tarfile.TarError):
        unpack(archive(folder), tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bot"]  # no folder, whole or partial


def test_a_bot_given_the_network_reaches_the_scheduler_but_cannot_drive_it(cluster, tmp_path):
    # a hostile entrant with network = true on a worker: the scheduler's port answers, but without the cluster's
    # certificate (whose files it cannot read) no client of its gets in, one with a certificate of its own neither,
    # so no code of its runs there
    host_port = cluster.address.removeprefix("tls://")
    spy = f"python -m sample_bots.bad.spy --dask {cluster.address} --connect {host_port} --read {cluster.tls[2]}"
    entrants = f'entrants = [{{name = "spy", command = "{spy}", network = true}}, {{name = "c", command = "{C_BOT}"}}]'
    config = tmp_path / "spy.toml"
    config.write_text(cluster.settings + SMALL.replace(SMALL.strip().splitlines()[-1], entrants))
    args = cluster.dask(str(config), "--deal-sets", "1", "--records", "recs", "--db", "r.db")
    r = tournament_in(tmp_path, *args)
    assert r.returncode == 0, r.stderr
    reports = [
        json.loads(t[4:])
        for record in (tmp_path / "recs").glob("*.jsonl")
        for x in map(json.loads, record.read_text().splitlines())
        if x["type"] == "stderr"
        for t in x["tail"].splitlines()
        if t.startswith("SPY ")
    ]
    assert len(reports) == 2  # one per game
    for found in reports:
        assert found[f"connect {host_port}"] == "SUCCEEDED: connected"  # the network was there
        # refused by the scheduler's side of the handshake, not by the spy's own client library
        assert found[f"dask {cluster.address}"].startswith("blocked: FatalCommClosedError: TLS certificate"), found
        assert found[f"read {cluster.tls[2]}"].startswith("blocked")
    with sqlite3.connect(tmp_path / "r.db") as con:
        assert con.execute("SELECT count(*), count(fault) FROM seats").fetchone() == (4, 0)
