"""Shared fixtures."""

import os

import pytest


@pytest.fixture
def anyio_backend():
    """Async tests run under trio, as the referee does."""
    return "trio"


# The differential tests against OpenSpiel need extra packages: `make test-diff` runs them.
collect_ignore = [] if os.environ.get("ROMIS_DIFF") else ["diff"]
