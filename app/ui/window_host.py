"""What the window's features may use of it: the small protocols they talk to, so that no feature
imports the window.

`WindowHost` is what a feature the composition root installs (the generation panel, the Runs and
Queue docks) uses; `ShellWindow` adds what the window's own actions, menus and toolbar
(main_actions.py) reach. MainWindow implements both; this module imports no feature and not the
window, so app/ui has no import circle (tests/test_code_quality.py checks all of app/).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QDockWidget, QMenu, QStatusBar, QWidget

    from app.canvas.document import MaskDocument
    from app.canvas.tools import PaintState
    from app.core.settings import Settings
    from app.jobs.job_form import JobForm
    from app.ui.painter.canvas_view import CanvasView
    from app.ui.painter.mask_controller import MaskController
    from app.ui.painter.mask_panel import MaskPanel
    from app.ui.prepare.controller import PrepareController
    from app.ui.workspace.controller import WorkspaceController


class WindowHost(Protocol):
    """The window as a feature sees it."""

    settings: Settings
    job_form: JobForm
    document: MaskDocument
    canvas_view: CanvasView
    prepare_controller: PrepareController
    help_menu: QMenu
    close_guards: list[Callable[[], bool]]

    @property
    def workspace(self) -> WorkspaceController: ...

    @property
    def closed(self) -> SignalInstance: ...

    def add_side_panel(
        self, widget: QWidget, title: str, *, object_name: str | None = None, tabify: bool = True
    ) -> QDockWidget: ...

    def statusBar(self) -> QStatusBar: ...


class ShellWindow(WindowHost, Protocol):
    """The window as its own actions, menus and toolbar see it (main_actions.py)."""

    actions_by_name: dict[str, QAction]
    paint_state: PaintState
    mask_controller: MaskController
    mask_panel: MaskPanel
    recent_menu: QMenu
    file_menu: QMenu
    panels_menu: QMenu

    def choose_image(self) -> None: ...
    def choose_mask_to_load(self) -> None: ...
    def save_mask(self) -> bool: ...
    def save_mask_as(self) -> bool: ...
    def choose_language(self, code: str) -> None: ...
