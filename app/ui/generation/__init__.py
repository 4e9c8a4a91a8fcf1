"""The generation UI: small panes over app.jobs.generation.GenerationModel.

`install_generation_panel` is what the composition root calls: it makes the model over the
window's job form (the Prepare panel binds to the same form), follows the canvas document as
the job's input, and adds the panel as a dock.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.core.paths import AppPaths
from app.core.settings import Settings
from app.ui.generation.panel import GenerationPanel

if TYPE_CHECKING:
    from app.ui.main_window import MainWindow

__all__ = ["GenerationPanel", "install_generation_panel"]


def install_generation_panel(
    window: MainWindow, paths: AppPaths, settings: Settings
) -> GenerationPanel:
    """Installs the generation panel with the Runs and Queue docks and keeps them in the
    window's typed slots (this is the composition root's side: the features see the window
    only as a WindowHost)."""
    from app.ui.generation.setup import install

    made = install(window, window, paths, settings)
    window.generation_panel = made.panel
    window.runs_controller = made.runs
    window.queue_controller = made.queue
    return made.panel
