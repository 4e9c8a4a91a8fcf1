"""Wires the generation panel into the painter's main window (called by the composition root)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication

from app.core.paths import AppPaths
from app.core.settings import Settings
from app.jobs.run_session import RunSession
from app.ui.generation_panel import GenerationPanel

PANEL_OBJECT_NAME = "GenerationDock"


def install_generation_panel(window: Any, paths: AppPaths, settings: Settings) -> GenerationPanel:
    """Adds the panel as a side dock of `window` (MainWindow.add_side_panel), follows its canvas
    document, and suspends a running diffuse when the application quits."""
    engine = Path(settings.engine_path) if settings.engine_path else None
    session = RunSession(paths, engine=engine, parent=window)
    panel = GenerationPanel(session, settings)
    title = QCoreApplication.translate("GenerationPanel", "Generate")
    dock = window.add_side_panel(panel, title, object_name=PANEL_OBJECT_NAME)
    dock.setMinimumWidth(460)
    document = getattr(window, "document", None)
    if document is not None:
        panel.set_document(document)
    app = QCoreApplication.instance()
    if app is not None:
        app.aboutToQuit.connect(panel.shutdown)
    canvas_view = getattr(window, "canvas_view", None)
    if canvas_view is not None:
        panel.demo_opened.connect(lambda _path: canvas_view.zoom_to_fit())
    menu_bar = getattr(window, "menuBar", None)
    if menu_bar is not None:
        help_menu = menu_bar().addMenu(QCoreApplication.translate("GenerationPanel", "&Help"))
        demo = help_menu.addAction(
            QCoreApplication.translate("GenerationPanel", "Try with demo models")
        )
        demo.triggered.connect(lambda: (dock.show(), dock.raise_(), panel.try_demo_models()))
    window.generation_panel = panel
    return panel
