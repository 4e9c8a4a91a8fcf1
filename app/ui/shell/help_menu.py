"""The Help menu: About (Stepwise's version, the engine's pin and patch series from its own
version line, the devices), Keyboard shortcuts (listed from the window's real QActions), and
the runs and log folders opened in the file manager. Other features add items with
`HelpMenu.add_action` (the demo's "Try with demo models" goes first)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHeaderView,
    QLabel,
    QMainWindow,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ERROR_CONTEXT
from app.core.paths import AppPaths
from app.jobs.workers import EngineWorker, WorkerStopped
from app.pipeline.api import DeviceInfo
from app.pipeline.engine_info import EngineInfo, engine_info
from app.ui.painter.held_keys import held_key_rows
from app.ui.shell.settings_dialog import open_folder
from app.ui.words.sentences import MENU_PATH_SEPARATOR

TR_CONTEXT = "HelpMenu"
PACKAGE = "stepwise"
SHORTCUTS_SIZE = QSize(720, 560)  # fits 1280×720 with its title bar
SIDE_COLUMN_MAX_PX = 200  # the Menu and Keys columns; longer ones wrap
# "sd-stage 0.1.0 (stable-diffusion.cpp master-596-90e87bc, release, patches 897fd0f57862)";
# the build kind (release / test, native/README.md) is not part of the pin.
VERSION_LINE = re.compile(
    r"^sd-stage (?P<version>\S+) \((?P<pin>.+?)(?:, (?:release|test))?, patches (?P<patches>\w+)\)$"
)
MNEMONIC_IN_PARENS = re.compile(r"\s*\(&[^&()]\)")


def _tr(text: str) -> str:
    return QCoreApplication.translate("HelpMenu", text)


def app_version() -> str:
    try:
        return metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        return "?"


@dataclass(frozen=True)
class EngineVersion:
    version: str
    pin: str
    patches: str


def parse_engine_version(line: str) -> EngineVersion | None:
    m = VERSION_LINE.match(line.strip())
    return EngineVersion(m["version"], m["pin"], m["patches"]) if m else None


# --- keyboard shortcuts, from the actions themselves ------------------------------------------


def _plain(text: str) -> str:
    """A menu text without its mnemonic ("&Open Image…" → "Open Image…", and the Chinese
    style "打开图像(&O)…" → "打开图像…")."""
    text = MNEMONIC_IN_PARENS.sub("", text)
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def _submenus(window: QWidget) -> dict[QAction, QMenu]:
    """Each menu of `window` by the action that opens it, read from the menu's side: PySide6
    6.9 and 6.10 delete a menu once the QAction that `QAction.menu()` was asked through is
    collected ("Internal C++ object (QMenu) already deleted" at start-up), so nothing here
    asks an action for its menu."""
    return {menu.menuAction(): menu for menu in window.findChildren(QMenu)}


def _menu_actions(
    menu: QMenu, path: str, submenus: dict[QAction, QMenu]
) -> Iterator[tuple[str, QAction]]:
    for action in menu.actions():
        sub = submenus.get(action)
        if sub is not None:
            where = path + MENU_PATH_SEPARATOR + _plain(sub.title())
            yield from _menu_actions(sub, where, submenus)
        elif not action.isSeparator():
            yield path, action


def shortcut_rows(window: QMainWindow) -> list[tuple[str, str, str]]:
    """(where, action, keys) for every action of `window` with a shortcut: the menus' in menu
    order, then those that live only on the window (toolbar or key-only actions)."""
    rows: list[tuple[str, str, str]] = []
    seen: set[int] = set()

    def add(where: str, action: QAction) -> None:
        if id(action) in seen:
            return
        seen.add(id(action))
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in action.shortcuts()]
        keys = [k for k in keys if k]
        if keys:
            rows.append((where, _plain(action.text()), ", ".join(keys)))

    submenus = _submenus(window)
    for top in window.menuBar().actions():
        menu = submenus.get(top)
        if menu is not None:
            for where, action in _menu_actions(menu, _plain(menu.title()), submenus):
                add(where, action)
    for action in window.findChildren(QAction):
        add("", action)
    return rows


class ShortcutsDialog(QDialog):
    """Every shortcut of the window, read from its actions when the dialog opens."""

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.setObjectName("shortcuts_dialog")
        self.setWindowTitle(_tr("Keyboard shortcuts"))
        rows = shortcut_rows(window) + held_key_rows()  # then the keys that are no action
        self.table = QTableWidget(len(rows), 3, self)
        self.table.setHorizontalHeaderLabels([_tr("Menu"), _tr("Action"), _tr("Keys")])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        for row, values in enumerate(rows):
            for column, value in enumerate(values):
                self.table.setItem(row, column, QTableWidgetItem(value))
        # Menu and Keys as wide as their text up to a cap (the held keys' long rows wrap), the
        # Action column the rest; rows as tall as their wrapped text (no cell elides "Open…").
        header = self.table.horizontalHeader()
        self.table.setWordWrap(True)
        self.table.resizeColumnsToContents()
        for column in (0, 2):
            header.resizeSection(column, min(header.sectionSize(column), SIDE_COLUMN_MAX_PX))
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        rows_header = self.table.verticalHeader()
        rows_header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)
        self.resize(SHORTCUTS_SIZE)

    def rows(self) -> list[tuple[str, ...]]:
        table = self.table
        out = []
        for r in range(table.rowCount()):
            items = [table.item(r, c) for c in range(3)]
            out.append(tuple(item.text() if item is not None else "" for item in items))
        return out


# --- About ---------------------------------------------------------------------------------


class EngineInfoProbe(EngineWorker):
    """Asks for the engine's version line off the UI thread (it runs a process or two)."""

    found = Signal(object)  # EngineInfo

    def __init__(self, engine: Path | None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._engine = engine

    def work(self) -> None:
        with contextlib.suppress(WorkerStopped):  # the dialog closed first
            self.found.emit(engine_info(self._engine))


def _gb(size: int) -> str:
    return f"{size / 2**30:.1f}"


def device_line(device: DeviceInfo) -> str:
    """ "vulkan0 — AMD Radeon RX 590: 8.0 GB, allocations up to 2.0 GB" (what the engine said)."""
    line = f"{device.name} — {device.description}" if device.description else device.name
    facts = []
    if device.total_bytes:
        facts.append(_tr("{gb} GB").format(gb=_gb(device.total_bytes)))
    limit = device.max_alloc_bytes
    if limit and (device.total_bytes is None or limit < device.total_bytes):
        facts.append(_tr("allocations up to {gb} GB").format(gb=_gb(limit)))
    return f"{line}: {', '.join(facts)}" if facts else line


class AboutDialog(QDialog):
    """Stepwise's version, the engine (version, pinned sd.cpp, patch series, file), devices."""

    def __init__(
        self, parent: QWidget | None, devices: list[DeviceInfo], engine: Path | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("about_dialog")
        self.setWindowTitle(_tr("About Stepwise"))
        title = QLabel(f"<h2>Stepwise {app_version()}</h2>", self)
        blurb = QLabel(
            _tr(
                "Inpainting and text to image with FLUX.2 [klein] on your own computer, "
                "one stage at a time."
            ),
            self,
        )
        blurb.setWordWrap(True)
        form = QFormLayout()
        self.engine_label = QLabel(_tr("Asking the engine…"), self)
        self.pin_label = QLabel("—", self)
        self.patches_label = QLabel("—", self)
        self.file_label = QLabel("—", self)
        self.devices_label = QLabel(self._devices_text(devices), self)
        for label in (self.engine_label, self.file_label, self.devices_label):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow(_tr("Engine"), self.engine_label)
        form.addRow(_tr("Pinned source"), self.pin_label)
        form.addRow(_tr("Patch series"), self.patches_label)
        form.addRow(_tr("Engine file"), self.file_label)
        form.addRow(_tr("Devices"), self.devices_label)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(blurb)
        layout.addLayout(form)
        layout.addWidget(buttons)
        self.resize(560, self.sizeHint().height())
        self.probe = EngineInfoProbe(engine, self)
        self.probe.found.connect(self.show_engine)
        self.finished.connect(lambda _code: self.probe.stop())
        self.probe.start()

    @staticmethod
    def _devices_text(devices: list[DeviceInfo]) -> str:
        if not devices:
            return _tr("Not known yet (Detect devices in the Generate tab)")
        return "\n".join(device_line(d) for d in devices)

    def show_engine(self, info: EngineInfo) -> None:
        if info.error is not None:
            self.engine_label.setText(
                info.error.user_message(lambda t: QCoreApplication.translate(ERROR_CONTEXT, t))
            )
            return
        parsed = parse_engine_version(info.version)
        if parsed is None:
            self.engine_label.setText(info.version or _tr("The engine did not say its version."))
        else:
            self.engine_label.setText(f"sd-stage {parsed.version}")
            self.pin_label.setText(parsed.pin)
            self.patches_label.setText(parsed.patches)
        self.file_label.setText(str(info.path) if info.path else "—")


# --- the menu ------------------------------------------------------------------------------


def _existing_help_menu(window: QMainWindow) -> QMenu | None:
    """The window's Help menu (MainWindow makes it with its menus, named "help_menu"): one
    Help menu, found by its name, never by its translated title."""
    return window.findChild(QMenu, "help_menu")


class HelpMenu(QObject):
    """The window's Help menu and its actions (About, shortcuts, the folders)."""

    def __init__(
        self,
        window: QMainWindow,
        paths: AppPaths,
        devices: Callable[[], list[DeviceInfo]],
        engine: Callable[[], Path | None],
    ) -> None:
        super().__init__(window)
        self.window, self.paths, self.devices, self.engine = window, paths, devices, engine
        menu = _existing_help_menu(window)
        if menu is None:
            menu = window.menuBar().addMenu(_tr("&Help"))
        elif menu.actions():
            menu.addSeparator()
        menu.setObjectName("help_menu")
        self.menu = menu
        self.actions: dict[str, QAction] = {}
        self._add("shortcuts", _tr("&Keyboard Shortcuts"), self.show_shortcuts, "Ctrl+/")
        self._add("open_runs", _tr("Open &Runs Folder"), lambda: self._open(paths.runs_dir))
        self._add("open_logs", _tr("Open &Log Folder"), lambda: self._open(paths.log_dir))
        menu.addSeparator()
        self._add("about", _tr("&About Stepwise"), self.show_about)
        self.actions["about"].setMenuRole(QAction.MenuRole.AboutRole)
        self.dialog: QDialog | None = None  # the last one shown (tests look at it)

    def _add(self, name: str, text: str, slot: Callable[[], Any], keys: str = "") -> None:
        action = QAction(text, self.window)
        action.setObjectName(f"action_help_{name}")
        if keys:
            action.setShortcut(QKeySequence(keys))
        action.triggered.connect(lambda _=False: slot())
        self.menu.addAction(action)
        self.actions[name] = action

    def add_action(self, action: QAction, *, first: bool = True) -> None:
        """Adds another part's item (the demo's goes first, above a separator)."""
        items = self.menu.actions()
        if first and items:
            self.menu.insertAction(items[0], action)
            self.menu.insertSeparator(items[0])
        else:
            self.menu.addAction(action)

    def _open(self, folder: Path) -> None:
        open_folder(self.window, folder)

    def show_shortcuts(self) -> None:
        self.dialog = ShortcutsDialog(self.window)
        self.dialog.exec()

    def show_about(self) -> None:
        self.dialog = AboutDialog(self.window, self.devices(), self.engine())
        self.dialog.exec()


def install_help_menu(
    window: QMainWindow,
    paths: AppPaths,
    *,
    devices: Callable[[], list[DeviceInfo]] | None = None,
    engine: Callable[[], Path | None] | None = None,
) -> HelpMenu:
    """The Help menu on `window` (reusing one that exists); `devices` gives what the engine
    listed, `engine` the sd-stage chosen in Settings (None: the built-in one)."""
    return HelpMenu(window, paths, devices or (lambda: []), engine or (lambda: None))
