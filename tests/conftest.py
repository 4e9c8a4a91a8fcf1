"""Shared fixtures: every test gets its own STEPWISE_HOME; a developer's files are never touched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO_ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def stepwise_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "stepwise-home"
    monkeypatch.setenv("STEPWISE_HOME", str(home))
    return home
