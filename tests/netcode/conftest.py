"""Fixtures for the transport tests (helpers live in netcode_helpers)."""

from __future__ import annotations

import pytest
from netcode_helpers import the_key


@pytest.fixture(scope="session")
def key() -> bytes:
    return the_key()
