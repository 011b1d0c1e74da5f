"""The sandbox against a real hostile entrant (sample_bots/bad/spy.py): every way it tries out of its seat fails
under bubblewrap, the innocent seat plays on unharmed, and nothing is left running or mounted. The same spy under
`--sandbox none` shows that each probe does find what it looks for where nothing stops it, so a probe that finds
nothing in the sandbox has not simply failed to look.

Run as root, romis gives each bot a uid of its own; the unprivileged cases run romis itself as `nobody` (through
setpriv), where the sandbox is bubblewrap's user namespace."""

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from procs import kill, leftovers, marked

from referee.process import sandbox

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parent.parent
RANDOM = "python -m sample_bots.random"
SEED = 918273645546372819
AS_ROOT = os.getuid() == 0
needs_bwrap = pytest.mark.skipif(sandbox.unavailable() is not None, reason=f"no sandbox: {sandbox.unavailable()}")


@pytest.fixture(autouse=True)
def no_strays():
    yield
    kill(marked())


@pytest.fixture
def secrets():
    """What a cheat wants: a key, a results database, another entrant's program (writable by anyone, so that only the
    sandbox stands in the way), a listening port on the host's loopback. In a folder anyone may enter (pytest's are
    its user's alone), so that romis run as another user can write its record there."""
    tmp_path = Path(tempfile.mkdtemp(prefix="romis-security-"))
    tmp_path.chmod(0o755)
    key = tmp_path / "organiser.key"
    key.write_bytes(b"the organiser's signing key")
    key.chmod(0o644)
    db = tmp_path / "results.db"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE games (entrant TEXT, score INTEGER)")
    db.chmod(0o666)
    victim = tmp_path / "victim"
    victim.mkdir(mode=0o777)
    program = victim / "bot.py"
    program.write_text((ROOT / "sample_bots/random.py").read_text())
    program.chmod(0o777)
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    yield {"key": key, "db": db, "victim": program, "port": server.getsockname()[1], "dir": tmp_path}
    server.close()
    shutil.rmtree(tmp_path, ignore_errors=True)


def spy(s: dict, *extra: str, mount_at: str = "/tmp/spy-mount-sandboxed") -> str:
    record = s["dir"] / "match.jsonl"
    words = ["--needle", str(SEED)[::-1], "--connect", f"127.0.0.1:{s['port']}", "--mount-at", mount_at]
    for path in (s["key"], s["db"], record):
        words += ["--read", str(path)]
    for path in (s["victim"], s["db"]):
        words += ["--write", str(path)]
    return " ".join(["python -m sample_bots.bad.spy", *words, *extra])


def play(s: dict, bots: list[str], *flags: str, user: str | None = None) -> tuple[dict, list[dict], dict]:
    """`romis play` of `bots` (as `user`, if given): its JSON result, the spies' reports by seat, the record header."""
    record = s["dir"] / "match.jsonl"
    argv = [sys.executable, "-m", "referee", "play", "classic", "--seed", str(SEED), "--record", str(record)]
    argv += [w for b in bots for w in ("--bot", b)] + ["--json", "--option", "max_deals=1", *flags]
    if user is not None:
        argv = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--", *argv]
    r = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    reports = {}
    for line in lines:
        if line.get("type") == "stderr":
            for text in line["tail"].splitlines():
                if text.startswith("SPY "):
                    reports[line["seat"]] = json.loads(text[4:])
    return json.loads(r.stdout), reports, lines[0]


def succeeded(report: dict) -> dict:
    return {k: v for k, v in report.items() if v.startswith("SUCCEEDED")}


@needs_bwrap
def test_a_spy_in_the_sandbox_finds_nothing_and_its_victim_plays_on(secrets):
    victim_before = secrets["victim"].read_bytes()
    out, reports, header = play(secrets, [spy(secrets), f"python {secrets['victim']}"])
    report = reports[0]
    assert succeeded(report) == {}, report
    for attack in ("processes", "seed", "pipes", "signals", "ptrace", "setns", "mount", "userns", "capabilities"):
        assert report[attack].startswith("blocked"), (attack, report[attack])
    assert all(report[f"read {p}"].startswith("blocked") for p in (secrets["key"], secrets["db"]))
    assert report[f"write {secrets['victim']}"].startswith("blocked")
    assert [s["fault"] for s in out["seats"]] == [None, None], out["seats"]  # the spy played on; so did its victim
    assert secrets["victim"].read_bytes() == victim_before
    with sqlite3.connect(secrets["db"]) as con:
        assert con.execute("SELECT count(*) FROM games").fetchone() == (0,)
    assert header["sandbox"] == {"mode": "bwrap", "network": []}
    assert "Operation not permitted" in report["mount"]
    assert "spy-mount-sandboxed" not in Path("/proc/self/mountinfo").read_text()  # nothing on the host's side
    assert leftovers() == []


@needs_bwrap
def test_the_same_spy_without_a_sandbox_finds_everything(secrets):
    # the control: the probes of the test above do find what they look for where nothing stops them (signals aside:
    # `--sandbox none` still gives each bot a PID namespace where it can, to contain its processes)
    _, reports, header = play(secrets, [spy(secrets, mount_at="/tmp/spy-mount-control"), RANDOM], "--sandbox", "none")
    found = succeeded(reports[0])
    assert {"processes", "seed", "pipes", f"read {secrets['key']}", f"read {secrets['db']}"} <= set(found)
    assert f"write {secrets['victim']}" in found
    assert f"connect 127.0.0.1:{secrets['port']}" in found
    if AS_ROOT:
        assert {"mount", "capabilities"} <= set(found)
    assert header["sandbox"]["warning"] == "not for untrusted bots"


@needs_bwrap
@pytest.mark.skipif(not AS_ROOT, reason="romis gives each bot a uid of its own only when it runs as root")
def test_as_root_each_seat_runs_under_a_uid_of_its_own(secrets):
    _, reports, _ = play(secrets, [spy(secrets), spy(secrets)])
    uids = {int(reports[0]["uid"]), int(reports[1]["uid"])}
    assert len(uids) == 2 and 0 not in uids, uids


@needs_bwrap
def test_the_network_is_a_loopback_of_its_own_unless_the_entrant_asks(secrets):
    port = f"connect 127.0.0.1:{secrets['port']}"
    _, reports, header = play(secrets, [spy(secrets), spy(secrets)], "--network", "1")
    assert reports[0][port].startswith("blocked") and reports[0]["setns"].startswith("blocked")
    assert reports[1][port] == "SUCCEEDED: connected"  # seat 1 asked for the network: the probe reaches the host
    assert header["sandbox"] == {"mode": "bwrap", "network": [1]}


@needs_bwrap
def test_a_fork_bomb_and_a_full_disk_stay_inside_the_bot(secrets):
    before = set(os.listdir("/tmp"))
    out, reports, _ = play(secrets, [spy(secrets, "--fork-bomb", "--fill"), RANDOM])
    report = reports[0]
    forked, _, error = report["fork bomb"].partition(", then ")
    assert error == "EAGAIN" and int(forked.split()[1]) <= 256, report["fork bomb"]
    written = int(report["fill /tmp"].split()[2])  # "blocked after N MB: ...": at the file size or /tmp's size
    assert report["fill /tmp"].startswith("blocked") and written <= 64, report["fill /tmp"]
    # romis's folder is read-only, or (when it lies under /tmp, as a clone may) a folder on the bot's own capped /tmp
    assert any(why in report[f"fill {ROOT}"] for why in ("Read-only file system", "File too large", "No space left"))
    assert "Read-only file system" in report["fill /"]
    assert [s["fault"] for s in out["seats"]] == [None, None]
    assert not (ROOT / "spy-fill").exists() and "spy-fill" not in set(os.listdir("/tmp")) - before
    assert leftovers() == []


@needs_bwrap
@pytest.mark.skipif(shutil.which("setpriv") is None, reason="setpriv (util-linux) runs romis as another user")
def test_run_as_an_unprivileged_user_the_sandbox_still_holds(secrets):
    if not AS_ROOT:
        pytest.skip("the tests run unprivileged already: the tests above are the unprivileged cases")
    probe = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        "--",
        sys.executable,
        "-c",
        "import referee",
    ]
    if subprocess.run(probe, cwd=ROOT, capture_output=True).returncode != 0:
        pytest.skip(f"romis's checkout ({ROOT}) or its Python cannot be reached by the user nobody here")
    secrets["dir"].chmod(0o777)
    _, reports, header = play(secrets, [spy(secrets), RANDOM], user="65534")
    assert succeeded(reports[0]) == {}, reports[0]
    assert reports[0]["uid"] == "65534"  # a user namespace maps the bot to romis's own user
    assert header["sandbox"]["mode"] == "bwrap"
    # the control: without the sandbox, a bot of the same user may signal and trace the referee
    _, reports, _ = play(secrets, [spy(secrets), RANDOM], "--sandbox", "none", user="65534")
    assert {"processes", "signals", "ptrace", "pipes"} <= set(succeeded(reports[0])), reports[0]


PROBE = """import os, sys
try:
    {action}
    sys.stderr.write("PROBE ok\\n")
except OSError as e:
    sys.stderr.write(f"PROBE {{e.strerror}}\\n")
sys.stderr.flush()
os.execv(sys.executable, [sys.executable, "-m", "sample_bots.random"])
"""


def probe_bot(folder: Path, action: str) -> str:
    """A bot in `folder` that tries `action` (a line of Python), says on stderr how it went, then plays."""
    folder.mkdir(mode=0o755)
    (folder / "bot.py").write_text(PROBE.format(action=action))
    (folder / "bot.py").chmod(0o644)
    return f"python {folder / 'bot.py'}"


def probes(record: Path) -> dict[int, str]:
    """What each probe bot of a record said, by seat."""
    said = {}
    for line in map(json.loads, record.read_text().splitlines()):
        if line.get("type") == "stderr":
            said[line["seat"]] = next(t[6:] for t in line["tail"].splitlines() if t.startswith("PROBE "))
    return said


@needs_bwrap
def test_a_writable_entrant_writes_a_private_copy_of_its_folder(secrets):
    d = secrets["dir"]
    write = "open(os.path.join(os.path.dirname(__file__), 'state.txt'), 'w').write('learned')"
    bots = [probe_bot(d / "plain", write), probe_bot(d / "writer", write)]
    play(secrets, bots, "--writable", "1")
    assert probes(d / "match.jsonl") == {0: "Read-only file system", 1: "ok"}
    assert not (d / "plain" / "state.txt").exists() and not (d / "writer" / "state.txt").exists()


@needs_bwrap
def test_an_entrant_reads_a_path_it_adds_and_no_other(secrets):
    d = secrets["dir"]
    data = d / "weights.bin"
    data.write_bytes(b"\1" * 100)
    data.chmod(0o644)
    read = f"open({str(data)!r}, 'rb').read()"
    bots = [probe_bot(d / "without", read), probe_bot(d / "with", read)]
    play(secrets, bots, "--path", f"1={data}")
    assert probes(d / "match.jsonl") == {0: "No such file or directory", 1: "ok"}


@needs_bwrap
def test_a_tournament_sandboxes_its_bots_gives_the_network_per_entrant_and_reports_it(secrets):
    d = secrets["dir"]
    connect = f"__import__('socket').create_connection(('127.0.0.1', {secrets['port']}), timeout=2).close()"
    toml = d / "t.toml"
    toml.write_text(
        f'variant = "classic"\ndeal_sets = 1\nconcurrency = 1\noptions = {{max_deals = 1}}\n'
        f'[[entrants]]\nname = "cut-off"\ncommand = "{probe_bot(d / "a", connect)}"\n'
        f'[[entrants]]\nname = "online"\ncommand = "{probe_bot(d / "b", connect)}"\nnetwork = true\n'
    )
    run = [sys.executable, "-m", "referee", "tournament", "run", str(toml), "--db", str(d / "r.db")]
    r = subprocess.run([*run, "--records", str(d / "records")], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    for record in (d / "records").glob("*.jsonl"):
        seats = json.loads(record.read_text().splitlines()[0])["seats"]
        said = probes(record)
        for seat, entrant in enumerate(seats):
            assert said[seat] == ("ok" if "b/bot.py" in entrant["bot"] else "Connection refused"), (entrant, said)
    assert "bwrap (each bot in a sandbox of its own); network given to: online" in " ".join(r.stdout.split())


@needs_bwrap
@pytest.mark.skipif(not AS_ROOT, reason="only a bot's uid of its own (romis as root) must reach its folder")
def test_a_bot_whose_folder_lies_under_a_folder_others_cannot_enter_still_runs(tmp_path):
    # pytest's own folders are its user's alone (0700): the bot's uid could not reach its folder without staging
    folder = tmp_path / "deep" / "bot"
    folder.mkdir(parents=True)
    tmp_path.chmod(0o700)
    program = folder / "bot.py"
    program.write_text((ROOT / "sample_bots/random.py").read_text())
    folder.chmod(0o755)
    argv = [sys.executable, "-m", "referee", "play", "classic", "--bot", f"python {program}", "--bot", RANDOM]
    r = subprocess.run([*argv, "--json", "--option", "max_deals=1"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert [s["fault"] for s in json.loads(r.stdout)["seats"]] == [None, None]
    assert "romis-stage" not in Path("/proc/self/mountinfo").read_text()  # staged in the bot's own namespace only
