"""A run view belongs to one run (issue 16): the Run tab's step strip, its step label and its
result box show the model's current run and nothing of the run before, on the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.jobs.run_state import RunState
from app.pipeline.job.params import STEPS
from tests.ui.test_generation_engine import RUN_TIMEOUT_MS, hold_at_step, make_panel, wait_idle

__all__ = ["make_panel"]  # the fixture, used by name

pytestmark = pytest.mark.slow


def _click_step(qtbot, strip, step: int) -> None:
    row = strip.steps().index(step)
    qtbot.mouseClick(
        strip.viewport(),
        Qt.MouseButton.LeftButton,
        pos=strip.visualItemRect(strip.item(row)).center(),
    )


def _strip_dirs(strip) -> set[Path]:
    return {Path(strip.path(step)).parents[1] for step in strip.steps()}


def test_the_strip_and_the_result_follow_the_current_run(qtbot, make_panel) -> None:
    panel = make_panel(prompt="a door of one run", steps=4)
    view = panel.run_view
    panel.all_button.click()
    wait_idle(qtbot, panel)
    first = panel.model.run
    assert first.finished
    qtbot.waitUntil(lambda: view.strip.steps() == [1, 2, 3, 4], timeout=RUN_TIMEOUT_MS)
    _click_step(qtbot, view.strip, 3)
    assert view.strip.selected_step() == 3 and "3" in view.step_label.text()

    # A new run of 2 steps: its strip holds its 2 steps, not the 4 of the run before.
    panel.model.form.set(STEPS, 2)
    panel.all_button.click()
    wait_idle(qtbot, panel)
    second = panel.model.run
    assert second.dir != first.dir and second.finished
    qtbot.waitUntil(lambda: view.strip.steps() == [1, 2], timeout=RUN_TIMEOUT_MS)
    assert _strip_dirs(view.strip) == {Path(second.dir)}
    assert view.step_label.text() == ""  # "Step 3 selected" was the other run's

    # Reopening the first run: its 4 steps and its result, and the step actions act on it.
    assert panel.model.open_run(Path(first.dir)) is not None
    # the step thumbnails are read off the UI thread (jobs/background): wait for them
    qtbot.waitUntil(lambda: view.strip.steps() == [1, 2, 3, 4], timeout=RUN_TIMEOUT_MS)
    assert _strip_dirs(view.strip) == {Path(first.dir)}
    qtbot.waitUntil(view.result_view.has_result, timeout=RUN_TIMEOUT_MS)  # read off the UI
    _click_step(qtbot, view.strip, 4)
    view.decode_button.click()
    wait_idle(qtbot, panel)
    assert (Path(first.dir) / "steps").is_dir() and not (Path(second.dir) / "steps").exists()


def test_a_suspended_run_then_a_new_run_shows_only_the_new_runs_steps(qtbot, make_panel) -> None:
    panel = make_panel(prompt="a door suspended", steps=30)
    view = panel.run_view
    hold_at_step(panel, 3)
    panel.all_button.click()
    qtbot.waitUntil(lambda: panel.model.state is RunState.PAUSED, timeout=RUN_TIMEOUT_MS)
    view.suspend_button.click()
    wait_idle(qtbot, panel)
    assert len(view.strip.steps()) >= 3
    suspended = panel.model.run
    panel.model.form.set(STEPS, 2)  # another job: Run all makes a new run
    panel.all_button.click()
    wait_idle(qtbot, panel)
    assert panel.model.run.dir != suspended.dir
    qtbot.waitUntil(lambda: view.strip.steps() == [1, 2], timeout=RUN_TIMEOUT_MS)
    assert _strip_dirs(view.strip) == {Path(panel.model.run.dir)}


def test_opening_an_old_run_offers_its_settings_and_never_takes_devices_or_models(
    qtbot, dialogs, tmp_path, sd_stage, tiny_models
) -> None:
    """Show result asks (the rule of a PNG's settings); Resume takes the job's settings but
    leaves the devices and the model files the user chose."""
    import shutil

    from PySide6.QtWidgets import QMessageBox

    from app.pipeline.job.params import DIFFUSION_MODEL, PROMPT, THREADS
    from tests.ui.runs_fixtures import (
        finished_run,
        main_window,
        pipeline,
        spec,
        stopped_run,
        write_photo,
    )

    image, mask = write_photo(tmp_path / "in")
    api = pipeline(sd_stage)
    older = finished_run(api, spec(tiny_models, "an old finished door", 2, image, mask))
    stopped, _k = stopped_run(api, spec(tiny_models, "a stopped door", 5, image, mask), 2)
    window = main_window(qtbot, sd_stage, tiny_models)
    controller = window.runs_controller
    qtbot.waitUntil(lambda: controller.dialog is not None)
    controller.dialog.close()
    form = window.job_form
    mine = tmp_path / "mine" / tiny_models.diffusion.name
    mine.parent.mkdir()
    shutil.copyfile(tiny_models.diffusion, mine)
    form.set(DIFFUSION_MODEL, str(mine))
    form.set(THREADS, 2)
    form.set(PROMPT, "my own door")

    assert controller.open(older, resume=False)  # Show result; the recorder answers No
    assert window.generation_panel.model.run.dir == older
    assert "Settings of the run" in dialogs.texts() and "an old finished door" in dialogs.texts()
    assert (form.get(PROMPT), form.get(THREADS), form.get(DIFFUSION_MODEL)) == (
        "my own door",
        2,
        str(mine),
    )
    dialogs.answers = [QMessageBox.StandardButton.Yes]
    assert controller.open(older, resume=False)
    assert form.get(PROMPT) == "an old finished door"
    assert form.get(THREADS) == 2  # devices and switches never come with a run
    assert form.get(DIFFUSION_MODEL) == str(tiny_models.diffusion)  # asked, and it exists

    form.set(DIFFUSION_MODEL, str(mine))
    asked = len(dialogs.shown)
    assert controller.open(stopped, resume=True)
    wait_idle(qtbot, window.generation_panel)
    assert len(dialogs.shown) == asked  # Resume asks nothing
    assert form.get(PROMPT) == "a stopped door"
    assert (form.get(THREADS), form.get(DIFFUSION_MODEL)) == (2, str(mine))
    assert window.generation_panel.model.run.finished
    window.generation_panel.shutdown()


def test_run_all_with_an_empty_mask_asks_before_repainting_everything(
    qtbot, dialogs, make_panel
) -> None:
    import numpy as np
    from PySide6.QtWidgets import QMessageBox

    panel = make_panel(prompt="a door, no mask", steps=2)
    model = panel.model
    image = model.inputs.image.copy()
    model.inputs.set_document(image, np.zeros(image.shape[:2], np.uint8))
    panel.all_button.click()  # the recorder answers No
    assert "The mask is empty" in dialogs.texts()
    assert model.run is None and model.state is RunState.IDLE and not model.session.busy
    dialogs.answers = [QMessageBox.StandardButton.Yes]
    panel.all_button.click()
    wait_idle(qtbot, panel)
    assert model.run is not None and model.run.finished and model.run.spec.mask is None
    # A painted mask asks nothing.
    asked = len(dialogs.shown)
    mask = np.zeros(image.shape[:2], np.uint8)
    mask[: image.shape[0] // 2] = 255
    model.inputs.set_document(image, mask)
    panel.all_button.click()
    wait_idle(qtbot, panel)
    assert len(dialogs.shown) == asked and model.run.spec.mask is not None


def test_save_result_writes_the_png_with_its_settings_and_says_where(
    qtbot, tmp_path, sd_stage, tiny_models
) -> None:
    """Run tab → Save result: the result PNG with the run's settings inside, `result_saved`
    with its path and "Saved …"; a place that cannot be written (a folder) is said, nothing
    is signalled."""
    import dataclasses

    from PIL import Image

    from tests.ui.runs_fixtures import finished_run, main_window, pipeline, spec

    job = dataclasses.replace(spec(tiny_models, "a door", 2), width=64, height=64, seed=3)
    run_dir = finished_run(pipeline(sd_stage), job)
    window = main_window(qtbot, sd_stage, tiny_models, show=False)
    view = window.generation_panel.run_view
    assert view.model.open_run(run_dir) is not None
    said: list[str] = []
    saved: list[str] = []
    view.status.connect(said.append)
    view.result_saved.connect(saved.append)
    target = tmp_path / "out.png"
    assert view.save_result(target) == target
    assert saved == [str(target)] and said[-1] == f"Saved {target}"
    assert "a door" in Image.open(target).text.get("parameters", "")
    folder = tmp_path / "taken.png"
    folder.mkdir()
    assert view.save_result(folder) is None
    assert saved == [str(target)] and "could not be saved" in said[-1]
    window.generation_panel.shutdown()
