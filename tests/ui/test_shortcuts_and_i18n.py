"""Keyboard shortcuts change the painter's state; Chinese text appears when chosen."""

from __future__ import annotations

import ast
import logging
import re
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from app.canvas.tools import ToolKind
from app.core.settings import Settings
from app.ui.shell.application import make_excepthook
from app.ui.shell.main_window import MainWindow
from app.ui.words import i18n
from tests.ui.painter import open_window

ROOT = Path(__file__).resolve().parents[2]


def test_bracket_keys_change_size_and_hardness(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    view, state = window.canvas_view, window.paint_state
    state.set_size_px(40)
    state.set_hardness(0.5)
    QTest.keyClick(view, Qt.Key.Key_BracketRight)
    assert state.size_px > 40
    bigger = state.size_px
    QTest.keyClick(view, Qt.Key.Key_BracketLeft)
    QTest.keyClick(view, Qt.Key.Key_BracketLeft)
    assert state.size_px < bigger and state.size_px < 40
    QTest.keyClick(view, Qt.Key.Key_BracketRight, Qt.KeyboardModifier.ShiftModifier)
    assert state.hardness == pytest.approx(0.6)
    QTest.keyClick(view, Qt.Key.Key_BraceLeft, Qt.KeyboardModifier.ShiftModifier)  # US layout
    QTest.keyClick(view, Qt.Key.Key_BracketLeft, Qt.KeyboardModifier.ShiftModifier)
    assert state.hardness == pytest.approx(0.4)
    assert window.brush_panel.hardness_field.value() == 40
    assert window.brush_panel.size_field.value() == state.size_px


def test_b_and_e_switch_brush_and_eraser(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    view, state = window.canvas_view, window.paint_state
    QTest.keyClick(view, Qt.Key.Key_E)
    assert state.tool == ToolKind.ERASER
    assert window.brush_panel.tool_buttons[ToolKind.ERASER].isChecked()
    assert window.actions_by_name["tool_eraser"].isChecked()
    QTest.keyClick(view, Qt.Key.Key_B)
    assert state.tool == ToolKind.BRUSH
    assert window.brush_panel.tool_buttons[ToolKind.BRUSH].isChecked()


def test_space_drag_pans_instead_of_painting(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    view = window.canvas_view
    QTest.keyPress(view, Qt.Key.Key_Space)
    before = view.widget_to_image(view.rect().center().toPointF())
    from tests.ui.painter import stroke

    stroke(view, [(100, 100), (140, 120)])
    QTest.keyRelease(view, Qt.Key.Key_Space)
    after = view.widget_to_image(view.rect().center().toPointF())
    assert (before.x() - after.x(), before.y() - after.y()) == (40, 20)
    assert not window.document.mask.any()


def test_settings_round_trip_brush_and_prepare_options(qtbot, tmp_path) -> None:
    settings = Settings()
    settings.paint.brush_size = 33
    settings.job["fill"] = "blur"
    window = open_window(qtbot, tmp_path, settings)
    assert window.paint_state.size_px == 33
    assert window.prepare_panel.fill_combo.currentData() == "blur"
    window.paint_state.set_size_px(77)
    window.prepare_panel.only_masked_check.setChecked(True)
    window.store_settings()
    assert settings.paint.brush_size == 77 and settings.window_geometry
    assert settings.job["fill"] == "blur" and settings.job["only_masked"] is True


def test_choose_language_follows_setting_then_system() -> None:
    assert i18n.choose_language("zh_CN", "en_US") == "zh_CN"
    assert i18n.choose_language("en", "zh_CN") == "en"
    assert i18n.choose_language("", "zh_CN") == "zh_CN"
    assert i18n.choose_language("", "de_DE") == "en"


@pytest.fixture
def chinese(qapp):
    translator = i18n.install_translator("zh_CN")
    assert translator is not None
    yield translator
    i18n.remove_translator(translator)


def test_chinese_appears_in_the_window(qtbot, chinese) -> None:
    window = MainWindow(Settings())
    qtbot.addWidget(window)
    assert window.actions_by_name["open_image"].text() == "打开图像(&O)…"
    assert window.brush_panel.tool_buttons[ToolKind.BRUSH].text() == "画笔"
    assert window.mask_panel.findChild(type(window.mask_panel.grow_spin)) is not None
    titles = [a.text() for a in window.menuBar().actions()]
    assert "文件(&F)" in titles
    # Qt's own standard buttons come translated as well.
    assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "取消"
    # Untranslated strings fall back to English instead of vanishing.
    assert QCoreApplication.translate("MainWindow", "no such string") == "no such string"


def test_english_is_the_default(qtbot) -> None:
    window = MainWindow(Settings())
    qtbot.addWidget(window)
    assert window.actions_by_name["open_image"].text() == "&Open Image…"


def _source_strings() -> set[tuple[str, str]]:
    """(context, text) of every tr() / translate() / QT_TRANSLATE_NOOP call with literal text in
    every module of app/ui (the painter, the generation panes, settings, texts)."""
    found: set[tuple[str, str]] = set()
    files = sorted((ROOT / "app" / "ui").rglob("*.py"))
    assert len(files) > 30
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module_context = next(
            (
                n.value.value
                for n in tree.body
                if isinstance(n, ast.Assign)
                and any(getattr(t, "id", "") == "TR_CONTEXT" for t in n.targets)
                and isinstance(n.value, ast.Constant)
            ),
            None,
        )
        if module_context is None:  # def _tr(text): return QCoreApplication.translate("Ctx", text)
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef) and node.name == "_tr":
                    for call in ast.walk(node):
                        if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == (
                            "translate"
                        ):
                            module_context = call.args[0].value
        for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)] + [tree]:
            context = cls.name if isinstance(cls, ast.ClassDef) else None
            for node in ast.walk(cls):
                if not isinstance(node, ast.Call):
                    continue
                func, args = node.func, node.args
                name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
                literal = [
                    a.value
                    for a in args
                    if isinstance(a, ast.Constant) and isinstance(a.value, str)
                ]
                if (
                    name == "tr"
                    and context
                    and len(literal) >= 1
                    and args[0] is not None
                    and isinstance(args[0], ast.Constant)
                ):
                    found.add((context, literal[0]))
                elif name == "_tr" and module_context and literal:
                    found.add((module_context, literal[0]))
                elif (
                    name in ("translate", "QT_TRANSLATE_NOOP")
                    and len(literal) >= 2
                    and isinstance(args[0], ast.Constant)
                    and isinstance(args[1], ast.Constant)
                ):
                    found.add((literal[0], literal[1]))
    return found


def test_every_ui_string_has_a_chinese_translation() -> None:
    table = i18n.TsTranslator("zh_CN").table
    missing = sorted(s for s in _source_strings() if s not in table and s[1].strip())
    assert missing == []


def test_excepthook_logs_and_shows_a_short_message(qapp, dialogs, caplog) -> None:
    hook = make_excepthook(Path("/tmp/stepwise.log"))
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        with caplog.at_level(logging.ERROR):
            hook(*sys.exc_info())
    assert dialogs.kinds() == ["critical"]
    assert "boom" in dialogs.texts() and "Traceback" not in dialogs.texts()
    assert "Traceback" in caplog.text
    assert isinstance(QApplication.instance(), QApplication)


def test_qt_file_dialogs_are_chinese(qtbot, chinese) -> None:
    """Qt's own catalogue (qtbase_zh_CN.qm from PySide6) is loaded, and the file dialog's
    labels it lacks (Qt 6 renamed their sources to "&Look in:", "Files of &type:") come from
    our catalogue: no English label is left in a file dialog."""
    from PySide6.QtWidgets import QFileDialog, QLabel

    assert chinese.qt_translator is not None and not chinese.qt_translator.isEmpty()
    assert QCoreApplication.translate("QFileDialog", "Look in:") == "查找范围："
    dialog = QFileDialog()
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog)
    qtbot.addWidget(dialog)
    labels = [label.text() for label in dialog.findChildren(QLabel) if label.text()]
    assert "查找范围(&L)：" in labels and "文件类型(&T)：" in labels
    assert [t for t in labels if re.search(r"[A-Za-z]{3}", t)] == [], labels
