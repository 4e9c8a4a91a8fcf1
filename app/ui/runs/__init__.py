"""Runs: the unfinished-runs offer at start-up, the Runs panel (every run, newest first), the
branch dialog, and the controller that resumes (photo and mask back on the canvas), shows and
discards runs. `install_runs(window, panel, dock)` is called from app/ui/shell/features.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QDockWidget

    from app.ui.generation.panel import GenerationPanel
    from app.ui.runs.controller import RunsController
    from app.ui.window_host import WindowHost


def install_runs(
    window: WindowHost, panel: GenerationPanel, dock: QDockWidget | None = None
) -> RunsController:
    from app.ui.runs.controller import install

    return install(window, panel, dock)


__all__ = ["install_runs"]
