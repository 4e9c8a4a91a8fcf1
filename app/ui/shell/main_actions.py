"""The main window's actions, menus and toolbar (the painter's commands and their shortcuts)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QSize, Qt
from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
from PySide6.QtWidgets import QMainWindow, QToolBar

from app.canvas.tools import ToolKind
from app.ui import RESOURCES_DIR
from app.ui.painter.canvas_view import ViewMode
from app.ui.words.i18n import LANGUAGES

if TYPE_CHECKING:
    from app.ui.window_host import ShellWindow

TR_CONTEXT = "MainWindow"
ICONS_DIR = RESOURCES_DIR / "icons"


# The actions that need an open picture.
IMAGE_ACTIONS = (
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
)

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


def _tr(text: str) -> str:
    return QCoreApplication.translate("MainWindow", text)


def icon(name: str) -> QIcon:
    path = ICONS_DIR / f"{name}.svg"
    return QIcon(str(path)) if path.exists() else QIcon()


def _action(
    window: ShellWindow,
    owner: QMainWindow,
    name: str,
    text: str,
    slot,
    shortcut=None,
    icon_name: str = "",
    tip: str = "",
    checkable: bool = False,
) -> QAction:
    action = QAction(text, owner)
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
    owner.addAction(action)  # shortcuts work even when a menu is hidden
    window.actions_by_name[name] = action
    return action


def create_actions(window: ShellWindow, owner: QMainWindow) -> None:
    """The window's actions; `owner`: the Qt window that holds them (the window itself)."""
    a = functools.partial(_action, window, owner)
    view, state = window.canvas_view, window.paint_state
    a(
        "open_image",
        _tr("&Open Image…"),
        window.choose_image,
        QKeySequence.StandardKey.Open,
        "open",
        _tr("Open a picture to paint a mask on"),
    )
    a(
        "load_mask",
        _tr("Load Mask…"),
        window.choose_mask_to_load,
        "Ctrl+Shift+O",
        "mask-open",
        _tr("Load a mask PNG (white = repaint)"),
    )
    a(
        "save_mask",
        _tr("&Save Mask"),
        window.save_mask,
        QKeySequence.StandardKey.Save,
        "save",
        _tr("Save the mask as a PNG"),
    )
    a("save_mask_as", _tr("Save Mask &As…"), window.save_mask_as, "Ctrl+Shift+S")
    a(
        "preview_prepared",
        _tr("Preview"),
        window.prepare_controller.show_preview,
        "Ctrl+P",
        "preview",
        _tr("Show exactly what the model will get"),
    )
    a(
        "export_prepared",
        _tr("Export…"),
        window.prepare_controller.export,
        "Ctrl+E",
        "export",
        _tr("Write input.png, mask.png and prepare.json to a folder"),
    )
    a(
        "apply_result",
        _tr("Apply a Result…"),
        window.prepare_controller.apply_result,
        "Ctrl+R",
        "apply",
        _tr("Blend a generated image back into the original"),
    )
    a("quit", _tr("&Quit"), owner.close, QKeySequence.StandardKey.Quit)

    a(
        "undo",
        _tr("&Undo"),
        window.document.undo,
        QKeySequence.StandardKey.Undo,
        "undo",
        _tr("Undo"),
    )
    a(
        "redo",
        _tr("&Redo"),
        window.document.redo,
        ["Ctrl+Shift+Z", "Ctrl+Y"],
        "redo",
        _tr("Redo"),
    )
    mc = window.mask_controller
    a("clear", _tr("Clear"), mc.clear, "Ctrl+Shift+Del", "", _tr("Clear the mask"))
    a("fill", _tr("Fill All"), mc.fill, "", "", _tr("Mask the whole picture"))
    a("invert", _tr("Invert"), mc.invert, "Ctrl+I", "", _tr("Invert the mask"))
    a(
        "grow",
        _tr("Grow"),
        lambda: mc.grow(window.mask_panel.grow_px()),
        "",
        "",
        _tr("Move the mask edge outwards"),
    )
    a(
        "shrink",
        _tr("Shrink"),
        lambda: mc.shrink(window.mask_panel.grow_px()),
        "",
        "",
        _tr("Move the mask edge inwards"),
    )
    a(
        "blur",
        _tr("Blur"),
        lambda: mc.blur(window.mask_panel.blur_px()),
        "",
        "",
        _tr("Soften the mask edge"),
    )

    tools = QActionGroup(owner)
    for kind, name, text, key, tip in (
        (ToolKind.BRUSH, "tool_brush", _tr("Brush"), "B", _tr("Paint the mask")),
        (ToolKind.ERASER, "tool_eraser", _tr("Eraser"), "E", _tr("Erase the mask")),
        (
            ToolKind.LASSO,
            "tool_lasso",
            _tr("Lasso"),
            "L",
            _tr("Fill a free shape or polygon (Alt: cut out)"),
        ),
        (
            ToolKind.CONTEXT,
            "tool_context",
            _tr("Context Area"),
            "C",
            _tr("Drag the area the model sees besides the mask; a click clears it"),
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
    a("size_down", _tr("Smaller Brush"), lambda: state.grow_size(-1), "[")
    a("size_up", _tr("Larger Brush"), lambda: state.grow_size(1), "]")
    a(
        "hardness_down",
        _tr("Softer Brush"),
        lambda: state.step_hardness(-1),
        "Shift+[",
    )
    a("hardness_up", _tr("Harder Brush"), lambda: state.step_hardness(1), "Shift+]")

    a(
        "zoom_in",
        _tr("Zoom &In"),
        lambda: view.zoom_by(1),
        QKeySequence.StandardKey.ZoomIn,
        "zoom-in",
    )
    a(
        "zoom_out",
        _tr("Zoom &Out"),
        lambda: view.zoom_by(-1),
        QKeySequence.StandardKey.ZoomOut,
        "zoom-out",
    )
    a(
        "zoom_fit",
        _tr("&Fit to Window"),
        view.zoom_to_fit,
        "Ctrl+0",
        "zoom-fit",
        _tr("Fit the picture to the window"),
    )
    a(
        "zoom_100",
        _tr("&Actual Pixels (100 %)"),
        view.zoom_actual_size,
        "Ctrl+1",
        "zoom-100",
        _tr("Show the picture at 100 %"),
    )
    modes = QActionGroup(owner)
    for mode, name, text, key in (
        (ViewMode.COMPOSITE, "view_composite", _tr("Image and Mask"), "F2"),
        (ViewMode.IMAGE_ONLY, "view_image", _tr("Image Only"), "F3"),
        (ViewMode.MASK_ONLY, "view_mask", _tr("Mask Only"), "F4"),
    ):
        act = a(name, text, lambda _=False, m=mode: view.set_view_mode(m), key, checkable=True)
        modes.addAction(act)
    window.actions_by_name["view_composite"].setChecked(True)
    # Short toolbar labels; the menus keep the long ones.
    for name, short in (
        ("open_image", _tr("Open")),
        ("save_mask", _tr("Save")),
        ("undo", _tr("Undo")),
        ("redo", _tr("Redo")),
        ("zoom_fit", _tr("Fit")),
        ("zoom_100", "100 %"),
    ):
        window.actions_by_name[name].setIconText(short)


def create_menus(window: ShellWindow, owner: QMainWindow) -> None:
    n = window.actions_by_name
    bar = owner.menuBar()
    file_menu = bar.addMenu(_tr("&File"))
    file_menu.addAction(n["open_image"])
    window.recent_menu = file_menu.addMenu(_tr("Open &Recent"))
    file_menu.addSeparator()
    for name in ("load_mask", "save_mask", "save_mask_as"):
        file_menu.addAction(n[name])
    file_menu.addSeparator()
    for name in ("preview_prepared", "export_prepared", "apply_result"):
        file_menu.addAction(n[name])
    file_menu.addSeparator()
    file_menu.addAction(n["quit"])
    window.file_menu = file_menu

    edit = bar.addMenu(_tr("&Edit"))
    edit.addAction(n["undo"])
    edit.addAction(n["redo"])
    edit.addSeparator()
    mask = edit.addMenu(_tr("&Mask"))
    for name in ("clear", "fill", "invert", "grow", "shrink", "blur"):
        mask.addAction(n[name])

    tools = bar.addMenu(_tr("&Tools"))
    for name in ("tool_brush", "tool_eraser", "tool_lasso", "tool_context"):
        tools.addAction(n[name])
    tools.addSeparator()
    for name in ("size_down", "size_up", "hardness_down", "hardness_up"):
        tools.addAction(n[name])

    view = bar.addMenu(_tr("&View"))
    for name in ("zoom_in", "zoom_out", "zoom_fit", "zoom_100"):
        view.addAction(n[name])
    view.addSeparator()
    for name in ("view_composite", "view_image", "view_mask"):
        view.addAction(n[name])
    view.addSeparator()
    window.panels_menu = view.addMenu(_tr("&Panels"))
    language = view.addMenu(_tr("&Language"))
    group = QActionGroup(owner)
    choices = [("", _tr("System Default"))] + list(LANGUAGES.items())
    for code, name in choices:
        act = language.addAction(name)
        act.setCheckable(True)
        act.setChecked(code == window.settings.language)
        act.triggered.connect(lambda _=False, c=code: window.choose_language(c))
        group.addAction(act)
    # The one Help menu: the generation panel and the window services add their items to it.
    window.help_menu = bar.addMenu(_tr("&Help"))
    window.help_menu.setObjectName("help_menu")


def create_toolbar(window: ShellWindow, owner: QMainWindow) -> None:
    bar = QToolBar(_tr("Main"))
    bar.setObjectName("MainToolBar")
    bar.setMovable(False)
    bar.setIconSize(QSize(20, 20))
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    n = window.actions_by_name
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
    owner.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
