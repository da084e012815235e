"""Fixtures for the transport tests (helpers live in netcode_helpers)."""

from __future__ import annotations

import pytest
from netcode_helpers import CODE


@pytest.fixture(scope="session")
def code() -> str:
    """The join code every transport test's table uses."""
    return CODE
