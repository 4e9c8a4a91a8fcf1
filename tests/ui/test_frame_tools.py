"""The Context tool and the Expand canvas… dialog (issue 15, items 5 and 6): a rectangle dragged
on the canvas becomes the job form's `context` (and what prepare generates), the dialog's sides
become its `expand` (and the prepared picture's size); both are outlined on the canvas and fit
a 1280×720 window, in English and 简体中文."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from app.canvas.tools import ToolKind
from app.imaging.frame import Expansion
from app.imaging.geometry import Rect, Size
from app.pipeline.job.params import CONTEXT, EXPAND, MASKED_TARGET, ONLY_MASKED, PADDING
from app.ui.painter.expand_dialog import ExpandCanvasDialog
from app.ui.words.i18n import TsTranslator

from .painter import IMAGE_H, IMAGE_W, click, open_window, stroke


def _small_mask(window) -> None:
    mask = np.zeros((IMAGE_H, IMAGE_W), np.float32)
    mask[100:112, 200:216] = 1.0
    window.document.replace_mask("Load mask", mask)


def test_the_context_tool_sets_the_region_prepare_generates(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    view, form, panel = window.canvas_view, window.job_form, window.frame_panel
    _small_mask(window)
    form.set(PADDING, 8)
    form.set(MASKED_TARGET, 0)
    panel.context_button.click()
    assert window.paint_state.tool == ToolKind.CONTEXT
    stroke(view, [(20, 30), (60, 70), (120, 110)])
    assert form.get(CONTEXT) == "20,30,100,80"
    assert form.get(ONLY_MASKED)  # the context area is what only-masked generates
    assert view.context_rect == Rect(20, 30, 100, 80)
    assert [kind for _rect, kind in view._frame_outlines()] == ["context"]
    assert panel.context_label.text() == "100×80 px at (20, 30)"
    assert not window.document.mask[30:110, 20:120].any()  # the tool paints no mask

    prepared = window.prepare_controller.prepare()
    assert prepared is not None
    # The mask's box plus 9 px (x 191..225, y 91..121) joined with the context area
    # (x 20..120, y 30..110): 205×91 at (20, 30), grown to 16 px: 208×96 at (19, 28).
    assert prepared.record.region == Rect(19, 28, 208, 96)

    click(view, 50, 50)  # a click without a drag clears it
    assert form.get(CONTEXT) == "" and view.context_rect is None
    prepared = window.prepare_controller.prepare()
    assert prepared is not None and prepared.record.region == Rect(184, 90, 48, 32)


def test_the_expand_dialog_sets_the_expansion_and_prepare_follows(
    qtbot, tmp_path, monkeypatch
) -> None:
    window = open_window(qtbot, tmp_path)
    form, panel, view = window.job_form, window.frame_panel, window.canvas_view
    dialog = ExpandCanvasDialog(Size(window.document.width, window.document.height), None)
    qtbot.addWidget(dialog)
    dialog.aspect_combo.setCurrentIndex(dialog.aspect_combo.findText("16:9"))
    dialog.apply_aspect()
    # 320×240 at 16:9 is 427 px wide: 107 px more, split between the sides.
    assert dialog.expansion() == Expansion(53, 0, 54, 0)
    assert "427×240" in dialog.result_label.text()
    dialog.spins["left"].setValue(5000)
    assert not dialog.ok_button.isEnabled()  # larger than a job may be
    # Typed digit by digit, 9000 stays 9000 (a field capped at the limit made it 900), and
    # the line below says why OK is off.
    top = dialog.spins["top"]
    top.lineEdit().selectAll()
    qtbot.keyClicks(top.lineEdit(), "9000")
    assert top.value() == 9000 and "too large" in dialog.result_label.text()
    assert not dialog.ok_button.isEnabled()

    def answer(self: ExpandCanvasDialog) -> int:
        self.set_expansion(Expansion(32, 0, 16, 16))
        return ExpandCanvasDialog.DialogCode.Accepted

    monkeypatch.setattr(ExpandCanvasDialog, "exec", answer)
    assert panel.expand_action in window.file_menu.actions()
    panel.expand_action.trigger()
    assert form.get(EXPAND) == "32,0,16,16"
    assert panel.expand_label.text().startswith("368×256 px")
    outlines = dict((kind, rect) for rect, kind in view._frame_outlines())
    assert outlines["expand"].width() == pytest.approx(368) and outlines["expand"].x() == -32
    # No mask painted: the expansion is what is repainted.
    prepared = window.prepare_controller.prepare()
    assert prepared is not None
    assert prepared.record.original_size == (368, 256) and prepared.image.shape[:2] == (256, 368)
    assert prepared.mask is not None and prepared.mask[:, :32].all()
    assert not prepared.mask[16:200, 60:300].any()
    # A new picture: the expansion chosen for the old one is forgotten.
    assert window.open_image(tmp_path / "picture.png")
    assert form.get(EXPAND) == "" and not [k for _r, k in view._frame_outlines()]


def _shot_dirs(tmp_path: Path) -> list[Path]:
    dirs = [tmp_path / "shots"]
    if os.environ.get("STEPWISE_SCREENSHOT_DIR"):
        dirs.append(Path(os.environ["STEPWISE_SCREENSHOT_DIR"]))
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    return dirs


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_tool_and_the_dialog_fit_1280x720(qtbot, tmp_path, language) -> None:
    translator = TsTranslator(language) if language != "en" else None
    if translator is not None:
        QCoreApplication.installTranslator(translator)
    try:
        window = open_window(qtbot, tmp_path)
        window.resize(1280, 720)
        QApplication.processEvents()
        panel = window.frame_panel
        window.job_form.set(CONTEXT, "20,30,100,80")
        window.job_form.set(EXPAND, "32,0,16,16")
        scroll = window.paint_dock.widget()
        room = scroll.viewport().width()
        for widget in (window.brush_panel, panel):
            assert widget.minimumSizeHint().width() <= room, (widget, room)
            # the scroll area lays its widget out to the viewport after the resize settles
            qtbot.waitUntil(lambda w=widget: w.width() <= room, timeout=10_000)
        assert window.minimumSizeHint().width() <= 1280
        dialog = ExpandCanvasDialog(
            Size(window.document.width, window.document.height), Expansion(32, 0, 16, 16), window
        )
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitExposed(dialog)
        hint = dialog.sizeHint()
        assert hint.width() <= 1280 and hint.height() <= 720, hint
        if language == "zh_CN":
            assert dialog.windowTitle() == "扩展画布"
            assert panel.expand_action.text() == "扩展画布…"
        for d in _shot_dirs(tmp_path):
            assert window.grab().save(str(d / f"frame_window_{language}.png"))
            assert dialog.grab().save(str(d / f"expand_dialog_{language}.png"))
        dialog.close()
    finally:
        if translator is not None:
            QCoreApplication.removeTranslator(translator)


def test_the_first_click_on_a_shown_picture_paints(qtbot, tmp_path) -> None:
    """Issue 30: the first click on a result only gave the canvas its focus and the stroke
    was dropped. Now it paints, as every click does: back to the photo, the stroke in the
    mask."""
    from app.canvas.generated import whole_frame

    window = open_window(qtbot, tmp_path)
    view = window.canvas_view
    shown = np.full((window.document.height, window.document.width, 3), 90, np.uint8)
    view.layer.show(whole_frame(shown), "Result")
    window.activateWindow()
    view.clearFocus()
    assert view.layer.visible and not window.document.mask.any()
    click(view, IMAGE_W // 2, IMAGE_H // 2)
    assert not view.layer.visible and window.document.mask.any()
