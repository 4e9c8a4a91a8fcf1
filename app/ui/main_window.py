"""The main window: canvas in the middle, tool panels on the right, actions in menus/toolbar."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QByteArray,
    QCoreApplication,
    QPoint,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QAction,
    QActionGroup,
    QCloseEvent,
    QColor,
    QDragEnterEvent,
    QDropEvent,
    QIcon,
    QKeySequence,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from app.canvas import files
from app.canvas.document import MaskDocument
from app.canvas.tools import PaintState, ToolKind
from app.core.errors import StepwiseError
from app.core.settings import Settings
from app.jobs.job_form import JobForm
from app.ui.brush_panel import BrushPanel
from app.ui.canvas_view import CanvasView, ViewMode
from app.ui.file_filters import IMAGE_SUFFIXES, image_file_filter, png_file_filter
from app.ui.i18n import LANGUAGES
from app.ui.job_settings import form_from_settings, store_job_values
from app.ui.mask_controller import MaskController
from app.ui.mask_panel import MaskPanel
from app.ui.messages import show_error
from app.ui.prepare_controller import PrepareController
from app.ui.prepare_panel import PreparePanel

log = logging.getLogger(__name__)

ICONS_DIR = Path(__file__).resolve().parents[2] / "resources" / "icons"
RECENT_FILES_MAX = 10
SIDE_PANEL_WIDTH_PX = 360

# History labels come from the canvas and the mask controller untranslated; listed here so that
# they have translations (context "MaskHistory").
HISTORY_LABELS = (
    QT_TRANSLATE_NOOP("MaskHistory", "Brush stroke"),
    QT_TRANSLATE_NOOP("MaskHistory", "Erase"),
    QT_TRANSLATE_NOOP("MaskHistory", "Lasso fill"),
    QT_TRANSLATE_NOOP("MaskHistory", "Lasso erase"),
    QT_TRANSLATE_NOOP("MaskHistory", "Clear mask"),
    QT_TRANSLATE_NOOP("MaskHistory", "Fill mask"),
    QT_TRANSLATE_NOOP("MaskHistory", "Invert mask"),
    QT_TRANSLATE_NOOP("MaskHistory", "Grow mask"),
    QT_TRANSLATE_NOOP("MaskHistory", "Shrink mask"),
    QT_TRANSLATE_NOOP("MaskHistory", "Blur mask"),
    QT_TRANSLATE_NOOP("MaskHistory", "Load mask"),
)


def icon(name: str) -> QIcon:
    path = ICONS_DIR / f"{name}.svg"
    return QIcon(str(path)) if path.exists() else QIcon()


class MainWindow(QMainWindow):
    """The painter. Other features add their own docks with `add_side_panel`."""

    image_opened = Signal(str)
    language_chosen = Signal(str)

    def __init__(
        self, settings: Settings, parent: QWidget | None = None, *, job_form: JobForm | None = None
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        # The job's parameters; the Prepare panel and the Generate panel bind to the same form.
        self.job_form = job_form if job_form is not None else form_from_settings(settings)
        self.document = MaskDocument(self)
        self.paint_state = PaintState(self)
        self.canvas_view = CanvasView(self.document, self.paint_state)
        self.mask_controller = MaskController(self.document, self)
        self.prepare_controller = PrepareController(self.document, self)
        self.actions_by_name: dict[str, QAction] = {}
        self._side_docks: list[QDockWidget] = []
        self._layout_restored = False

        self.setObjectName("MainWindow")
        self.setCentralWidget(self.canvas_view)
        self.setAcceptDrops(True)
        self.setDockNestingEnabled(True)
        self._create_actions()
        self._create_menus()
        self._create_toolbar()
        self.brush_panel = BrushPanel(self.paint_state, self.canvas_view)
        self.mask_panel = MaskPanel(self.actions_by_name)
        self.prepare_panel = PreparePanel(self.actions_by_name, self.job_form)
        self.prepare_controller.set_panel(self.prepare_panel)
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

    def _action(
        self,
        name: str,
        text: str,
        slot,
        shortcut=None,
        icon_name: str = "",  # noqa: ANN001
        tip: str = "",
        checkable: bool = False,
    ) -> QAction:
        action = QAction(text, self)
        action.setObjectName(f"action_{name}")
        if icon_name:
            action.setIcon(icon(icon_name))
        if shortcut is not None:
            shortcuts = shortcut if isinstance(shortcut, list) else [shortcut]
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
        if tip:
            keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
            action.setToolTip(f"{tip} ({keys})" if keys else tip)
            action.setStatusTip(tip)
        action.setCheckable(checkable)
        action.triggered.connect(slot)
        self.addAction(action)  # shortcuts work even when a menu is hidden
        self.actions_by_name[name] = action
        return action

    def _create_actions(self) -> None:
        a = self._action
        view, state = self.canvas_view, self.paint_state
        a(
            "open_image",
            self.tr("&Open Image…"),
            self.choose_image,
            QKeySequence.StandardKey.Open,
            "open",
            self.tr("Open a picture to paint a mask on"),
        )
        a(
            "load_mask",
            self.tr("Load Mask…"),
            self.choose_mask_to_load,
            "Ctrl+Shift+O",
            "mask-open",
            self.tr("Load a mask PNG (white = repaint)"),
        )
        a(
            "save_mask",
            self.tr("&Save Mask"),
            self.save_mask,
            QKeySequence.StandardKey.Save,
            "save",
            self.tr("Save the mask as a PNG"),
        )
        a("save_mask_as", self.tr("Save Mask &As…"), self.save_mask_as, "Ctrl+Shift+S")
        a(
            "preview_prepared",
            self.tr("Preview"),
            self.prepare_controller.show_preview,
            "Ctrl+P",
            "preview",
            self.tr("Show exactly what the model will get"),
        )
        a(
            "export_prepared",
            self.tr("Export…"),
            self.prepare_controller.export,
            "Ctrl+E",
            "export",
            self.tr("Write input.png, mask.png and prepare.json to a folder"),
        )
        a(
            "apply_result",
            self.tr("Apply a Result…"),
            self.prepare_controller.apply_result,
            "Ctrl+R",
            "apply",
            self.tr("Blend a generated image back into the original"),
        )
        a("quit", self.tr("&Quit"), self.close, QKeySequence.StandardKey.Quit)

        a(
            "undo",
            self.tr("&Undo"),
            self.document.undo,
            QKeySequence.StandardKey.Undo,
            "undo",
            self.tr("Undo"),
        )
        a(
            "redo",
            self.tr("&Redo"),
            self.document.redo,
            ["Ctrl+Shift+Z", "Ctrl+Y"],
            "redo",
            self.tr("Redo"),
        )
        mc = self.mask_controller
        a("clear", self.tr("Clear"), mc.clear, "Ctrl+Shift+Del", "", self.tr("Clear the mask"))
        a("fill", self.tr("Fill All"), mc.fill, "", "", self.tr("Mask the whole picture"))
        a("invert", self.tr("Invert"), mc.invert, "Ctrl+I", "", self.tr("Invert the mask"))
        a(
            "grow",
            self.tr("Grow"),
            lambda: mc.grow(self.mask_panel.grow_px()),
            "",
            "",
            self.tr("Move the mask edge outwards"),
        )
        a(
            "shrink",
            self.tr("Shrink"),
            lambda: mc.shrink(self.mask_panel.grow_px()),
            "",
            "",
            self.tr("Move the mask edge inwards"),
        )
        a(
            "blur",
            self.tr("Blur"),
            lambda: mc.blur(self.mask_panel.blur_px()),
            "",
            "",
            self.tr("Soften the mask edge"),
        )

        tools = QActionGroup(self)
        for kind, name, text, key, tip in (
            (ToolKind.BRUSH, "tool_brush", self.tr("Brush"), "B", self.tr("Paint the mask")),
            (ToolKind.ERASER, "tool_eraser", self.tr("Eraser"), "E", self.tr("Erase the mask")),
            (
                ToolKind.LASSO,
                "tool_lasso",
                self.tr("Lasso"),
                "L",
                self.tr("Fill a free shape or polygon (Alt: cut out)"),
            ),
        ):
            act = a(
                name,
                text,
                lambda _=False, k=kind: state.set_tool(k),
                key,
                name[5:],
                tip,
                checkable=True,
            )
            tools.addAction(act)
        a("size_down", self.tr("Smaller Brush"), lambda: state.grow_size(-1), "[")
        a("size_up", self.tr("Larger Brush"), lambda: state.grow_size(1), "]")
        a(
            "hardness_down",
            self.tr("Softer Brush"),
            lambda: state.step_hardness(-1),
            "Shift+[",
        )
        a("hardness_up", self.tr("Harder Brush"), lambda: state.step_hardness(1), "Shift+]")

        a(
            "zoom_in",
            self.tr("Zoom &In"),
            lambda: view.zoom_by(1),
            QKeySequence.StandardKey.ZoomIn,
            "zoom-in",
        )
        a(
            "zoom_out",
            self.tr("Zoom &Out"),
            lambda: view.zoom_by(-1),
            QKeySequence.StandardKey.ZoomOut,
            "zoom-out",
        )
        a(
            "zoom_fit",
            self.tr("&Fit to Window"),
            view.zoom_to_fit,
            "Ctrl+0",
            "zoom-fit",
            self.tr("Fit the picture to the window"),
        )
        a(
            "zoom_100",
            self.tr("&Actual Pixels (100 %)"),
            view.zoom_actual_size,
            "Ctrl+1",
            "zoom-100",
            self.tr("Show the picture at 100 %"),
        )
        modes = QActionGroup(self)
        for mode, name, text, key in (
            (ViewMode.COMPOSITE, "view_composite", self.tr("Image and Mask"), "F2"),
            (ViewMode.IMAGE_ONLY, "view_image", self.tr("Image Only"), "F3"),
            (ViewMode.MASK_ONLY, "view_mask", self.tr("Mask Only"), "F4"),
        ):
            act = a(name, text, lambda _=False, m=mode: view.set_view_mode(m), key, checkable=True)
            modes.addAction(act)
        self.actions_by_name["view_composite"].setChecked(True)
        # Short toolbar labels; the menus keep the long ones.
        for name, short in (
            ("open_image", self.tr("Open")),
            ("save_mask", self.tr("Save")),
            ("undo", self.tr("Undo")),
            ("redo", self.tr("Redo")),
            ("zoom_fit", self.tr("Fit")),
            ("zoom_100", "100 %"),
        ):
            self.actions_by_name[name].setIconText(short)

    def _create_menus(self) -> None:
        n = self.actions_by_name
        bar = self.menuBar()
        file_menu = bar.addMenu(self.tr("&File"))
        file_menu.addAction(n["open_image"])
        self.recent_menu = file_menu.addMenu(self.tr("Open &Recent"))
        file_menu.addSeparator()
        for name in ("load_mask", "save_mask", "save_mask_as"):
            file_menu.addAction(n[name])
        file_menu.addSeparator()
        for name in ("preview_prepared", "export_prepared", "apply_result"):
            file_menu.addAction(n[name])
        file_menu.addSeparator()
        file_menu.addAction(n["quit"])
        self.file_menu = file_menu

        edit = bar.addMenu(self.tr("&Edit"))
        edit.addAction(n["undo"])
        edit.addAction(n["redo"])
        edit.addSeparator()
        mask = edit.addMenu(self.tr("&Mask"))
        for name in ("clear", "fill", "invert", "grow", "shrink", "blur"):
            mask.addAction(n[name])

        tools = bar.addMenu(self.tr("&Tools"))
        for name in ("tool_brush", "tool_eraser", "tool_lasso"):
            tools.addAction(n[name])
        tools.addSeparator()
        for name in ("size_down", "size_up", "hardness_down", "hardness_up"):
            tools.addAction(n[name])

        view = bar.addMenu(self.tr("&View"))
        for name in ("zoom_in", "zoom_out", "zoom_fit", "zoom_100"):
            view.addAction(n[name])
        view.addSeparator()
        for name in ("view_composite", "view_image", "view_mask"):
            view.addAction(n[name])
        view.addSeparator()
        self.panels_menu = view.addMenu(self.tr("&Panels"))
        language = view.addMenu(self.tr("&Language"))
        group = QActionGroup(self)
        choices = [("", self.tr("System Default"))] + list(LANGUAGES.items())
        for code, name in choices:
            act = language.addAction(name)
            act.setCheckable(True)
            act.setChecked(code == self.settings.language)
            act.triggered.connect(lambda _=False, c=code: self._choose_language(c))
            group.addAction(act)

    def _create_toolbar(self) -> None:
        bar = QToolBar(self.tr("Main"))
        bar.setObjectName("MainToolBar")
        bar.setMovable(False)
        bar.setIconSize(QSize(20, 20))
        bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        n = self.actions_by_name
        for group in (
            ("open_image", "save_mask"),
            ("undo", "redo"),
            ("tool_brush", "tool_eraser", "tool_lasso"),
            ("zoom_fit", "zoom_100"),
            ("preview_prepared", "export_prepared"),
        ):
            for name in group:
                bar.addAction(n[name])
            bar.addSeparator()
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)

    def _create_paint_dock(self) -> None:
        content = QWidget()
        content.setObjectName("sidePanel")
        layout = QVBoxLayout(content)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.setSpacing(10)
        layout.addWidget(self.brush_panel)
        layout.addWidget(self.mask_panel)
        layout.addWidget(self.prepare_panel)
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidget(content)
        scroll.setWidgetResizable(True)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(SIDE_PANEL_WIDTH_PX)
        self.paint_dock = self.add_side_panel(scroll, self.tr("Paint"), object_name="PaintDock")

    def _create_status_bar(self) -> None:
        bar = self.statusBar()
        self.cursor_label = QLabel()
        self.size_label = QLabel()
        self.brush_label = QLabel()
        self.zoom_label = QLabel()
        for label in (self.brush_label, self.cursor_label, self.size_label, self.zoom_label):
            label.setObjectName("statusField")
            bar.addPermanentWidget(label)
        self._show_cursor(QPoint(-1, -1))
        self._show_brush()
        self._show_zoom(self.canvas_view.zoom)

    def _connect(self) -> None:
        doc = self.document
        doc.history_changed.connect(self._update_history_actions)
        doc.modified_changed.connect(self._update_title)
        doc.image_changed.connect(self._update_title)
        doc.image_changed.connect(self._update_enabled)
        self.canvas_view.cursor_moved.connect(self._show_cursor)
        self.canvas_view.zoom_changed.connect(self._show_zoom)
        self.canvas_view.view_mode_changed.connect(self._sync_view_mode)
        self.paint_state.brush_changed.connect(self._show_brush)
        self.paint_state.tool_changed.connect(self._show_brush)
        self.paint_state.tool_changed.connect(self._sync_tool)
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

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802
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

    def _choose_language(self, code: str) -> None:
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

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if self._dropped_image(event) is not None:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
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

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        if not self._confirm_discard():
            event.ignore()
            return
        self.store_settings()
        event.accept()

    # --- view state ------------------------------------------------------------------------

    def _update_title(self) -> None:
        doc = self.document
        name = doc.image_path.name if doc.image_path else self.tr("No image")
        self.setWindowTitle(f"{name}{' *' if doc.modified else ''} — Stepwise")
        if doc.is_empty():
            self.size_label.setText("")
        else:
            self.size_label.setText(f"{doc.width} × {doc.height} px")

    def _update_enabled(self) -> None:
        has_image = not self.document.is_empty()
        for name in (
            "load_mask",
            "save_mask",
            "save_mask_as",
            "preview_prepared",
            "export_prepared",
            "apply_result",
            "clear",
            "fill",
            "invert",
            "grow",
            "shrink",
            "blur",
            "zoom_in",
            "zoom_out",
            "zoom_fit",
            "zoom_100",
        ):
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

    def _show_cursor(self, pos: QPoint) -> None:
        if pos.x() < 0:
            self.cursor_label.setText("—")
        else:
            self.cursor_label.setText(f"x {pos.x()}, y {pos.y()}")

    def _show_zoom(self, zoom: float) -> None:
        self.zoom_label.setText(f"{zoom * 100:.0f} %")

    def _show_brush(self) -> None:
        state = self.paint_state
        names = {
            ToolKind.BRUSH: self.tr("Brush"),
            ToolKind.ERASER: self.tr("Eraser"),
            ToolKind.LASSO: self.tr("Lasso"),
        }
        if state.tool == ToolKind.LASSO:
            self.brush_label.setText(names[state.tool])
        else:
            self.brush_label.setText(
                self.tr("{tool} {size} px · hardness {hardness} % · opacity {opacity} %").format(
                    tool=names[state.tool],
                    size=state.size_px,
                    hardness=round(state.hardness * 100),
                    opacity=round(state.opacity * 100),
                )
            )

    def _sync_tool(self) -> None:
        self.actions_by_name[f"tool_{self.paint_state.tool}"].setChecked(True)

    def _sync_view_mode(self, mode: str) -> None:
        name = {"composite": "view_composite", "image": "view_image", "mask": "view_mask"}[mode]
        self.actions_by_name[name].setChecked(True)
