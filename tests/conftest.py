"""Shared fixtures."""
import pytest


@pytest.fixture
def anyio_backend():
    """Async tests run under trio, as the referee does."""
    return "trio"
