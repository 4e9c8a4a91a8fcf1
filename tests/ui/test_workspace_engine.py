"""The canvas is the workspace, with the real sd-stage and the tiny models: step previews land on
the canvas blended inside the mask (every pixel away from the mask is the photo's, on screen),
the result shows full size, `\\` shows the photo, the split slider shows both, "Use as new image"
replaces the picture and Ctrl+Z brings the photo and its mask back, Save as… writes a PNG whose
settings read back (and File → Open offers them to the job form), and the history lists the
earlier runs of the same photo."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from app.canvas.qimage import qimage_to_array
from app.imaging.io import load_image, save_png_atomic
from app.imaging.png_params import read_png_parameters
from app.imaging.prepare import composite_prepared, load_prepared
from app.jobs.job_form import JobForm
from app.pipeline.job.params import (
    COLOR_MATCH,
    PROMPT,
    SEED,
)
from app.pipeline.job.spec import spec_to_dict
from app.ui.painter.canvas_layer import HANDLE_RADIUS_PX
from app.ui.shell.main_window import MainWindow
from app.ui.workspace.png_settings import shareable
from tests.models.forms import tiny_job_form
from tests.ui.runs_fixtures import RUN_TIMEOUT_MS, photo_window
from tests.ui.runs_fixtures import run_all as run_all_to_the_end

pytestmark = pytest.mark.slow

PHOTO_W, PHOTO_H = 120, 88  # not multiples of 16: the alignment pads
MASK_BOX = (40, 24, 88, 64)  # x0, y0, x1, y1
FEATHER_REACH_PX = 8 + 2  # PrepareOptions.feather_px + 1, and a pixel of rounding


def photo() -> np.ndarray:
    y, x = np.mgrid[0:PHOTO_H, 0:PHOTO_W]
    return np.stack([x * 2, y * 2, (x + y) % 256], axis=-1).astype(np.uint8)


def mask() -> np.ndarray:
    m = np.zeros((PHOTO_H, PHOTO_W), np.float32)
    x0, y0, x1, y1 = MASK_BOX
    m[y0:y1, x0:x1] = 1.0
    return m


def far_from_mask(m: np.ndarray) -> np.ndarray:
    """True where no feathered weight can reach: the composite keeps the photo there."""
    size = 2 * FEATHER_REACH_PX + 1
    grown = cv2.dilate((m > 0).astype(np.uint8), np.ones((size, size), np.uint8))
    return grown == 0


def form_for(tiny_models, seed: int = 7) -> JobForm:
    return tiny_job_form(tiny_models, "a green window", 3, seed=seed)


@pytest.fixture
def window(qtbot, tmp_path: Path, sd_stage: Path, tiny_models):
    win = photo_window(
        qtbot, sd_stage, form_for(tiny_models), tmp_path / "photo.png", photo(), mask()
    )
    yield win
    win.generation_panel.shutdown()


def run_all(qtbot, win: MainWindow) -> None:
    """Run all to its end, then its result in the history strip (read off the UI thread)."""
    run_all_to_the_end(qtbot, win)
    model = win.generation_panel.model
    assert model.run is not None
    run_dir = Path(model.run.dir)  # the history strip is read off the UI thread
    qtbot.waitUntil(
        lambda: any(
            Path(e.run_dir) == run_dir and e.kind == "result"
            for e in win.workspace_area.history.entries()
        )
    )


def on_screen(win: MainWindow) -> np.ndarray:
    """The canvas's pixels at 100 %, image pixel (x, y) at widget pixel (x, y)."""
    view = win.canvas_view
    view.set_view(1.0, QPointF(0, 0))
    return qimage_to_array(view.grab().toImage())[:PHOTO_H, :PHOTO_W]


def test_step_previews_land_on_the_canvas_inside_the_mask(qtbot, window) -> None:
    win = window
    layer = win.canvas_view.layer
    seen: list[tuple[int, np.ndarray, np.ndarray]] = []  # step, layer over photo, on screen

    def preview_shown(step: int, _image) -> None:
        frame = layer.frame
        assert frame is not None and not layer.standalone
        seen.append((step, frame.whole(win.document.image), on_screen(win)))

    win.generation_panel.model.runner_started.connect(
        lambda runner, _kind: runner.preview_ready.connect(preview_shown)
    )
    before = win.document.image.copy()
    run_all(qtbot, win)

    assert [step for step, *_ in seen] and seen[-1][0] <= 3
    far = far_from_mask(mask())
    inside = mask() > 0
    for step, shown, screen in seen:
        assert np.array_equal(shown[far], before[far]), step  # the photo, bit for bit
        assert np.array_equal(screen[far], before[far]), step  # and so on screen
        assert np.array_equal(screen[inside], shown[inside]), step  # the preview is painted
        assert not np.array_equal(shown[inside], before[inside]), step  # something new there
    assert np.array_equal(win.document.image, before)  # previews never edit the document
    # The finished run's result is on the canvas, full size, and is result.png itself.
    result = load_image(win.generation_panel.model.run.result)
    assert layer.frame is not None and layer.caption == "Result"
    assert np.array_equal(on_screen(win), result)
    assert "Result" in win.workspace_area.bar.caption.text()
    # The run had colour match on (the default, issue 40): the bar's toggle shows it, and its
    # tooltip says what it did: the tiny model's picture is new content, left as it is.
    assert win.generation_panel.model.run.spec.prepare.color_match == "on"
    box = win.workspace_area.bar.color_match
    assert box.isEnabled() and box.isChecked()
    assert "do not keep the photo's texture" in box.toolTip()


def test_before_after_use_as_new_image_undo_and_save(qtbot, window, tmp_path, dialogs) -> None:
    win = window
    old_photo, old_mask = win.document.image.copy(), win.document.mask.copy()
    win.prepare_panel.form.set(COLOR_MATCH, "on")  # the default (issue 40), set all the same
    run_all(qtbot, win)
    run = win.generation_panel.model.run
    assert run.spec.prepare.color_match == "on"
    result = load_image(run.result)
    view, bar = win.canvas_view, win.workspace_area.bar
    assert np.array_equal(on_screen(win), result)
    assert bar.color_match.isEnabled() and bar.color_match.isChecked()  # used: shown with it

    # Hold \: the photo; let go: the result again.
    view.setFocus()
    QTest.keyPress(view, Qt.Key.Key_Backslash)
    assert view.layer.before_held
    assert np.array_equal(on_screen(win), old_photo)
    QTest.keyRelease(view, Qt.Key.Key_Backslash)
    assert np.array_equal(on_screen(win), result)

    # The split slider: the photo left of the line, the result right of it.
    bar.split.setChecked(True)
    screen = on_screen(win)
    split_x = int(view.layer.split_x(view.picture_rect()))
    assert split_x == PHOTO_W // 2
    line = HANDLE_RADIUS_PX + 2  # the line and its round handle
    assert np.array_equal(screen[:, : split_x - line], old_photo[:, : split_x - line])
    assert np.array_equal(screen[:, split_x + line :], result[:, split_x + line :])
    bar.split.setChecked(False)

    # Colour match unchecked: the run's decoded picture composited again without it (before /
    # after of the colour match); checked again: result.png, which has the run's colour match
    # in it. The tiny model's picture is new content, which colour match rightly leaves as it
    # is (result.png is its plain composite), so decoded.png is swapped for a brighter picture
    # here: what the unchecked box shows must come from decoded.png, not from result.png.
    decoded_path = Path(run.dir) / "decoded.png"
    decoded = load_image(decoded_path)
    save_png_atomic(decoded_path, np.clip(decoded.astype(int) + 40, 0, 255).astype(np.uint8))
    plain = composite_prepared(load_prepared(Path(run.dir) / "prepared"), load_image(decoded_path))
    assert not np.array_equal(plain, result)
    bar.color_match.setChecked(False)
    assert np.array_equal(on_screen(win), plain)
    bar.color_match.setChecked(True)
    assert np.array_equal(on_screen(win), result)

    # Save as…: the PNG carries the parameters and reads back.
    target = tmp_path / "saved.png"
    dialogs.save_files.append(str(target))
    qtbot.mouseClick(bar.save, Qt.MouseButton.LeftButton)
    assert target.is_file()
    assert np.array_equal(load_image(target), result)
    carried = read_png_parameters(target)
    assert carried.spec == spec_to_dict(shareable(run.spec))  # file names, no folders
    assert carried.text.startswith("a green window\nSteps: 3, Sampler: ")
    assert f"Seed: {run.spec.seed}" in carried.text

    # Use as new image: the result is the picture, with an empty mask ...
    qtbot.mouseClick(bar.use, Qt.MouseButton.LeftButton)
    assert np.array_equal(win.document.image, result)
    assert win.document.mask_is_empty()
    assert not view.layer.visible
    assert np.array_equal(on_screen(win), result)
    # ... and Ctrl+Z brings the photo and its mask back; Ctrl+Shift+Z the result again.
    win.actions_by_name["undo"].trigger()
    assert np.array_equal(win.document.image, old_photo)
    assert np.array_equal(win.document.mask, old_mask)
    win.actions_by_name["redo"].trigger()
    assert np.array_equal(win.document.image, result)

    # File → Open of the saved PNG offers its settings to the job form.
    form = win.job_form
    form.set(PROMPT, "something else")
    form.set(SEED, 99)
    dialogs.answers.append(QMessageBox.StandardButton.Yes)
    assert win.open_image(target)
    assert dialogs.kinds()[-1] == "question" and "saved.png" in dialogs.shown[-1][2]
    assert form.get(PROMPT) == "a green window" and form.get(SEED) == run.spec.seed


def test_history_lists_the_runs_of_this_photo(qtbot, window, tmp_path) -> None:
    win = window
    run_all(qtbot, win)
    first = win.generation_panel.model.run
    win.job_form.set(SEED, 8)  # another result of the same photo: a new run
    run_all(qtbot, win)
    second = win.generation_panel.model.run
    assert Path(first.dir) != Path(second.dir)
    strip = win.workspace_area.history
    entries = strip.entries()
    assert [(Path(e.run_dir), e.kind) for e in entries] == [
        (Path(first.dir), "result"),
        (Path(second.dir), "result"),
    ]
    assert strip.isVisible()
    # A click on the first run's thumbnail shows its result on the canvas.
    item = strip.item(0)
    qtbot.mouseClick(
        strip.viewport(), Qt.MouseButton.LeftButton, pos=strip.visualItemRect(item).center()
    )
    qtbot.waitUntil(lambda: not win.workspace.file_reads.busy)  # read off the UI thread
    assert np.array_equal(on_screen(win), load_image(first.result))
    assert not np.array_equal(load_image(first.result), load_image(second.result))
    assert strip.currentRow() == 0  # the entry on show is marked
    assert strip.item(1).text().startswith("Result\n")
    assert strip.item(1).text().endswith(f"seed {second.spec.seed}")
    # Another photo of the same size: its own history (none), and nothing of the old one shown.
    other = tmp_path / "other.png"
    save_png_atomic(other, 255 - photo())
    assert win.open_image(other)
    assert not win.canvas_view.layer.visible
    qtbot.waitUntil(lambda: not win.workspace.history_scans.busy)  # read off the UI thread
    assert strip.entries() == []
    assert np.array_equal(on_screen(win), 255 - photo())


def test_decode_this_step_shows_full_size_on_the_canvas(qtbot, window) -> None:
    win = window
    run_all(qtbot, win)
    panel = win.generation_panel
    strip = panel.run_view.strip
    panel.tabs.setCurrentIndex(1)
    item = strip.item(1)
    qtbot.mouseClick(
        strip.viewport(), Qt.MouseButton.LeftButton, pos=strip.visualItemRect(item).center()
    )
    assert strip.selected_step() == 2
    qtbot.waitUntil(lambda: not win.workspace.file_reads.busy)  # the file is read off the UI
    layer = win.canvas_view.layer  # the step's preview goes on the canvas, blended in
    assert layer.caption == "Step 2 of 3 · preview" and not layer.standalone
    far = far_from_mask(mask())
    assert np.array_equal(on_screen(win)[far], photo()[far])
    qtbot.mouseClick(panel.run_view.decode_button, Qt.MouseButton.LeftButton)
    model = panel.model
    qtbot.waitUntil(
        lambda: not model.state.busy and not model.session.busy and not model.start_held,
        timeout=RUN_TIMEOUT_MS,
    )
    assert layer.caption == "Step 2, decoded" and not layer.standalone
    decoded = load_image(Path(model.run.dir) / "steps" / "step_002.png")
    assert decoded.shape[:2] == (96, 128)  # the model's input: the photo padded to 16
    screen = on_screen(win)
    assert np.array_equal(screen[far], photo()[far])
    assert not np.array_equal(screen[mask() > 0], photo()[mask() > 0])
    # Raw frame: the decoded picture as the model made it, over the part of the photo it covers
    # (the padding undone), not blended.
    win.workspace_area.bar.raw.setChecked(True)
    assert layer.frame is not None and tuple(layer.frame.at) == (0, 0, PHOTO_W, PHOTO_H)
    pad_x, pad_y = (128 - PHOTO_W) // 2, (96 - PHOTO_H) // 2
    raw = decoded[pad_y : pad_y + PHOTO_H, pad_x : pad_x + PHOTO_W]
    assert np.array_equal(on_screen(win), raw)
    # The history strip has the decoded step beside the result.
    history = win.workspace_area.history  # read off the UI thread
    kinds = [("decoded", 2), ("result", 3)]
    qtbot.waitUntil(lambda: [(e.kind, e.step) for e in history.entries()] == kinds)
