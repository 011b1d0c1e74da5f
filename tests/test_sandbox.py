"""The sandbox: every descendant of a bot dies with its match (setsid() double forks included), in a PID
namespace or under the subreaper fallback; --no-network gives a bot a loopback of its own."""

import json
import os
import signal
import socket
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from procs import TOKEN_VAR, kill, leftovers, marked, wait_until

from referee import cli
from referee.process import spawn
from referee.rules.errors import ConfigError
from tournaments.config import load
from tournaments.run import game_specs

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parent.parent
MODES = [spawn.PIDNS, spawn.SUBREAPER]
RANDOM = "python -m sample_bots.random"
HANG = "python -m sample_bots.bad.hang"
BOT = "sample_bots.bad.escapee"
DAEMON = "escapee-daemon"  # its grandchild's last argument  # plays three moves, then keeps the match waiting


def romis(*args: str) -> list[str]:
    return [sys.executable, "-m", "referee", "play", "classic", *args]


def escapee(pidfile: Path, *extra: str) -> str:
    return f"python -m {BOT} --pidfile {pidfile} {' '.join(extra)}".strip()


@pytest.fixture(params=MODES)
def mode(request, monkeypatch):
    """Each test runs once with each sandbox (ROMIS_SANDBOX reaches `romis play` through the environment)."""
    monkeypatch.setenv(spawn.SANDBOX_VAR, request.param)
    return request.param


@pytest.fixture(autouse=True)
def no_strays():
    """A failing test must not leave its daemons on a shared machine."""
    yield
    kill(marked())


def test_a_setsid_double_fork_dies_when_the_match_ends(tmp_path, mode):
    # one match, two escapees: seat 0 exits after three moves (a crash), seat 1 is stopped for an illegal play
    pidfiles = [tmp_path / "crash.pid", tmp_path / "illegal.pid"]
    bots = ["--bot", escapee(pidfiles[0]), "--bot", escapee(pidfiles[1], "--illegal")]
    r = subprocess.run(
        romis(*bots, "--seed", "5", "--option", "max_deals=2", "--json"),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert all(p.read_text().strip() for p in pidfiles)  # both daemons did detach and run
    assert [s["fault"] for s in json.loads(r.stdout)["seats"]] == ["crash", "illegal"]
    assert leftovers() == []


def _start_and_wait_for_daemon(tmp_path: Path, *extra: str) -> subprocess.Popen:
    pidfile = tmp_path / "daemon.pid"
    proc = subprocess.Popen(
        romis("--bot", escapee(pidfile, "--moves", "1000", *extra), "--bot", HANG, "--seed", "5", "--move-time", "60"),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    # the hang bot keeps the match going after three moves; the escapee and its daemon are both alive then
    assert wait_until(lambda: pidfile.exists() and pidfile.read_text().strip() != "", 30)
    assert wait_until(lambda: [p.cmd.split()[-1] for p in marked() if "sleep(3600)" in p.cmd] == [DAEMON], 30)
    return proc


def test_ctrl_c_of_romis_play_takes_the_daemon_along(tmp_path, mode):
    proc = _start_and_wait_for_daemon(tmp_path)
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert leftovers() == []


def test_sigkill_of_romis_play_takes_the_daemon_along(tmp_path, mode):
    # The subreaper dies with the referee: there the watchdog's token must have stayed in the daemon's
    # environment (docs/protocol.md, Limits); a PID namespace needs no such help.
    proc = _start_and_wait_for_daemon(tmp_path, *(["--keep-env"] if mode == spawn.SUBREAPER else []))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert leftovers(timeout=10) == []


def test_the_record_header_says_which_sandbox_was_in_force(probes):
    for net in (False, True):
        header = json.loads(probes.records[net].read_text().splitlines()[0])
        assert header["sandbox"] == {"mode": probes.mode, "no_network": net}


def test_the_help_names_the_sandbox_in_force(capsys, monkeypatch):
    assert cli.run(["play", "--help"]) == 0
    assert f"Sandbox in force on this machine: {spawn.sandbox_mode()}" in " ".join(capsys.readouterr().out.split())


@dataclass
class Probes:
    """Two matches of the network probe against a listener on the host's loopback, under one sandbox mode:
    their --json results, their records, and whether the listener was reached, by --no-network."""

    mode: str
    results: dict[bool, dict] = field(default_factory=dict)
    records: dict[bool, Path] = field(default_factory=dict)
    reached: dict[bool, bool] = field(default_factory=dict)


@pytest.fixture(scope="module", params=MODES)
def probes(request, tmp_path_factory):
    """The probe matches, played once per mode for the tests that read them (each match starts four processes)."""
    out, where = Probes(request.param), tmp_path_factory.mktemp(f"probes-{request.param}")
    env = {**os.environ, spawn.SANDBOX_VAR: request.param, TOKEN_VAR: uuid.uuid4().hex}
    # the "outside" a sandboxed bot must not reach
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.1)
        for net in (True, False):
            out.records[net] = where / f"net-{net}.jsonl"
            out.results[net] = _probe_match(server.getsockname()[1], env, out.records[net], net)
            out.reached[net] = _accepted(server)
    return out


def _probe_match(port: int, env: dict[str, str], record: Path, no_network: bool) -> dict:
    bots = ["--bot", f"python -m sample_bots.bad.netprobe {port}", "--bot", RANDOM]
    flags = ["--record", str(record), *(["--no-network"] if no_network else [])]
    r = subprocess.run(
        romis(*bots, "--seed", "3", "--option", "max_deals=1", "--json", *flags),
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _accepted(server: socket.socket) -> bool:
    try:
        conn, _ = server.accept()
    except TimeoutError:
        return False
    conn.close()
    return True


def test_no_network_cuts_a_bot_off_while_the_match_plays_on(probes):
    cut = probes.results[True]
    assert cut["seats"][0]["name"].startswith("netprobe:refused:")
    assert [s["fault"] for s in cut["seats"]] == [None, None] and cut["deals"] == 1
    assert not probes.reached[True]
    free = probes.results[False]
    assert free["seats"][0]["name"] == "netprobe:connected" and probes.reached[False]


def test_check_no_network_judges_the_bot_cut_off_from_the_host():
    """`romis check --no-network` runs the bot as `romis play --no-network` does: the probe cannot reach a listener
    on the host's loopback, and says so in its name; without the flag it reaches it."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.settimeout(0.1)
        for net, name in ((True, "netprobe:refused:"), (False, "netprobe:connected")):
            command = f"python -m sample_bots.bad.netprobe {server.getsockname()[1]}"
            flags = ["--no-network"] if net else []
            argv = [sys.executable, "-m", "referee", "check", command, "--json", *flags]
            r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=300)
            assert r.returncode == 0, r.stdout[-2000:] + r.stderr
            report = json.loads(r.stdout)
            assert report["no_network"] is net and report["passed"]
            assert report["variants"][0]["handshake"]["name"].startswith(name)
            assert _accepted(server) is not net


def test_without_namespaces_no_network_and_pid_namespace_are_one_line_errors(monkeypatch, capsys):
    monkeypatch.setattr(spawn, "_probed", {("--net",): False, ("--pid",): False})
    base = ["play", "classic", "--bot", RANDOM, "--bot", RANDOM]
    assert cli.run([*base, "--no-network"]) == 2
    assert cli.run([*base, "--sandbox", spawn.PIDNS]) == 2
    assert cli.run(["check", RANDOM, "--no-network"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "romis: --no-network needs a network namespace per bot, which this machine refuses",
        "romis: --sandbox pid-namespace: this machine refuses new PID namespaces",
        "romis: --no-network needs a network namespace per bot, which this machine refuses",
    ]
    assert spawn.sandbox_mode("auto") == spawn.SUBREAPER  # the fallback is chosen where namespaces are refused


def test_a_tournament_passes_no_network_to_its_games(tmp_path):
    config = tmp_path / "t.toml"
    config.write_text(
        f'no_network = true\n[[entrants]]\nname = "a"\ncommand = "{RANDOM}"\n'
        f'[[entrants]]\nname = "b"\ncommand = "{RANDOM}"\n'
    )
    cfg = load(config, {})
    assert cfg.fingerprint()["no_network"] is True
    assert all(spec.no_network for spec in game_specs(cfg))
    assert "no_network" not in load(None, {"entrants": {"a": RANDOM, "b": RANDOM}}).fingerprint()
    config.write_text(config.read_text().replace("true", '"yes"'))
    with pytest.raises(ConfigError, match="no_network must be true or false"):
        load(config, {})


def test_sigkill_of_a_tournament_worker_takes_its_bots_daemon_along(tmp_path, monkeypatch):
    monkeypatch.setenv(spawn.SANDBOX_VAR, spawn.PIDNS)  # the watchdog's token is dropped: only the namespace helps
    pidfile = tmp_path / "daemon.pid"
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
