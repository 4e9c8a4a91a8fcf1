"""Runs: the unfinished-runs offer at start-up, the Runs panel (every run, newest first), the
branch dialog, and the controller that resumes (photo and mask back on the canvas), shows and
discards runs. `install_runs(window, panel, dock)` is called from app/ui/generation/setup.py."""

from __future__ import annotations

from typing import Any


def install_runs(window: Any, panel: Any, dock: Any = None) -> Any:
    from app.ui.runs.controller import install

    return install(window, panel, dock)


__all__ = ["install_runs"]
