"""Shared fixtures."""

import os
import signal
import uuid

import profiles  # noqa: F401 (registers the `full` Hypothesis profile before the plugin loads one)
import pytest
from procs import TOKEN_VAR


@pytest.fixture
def anyio_backend():
    """Async tests run under trio, as the referee does."""
    return "trio"


@pytest.fixture(autouse=True)
def process_token(monkeypatch):
    """A token unique to this test in the environment: every process the test starts inherits it, so
    `procs.leftovers()` finds this test's processes and nobody else's."""
    token = uuid.uuid4().hex
    monkeypatch.setenv(TOKEN_VAR, token)
    return token


@pytest.fixture(scope="session")
def c_bot(tmp_path_factory):
    """The C sample bot, built by `make` (one worker at a time: xdist workers share a lock in the base temp)."""
    import fcntl
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    with open(tmp_path_factory.getbasetemp().parent / "c-bot.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        made = subprocess.run(["make", "-s", "sample_bots/c/random"], cwd=root, capture_output=True, text=True)
    assert made.returncode == 0, made.stdout + made.stderr
    return str(root / "sample_bots/c/random")


# A shell that starts a job in the background (`make test &`, a CI step run with `&`) starts it with SIGINT
# ignored, and every process the tests start would inherit that: the Ctrl-C tests would then test nothing.
# A Python handler is reset to the default by exec, so the processes under test get SIGINT as from a terminal.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# The differential tests against OpenSpiel need extra packages: `make test-diff` runs them.
collect_ignore = [] if os.environ.get("ROMIS_DIFF") else ["diff"]


def pytest_terminal_summary(terminalreporter):
    """Which best-split search the tests ran by default (tests/test_solver.py runs each test on both paths)."""
    from referee.rules import solver

    if solver.core is not None:
        line = f"compiled ({solver.core.__file__})"
    else:
        line = "pure Python (" + ("ROMIS_PURE=1" if solver.built else "referee/rules/_solver.c not built") + ")"
    terminalreporter.write_line(f"best-split search: {line}")
