"""The main window: canvas in the middle, tool panels on the right, actions in menus/toolbar."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QByteArray,
    QCoreApplication,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QCloseEvent,
    QColor,
    QDragEnterEvent,
    QDropEvent,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from app.canvas import files
from app.canvas.document import MaskDocument
from app.canvas.tools import PaintState
from app.core.errors import StepwiseError
from app.core.settings import Settings
from app.jobs.job_form import JobForm
from app.ui.kit.file_filters import IMAGE_SUFFIXES, image_file_filter, png_file_filter
from app.ui.kit.messages import show_error
from app.ui.painter.brush_panel import BrushPanel
from app.ui.painter.canvas_view import CanvasView
from app.ui.painter.frame_panel import FramePanel
from app.ui.painter.mask_controller import MaskController
from app.ui.painter.mask_panel import MaskPanel
from app.ui.prepare.controller import PrepareController
from app.ui.prepare.panel import PreparePanel
from app.ui.shell.job_settings import form_from_settings, report_form_problems, store_job_values
from app.ui.shell.main_actions import IMAGE_ACTIONS, create_actions, create_menus, create_toolbar
from app.ui.shell.window_status import StatusFields
from app.ui.workspace.area import WorkspaceArea
from app.ui.workspace.controller import WorkspaceController
from app.ui.workspace.png_settings import offer_png_settings

if TYPE_CHECKING:
    from app.ui.generation.panel import GenerationPanel
    from app.ui.queue.controller import QueueController
    from app.ui.runs.controller import RunsController
    from app.ui.shell.help_menu import HelpMenu

log = logging.getLogger(__name__)

RECENT_FILES_MAX = 10
SIDE_PANEL_WIDTH_PX = 360


class MainWindow(QMainWindow):
    """The painter. Other features add their own docks with `add_side_panel`."""

    recent_menu: QMenu
    file_menu: QMenu
    panels_menu: QMenu
    help_menu: QMenu
    # set by the features the composition root installs (typed: no getattr in the wiring)
    generation_panel: GenerationPanel
    runs_controller: RunsController
    help_actions: HelpMenu
    queue_controller: QueueController
    image_opened = Signal(str)
    closed = Signal()  # the close was accepted: workers that start the engine stop
    language_chosen = Signal(str)

    def __init__(
        self, settings: Settings, parent: QWidget | None = None, *, job_form: JobForm | None = None
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        # The job's parameters; the Prepare panel and the Generate panel bind to the same form.
        self.job_form = job_form if job_form is not None else form_from_settings(settings)
        report_form_problems(self.job_form, self.statusBar().showMessage)
        self.document = MaskDocument(self)
        # Asked before the window closes; each returns False to keep it open (a run in progress).
        self.close_guards: list[Callable[[], bool]] = []
        self.paint_state = PaintState(self)
        self.canvas_view = CanvasView(self.document, self.paint_state)
        self.mask_controller = MaskController(self.document, self)
        self.prepare_controller = PrepareController(self.document, self)
        self.actions_by_name: dict[str, QAction] = {}
        self._side_docks: list[QDockWidget] = []
        self._layout_restored = False

        self.setObjectName("MainWindow")
        # The canvas is the workspace: generated pictures show on it (app/ui/workspace).
        self.workspace_area = WorkspaceArea(self.canvas_view)
        self.workspace = WorkspaceController(self.workspace_area, self.document, self)
        self.setCentralWidget(self.workspace_area)
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        create_actions(self, self)
        create_menus(self, self)
        create_toolbar(self, self)
        self.brush_panel = BrushPanel(self.paint_state, self.canvas_view)
        self.mask_panel = MaskPanel(self.actions_by_name)
        self.prepare_panel = PreparePanel(self.actions_by_name, self.job_form)
        self.prepare_controller.set_panel(self.prepare_panel)
        self.frame_panel = FramePanel(
            self.job_form, self.document, self.canvas_view, self.paint_state
        )
        self.file_menu.insertAction(
            self.actions_by_name["preview_prepared"], self.frame_panel.expand_action
        )
        self._create_paint_dock()
        self._create_status_bar()
        self._connect()
        self._load_settings()
        self._update_title()
        self._update_history_actions()
        self._update_enabled()
        screen = QApplication.primaryScreen()
        if screen is not None:
            room = screen.availableGeometry().size()
            self.resize(min(1500, room.width() * 9 // 10), min(950, room.height() * 9 // 10))

    # --- extension point -------------------------------------------------------------------

    def add_side_panel(
        self, widget: QWidget, title: str, *, object_name: str | None = None, tabify: bool = True
    ) -> QDockWidget:
        """Adds `widget` as a dock on the right, as a tab beside the painter panel by default.

        `object_name` must be stable across versions: it keys the saved window layout.
        """
        dock = QDockWidget(title, self)
        dock.setObjectName(object_name or f"{type(widget).__name__}Dock")
        dock.setWidget(widget)
        dock.setFeatures(
            QDockWidget.DockWidgetFeature.DockWidgetMovable
            | QDockWidget.DockWidgetFeature.DockWidgetFloatable
            | QDockWidget.DockWidgetFeature.DockWidgetClosable
        )
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        if tabify and self._side_docks:
            self.tabifyDockWidget(self._side_docks[0], dock)
            self._side_docks[0].raise_()
        self._side_docks.append(dock)
        self.panels_menu.addAction(dock.toggleViewAction())
        return dock

    # --- construction ----------------------------------------------------------------------

    def _create_paint_dock(self) -> None:
        content = QWidget()
        content.setObjectName("sidePanel")
        layout = QVBoxLayout(content)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.setSpacing(10)
        layout.addWidget(self.brush_panel)
        layout.addWidget(self.mask_panel)
        layout.addWidget(self.prepare_panel)
        layout.addWidget(self.frame_panel)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(content)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(SIDE_PANEL_WIDTH_PX)
        self.paint_dock = self.add_side_panel(scroll, self.tr("Paint"), object_name="PaintDock")

    def _create_status_bar(self) -> None:
        self.status_fields = StatusFields(
            self.statusBar(), self.canvas_view, self.paint_state, self.document
        )

    def _connect(self) -> None:
        doc = self.document
        doc.history_changed.connect(self._update_history_actions)
        doc.modified_changed.connect(self._update_title)
        doc.image_changed.connect(self._update_title)
        doc.image_changed.connect(self._update_enabled)
        self.canvas_view.view_mode_changed.connect(self._sync_view_mode)
        self.paint_state.tool_changed.connect(self._sync_tool)
        self.workspace.status.connect(lambda text: self.statusBar().showMessage(text, 8000))
        self.mask_controller.mask_saved.connect(
            lambda p: self.statusBar().showMessage(self.tr("Mask saved to {0}").format(p), 5000)
        )
        self._sync_tool()

    # --- settings --------------------------------------------------------------------------

    def _load_settings(self) -> None:
        paint = self.settings.paint
        self.paint_state.set_size_px(paint.brush_size)
        self.paint_state.set_hardness(paint.brush_hardness)
        self.paint_state.set_opacity(paint.brush_opacity)
        color = QColor(paint.overlay_color)
        self.canvas_view.set_overlay(
            color if color.isValid() else QColor("#ff3050"), paint.overlay_opacity
        )
        self.brush_panel.sync_from_state()
        self._rebuild_recent_menu()

    def showEvent(self, event: QShowEvent) -> None:
        # The saved layout is restored at the first show, not in __init__: docks that other
        # features add after construction (add_side_panel) must exist by then.
        if not self._layout_restored:
            self._layout_restored = True
            if self.settings.window_geometry:
                self.restoreGeometry(QByteArray.fromBase64(self.settings.window_geometry.encode()))
            if self.settings.window_state:
                self.restoreState(QByteArray.fromBase64(self.settings.window_state.encode()))
            else:
                self.resizeDocks(
                    self._side_docks[:1], [SIDE_PANEL_WIDTH_PX], Qt.Orientation.Horizontal
                )
        super().showEvent(event)

    def store_settings(self) -> None:
        """Copies the window's state into `self.settings` (the caller saves the file)."""
        paint = self.settings.paint
        paint.brush_size = self.paint_state.size_px
        paint.brush_hardness = self.paint_state.hardness
        paint.brush_opacity = self.paint_state.opacity
        paint.overlay_color = self.canvas_view.overlay_color.name()
        paint.overlay_opacity = round(self.canvas_view.overlay_opacity, 3)
        store_job_values(self.settings, self.job_form.persisted())
        self.settings.window_geometry = bytes(self.saveGeometry().toBase64().data()).decode()
        self.settings.window_state = bytes(self.saveState().toBase64().data()).decode()

    def choose_language(self, code: str) -> None:
        if code == self.settings.language:
            return
        self.settings.language = code
        self.language_chosen.emit(code)
        QMessageBox.information(
            self, self.tr("Language"), self.tr("The new language is used from the next start.")
        )

    # --- files -----------------------------------------------------------------------------

    def choose_image(self) -> None:
        if not self._confirm_discard():
            return
        start = str(self.document.image_path.parent) if self.document.image_path else ""
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Open Image"), start, image_file_filter()
        )
        if path:
            self.open_image(Path(path))

    def open_image(self, path: Path | str) -> bool:
        """Loads a picture; a bad file gets a message naming it, and the current work stays."""
        path = Path(path)
        QApplication.setOverrideCursor(Qt.CursorShape.WaitCursor)
        try:
            image = files.read_picture(path)
        except (StepwiseError, OSError, MemoryError) as exc:
            QApplication.restoreOverrideCursor()
            show_error(self, self.tr("Could not open the image"), exc, path)
            return False
        try:
            self.document.set_image(image, path)
            self.canvas_view.zoom_to_fit()
        except MemoryError as exc:
            QApplication.restoreOverrideCursor()
            show_error(self, self.tr("Could not open the image"), exc, path)
            return False
        QApplication.restoreOverrideCursor()
        self._remember_recent(path)
        self.prepare_controller.forget()
        self.image_opened.emit(str(path))
        offer_png_settings(self, path, self.job_form)  # a PNG saved with its settings
        return True

    def choose_mask_to_load(self) -> None:
        if self.document.is_empty():
            return
        start = str(self.document.image_path.parent) if self.document.image_path else ""
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Load Mask"), start, image_file_filter()
        )
        if path:
            self.mask_controller.load_mask(Path(path))

    def save_mask(self) -> bool:
        if self.document.mask_path is None:
            return self.save_mask_as()
        return self.mask_controller.save_mask(self.document.mask_path)

    def save_mask_as(self) -> bool:
        if self.document.is_empty():
            return False
        suggested = ""
        if self.document.image_path is not None:
            image = self.document.image_path
            suggested = str(image.with_name(f"{image.stem}_mask.png"))
        path, _ = QFileDialog.getSaveFileName(
            self, self.tr("Save Mask"), suggested, png_file_filter()
        )
        if not path:
            return False
        path_obj = Path(path)
        if path_obj.suffix.lower() != ".png":
            path_obj = path_obj.with_suffix(".png")
        return self.mask_controller.save_mask(path_obj)

    def _confirm_discard(self) -> bool:
        """Asks before unsaved mask work is lost; True when it is fine to go on."""
        if not self.document.modified:
            return True
        answer = QMessageBox.question(
            self,
            self.tr("Unsaved mask"),
            self.tr("The mask has changes that are not saved. Save them first?"),
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Save,
        )
        if answer == QMessageBox.StandardButton.Save:
            return self.save_mask()
        return answer == QMessageBox.StandardButton.Discard

    def _remember_recent(self, path: Path) -> None:
        recent = [p for p in self.settings.recent_files if p != str(path)]
        self.settings.recent_files = [str(path), *recent][:RECENT_FILES_MAX]
        self._rebuild_recent_menu()

    def _rebuild_recent_menu(self) -> None:
        self.recent_menu.clear()
        for entry in self.settings.recent_files:
            act = self.recent_menu.addAction(Path(entry).name)
            act.setToolTip(entry)
            act.triggered.connect(lambda _=False, p=entry: self._open_recent(p))
        self.recent_menu.setEnabled(bool(self.settings.recent_files))

    def _open_recent(self, path: str) -> None:
        if self._confirm_discard():
            self.open_image(Path(path))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if self._dropped_image(event) is not None:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        path = self._dropped_image(event)
        if path is None:
            return
        event.acceptProposedAction()
        if self._confirm_discard():
            self.open_image(path)

    @staticmethod
    def _dropped_image(event: QDragEnterEvent | QDropEvent) -> Path | None:
        for url in event.mimeData().urls():
            if url.isLocalFile() and url.toLocalFile().lower().endswith(IMAGE_SUFFIXES):
                return Path(url.toLocalFile())
        return None

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._confirm_discard() or not all(guard() for guard in self.close_guards):
            event.ignore()
            return
        self.store_settings()
        event.accept()
        self.closed.emit()

    # --- view state ------------------------------------------------------------------------

    def _update_title(self) -> None:
        doc = self.document
        name = doc.image_title or self.tr("No image")
        self.setWindowTitle(f"{name}{' *' if doc.modified else ''} — Stepwise")

    def _update_enabled(self) -> None:
        has_image = not self.document.is_empty()
        for name in IMAGE_ACTIONS:
            self.actions_by_name[name].setEnabled(has_image)

    def _update_history_actions(self) -> None:
        history = self.document.history
        undo, redo = self.actions_by_name["undo"], self.actions_by_name["redo"]
        undo.setEnabled(history.can_undo())
        redo.setEnabled(history.can_redo())
        label_u = QCoreApplication.translate("MaskHistory", history.undo_label())
        label_r = QCoreApplication.translate("MaskHistory", history.redo_label())
        undo.setText(self.tr("&Undo {0}").format(label_u) if label_u else self.tr("&Undo"))
        redo.setText(self.tr("&Redo {0}").format(label_r) if label_r else self.tr("&Redo"))

    def _sync_tool(self) -> None:
        self.actions_by_name[f"tool_{self.paint_state.tool}"].setChecked(True)

    def _sync_view_mode(self, mode: str) -> None:
        name = {"composite": "view_composite", "image": "view_image", "mask": "view_mask"}[mode]
        self.actions_by_name[name].setChecked(True)
