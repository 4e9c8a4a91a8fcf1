"""Issue 41, item 11, on the real main window with sd-stage and the tiny models: a status line
ends with its moment ("Done…" after another photo, "Imported…" after undo, "Preparing the
inputs…" after the run went back to idle without starting)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtWidgets import QScrollArea

from app.core.paths import app_paths
from app.imaging.io import save_png_atomic
from app.jobs.run_state import RunState
from app.pipeline.job.params import SEED, STEPS
from tests.models.forms import tiny_job_form
from tests.ui.runs_fixtures import photo_window, run_all

pytestmark = pytest.mark.slow

PHOTO_W, PHOTO_H = 96, 64


def photo(shift: int = 0) -> np.ndarray:
    y, x = np.mgrid[0:PHOTO_H, 0:PHOTO_W]
    return np.stack([x * 2 + shift, y * 3, (x + y) % 256], axis=-1).astype(np.uint8)


def mask() -> np.ndarray:
    m = np.zeros((PHOTO_H, PHOTO_W), np.float32)
    m[16:48, 24:72] = 1.0
    return m


@pytest.fixture
def window(qtbot, tmp_path: Path, sd_stage: Path, tiny_models):
    form = tiny_job_form(tiny_models, "a red roof", 2, seed=11)
    win = photo_window(qtbot, sd_stage, form, tmp_path / "garden.png", photo(), mask())
    yield win
    win.generation_panel.shutdown()


def test_done_ends_when_another_photo_is_opened(qtbot, window, tmp_path: Path) -> None:
    run_all(qtbot, window)
    panel = window.generation_panel
    assert panel.status_label.text().startswith("Done")
    other = tmp_path / "street.png"
    save_png_atomic(other, photo(40))
    assert window.open_image(other)
    assert "Done" not in panel.status_label.text()


def test_imported_ends_when_the_import_is_undone(window) -> None:
    panel = window.generation_panel
    panel.apply_imported({SEED.name: 4242, STEPS.name: 3})
    assert panel.status_label.text().startswith("Imported")
    panel.import_undo.button.click()
    assert panel.model.form.get(SEED) == 11
    text = panel.status_label.text()
    assert "Imported" not in text and "undone" in text


def test_preparing_ends_when_the_model_goes_back_to_idle(window) -> None:
    panel = window.generation_panel
    model = panel.model
    model._set_state(RunState.PREPARING)  # a start that is then refused before any stage
    assert panel.status_label.text() == "Preparing the inputs…"
    model._set_state(RunState.IDLE)
    assert panel.status_label.text() == ""
    panel.set_status("Nothing ran: the plan says the job does not fit.")
    model.inputs.document_changed()  # a mask stroke: the same photo, the same moment
    assert panel.status_label.text().startswith("Nothing ran")


# --- e. Compare… has room and says what to select ---------------------------------------------


def test_compare_opens_with_room_for_its_results(
    qtbot, sd_stage: Path, tiny_models, monkeypatch
) -> None:
    from app.ui.queue import compare
    from app.ui.queue.compare import CompareDialog

    # The offscreen screen is 800×600, less than the 1280×720 the window is made for.
    monkeypatch.setattr(compare, "SCREEN_SHARE", 2.0)
    from tests.ui.runs_fixtures import finished_run, pipeline, spec

    made = pipeline(sd_stage)
    job = dataclasses.replace(spec(tiny_models, "a door", 1), width=64, height=64)
    runs = [made.snapshot(finished_run(made, dataclasses.replace(job, seed=s))) for s in (1, 2, 3)]
    dialog = CompareDialog(runs)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    scroll = dialog.findChild(QScrollArea)
    assert scroll.horizontalScrollBar().maximum() == 0  # three results side by side
    assert scroll.verticalScrollBar().maximum() == 0
    for tile in dialog.tiles:
        assert tile.visibleRegion().boundingRect().size() == tile.size()
    assert dialog.hint.wordWrap() and "Discard the rest" in dialog.hint.text()
    # Several results: nothing is picked for the user, so no button acts before a click.
    buttons = (dialog.use_button, dialog.save_button, dialog.discard_button)
    assert dialog.picked() is None and not any(b.isEnabled() for b in buttons)
    dialog.pick(1)
    assert dialog.picked() is runs[1] and all(b.isEnabled() for b in buttons)


def test_compare_is_on_and_says_what_to_select(qtbot, sd_stage: Path, tiny_models) -> None:
    from app.pipeline.queue.jobs import JobQueue
    from tests.ui.runs_fixtures import main_window, spec

    job = dataclasses.replace(spec(tiny_models, "a door", 2), width=64, height=64, seed=3)
    JobQueue(app_paths()).add([job, dataclasses.replace(job, seed=4)])
    window = main_window(qtbot, sd_stage, tiny_models)
    try:
        controller = window.queue_controller
        controller.model.refresh()
        panel = controller.queue_panel
        asked: list[list] = []
        panel.compare_requested.connect(asked.append)
        assert panel.compare_button.isEnabled()  # nothing selected, yet it can be pressed
        panel.compare_button.click()
        assert asked == [] and panel.compare_hint.isVisible()
        assert "select the finished jobs" in panel.compare_hint.text()
        panel.tree.topLevelItem(0).setSelected(True)  # a queued job: no result to compare
        panel.compare_button.click()
        assert asked == [] and "no result yet" in panel.compare_hint.text()
    finally:
        window.generation_panel.shutdown()


# --- b. Save as… on a step's preview says it is that step's -----------------------------------


def test_save_as_on_a_step_preview_says_which_step(
    qtbot, window, tmp_path: Path, monkeypatch
) -> None:
    from PySide6.QtWidgets import QFileDialog

    from app.imaging.png_params import read_png_parameters

    run_all(qtbot, window)
    strip = window.generation_panel.run_view.strip
    qtbot.waitUntil(lambda: 1 in strip.steps())
    strip.step_selected.emit(1)  # step 1 of 2 picked in the Run tab: its preview on the canvas
    workspace = window.workspace
    qtbot.waitUntil(lambda: workspace.shown is not None and workspace.shown.kind == "preview")
    asked: list[tuple[str, str]] = []
    target = tmp_path / "out" / "picked.png"
    target.parent.mkdir()

    def save_file_name(_parent, title: str, suggested: str, _filter: str = "", *_a, **_k):
        asked.append((title, suggested))
        return str(target), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(save_file_name))
    assert workspace.save_as() == target
    title, suggested = asked[0]
    assert "step 1" in title and "preview" in title
    assert Path(suggested).name == "garden_step1-preview.png"
    carried = read_png_parameters(target)
    assert "Stepwise picture: step 1 of 2 (preview)" in carried.text
    assert carried.picture == {"kind": "preview", "step": 1, "steps": 2}
    assert carried.spec["steps"] == 2  # the run's settings stay what they were


# --- d. Use as new image: named after the photo and seed; undo brings the context back ----------


def test_use_as_new_image_names_it_and_undo_brings_the_context_back(qtbot, window) -> None:
    from app.pipeline.job.params import CONTEXT

    run_all(qtbot, window)
    form, document = window.generation_panel.model.form, window.document
    workspace = window.workspace
    qtbot.waitUntil(lambda: workspace.shown is not None and workspace.shown.kind == "result")
    form.set(CONTEXT, "8,8,64,48")  # a context rectangle chosen for the photo
    assert workspace.use_as_new_image()
    assert document.image_title == "garden_seed11.png"  # not "result.png"
    assert "garden_seed11.png" in window.windowTitle()
    assert form.get(CONTEXT) == ""  # the rectangle was the photo's
    assert document.undo()  # the photo, its mask and its context rectangle
    assert document.image_title == "garden.png"
    assert form.get(CONTEXT) == "8,8,64,48"
    assert document.redo()  # the used picture again: no rectangle was chosen for it
    assert form.get(CONTEXT) == "" and document.image_title == "garden_seed11.png"


# --- g. a preset's photo reference ends with the preset (another photo) ------------------------


def test_another_photo_ends_the_presets_photo_reference(window, tmp_path: Path) -> None:
    from app.pipeline.job.params import SOURCE_REF

    edit = window.generation_panel.edit_pane
    form = window.generation_panel.model.form
    edit.apply("add")
    assert form.get(SOURCE_REF) is True
    window.document.replace_mask("a stroke", mask() * 0.5)  # the same photo: it stays
    assert form.get(SOURCE_REF) is True and edit.preset_combo.currentData() == "add"
    other = tmp_path / "street.png"
    save_png_atomic(other, photo(40))
    assert window.open_image(other)
    assert form.get(SOURCE_REF) is False and edit.preset_combo.currentData() == "free"
