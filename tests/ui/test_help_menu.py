"""Help: About names the real engine's version, pin and patch series and the devices; the
shortcut list is generated from the window's actions; the folders open in the file manager."""

from __future__ import annotations

import ast
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

from app.core import platform
from app.core.paths import app_paths
from app.pipeline.api import DeviceInfo
from app.ui.shell.help_menu import (
    AboutDialog,
    ShortcutsDialog,
    install_help_menu,
    parse_engine_version,
    shortcut_rows,
)
from tests.ui.painter import open_window


def test_the_engine_version_line_is_read() -> None:
    parsed = parse_engine_version(
        "sd-stage 0.1.0 (stable-diffusion.cpp master-596-90e87bc, patches 897fd0f57862)"
    )
    assert parsed is not None
    assert (parsed.version, parsed.pin, parsed.patches) == (
        "0.1.0",
        "stable-diffusion.cpp master-596-90e87bc",
        "897fd0f57862",
    )
    for kind in ("release", "test"):  # the build kind is not part of the pin
        line = f"sd-stage 0.1.0 (stable-diffusion.cpp master-596-90e87bc, {kind}, patches 1a2b3c)"
        kept = parse_engine_version(line)
        assert kept is not None and kept.pin == "stable-diffusion.cpp master-596-90e87bc"
    assert parse_engine_version("something else") is None


def test_a_device_line_says_its_memory_and_allocation_limit() -> None:
    from app.ui.shell.help_menu import device_line

    gib = 2**30
    rx590 = DeviceInfo("vulkan0", "AMD Radeon RX 590", 8 * gib, 7 * gib, 2 * gib)
    assert device_line(rx590) == "vulkan0 — AMD Radeon RX 590: 8.0 GB, allocations up to 2.0 GB"
    assert device_line(DeviceInfo("cpu", "CPU")) == "cpu — CPU"
    assert device_line(DeviceInfo("vulkan1", "", 4 * gib, None, 4 * gib)) == "vulkan1: 4.0 GB"


def test_menu_texts_lose_their_mnemonics() -> None:
    from app.ui.shell.help_menu import _plain

    assert _plain("&Open Image…") == "Open Image…"
    assert _plain("打开图像(&O)…") == "打开图像…"
    assert _plain("文件(&F)") == "文件"
    assert _plain("Save && Quit") == "Save & Quit"


def test_shortcuts_come_from_the_real_actions(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    rows = shortcut_rows(window)
    by_action = {action: (where, keys) for where, action, keys in rows}
    assert by_action["Brush"] == ("Tools", "B")
    assert by_action["Redo"][1] == "Ctrl+Shift+Z, Ctrl+Y"
    assert by_action["Invert"] == ("Edit → Mask", "Ctrl+I")
    assert all("&" not in action for _where, action, _keys in rows)
    # A changed shortcut shows as it is now: the list is read from the actions, not a table.
    window.actions_by_name["tool_brush"].setShortcut(QKeySequence("Ctrl+Alt+B"))
    dialog = ShortcutsDialog(window)
    qtbot.addWidget(dialog)
    assert ("Tools", "Brush", "Ctrl+Alt+B") in dialog.rows()
    # An action that lives only on the window is listed too.
    extra = QAction("Secret thing", window)
    extra.setShortcut(QKeySequence("F9"))
    window.addAction(extra)
    assert ("", "Secret thing", "F9") in shortcut_rows(window)


def test_about_shows_the_real_engines_pin_and_the_devices(qtbot, sd_stage: Path) -> None:
    devices = [DeviceInfo("cpu", "CPU"), DeviceInfo("vulkan0", "llvmpipe")]
    dialog = AboutDialog(None, devices, sd_stage)
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.file_label.text() == str(sd_stage), timeout=30_000)
    dialog.probe.wait()
    assert dialog.engine_label.text() == "sd-stage 0.1.0"
    assert dialog.pin_label.text() == "stable-diffusion.cpp master-596-90e87bc"
    assert len(dialog.patches_label.text()) == 12
    assert dialog.devices_label.text() == "cpu — CPU\nvulkan0 — llvmpipe"


def test_about_explains_a_missing_engine(qtbot, tmp_path) -> None:
    dialog = AboutDialog(None, [], tmp_path / "no-sd-stage")
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: "does not exist" in dialog.engine_label.text(), timeout=30_000)
    dialog.probe.wait()
    assert "Not known yet" in dialog.devices_label.text()


def test_the_menu_reuses_the_help_menu_and_opens_folders(qtbot, tmp_path, monkeypatch) -> None:
    window = open_window(qtbot, tmp_path)
    existing = window.help_menu  # the window's own, found by its name in any language
    existing.setTitle("帮助(&H)")  # as 简体中文 titles it: never matched by its text
    demo = existing.addAction("Try with demo models")
    opened: list[Path] = []
    monkeypatch.setattr(platform, "open_folder", lambda folder: opened.append(Path(folder)))
    paths = app_paths()
    help_menu = install_help_menu(window, paths)
    assert help_menu.menu is existing
    tops = window.menuBar().findChildren(QMenu, options=Qt.FindChildOption.FindDirectChildrenOnly)
    titles = [menu.title() for menu in tops]
    assert titles.count("帮助(&H)") == 1 and "&Help" not in titles
    texts = [a.text() for a in existing.actions() if not a.isSeparator()]
    assert texts == [
        "Try with demo models",
        "&Keyboard Shortcuts",
        "Open &Runs Folder",
        "Open &Log Folder",
        "&About Stepwise",
    ]
    help_menu.actions["open_runs"].trigger()
    help_menu.actions["open_logs"].trigger()
    assert opened == [paths.runs_dir, paths.log_dir]
    # Another part's item goes first.
    other = QAction("First item", window)
    help_menu.add_action(other)
    assert existing.actions()[0] is other
    assert demo in existing.actions()


def test_open_folder_runs_the_desktops_opener(tmp_path, monkeypatch) -> None:
    folder = tmp_path / "not-yet"
    assert platform.folder_opener(folder) == ["xdg-open", str(folder)]
    monkeypatch.setattr(platform, "MACOS", True)
    assert platform.folder_opener(folder) == ["open", str(folder)]
    monkeypatch.setattr(platform, "WINDOWS", True)
    assert platform.folder_opener(folder) is None


def test_settings_show_the_folders_with_open_buttons(qtbot, monkeypatch) -> None:
    from app.jobs.job_form import JobForm
    from app.ui.shell.settings_dialog import SettingsDialog

    opened: list[Path] = []
    monkeypatch.setattr(platform, "open_folder", lambda folder: opened.append(Path(folder)))
    paths = app_paths()
    dialog = SettingsDialog(application_settings(), JobForm(), paths=paths)
    qtbot.addWidget(dialog)
    assert list(dialog.folder_buttons) == [
        paths.runs_dir,
        paths.cache_dir,
        paths.log_dir,
        paths.measure_dir,  # the measure reports, to send with a question (issue 41)
        paths.config_dir,
    ]
    dialog.folder_buttons[paths.runs_dir].click()
    dialog.folder_buttons[paths.measure_dir].click()
    assert opened == [paths.runs_dir, paths.measure_dir]


def application_settings():
    from app.core.settings import Settings

    return Settings()


def test_no_code_asks_an_action_for_its_menu() -> None:
    """PySide6 6.9 and 6.10 delete a menu once the QAction that QAction.menu() was asked
    through is collected: Stepwise stopped at start-up with "Internal C++ object (QMenu) already
    deleted" (issue 37, bug 4). Menus are found from their side (findChildren, menuAction)."""
    root = Path(__file__).resolve().parents[2]
    found = []
    for path in sorted((root / "app").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "menu"
                and not node.args
            ):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    assert found == [], found


def test_the_shortcut_list_has_the_held_keys(qtbot, tmp_path) -> None:
    """Issue 41.11: hold `\\` (before / after) was missing; the keys that are no action are
    listed from their one owner (app/ui/painter/held_keys.py), after the actions' own."""
    window = open_window(qtbot, tmp_path)
    dialog = ShortcutsDialog(window)
    qtbot.addWidget(dialog)
    rows = dialog.rows()
    keys = {what: keys for _where, what, keys in rows}
    before_after = "Show the photo under the generated picture (before / after)"
    assert keys[before_after] == "hold \\"
    assert keys["Pan"].startswith("hold Space")
    assert rows.index(("Tools", "Brush", "B")) < len(rows) - 6  # the actions come first
