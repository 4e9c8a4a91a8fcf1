"""Mask operations through the window's actions, load / save, and the prepare flow."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from app.canvas.tools import ToolKind
from app.imaging import mask_ops
from app.imaging.io import load_image, load_mask, save_png_atomic
from tests.ui.painter import IMAGE_H, IMAGE_W, click, open_window, stroke


def _square_mask(window, x0=100, y0=80, x1=160, y1=140) -> np.ndarray:
    mask = np.zeros((IMAGE_H, IMAGE_W), np.float32)
    mask[y0:y1, x0:x1] = 1.0
    window.document.replace_mask("Load mask", mask)
    return mask


def test_invert_clear_fill(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    square = _square_mask(window)
    window.actions_by_name["invert"].trigger()
    np.testing.assert_array_equal(window.document.mask, 1.0 - square)
    window.actions_by_name["clear"].trigger()
    assert not window.document.mask.any()
    window.actions_by_name["fill"].trigger()
    assert np.all(window.document.mask == 1.0)
    window.actions_by_name["undo"].trigger()
    window.actions_by_name["undo"].trigger()
    np.testing.assert_array_equal(window.document.mask, 1.0 - square)


def test_grow_and_shrink_by_n_pixels(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    square = _square_mask(window)
    window.mask_panel.grow_spin.setValue(5)
    window.actions_by_name["grow"].trigger()
    grown = window.document.mask.copy()
    np.testing.assert_array_equal(grown, mask_ops.grow(square, 5))
    assert grown[110, 95] == 1.0 and grown[110, 94] == 0.0  # the left edge moved 5 px
    assert grown[110, 164] == 1.0 and grown[110, 165] == 0.0
    window.actions_by_name["undo"].trigger()
    window.mask_panel.grow_spin.setValue(10)
    window.actions_by_name["shrink"].trigger()
    shrunk = window.document.mask
    np.testing.assert_array_equal(shrunk, mask_ops.shrink(square, 10))
    assert shrunk[110, 110] == 1.0 and shrunk[110, 109] == 0.0


def test_blur_by_n_pixels_softens_the_edge(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    square = _square_mask(window)
    window.mask_panel.blur_spin.setValue(6)
    window.actions_by_name["blur"].trigger()
    blurred = window.document.mask
    np.testing.assert_allclose(blurred, mask_ops.blur(square, 6), atol=1e-6)
    assert 0.3 < blurred[110, 100] < 0.7  # on the edge
    assert blurred[110, 130] > 0.99 and blurred[110, 80] == 0.0
    row = blurred[110, 85:101]
    assert np.all(np.diff(row) >= 0)


def test_lasso_drag_fills_the_enclosed_area(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    QTest.keyClick(window.canvas_view, Qt.Key.Key_L)
    assert window.paint_state.tool == ToolKind.LASSO
    corners = [(50, 50), (150, 50), (150, 150), (50, 150)]
    path = []
    for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1], strict=True):
        path += [(ax + (bx - ax) * t // 10, ay + (by - ay) * t // 10) for t in range(10)]
    stroke(window.canvas_view, path)
    mask = window.document.mask
    assert np.all(mask[55:145, 55:145] == 1.0)
    assert mask[40, 100] == 0.0 and mask[100, 160] == 0.0 and mask[160, 100] == 0.0
    assert len(window.document.history) == 1
    # Alt cuts a shape out again.
    stroke(
        window.canvas_view,
        [(80, 80), (120, 80), (120, 120), (80, 120), (80, 81)],
        Qt.KeyboardModifier.AltModifier,
    )
    assert window.document.mask[100, 100] == 0.0 and window.document.mask[60, 60] == 1.0


def test_polygon_by_clicks_closes_on_enter(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    window.paint_state.set_tool(ToolKind.LASSO)
    view = window.canvas_view
    for x, y in ((200, 40), (300, 40), (250, 140)):
        click(view, x, y)
    assert not window.document.mask.any()  # still open
    QTest.keyClick(view, Qt.Key.Key_Return)
    mask = window.document.mask
    assert mask[60, 250] == 1.0 and mask[120, 210] == 0.0


def test_load_mask_of_another_size_offers_to_scale(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    small = np.zeros((IMAGE_H // 2, IMAGE_W // 2), np.uint8)
    small[20:60, 20:60] = 255
    path = tmp_path / "small_mask.png"
    save_png_atomic(path, small)

    dialogs.answers = [QMessageBox.StandardButton.Cancel]
    dialogs.open_files = [str(path)]
    window.actions_by_name["load_mask"].trigger()
    assert dialogs.kinds() == ["question"]
    assert "160×120" in dialogs.texts() and "320×240" in dialogs.texts()
    assert not window.document.mask.any()

    dialogs.answers = [QMessageBox.StandardButton.Yes]
    assert window.mask_controller.load_mask(path)
    mask = window.document.mask
    assert mask.shape == (IMAGE_H, IMAGE_W)
    assert mask[80, 80] == 1.0 and mask[10, 10] == 0.0


def test_load_and_save_mask_round_trip(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    square = _square_mask(window)
    target = tmp_path / "out" / "mask.png"
    dialogs.save_files = [str(target)]
    window.actions_by_name["save_mask"].trigger()
    assert target.exists() and not window.document.modified
    np.testing.assert_array_equal(load_mask(target), (square * 255).astype(np.uint8))
    window.actions_by_name["clear"].trigger()
    assert window.mask_controller.load_mask(target)
    np.testing.assert_array_equal(window.document.mask, square)


def test_bad_files_get_a_message_naming_the_file(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    before = window.document.image.copy()
    text_file = tmp_path / "notes.png"
    text_file.write_text("not a picture")
    assert not window.open_image(text_file)
    good = (tmp_path / "picture.png").read_bytes()
    truncated = tmp_path / "truncated.png"
    truncated.write_bytes(good[: len(good) // 2])
    assert not window.open_image(truncated)
    assert dialogs.kinds() == ["warning", "warning"]
    assert "notes.png" in dialogs.shown[0][2] and "truncated.png" in dialogs.shown[1][2]
    assert "Traceback" not in dialogs.texts()
    np.testing.assert_array_equal(window.document.image, before)  # the work is still there


def test_saving_into_an_unwritable_folder_explains(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    _square_mask(window)
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    assert not window.mask_controller.save_mask(blocker / "mask.png")
    assert dialogs.kinds() == ["warning"]
    assert "file-not-folder" in dialogs.texts()
    assert window.document.modified


def test_prepare_with_an_empty_mask_explains(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    window.actions_by_name["preview_prepared"].trigger()
    assert dialogs.kinds() == ["warning"]
    assert "empty" in dialogs.texts()
    # Too faint to repaint anything counts as empty too (prepare binarises at 50 %).
    window.document.replace_mask("Load mask", np.full((IMAGE_H, IMAGE_W), 0.3, np.float32))
    window.actions_by_name["export_prepared"].trigger()
    assert dialogs.kinds() == ["warning", "warning"]
    assert dialogs.dialogs == []


def test_preview_export_and_apply_a_result(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    _square_mask(window, 100, 80, 150, 130)
    panel = window.prepare_panel
    panel.align_combo.setCurrentIndex(panel.align_combo.findData("pad"))
    panel.fill_combo.setCurrentIndex(panel.fill_combo.findData("grey"))
    panel.feather_spin.setValue(4)
    # The stand-in result is a flat colour unlike the photo: colour match would (rightly) pull
    # it towards the photo's ring, so this test of the composite's geometry turns it off.
    panel.color_match_combo.setCurrentIndex(panel.color_match_combo.findData("off"))
    window.actions_by_name["preview_prepared"].trigger()
    assert len(dialogs.dialogs) == 1
    preview = dialogs.dialogs[0]
    assert "320×240" in preview.details_label.text()

    out = tmp_path / "prepared"
    dialogs.folders = [str(out)]
    window.actions_by_name["export_prepared"].trigger()
    assert {p.name for p in out.iterdir()} >= {"input.png", "mask.png", "prepare.json"}
    record = json.loads((out / "prepare.json").read_text())
    assert record["feather_px"] == 4
    prepared_input = load_image(out / "input.png")
    assert tuple(prepared_input[100, 120]) == (128, 128, 128)  # grey fill inside the mask

    generated = np.zeros_like(prepared_input)
    generated[...] = (0, 200, 0)
    result_path = tmp_path / "generated.png"
    save_png_atomic(result_path, generated)
    dialogs.open_files = [str(result_path)]
    window.actions_by_name["apply_result"].trigger()
    result_dialog = dialogs.dialogs[-1]
    assert result_dialog.windowTitle() == "Result"
    result = window.prepare_controller.apply_result_file(
        result_path, window.prepare_controller.last_prepared
    )
    assert result is not None
    assert tuple(result[105, 125]) == (0, 200, 0)  # inside: the generated pixels
    np.testing.assert_array_equal(result[:40], window.document.image[:40])  # outside untouched


def test_applying_a_result_of_the_wrong_size_explains(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    _square_mask(window)
    prepared = window.prepare_controller.prepare()
    wrong = tmp_path / "wrong.png"
    save_png_atomic(wrong, np.zeros((64, 64, 3), np.uint8))
    assert window.prepare_controller.apply_result_file(Path(wrong), prepared) is None
    assert "wrong.png" in dialogs.texts() and "64×64" in dialogs.texts()


def test_continue_painting_on_a_result_keeps_the_mask(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    square = _square_mask(window)
    prepared = window.prepare_controller.prepare()
    generated = np.full_like(prepared.image, 40)
    path = tmp_path / "gen.png"
    save_png_atomic(path, generated)
    result = window.prepare_controller.apply_result_file(path, prepared)
    dialog = dialogs.dialogs[-1]
    dialog.use_requested.emit()
    np.testing.assert_array_equal(window.document.image, result)
    np.testing.assert_array_equal(window.document.mask, square)
    assert window.document.history.can_undo()  # painting history survives


def test_a_full_disk_while_saving_explains(qtbot, tmp_path, dialogs, monkeypatch) -> None:
    import errno

    from app.imaging import io

    def full(path, data) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    window = open_window(qtbot, tmp_path)
    _square_mask(window)
    monkeypatch.setattr(io, "write_bytes_atomic", full)
    assert not window.mask_controller.save_mask(tmp_path / "mask.png")
    assert "disk is full" in dialogs.texts() and "mask.png" in dialogs.texts()
    assert window.document.modified


def test_a_result_saved_in_an_exported_folder_uses_that_folders_record(
    qtbot, tmp_path, dialogs
) -> None:
    window = open_window(qtbot, tmp_path)
    _square_mask(window, 100, 80, 150, 130)
    window.prepare_panel.only_masked_check.setChecked(True)
    window.prepare_panel.padding_spin.setValue(16)
    combo = window.prepare_panel.color_match_combo  # a flat stand-in result, as above
    combo.setCurrentIndex(combo.findData("off"))
    out = tmp_path / "exported"
    dialogs.folders = [str(out)]
    window.actions_by_name["export_prepared"].trigger()
    record = json.loads((out / "prepare.json").read_text())
    width, height = record["input"]["width"], record["input"]["height"]
    assert (width, height) != (IMAGE_W, IMAGE_H)  # only the masked region

    # A later session: the options changed meanwhile, the folder still decides.
    window.prepare_panel.only_masked_check.setChecked(False)
    window.prepare_controller.forget()
    generated = np.zeros((height, width, 3), np.uint8)
    generated[...] = (250, 0, 0)
    result_path = out / "sd-cli-output.png"
    save_png_atomic(result_path, generated)
    dialogs.open_files = [str(result_path)]
    window.actions_by_name["apply_result"].trigger()
    assert [k for k in dialogs.kinds() if k == "warning"] == []
    result_dialog = dialogs.dialogs[-1]
    assert result_dialog.windowTitle() == "Result"
    result = result_dialog.image_label._pixmap.toImage()
    assert result.pixelColor(125, 105).red() == 250
    assert result.pixelColor(10, 10) == window.canvas_view._image_qimage.pixelColor(10, 10)
