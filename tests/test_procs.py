"""The leftover-process check (tests/procs.py) sees the test's own processes and nobody else's."""

import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from procs import TOKEN_VAR, Proc, Tree, is_alive, leftovers, marked, wait_until

pytestmark = pytest.mark.e2e
ROOT = Path(__file__).resolve().parent.parent
HANG = [sys.executable, "-m", "sample_bots.bad.hang"]  # waits for a hello on stdin forever


def _sample_bots_running() -> set[int]:
    """What the old machine-wide check saw: every process with `sample_bots.` in its command line."""
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if b"sample_bots." in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.add(int(pid))
        except OSError:
            continue
    return found


@pytest.fixture
def foreign():
    """A sample bot started by someone else (another test run): its environment carries another token."""
    token = f"another-test-run-{uuid.uuid4().hex}"  # unique: the same test may be running elsewhere on the machine
    env = {**os.environ, TOKEN_VAR: token}
    with subprocess.Popen(HANG, cwd=ROOT, env=env, stdin=subprocess.PIPE) as proc:
        proc.token = token  # type: ignore[attr-defined]
        try:
            yield proc
        finally:
            proc.kill()


def test_a_foreign_sample_bot_is_not_a_leftover_but_our_own_is(foreign):
    with subprocess.Popen(HANG, cwd=ROOT, stdin=subprocess.PIPE) as own:
        try:
            assert wait_until(lambda: {own.pid, foreign.pid} <= _sample_bots_running(), 10)
            assert [p.pid for p in leftovers(timeout=0.5)] == [own.pid]
            assert [p.pid for p in marked(foreign.token)] == [foreign.pid]
        finally:
            own.kill()
    assert leftovers() == [] and is_alive(foreign.pid)


def test_a_whole_match_beside_a_foreign_sample_bot_leaves_nothing_of_its_own(foreign):
    r = subprocess.run(
        [sys.executable, "-m", "referee", "play", "classic", "--bot", "python -m sample_bots.bad.forker"]
        + ["--bot", "python -m sample_bots.random", "--seed", "4", "--option", "max_deals=1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert foreign.pid in _sample_bots_running()  # the old check would have failed here
    assert leftovers() == []


def test_a_tree_follows_reparented_descendants_and_is_not_fooled_by_pid_reuse():
    script = "import subprocess, sys; c = subprocess.Popen(['sleep', '30']); print(c.pid, flush=True)"
    with subprocess.Popen(
        [sys.executable, "-c", script + "; sys.stdin.read()"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as parent:
        tree = Tree(parent.pid)
        child = int(parent.stdout.readline())
        assert child in {p.pid for p in tree.poll()}
        parent.stdin.close()  # the parent exits: the sleep is reparented and still counts
        parent.wait()
        assert [p.pid for p in tree.poll()] == [child]
        os.kill(child, signal.SIGKILL)
        assert wait_until(lambda: tree.alive() == [])
    me = Tree(os.getpid()).root
    assert is_alive(me) and not is_alive(Proc(me.pid, me.start + 1))  # the same PID, started later: not the same
