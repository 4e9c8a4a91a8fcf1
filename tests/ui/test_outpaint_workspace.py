"""Outpainting from the window with the real sd-stage and the tiny models: Expand canvas… sets
the job's expansion, Run all makes a run like any other at the expanded size (on the canvas,
in the photo's history, Save as…, Use as new image), and the expansion is not applied twice."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from app.imaging.frame import Expansion, seam_band_px
from app.imaging.io import load_image
from app.imaging.png_params import read_png_parameters
from app.pipeline.job.params import (
    CONTEXT,
    EXPAND,
    FEATHER,
    MASKED_TARGET,
    ONLY_MASKED,
    PADDING,
)
from app.ui.painter.expand_dialog import ExpandCanvasDialog
from app.ui.workspace.png_settings import form_values_of
from tests.ui.painter import stroke
from tests.ui.test_workspace_engine import PHOTO_H, PHOTO_W, photo, run_all
from tests.ui.test_workspace_engine import window as window  # the fixture

pytestmark = pytest.mark.slow


def test_an_outpainted_run_is_a_run_like_any_other(
    qtbot,
    window,
    tmp_path,
    dialogs,
    monkeypatch,
) -> None:
    win = window
    win.job_form.set(FEATHER, 4)

    def answer(self: ExpandCanvasDialog) -> int:
        self.set_expansion(Expansion(16, 0, 16, 8))
        return ExpandCanvasDialog.DialogCode.Accepted

    monkeypatch.setattr(ExpandCanvasDialog, "exec", answer)
    win.frame_panel.expand_action.trigger()
    assert win.job_form.get(EXPAND) == "16,0,16,8"
    # Fit takes the expanded canvas in: the frame starts 16 px left of the photo.
    win.canvas_view.zoom_to_fit()
    assert win.canvas_view.picture_rect().getRect() == (-16, 0, PHOTO_W + 32, PHOTO_H + 8)
    layer = win.canvas_view.layer
    previews: list[tuple[bool, tuple[int, int, int, int]]] = []
    win.generation_panel.model.runner_started.connect(
        lambda runner, _kind: runner.preview_ready.connect(
            lambda _step, _image: previews.append((layer.standalone, tuple(layer.frame.at)))
        )
    )
    run_all(qtbot, win)
    # Every step preview was drawn in place: in the photo's coordinates, reaching into the new
    # area left of it, never on its own at the photo's corner.
    assert previews and all(not alone and at[0] == -16 for alone, at in previews)
    run = win.generation_panel.model.run
    assert run.spec.prepare is not None and run.spec.prepare.expand == "16,0,16,8"
    result = load_image(run.result)
    assert result.shape == (PHOTO_H + 8, PHOTO_W + 32, 3)
    band = seam_band_px(4)
    old = result[0:PHOTO_H, 16 : 16 + PHOTO_W]
    # Away from the seam and from the painted mask (x 40..88, y 24..64, + feather) the old
    # pixels are the photo's.
    keep = np.zeros((PHOTO_H, PHOTO_W), bool)
    keep[: PHOTO_H - band, band : 40 - 6] = True
    assert np.array_equal(old[keep], photo()[keep])

    # The result is on the canvas over the expanded frame, in place (not standalone), `\`
    # shows the photo under it, and the run is in this photo's history.
    assert win.workspace.shown is not None and win.workspace.shown.kind == "result"
    assert not layer.standalone
    assert tuple(layer.frame.at) == (-16, 0, PHOTO_W + 32, PHOTO_H + 8)
    layer.set_before_held(True)
    assert layer.shows_photo_only()
    layer.set_before_held(False)
    assert np.array_equal(win.workspace.shown_picture(), result)
    entries = win.workspace_area.history.entries()
    assert [(e.run_dir, e.kind) for e in entries][-1] == (run.dir, "result")

    # Save as… writes the expanded picture.
    target = tmp_path / "wider.png"
    dialogs.save_files.append(str(target))
    assert win.workspace.save_as() is not None
    assert np.array_equal(load_image(target), result)
    # The PNG records the expansion, but opening it does not offer it again: the picture is
    # expanded already.
    carried = read_png_parameters(target)
    assert carried.spec["prepare"]["expand"] == "16,0,16,8"
    offered = form_values_of(carried.spec)
    assert "expand" not in offered and "context" not in offered and offered["feather"] == 4

    # Use as new image: the document is the expanded picture, and the expansion is done with.
    assert win.workspace.use_as_new_image()
    assert win.document.image.shape == result.shape
    assert np.array_equal(win.document.image, result)
    assert win.job_form.get(EXPAND) == ""


def test_what_prepare_says_the_model_gets_is_what_the_run_gets(qtbot, window, monkeypatch) -> None:
    """Issue 30 item 4: "Model input W×H" did not follow the Context tool or Expand canvas
    (1376×768 shown, 1056×992 real) and Fit (Ctrl+0) left the expanded canvas out. Here the
    context is dragged with the tool and the canvas expanded with the dialog, in the window the
    app runs; the Prepare panel and the Generate pane say the size the run is then given, and
    Ctrl+0 brings the whole expanded canvas into view."""
    win = window
    form, view, model = win.job_form, win.canvas_view, win.generation_panel.model
    summary = win.prepare_panel.summary_label
    form.set(MASKED_TARGET, 0)  # only masked at the region's own size: a small run
    form.update({PADDING.name: 8, FEATHER.name: 4})

    def says(size: tuple[int, int]) -> bool:
        w, h = size
        return summary.text().startswith(f"Model input: {w}×{h} px") and (
            f"the model gets {w}×{h}." in win.generation_panel.sampling_pane.size_label.text()
        )

    whole = model.model_input.size
    assert whole is not None and says(whole)
    form.set(ONLY_MASKED, True)  # the mask's box (x 40..88, y 24..64) and its padding
    masked = model.model_input.size
    assert masked is not None and masked != whole and says(masked)

    # The Context tool, dragged on the canvas (image pixels 2,2 → 70,50): the region grows.
    win.frame_panel.context_button.click()

    def on_canvas(x: int, y: int) -> tuple[int, int]:
        p = view.image_to_widget(QPointF(x, y))
        return round(p.x()), round(p.y())

    stroke(view, [on_canvas(2, 2), on_canvas(30, 30), on_canvas(70, 50)])
    assert form.get(CONTEXT) != ""
    with_context = model.model_input.size
    assert with_context is not None and with_context != masked and says(with_context)

    # Expand canvas…, through its dialog.
    def answer(self: ExpandCanvasDialog) -> int:
        self.set_expansion(Expansion(48, 0, 0, 24))
        return ExpandCanvasDialog.DialogCode.Accepted

    monkeypatch.setattr(ExpandCanvasDialog, "exec", answer)
    win.frame_panel.expand_action.trigger()
    assert form.get(EXPAND) == "48,0,0,24"
    expanded = model.model_input.size
    assert expanded is not None and expanded != with_context and says(expanded)

    # Zoomed in on the photo's corner, then Fit (Ctrl+0): the expanded canvas, 48 px left of
    # the photo and 24 px under it, is in view whole.
    view.set_view(6.0, QPointF(0, 0))
    fit = win.actions_by_name["zoom_fit"]
    assert fit.shortcut().toString() == "Ctrl+0"
    fit.trigger()
    top_left = view.image_to_widget(QPointF(-48, 0))
    bottom_right = view.image_to_widget(QPointF(PHOTO_W, PHOTO_H + 24))
    assert 0 <= top_left.x() and 0 <= top_left.y()
    assert bottom_right.x() <= view.width() and bottom_right.y() <= view.height()

    run_all(qtbot, win)
    run = model.run
    assert run is not None and run.model_input is not None
    assert (run.model_input.width, run.model_input.height) == expanded
    w, h = expanded
    assert summary.text().startswith(f"Model input: {w}×{h} px")  # and it still says so
    size_row = win.generation_panel.sampling_pane.size_label.text()
    assert size_row == f"Prepared image: {w}×{h}."  # the run's own record
