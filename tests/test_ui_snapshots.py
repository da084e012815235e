"""Every screen compared with its committed SVG snapshot (the same scenes as screenshots/).

Update after a deliberate change with ``pytest tests/test_ui_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import pytest

from xmas_tui.tools.screenshots import SCENES

STILL = [s for s in SCENES if s.snapshot]


@pytest.mark.parametrize("scene", STILL, ids=[s.name for s in STILL])
def test_screen_matches_its_snapshot(scene, snap_compare, tmp_path, monkeypatch) -> None:
    # A home of its own, as the screenshots have: an end screen names its log ~/.local/share/…
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / ".local" / "share"))
    assert snap_compare(scene.app(), terminal_size=scene.size, run_before=scene.play)
