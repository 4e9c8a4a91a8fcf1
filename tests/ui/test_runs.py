"""The runs UI on the real main window, the real pipeline and sd-stage (tiny models): the
start-up dialog lists the unfinished runs, resumes one (its photo and mask back on the canvas,
the run going on from its checkpoint) and discards one (to the trash, after asking); the Runs
panel lists every run newest first with entries that differ in state, step, date and prompt;
the branch dialog shows what it reuses and branches; the decode's progress text ends with it;
Settings OK leaves the devices alone."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from app.core.settings import Settings
from app.imaging.io import load_image, load_mask
from app.jobs.run_state import RunState
from app.pipeline.job.params import DIFFUSION_DEVICE, LLM_DEVICE, VAE_DEVICE
from tests.ui.runs_fixtures import (
    finished_run,
    job_form,
    main_window,
    pipeline,
    spec,
    stopped_run,
    write_photo,
)

pytestmark = pytest.mark.slow
RUN_TIMEOUT_MS = 180_000


def wait_idle(qtbot, model) -> None:
    qtbot.waitUntil(
        lambda: not model.state.busy and not model.session.busy and not model.start_held,
        timeout=RUN_TIMEOUT_MS,
    )


def record_steps(model) -> list[int]:
    steps: list[int] = []
    model.session.runner_started.connect(
        lambda runner: runner.step_progress.connect(lambda step, *_: steps.append(step))
    )
    return steps


def test_the_start_up_dialog_lists_resumes_and_discards(
    qtbot, dialogs, tmp_path, monkeypatch, sd_stage, tiny_models
) -> None:
    image, mask = write_photo(tmp_path / "in")
    api = pipeline(sd_stage)
    kept, k = stopped_run(api, spec(tiny_models, "a door kept", 6, image, mask), after_step=2)
    finished_run(api, spec(tiny_models, "a door done", 2))  # finished: not offered
    dropped, d = stopped_run(api, spec(tiny_models, "a door dropped", 4), after_step=1)

    window = main_window(qtbot, sd_stage, tiny_models)
    controller = window.runs_controller
    qtbot.waitUntil(lambda: controller.dialog is not None and controller.dialog.isVisible())
    dialog = controller.dialog
    rows = dialog.list_view.rows
    assert [r.entry.dir for r in rows] == [dropped, kept]  # newest first; the finished one not
    texts = [r.status_label.full_text for r in rows]
    assert texts[0].startswith(f"Stopped after step {d} of 4")
    assert texts[1].startswith(f"Stopped after step {k} of 6")
    assert [r.prompt_label.full_text for r in rows] == ["a door dropped", "a door kept"]
    assert rows[1].thumbnail.pixmap() is not None and not rows[1].thumbnail.pixmap().isNull()
    assert "flux" in rows[1].details_label.full_text.lower() or tiny_models.diffusion.name in (
        rows[1].details_label.full_text
    )

    # Discard asks first; "Cancel" keeps the run.
    dialogs.answers = [QMessageBox.StandardButton.Cancel]
    rows[0].buttons["discard"].click()
    assert dropped.is_dir() and len(dialog.list_view.rows) == 2
    # Then to the trash (Qt's freedesktop trash, inside this test's data home).
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    dialogs.answers = [QMessageBox.StandardButton.Discard]
    rows[0].buttons["discard"].click()
    assert not dropped.exists() and (xdg / "Trash" / "files" / dropped.name / "run.json").is_file()
    assert [r.entry.dir for r in dialog.list_view.rows] == [kept]
    assert "Discard the run?" in dialogs.texts()

    # Resume: the photo and mask come back on the canvas, the run goes on from step 2.
    model = window.generation_panel.model
    steps = record_steps(model)
    dialog.list_view.rows[0].buttons["resume"].click()
    document = window.document
    assert np.array_equal(document.image, load_image(image))
    assert np.array_equal(document.mask > 0.5, load_mask(mask) > 127)
    assert not document.modified
    assert not dialog.isVisible()
    wait_idle(qtbot, model)
    assert model.state is RunState.FINISHED, model.last_failure
    assert model.run.dir == kept and model.run.finished
    assert steps == list(range(k + 1, 7))  # continued from its checkpoint
    assert window.generation_panel.prompt_pane.prompt_edit.toPlainText() == "a door kept"
    window.generation_panel.shutdown()


def test_the_runs_panel_lists_every_run_newest_first_and_shows_a_result(
    qtbot, tmp_path, sd_stage, tiny_models
) -> None:
    image, mask = write_photo(tmp_path / "in")
    api = pipeline(sd_stage)
    older = finished_run(api, spec(tiny_models, "an old finished door", 2, image, mask))
    newer, n = stopped_run(api, spec(tiny_models, "a newer stopped door", 5), after_step=3)
    window = main_window(qtbot, sd_stage, tiny_models)
    controller = window.runs_controller
    panel = controller.runs_panel
    qtbot.waitUntil(lambda: len(panel.list_view.rows) == 2)
    rows = panel.list_view.rows
    assert [r.entry.dir for r in rows] == [newer, older]
    assert panel.count_label.text() == "2 runs, 1 unfinished"
    assert set(rows[0].buttons) == {"resume", "discard"}
    assert set(rows[1].buttons) == {"show_result", "discard"}
    assert rows[0].status_label.full_text.startswith(f"Stopped after step {n} of 5")
    assert rows[1].status_label.full_text.startswith("Finished, 2 steps")
    assert rows[0].status_label.full_text != rows[1].status_label.full_text
    controller.dialog.close()
    rows[1].buttons["show_result"].click()
    model = window.generation_panel.model
    assert model.run.dir == older and model.state is RunState.FINISHED
    run_view = window.generation_panel.run_view
    qtbot.waitUntil(run_view.result_view.has_result)  # result.png is read off the UI thread
    assert np.array_equal(window.document.image, load_image(image))  # its photo is back
    assert not run_view.resume_button.isEnabled()  # nothing is paused or stopped
    # A new run appears in the panel when it is made.
    window.generation_panel.model.new_run()
    window.generation_panel.all_button.click()
    wait_idle(qtbot, model)
    qtbot.waitUntil(lambda: len(panel.list_view.rows) == 3, timeout=10_000)
    assert panel.list_view.rows[0].entry.dir == model.run.dir
    window.generation_panel.shutdown()


def test_the_branch_dialog_shows_what_it_reuses_and_branches_from_the_step(
    qtbot, sd_stage, tiny_models
) -> None:
    window = main_window(qtbot, sd_stage, tiny_models)
    panel = window.generation_panel
    model = panel.model
    model.form.update({"steps": 6, "width": 128, "height": 96})  # small: three runs follow
    panel.all_button.click()
    wait_idle(qtbot, model)
    original = model.run
    assert original.finished and (original.spec.width, original.spec.height) == (128, 96)
    strip = panel.run_view.strip
    item = strip.item(2)  # step 3
    qtbot.mouseClick(
        strip.viewport(), Qt.MouseButton.LeftButton, pos=strip.visualItemRect(item).center()
    )
    assert strip.selected_step() == 3
    panel.run_view.branch_button.click()
    dialog = panel.run_view.branch_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.seed.value() == original.spec.seed and dialog.steps.value() == 6
    assert dialog.reuse_label.text() == "Continues from step 3 of 6; steps 1–3 are reused."
    dialog.seed.setValue(original.spec.seed + 1)
    assert dialog.reuse_label.text().startswith("Diffusion starts over at step 1 of 6")
    dialog.seed.setValue(original.spec.seed)
    dialog.accept()
    branch = model.run
    assert branch.dir != original.dir and max(branch.checkpoints) == 3
    assert strip.steps() == [1, 2, 3]
    steps = record_steps(model)
    panel.all_button.click()
    wait_idle(qtbot, model)
    assert model.run.dir == branch.dir and model.run.finished
    assert steps == [4, 5, 6]  # the branch continued from step 3

    # A branch with a new prompt: the dialog says diffusion starts over, and it does.
    item = strip.item(1)
    qtbot.mouseClick(
        strip.viewport(), Qt.MouseButton.LeftButton, pos=strip.visualItemRect(item).center()
    )
    panel.run_view.branch_button.click()
    dialog = panel.run_view.branch_dialog
    dialog.prompt.setPlainText("a door at night")
    assert "after the new prompt is encoded" in dialog.reuse_label.text()
    dialog.accept()
    second = model.run
    assert second.spec.prompt == "a door at night" and second.dir not in (branch.dir, original.dir)
    assert panel.prompt_pane.prompt_edit.toPlainText() == "a door at night"
    steps.clear()
    panel.all_button.click()
    wait_idle(qtbot, model)
    assert model.run.dir == second.dir and steps == [1, 2, 3, 4, 5, 6]
    panel.shutdown()


def test_a_decode_leaves_no_decoding_text_and_resume_needs_a_stopped_run(
    qtbot, sd_stage, tiny_models
) -> None:
    window = main_window(qtbot, sd_stage, tiny_models)
    panel = window.generation_panel
    model = panel.model
    run_view = panel.run_view
    assert not run_view.resume_button.isEnabled()
    model.form.update({"steps": 3})
    panel.all_button.click()
    wait_idle(qtbot, model)
    assert model.state is RunState.FINISHED and not run_view.resume_button.isEnabled()
    strip = run_view.strip
    item = strip.item(1)
    qtbot.mouseClick(
        strip.viewport(), Qt.MouseButton.LeftButton, pos=strip.visualItemRect(item).center()
    )
    shown: list[str] = []
    model.session.runner_started.connect(
        lambda runner: runner.stage_started.connect(
            lambda _stage: shown.append(run_view.progress.bar.format()), Qt.QueuedConnection
        )
    )
    run_view.decode_button.click()
    wait_idle(qtbot, model)
    assert shown == ["Decoding step 2…"]
    assert "Decoding" not in run_view.progress.bar.format()
    assert run_view.progress.bar.format() == "Step 2 decoded"
    assert "Decoding" not in run_view.progress.detail.text()
    assert not run_view.resume_button.isEnabled()
    panel.shutdown()


def test_settings_ok_leaves_the_devices_alone(qtbot, tiny_models) -> None:
    from app.ui.shell.settings_dialog import SettingsDialog

    form = job_form(tiny_models)
    form.set(VAE_DEVICE, "cpu")
    before = {p: form.get(p) for p in (LLM_DEVICE, DIFFUSION_DEVICE, VAE_DEVICE)}
    settings = Settings()
    dialog = SettingsDialog(settings, form)
    qtbot.addWidget(dialog)
    dialog.language.setCurrentIndex(dialog.language.findData("zh_CN"))
    dialog.apply()
    assert settings.language == "zh_CN"
    assert {p: form.get(p) for p in before} == before
