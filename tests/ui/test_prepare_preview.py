"""The Prepare panel shows the real model input size (from the model's one owner of it,
following the Context tool and Expand canvas), and its preview shows the mask the engine gets
(soft weights in soft mode, whole 16-px cells in hard mode) beside the feathered mask the
composite uses."""

from __future__ import annotations

import numpy as np
from PySide6.QtWidgets import QLabel

from app.imaging.mask_ops import engine_cells
from app.imaging.soft_mask import soft_engine_mask
from app.pipeline.job.params import CONTEXT, EXPAND, HEIGHT, MASK_MODE, ONLY_MASKED, WIDTH
from app.ui.prepare.preview import PreparePreviewDialog

from .painter import IMAGE_H, IMAGE_W, open_window


def _mask(window, x0: int, y0: int, x1: int, y1: int) -> None:
    mask = np.zeros((IMAGE_H, IMAGE_W), np.float32)
    mask[y0:y1, x0:x1] = 1.0
    window.document.replace_mask("Load mask", mask)


def test_the_summary_shows_the_scaled_model_input(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    panel, controller = window.prepare_panel, window.prepare_controller
    _mask(window, 100, 80, 124, 92)  # 24×12 px: region 64×48 with 16 px padding
    panel.only_masked_check.setChecked(True)
    panel.padding_spin.setValue(16)
    panel.form.set(WIDTH, 1024)
    panel.form.set(HEIGHT, 1024)
    panel.target_spin.setValue(256)
    assert panel.target_spin.isEnabled()
    prepared = controller.prepare()
    assert prepared is not None
    assert prepared.record.region.size == (64, 48) and prepared.record.scaled == (288, 224)
    assert panel.summary_label.text().startswith("Model input: 288×224 px")
    # The target is the maximum: the job's width × height (unused with a picture) does not cap it,
    # so the panel says what a run makes.
    panel.form.set(WIDTH, 192)
    assert panel.summary_label.text().startswith("Model input: 288×224 px")
    prepared = controller.prepare()
    assert prepared is not None and prepared.image.shape[:2] == (224, 288)
    # 0: the area at its own size (the behaviour before the target size).
    panel.target_spin.setValue(0)
    assert panel.target_spin.text() == "Its own size"
    assert panel.summary_label.text().startswith("Model input: 64×48 px")
    # A new stroke changes the area, and the summary follows.
    _mask(window, 10, 10, 200, 150)
    assert panel.summary_label.text().startswith("Model input: 224×176 px")
    panel.only_masked_check.setChecked(False)
    assert panel.summary_label.text() == "Model input: 320×240 px"
    assert not panel.target_spin.isEnabled()


def test_the_preview_shows_the_16px_cells_and_the_feathered_mask(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    panel = window.prepare_panel
    panel.form.set(MASK_MODE, "hard")
    _mask(window, 101, 83, 133, 101)  # not on the 16-px grid
    panel.feather_spin.setValue(6)
    window.actions_by_name["preview_prepared"].trigger()
    dialog = dialogs.dialogs[-1]
    assert isinstance(dialog, PreparePreviewDialog)
    prepared = dialog.prepared
    assert prepared.mask is not None
    # The model's mask: whole 16-px cells of the input (the engine's NearestMax rounding).
    cells = dialog.cells
    assert np.array_equal(cells, engine_cells(prepared.mask))
    assert np.count_nonzero(cells) > np.count_nonzero(prepared.mask)
    blocks = cells.reshape(cells.shape[0] // 16, 16, cells.shape[1] // 16, 16)
    assert np.all(blocks.min(axis=(1, 3)) == blocks.max(axis=(1, 3)))
    # The composite's mask: soft, over the photo's own frame, reaching 6 px past the mask.
    weights = dialog.weights
    assert weights.shape == (IMAGE_H, IMAGE_W)
    assert np.all(weights[83:101, 101:133] == 255)
    assert 0 < weights[83, 98] < 255 and weights[83, 94] == 0
    # The views: tinted over the pictures, the masks alone, the pictures alone.
    dialog.mask_button.setChecked(True)
    model, composite = dialog.shown()
    assert np.array_equal(model[:, :, 0], cells) and np.array_equal(composite[:, :, 1], weights)
    shown = dialog.model_label._pixmap.toImage()
    assert (shown.width(), shown.height()) == (cells.shape[1], cells.shape[0])
    assert shown.pixelColor(100, 80).red() == 255 and shown.pixelColor(10, 10).red() == 0
    dialog.over_button.setChecked(True)
    model, _ = dialog.shown()
    assert model[90, 110, 0] > model[90, 110, 1]  # red over the repaint cells
    assert np.array_equal(model[5, 5], prepared.image[5, 5])  # untouched outside
    dialog.plain_button.setChecked(True)
    assert np.array_equal(dialog.shown()[0], prepared.image)
    captions = [label.text() for label in dialog.findChildren(type(dialog.details_label))]
    assert "What the model sees: 320×240 px, the mask in whole 16-px cells" in captions
    assert "What is blended back: 320×240 px of the photo, the mask feathered by 6 px" in captions


def test_in_soft_mode_the_preview_draws_the_soft_mask_the_engine_gets(
    qtbot, tmp_path, dialogs
) -> None:
    window = open_window(qtbot, tmp_path)
    panel = window.prepare_panel
    assert panel.form.get(MASK_MODE) == "soft"  # the default
    _mask(window, 101, 83, 133, 101)
    panel.feather_spin.setValue(6)
    window.actions_by_name["preview_prepared"].trigger()
    dialog = dialogs.dialogs[-1]
    prepared = dialog.prepared
    # The weights diffuse gets (what the pipeline writes as the run's soft mask), not cells.
    soft = dialog.cells
    assert np.array_equal(soft, soft_engine_mask(prepared.mask, prepared.record))
    assert not np.array_equal(soft, engine_cells(prepared.mask))
    assert np.all(soft[83:101, 101:133] == 255) and 0 < soft[83, 98] < 255
    captions = [label.text() for label in dialog.findChildren(type(dialog.details_label))]
    assert any(c.startswith("What the model sees: 320×240 px, the mask soft") for c in captions)


def test_model_input_follows_the_context_and_the_expansion(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    panel, view = window.prepare_panel, window.canvas_view
    assert panel.summary_label.text() == "Model input: 320×240 px"
    panel.form.set(EXPAND, "32,0,16,16")
    assert panel.summary_label.text() == "Model input: 368×256 px"
    # Fit (Ctrl+0) takes the expanded canvas in.
    view.zoom_to_fit()
    assert view.picture_rect().getRect() == (-32, 0, 368, 256)
    left = view.image_to_widget(view.picture_rect().topLeft().toPointF())
    assert left.x() >= 0
    panel.form.set(EXPAND, "")
    _mask(window, 100, 80, 124, 92)
    panel.form.set(ONLY_MASKED, True)
    before = panel.summary_label.text()
    panel.form.set(CONTEXT, "0,0,300,200")  # what the Context tool sets
    assert panel.summary_label.text() != before
    assert panel.summary_label.text().startswith(
        "Model input: {}×{} px".format(*window.prepare_controller.model_input.size)
    )


def test_only_masked_says_when_the_model_input_is_larger_than_the_photo(qtbot, tmp_path) -> None:
    """Issue 41.11: a small masked area scaled to the target size can give the model more
    pixels than the whole photo; the panel says so beside the choice, with the size."""
    window = open_window(qtbot, tmp_path)
    panel = window.prepare_panel
    _mask(window, 100, 80, 124, 92)
    panel.only_masked_check.setChecked(True)
    panel.padding_spin.setValue(16)
    panel.target_spin.setValue(512)
    size = window.prepare_controller.model_input_size()
    assert size is not None and size.width * size.height > 3 * IMAGE_W * IMAGE_H
    note = panel.findChild(QLabel, "prepare_size_note")
    assert note is not None and not note.isHidden()
    ratio = size.width * size.height / (IMAGE_W * IMAGE_H)
    assert f"{size.width}×{size.height} px, is {ratio:.1f}× the pixels" in note.text()
    assert f"({IMAGE_W}×{IMAGE_H} px)" in note.text()
    panel.target_spin.setValue(0)  # the area at its own size: smaller than the photo
    assert note.isHidden()
    panel.target_spin.setValue(512)
    assert not note.isHidden()
    panel.only_masked_check.setChecked(False)  # the whole photo: nothing to say
    assert note.isHidden()
