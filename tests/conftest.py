"""Shared test setup: game logs go to a temporary data directory, never the user's, and no
test (nor any process a test starts, which inherits the environment) can announce a table
on the real LAN: discovery is pointed at a loopback port for the whole run."""

from __future__ import annotations

import os
import socket

import pytest


def _loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Set at import, before any test or fixture runs, so subprocesses inherit it too.
os.environ["XMAS_TUI_DISCOVERY"] = f"127.0.0.1:{_loopback_port()}"


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))

