"""What the Windows run under wine showed (issue 37, bug 7): the Settings dialog was taller than
a 1280×720 screen (OK / Cancel off the bottom), the workspace bar clipped "The photo" to "The
phot", and the ▸ of the canvas's start hint is a box in fonts that lack it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QScreen
from PySide6.QtWidgets import QDialogButtonBox, QScrollArea

from app.core.paths import app_paths
from app.core.settings import Settings
from app.jobs.job_form import JobForm
from app.ui.painter.canvas_paint import empty_hint_text
from app.ui.shell.settings_dialog import SettingsDialog
from app.ui.workspace.area import WorkspaceBar

# 1280×720 less a 40 px taskbar; a dialog's title bar takes ~31 px more on Windows 10.
AVAILABLE = QRect(0, 0, 1280, 680)
TITLE_BAR_PX = 31


@pytest.fixture
def screen_1280x720(monkeypatch: pytest.MonkeyPatch) -> QRect:
    monkeypatch.setattr(QScreen, "availableGeometry", lambda self: QRect(AVAILABLE))
    return AVAILABLE


def test_the_settings_dialog_fits_1280x720_with_its_buttons(
    qtbot, language: str, font_scale: float, screen_1280x720: QRect
) -> None:
    dialog = SettingsDialog(Settings(), JobForm(), paths=app_paths())
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.height() + TITLE_BAR_PX <= screen_1280x720.height()
    buttons = dialog.findChild(QDialogButtonBox)
    assert buttons is not None and buttons.isVisible()
    where = QRect(buttons.mapTo(dialog, QPoint(0, 0)), buttons.size())
    assert dialog.rect().contains(where), (where, dialog.rect())
    scroll = dialog.findChild(QScrollArea)
    assert scroll is not None and not scroll.isAncestorOf(buttons)
    # Everything else scrolls into view: the content's own height, no horizontal scroll bar.
    content = scroll.widget()
    assert content.height() >= content.minimumSizeHint().height()
    assert not scroll.horizontalScrollBar().isVisible()


def test_the_photo_caption_is_never_clipped(qtbot, language: str, font_scale: float) -> None:
    bar = WorkspaceBar()
    qtbot.addWidget(bar)
    bar.show()
    bar.resize(bar.minimumSizeHint().width(), bar.height())  # as narrow as the row can be
    qtbot.waitUntil(lambda: bar.width() == bar.minimumSizeHint().width())
    caption = bar.caption
    assert caption.text() in ("The photo", "照片")
    assert caption.fontMetrics().horizontalAdvance(caption.text()) <= caption.contentsRect().width()


def test_the_start_hint_uses_no_glyph_cjk_fonts_lack(language: str) -> None:
    """Every character of the hint is in GB2312 (every Chinese font has those), so no box."""
    text = empty_hint_text()
    assert ("Try with demo models" in text) == (language == "en")
    text.encode("gb2312")  # raises UnicodeEncodeError on ▸ (U+25B8)
