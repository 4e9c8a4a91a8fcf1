"""Outpainting from the window with the real sd-stage and the tiny models: Expand canvas… sets
the job's expansion, Run all makes a run like any other at the expanded size (on the canvas,
in the photo's history, Save as…, Use as new image), and the expansion is not applied twice."""

from __future__ import annotations

import numpy as np
import pytest

from app.imaging.frame import Expansion, seam_band_px
from app.imaging.io import load_image
from app.imaging.png_params import read_png_parameters
from app.pipeline.job.params import EXPAND, FEATHER
from app.ui.expand_dialog import ExpandCanvasDialog
from app.ui.workspace.png_settings import form_values_of
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
    run_all(qtbot, win)
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

    # The result is on the canvas as a whole picture, and the run is in this photo's history.
    assert win.workspace.shown is not None and win.workspace.shown.kind == "result"
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
