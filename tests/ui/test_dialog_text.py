"""No text is cut in the small dialogs (looked at under Xvfb at 1280×720, both languages): the
keyboard-shortcut list read "Open...", "Load ...", "Expor..." — its Menu and Keys columns took
the width of their longest rows ("hold Space and drag, or drag with the middle button") and left
the Action column ~60 px. Each dialog at its opening size, English and 简体中文, the font as is
and a quarter larger (tests/ui/clipping.py measures every label, button and table cell)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QDialog

from app.core.settings import Settings
from app.imaging.geometry import Size
from app.ui.painter.expand_dialog import ExpandCanvasDialog
from app.ui.shell.help_menu import AboutDialog, ShortcutsDialog
from app.ui.shell.main_window import MainWindow
from tests.ui.clipping import clipped


def _shown(qtbot, dialog: QDialog) -> list[str]:
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return clipped(dialog)


def test_the_shortcut_list_cuts_no_action(qtbot, language: str, font_scale: float) -> None:
    window = MainWindow(Settings())
    qtbot.addWidget(window)
    dialog = ShortcutsDialog(window)
    assert _shown(qtbot, dialog) == []
    actions = {row[1] for row in dialog.rows()}
    assert ("Open Image…" in actions) == (language == "en")


def test_the_expand_and_about_dialogs_cut_no_text(qtbot, language: str, font_scale: float) -> None:
    assert _shown(qtbot, ExpandCanvasDialog(Size(640, 427), None)) == []
    assert _shown(qtbot, AboutDialog(None, [])) == []


def test_a_long_caption_over_the_canvas_ends_in_an_ellipsis(qtbot, language: str) -> None:
    """At 1280×720 the bar over the canvas left its caption ~105 px: "Step 2 of 4 · preview"
    read "Step 2 of 4 · pre", the word that says it is no result lost. A caption that does not
    fit ends in "…" and the whole of it is the tooltip."""
    from app.ui.workspace.area import WorkspaceBar

    bar = WorkspaceBar()
    qtbot.addWidget(bar)
    bar.show()
    qtbot.waitExposed(bar)
    text = QCoreApplication.translate("Workspace", "Step {step} of {steps} · preview")
    caption = text.format(step=2, steps=4)
    bar.set_shown(caption, has_photo=True, usable=False)
    bar.resize(bar.minimumSizeHint().width(), bar.height())  # as narrow as the row can be
    qtbot.waitUntil(lambda: bar.width() == bar.minimumSizeHint().width())
    label = bar.caption
    assert label.text() == caption
    assert clipped(bar) == []
    shown = label.shown_text()
    assert shown != caption and shown.endswith("…")
    assert caption in label.toolTip()
    bar.resize(1600, bar.height())  # room again: the whole caption, no ellipsis
    qtbot.waitUntil(lambda: label.shown_text() == caption)
    assert caption not in label.toolTip()
