"""Shared fixtures."""

import os
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


# The differential tests against OpenSpiel need extra packages: `make test-diff` runs them.
collect_ignore = [] if os.environ.get("ROMIS_DIFF") else ["diff"]
