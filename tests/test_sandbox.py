"""The sandbox's hygiene: every descendant of a bot dies with its match (setsid() double forks included) under
bubblewrap, in a PID namespace or under the subreaper fallback of `--sandbox none`; a bot has only a loopback of
its own unless it is given the network; where the machine cannot sandbox, romis says so in one line. (What a bot
can see and touch is test_security's.)"""

import json
import os
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from procs import TOKEN_VAR, kill, leftovers, marked, wait_until

from referee import cli
from referee.process import sandbox, spawn
from referee.rules.errors import ConfigError
from tournaments.config import load
from tournaments.run import game_specs

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parent.parent
CAN_SANDBOX = sandbox.unavailable() is None
MODES = [
    pytest.param(sandbox.BWRAP, marks=pytest.mark.skipif(not CAN_SANDBOX, reason=f"{sandbox.unavailable()}")),
    spawn.PIDNS,
    spawn.SUBREAPER,
]
needs_bwrap = pytest.mark.skipif(not CAN_SANDBOX, reason=f"no sandbox: {sandbox.unavailable()}")
RANDOM = "python -m sample_bots.random"
HANG = "python -m sample_bots.bad.hang"
BOT = "sample_bots.bad.escapee"
DAEMON = "escapee-daemon"  # its grandchild's last argument  # plays three moves, then keeps the match waiting


def romis(*args: str) -> list[str]:
    return [sys.executable, "-m", "referee", "play", "classic", *args]


def escapee(pidfile: Path, *extra: str) -> str:
    return f"python -m {BOT} --pidfile {pidfile} {' '.join(extra)}".strip()


def pidfile_of(tmp_path: Path, mode: str, name: str) -> Path:
    """Where an escapee's daemon writes its PID: a sandboxed one only in its own private /tmp, which a test cannot
    read (those tests find the daemon by its environment instead)."""
    return Path("/tmp", name) if mode == sandbox.BWRAP else tmp_path / name


@pytest.fixture(params=MODES)
def mode(request, monkeypatch):
    """Each test runs once with each sandbox (ROMIS_SANDBOX reaches `romis play` through the environment)."""
    monkeypatch.setenv(sandbox.SANDBOX_VAR, request.param)
    return request.param


@pytest.fixture(autouse=True)
def no_strays():
    """A failing test must not leave its daemons on a shared machine."""
    yield
    kill(marked())


def test_a_setsid_double_fork_dies_when_the_match_ends(tmp_path, mode):
    # one match, two escapees: seat 0 exits after three moves (a crash), seat 1 is stopped for an illegal play
    pidfiles = [pidfile_of(tmp_path, mode, "crash.pid"), pidfile_of(tmp_path, mode, "illegal.pid")]
    bots = ["--bot", escapee(pidfiles[0]), "--bot", escapee(pidfiles[1], "--illegal")]
    r = subprocess.run(
        romis(*bots, "--seed", "5", "--option", "max_deals=2", "--json"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    if mode != sandbox.BWRAP:
        assert all(p.read_text().strip() for p in pidfiles)  # both daemons did detach and run
    assert [s["fault"] for s in json.loads(r.stdout)["seats"]] == ["crash", "illegal"]
    assert leftovers() == []


def _start_and_wait_for_daemon(tmp_path: Path, mode: str, *extra: str) -> subprocess.Popen:
    pidfile = pidfile_of(tmp_path, mode, "daemon.pid")
    proc = subprocess.Popen(
        romis("--bot", escapee(pidfile, "--moves", "1000", *extra), "--bot", HANG, "--seed", "5", "--move-time", "60"),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    # the hang bot keeps the match going after three moves; the escapee and its daemon are both alive then
    if mode != sandbox.BWRAP:
        assert wait_until(lambda: pidfile.exists() and pidfile.read_text().strip() != "", 30)
    assert wait_until(lambda: [p.cmd.split()[-1] for p in marked() if "sleep(3600)" in p.cmd] == [DAEMON], 30)
    return proc


def test_ctrl_c_of_romis_play_takes_the_daemon_along(tmp_path, mode):
    proc = _start_and_wait_for_daemon(tmp_path, mode)
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert leftovers() == []


def test_sigkill_of_romis_play_takes_the_daemon_along(tmp_path, mode):
    # The subreaper dies with the referee: there the watchdog's token must have stayed in the daemon's
    # environment (docs/protocol.md, Limits); a PID namespace needs no such help.
    proc = _start_and_wait_for_daemon(tmp_path, mode, *(["--keep-env"] if mode == spawn.SUBREAPER else []))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert leftovers(timeout=10) == []


@needs_bwrap
def test_the_help_names_the_sandbox_in_force(capsys):
    assert cli.run(["play", "--help"]) == 0
    assert "Sandbox in force on this machine: bwrap" in " ".join(capsys.readouterr().out.split())


def _accepted(server: socket.socket) -> bool:
    try:
        conn, _ = server.accept()
    except TimeoutError:
        return False
    conn.close()
    return True


@needs_bwrap
def test_a_bot_has_only_its_own_loopback_unless_its_seat_is_given_the_network(tmp_path):
    env = {**os.environ, TOKEN_VAR: uuid.uuid4().hex}
    env.pop(sandbox.SANDBOX_VAR, None)
    with socket.create_server(("127.0.0.1", 0)) as server:  # the "outside" a sandboxed bot must not reach
        server.settimeout(0.1)
        bots = ["--bot", f"python -m sample_bots.bad.netprobe {server.getsockname()[1]}", "--bot", RANDOM]
        for given in (False, True):
            record = tmp_path / f"net-{given}.jsonl"
            flags = ["--record", str(record), *(["--network", "0"] if given else [])]
            r = subprocess.run(
                romis(*bots, "--seed", "3", "--option", "max_deals=1", "--json", *flags),
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert r.returncode == 0, r.stderr
            out, header = json.loads(r.stdout), json.loads(record.read_text().splitlines()[0])
            assert [s["fault"] for s in out["seats"]] == [None, None] and out["deals"] == 1  # it plays on
            name = out["seats"][0]["name"]
            assert name == "netprobe:connected" if given else name.startswith("netprobe:refused:"), name
            assert _accepted(server) is given
            assert header["sandbox"] == {"mode": "bwrap", "network": [0] if given else []}


@needs_bwrap
def test_check_runs_the_bot_cut_off_from_the_host_unless_given_the_network():
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.1)
        for given, name in ((False, "netprobe:refused:"), (True, "netprobe:connected")):
            command = f"python -m sample_bots.bad.netprobe {server.getsockname()[1]}"
            argv = [sys.executable, "-m", "referee", "check", command, "--json", *(["--network"] if given else [])]
            r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
            assert r.returncode == 0, r.stdout[-2000:] + r.stderr
            report = json.loads(r.stdout)
            assert report["sandbox"] == {"mode": "bwrap", "network": given} and report["passed"]
            assert report["variants"][0]["handshake"]["name"].startswith(name)
            assert _accepted(server) is given


def test_where_the_machine_cannot_sandbox_romis_runs_only_with_sandbox_none(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sandbox, "_probe", {"why": "bubblewrap (bwrap) is not installed"})
    monkeypatch.delenv(sandbox.SANDBOX_VAR, raising=False)
    base = ["play", "classic", "--bot", RANDOM, "--bot", RANDOM, "--option", "max_deals=1"]
    assert cli.run(base) == 2
    assert cli.run(["check", RANDOM]) == 2
    with pytest.raises(ConfigError) as refused:
        load(None, {"entrants": {"a": RANDOM, "b": RANDOM}})
    lines = capsys.readouterr().err.splitlines()
    why = (
        "this machine cannot sandbox bots: bubblewrap (bwrap) is not installed; give --sandbox none "
        '(sandbox = "none") to run only bots you trust, without a sandbox'
    )
    assert lines == [f"romis: {why}"] * 2 and str(refused.value) == why
    record = tmp_path / "r.jsonl"
    assert cli.run([*base, "--sandbox", "none", "--record", str(record)]) == 0
    header = json.loads(record.read_text().splitlines()[0])
    assert header["sandbox"]["mode"] == "none" and header["sandbox"]["warning"] == "not for untrusted bots"
    assert cli.run(["play", "--help"]) == 0
    assert "Sandbox: none available (bubblewrap (bwrap) is not installed)" in " ".join(capsys.readouterr().out.split())


def test_without_pid_namespaces_sandbox_none_falls_back_to_the_subreaper(monkeypatch, capsys):
    monkeypatch.setattr(spawn, "_probed", {("--pid",): False})
    assert sandbox.sandbox_mode("none") == spawn.SUBREAPER
    assert cli.run(["play", "classic", "--bot", RANDOM, "--bot", RANDOM, "--sandbox", spawn.PIDNS]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "romis: --sandbox pid-namespace: this machine refuses new PID namespaces"
    ]


def test_a_tournament_passes_its_entrants_sandbox_settings_to_its_games(tmp_path):
    data = tmp_path / "book.bin"
    data.write_bytes(b"1")
    config = tmp_path / "t.toml"
    config.write_text(
        f'[[entrants]]\nname = "a"\ncommand = "{RANDOM}"\n'
        f'[[entrants]]\nname = "b"\ncommand = "{RANDOM}"\nnetwork = true\nwritable = true\npaths = ["book.bin"]\n'
    )
    cfg = load(config, {"sandbox": "none"})
    assert cfg.fingerprint()["sandbox"] == {"b": {"network": True, "writable": True, "paths": [str(data)]}}
    for spec in game_specs(cfg):
        assert [(b.network, b.writable, b.paths) for b in spec.boxes] == [
            (e == "b", e == "b", (str(data),) if e == "b" else ()) for e in spec.entrants
        ]
        assert spec.sandbox in (spawn.PIDNS, spawn.SUBREAPER)
    assert "sandbox" not in load(None, {"entrants": {"a": RANDOM, "b": RANDOM}, "sandbox": "none"}).fingerprint()
    for bad, message in (
        ('network = "yes"', "network must be true or false"),
        ('paths = ["nowhere"]', "does not exist"),
        ("netwrok = true", "unknown setting 'netwrok' \\(did you mean 'network'\\?\\)"),
    ):
        config.write_text(f'[[entrants]]\nname = "a"\ncommand = "{RANDOM}"\n{bad}\n')
        with pytest.raises(ConfigError, match=message):
            load(config, {"sandbox": "none"})


@pytest.mark.parametrize("mode", [MODES[0], spawn.PIDNS])
def test_sigkill_of_a_tournament_worker_takes_its_bots_daemon_along(tmp_path, monkeypatch, mode):
    monkeypatch.setenv(sandbox.SANDBOX_VAR, mode)  # the watchdog's token is dropped: only the namespace helps
    pidfile = pidfile_of(tmp_path, mode, "daemon.pid")
    entrants = [f"--entrant=escapee={escapee(pidfile, '--moves', '1000')}", f"--entrant=hang={HANG}"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "tournament", "run", *entrants, "--db", str(tmp_path / "r.db")]
        + ["--concurrency", "1", "--deal-sets", "1"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_until(lambda: [p.cmd.split()[-1] for p in marked() if "sleep(3600)" in p.cmd] == [DAEMON], 60)
        (worker,) = [p for p in marked() if p.cmd.split()[1:3] == ["-m", "tournaments.workers"]]
        os.kill(worker.pid, signal.SIGKILL)
        assert wait_until(lambda: not [p for p in marked() if "sleep(3600)" in p.cmd], 10)
    finally:
        proc.kill()
        proc.wait()
