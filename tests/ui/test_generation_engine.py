"""The generation panel driving the real sd-stage with the tiny models, through its buttons:
stages one at a time, previews for every step, pause/resume, suspend/resume in a new runner,
a SIGKILLed engine recovered bit-exactly, the prompt cache, and the painter's Prepare options
reaching the engine (bug 1) and the sampler warning from the engine's catalog (bug 3)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
import psutil
import pytest
from PySide6.QtCore import Qt, QTimer

from app.core.paths import app_paths
from app.core.settings import Settings
from app.imaging.io import load_image, load_mask
from app.imaging.prepare import PrepareOptions, prepare
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.run_session import RunSession
from app.jobs.run_state import RunState
from app.pipeline.selftest import selftest_images as _selftest_images
from app.ui.generation import GenerationPanel
from app.ui.shell.features import install_generation_panel
from app.ui.shell.main_window import MainWindow
from tests.engine.pause_hook import hold_session_at_step
from tests.jobs.guard import child_pids
from tests.models.forms import tiny_job_form

pytestmark = pytest.mark.slow

ORDER = ["prepare", "vae-encode", "llm-encode", "diffuse", "vae-decode", "composite"]
RUN_TIMEOUT_MS = 180_000


def job_form(tiny_models, prompt: str = "a blue door", steps: int = 4) -> JobForm:
    return tiny_job_form(tiny_models, prompt, steps)


@pytest.fixture
def make_panel(qtbot, tmp_path: Path, sd_stage: Path, tiny_models):
    """Panels over one shared AppPaths (so the stage cache is shared between them)."""
    image, mask = _selftest_images(tmp_path / "in")
    made: list[GenerationPanel] = []

    def make(prompt: str = "a blue door", steps: int = 4) -> GenerationPanel:
        session = RunSession(app_paths(), engine=sd_stage)
        model = GenerationModel(job_form(tiny_models, prompt, steps), session)
        model.inputs.set_document(load_image(image), load_mask(mask))
        panel = GenerationPanel(model)
        panel._first_show = False  # no offer, no probe: the tests ask for them
        qtbot.addWidget(panel)
        panel.resize(560, 980)
        panel.show()
        made.append(panel)
        return panel

    yield make
    for panel in made:
        panel.shutdown()


def wait_idle(qtbot, panel: GenerationPanel, timeout: int = RUN_TIMEOUT_MS) -> None:
    model = panel.model
    qtbot.waitUntil(
        lambda: not model.state.busy and not model.session.busy and not model.start_held,
        timeout=timeout,
    )


def engine_pids() -> list[int]:
    found = []
    for pid in child_pids():
        try:
            if psutil.Process(pid).name().startswith("sd-stage"):
                found.append(pid)
        except psutil.Error:
            pass
    return found


def engine_cmdlines() -> list[str]:
    lines = []
    for pid in engine_pids():
        try:
            lines.append(" ".join(psutil.Process(pid).cmdline()))
        except psutil.Error:
            pass
    return lines


def test_a_full_job_clicking_through_the_stages(qtbot, make_panel) -> None:
    panel = make_panel(steps=4)
    previews: list[int] = []
    panel.model.session.runner_started.connect(
        lambda r: r.preview_saved.connect(lambda step, *_: previews.append(step))
    )
    for i, stage in enumerate(ORDER):
        qtbot.mouseClick(panel.next_button, Qt.MouseButton.LeftButton)
        wait_idle(qtbot, panel)
        assert not panel.error_banner.isVisible(), panel.error_banner.text()
        states = panel.run_view.stage_list.states()
        assert all(states[s] in ("done", "cached") for s in ORDER[: i + 1]), (stage, states)
        assert all(states[s] == "pending" for s in ORDER[i + 1 :]), (stage, states)
    run = panel.model.run
    assert run.finished
    n = run.steps
    assert previews == list(range(1, n + 1))
    assert panel.run_view.strip.steps() == list(range(1, n + 1))
    assert panel.run_view.result_view.has_result()
    assert panel.run_view.result_view.current.caption() == "Result"
    assert panel.run_view.result_view.original.has_image()


def hold_at_step(panel, step: int) -> None:
    """The panel's next run's diffuse engine pauses itself after step `step`."""
    hold_session_at_step(panel.model.session, step)


def test_pause_then_resume(qtbot, make_panel) -> None:
    panel = make_panel(steps=30)
    hold_at_step(panel, 1)
    panel.all_button.click()
    qtbot.waitUntil(lambda: panel.model.state is RunState.PAUSED, timeout=RUN_TIMEOUT_MS)
    assert panel.run_view.stage_list.state("diffuse") == "paused"
    held = len(panel.run_view.strip.steps())
    qtbot.wait(500)
    assert len(panel.run_view.strip.steps()) == held  # nothing moves while paused
    assert len(engine_pids()) == 1  # the model stays loaded
    panel.run_view.resume_button.click()
    wait_idle(qtbot, panel)
    run = panel.model.run
    assert run.finished and panel.run_view.result_view.has_result()
    assert panel.run_view.strip.steps() == list(range(1, run.steps + 1))


def test_suspend_then_resume_in_a_new_runner(qtbot, make_panel) -> None:
    panel = make_panel(steps=30)
    hold_at_step(panel, 2)
    panel.all_button.click()
    qtbot.waitUntil(lambda: panel.model.state is RunState.PAUSED, timeout=RUN_TIMEOUT_MS)
    first = panel.model.runner
    panel.run_view.suspend_button.click()  # suspending a paused run saves and frees the GPU
    wait_idle(qtbot, panel)
    assert engine_pids() == []  # the GPU (here: the process) is free
    run = panel.model.run
    k = run.last_completed_step
    assert 2 <= k < run.steps
    assert panel.run_view.stage_list.state("diffuse") in ("suspended", "pending")
    started = []
    panel.model.session.runner_started.connect(started.append)
    panel.run_view.resume_button.click()
    wait_idle(qtbot, panel)
    assert started and started[0] is not first
    assert panel.model.run.finished and panel.run_view.result_view.has_result()


def test_sigkill_mid_diffuse_shows_the_failure_then_resume_continues(qtbot, make_panel) -> None:
    """The GUI side of a killed engine (the bytes of a resume after a SIGKILL are compared with
    an uninterrupted run by tests/cli/test_kill_campaign.py and test_run_cli.py)."""
    panel = make_panel(prompt="a red door killed", steps=12)
    # Held after step 1 by the engine itself (on an idle machine the tiny steps outrun any kill
    # made when an event arrives), then the diffuse process (not a --plan child) is killed.
    hold_at_step(panel, 1)
    panel.all_button.click()
    qtbot.waitUntil(lambda: panel.model.state is RunState.PAUSED, timeout=RUN_TIMEOUT_MS)
    killed: list[int] = []
    for pid in engine_pids():
        with contextlib.suppress(psutil.Error):
            if "diffuse" in psutil.Process(pid).cmdline():
                psutil.Process(pid).kill()
                killed.append(pid)
    wait_idle(qtbot, panel)
    assert killed, "no diffuse engine to kill"
    assert panel.error_banner.isVisible()
    assert panel.run_view.stage_list.state("diffuse") == "failed"
    text = panel.error_banner.text()
    assert "Diffuse" in text and "Try" in text
    log_text, _ = panel.engine_log_text()
    assert log_text.strip()
    assert not panel.model.run.finished
    steps: list[int] = []
    panel.model.session.runner_started.connect(
        lambda r: r.step_progress.connect(lambda step, *_: steps.append(step))
    )
    panel.run_view.resume_button.click()
    wait_idle(qtbot, panel)
    assert not panel.error_banner.isVisible()
    run = panel.model.run
    assert run.finished and Path(run.result).is_file()
    assert steps and min(steps) > 1  # continued from its checkpoint, not from step 1


def test_second_run_with_the_same_prompt_reuses_the_encoding(qtbot, make_panel) -> None:
    first = make_panel(prompt="a green door")
    first.all_button.click()
    wait_idle(qtbot, first)
    assert first.model.run.finished
    assert first.run_view.stage_list.state("llm-encode") == "done"

    second = make_panel(prompt="a green door")
    second.sampling_pane.seed_spin.setValue(7)  # a different picture, the same prompt
    seen: list[str] = []
    poll = QTimer()
    poll.setInterval(5)
    poll.timeout.connect(lambda: seen.extend(engine_cmdlines()))
    poll.start()
    try:
        second.all_button.click()
        wait_idle(qtbot, second)
    finally:
        poll.stop()
    run = second.model.run
    assert run.finished
    assert second.run_view.stage_list.state("llm-encode") == "cached"
    assert [s.state for s in run.stages if s.name == "llm-encode"] == ["cached"]
    assert any("diffuse" in line for line in seen)  # the poll does see engines
    # but never an LLM one (the Devices pane's memory plans, --plan, load no model)
    assert not any("llm-encode" in line and "--plan" not in line for line in seen)
    assert not (Path(run.dir) / "logs" / "llm-encode.log").exists()


def test_after_a_restart_the_suspended_run_is_offered_then_decoded_and_branched(
    qtbot, make_panel
) -> None:
    panel = make_panel(prompt="a yellow door", steps=30)
    panel.all_button.click()
    qtbot.waitUntil(lambda: len(panel.run_view.strip.steps()) >= 2, timeout=RUN_TIMEOUT_MS)
    panel.run_view.suspend_button.click()
    wait_idle(qtbot, panel)
    k = panel.model.run.last_completed_step
    n = panel.model.run.steps

    restarted = make_panel(prompt="something else", steps=4)  # a new session, as after a restart
    # The start-up offer itself (dialog, photo back on the canvas) is tests/ui/test_runs.py's.
    offered = restarted.model.session.unfinished_runs()
    [summary] = [s for s in offered if s.prompt == "a yellow door"]
    assert (summary.last_completed_step, summary.steps) == (k, n)
    assert restarted.model.open_run(summary.dir) is not None
    restarted.model.resume()
    wait_idle(qtbot, restarted)
    assert restarted.prompt_pane.prompt_edit.toPlainText() == "a yellow door"
    run = restarted.model.run
    assert run.finished and restarted.run_view.result_view.has_result()
    qtbot.waitUntil(lambda: not restarted.run_view.strip.reads.busy)  # read off the UI thread
    assert restarted.run_view.strip.steps() == list(range(1, n + 1))

    item = restarted.run_view.strip.item(2)
    qtbot.mouseClick(
        restarted.run_view.strip.viewport(),
        Qt.MouseButton.LeftButton,
        pos=restarted.run_view.strip.visualItemRect(item).center(),
    )
    step = restarted.run_view.strip.selected_step()
    restarted.run_view.decode_button.click()
    wait_idle(qtbot, restarted)
    assert not restarted.error_banner.isVisible(), restarted.error_banner.text()
    assert restarted.run_view.result_view.current.caption() == f"Step {step}, decoded"

    restarted.run_view.branch_button.click()  # the branch dialog (tests/ui/test_runs.py)
    restarted.run_view.branch_dialog.prompt.setPlainText("a yellow door at night")
    restarted.run_view.branch_dialog.accept()
    assert not restarted.error_banner.isVisible(), restarted.error_banner.text()
    branched = restarted.model.run
    assert branched.dir != run.dir and branched.spec.prompt.endswith("at night")
    restarted.all_button.click()
    wait_idle(qtbot, restarted)
    assert restarted.model.run.finished


def test_a_gui_run_uses_the_prepare_panels_crop_and_only_masked(
    qtbot, tmp_path: Path, sd_stage: Path, tiny_models
) -> None:
    """Bug 1: the engine gets the cropped region's size; the result fills the whole photo."""
    from app.imaging.io import save_png_atomic

    y, x = np.mgrid[0:150, 0:200]
    photo = np.stack([x * 255 // 200, y * 255 // 150, (x + y) % 256], -1).astype(np.uint8)
    mask = np.zeros((150, 200), np.uint8)
    mask[40:90, 60:120] = 255
    save_png_atomic(tmp_path / "photo.png", photo)
    save_png_atomic(tmp_path / "photo_mask.png", mask)
    settings = Settings()
    settings.engine_path = str(sd_stage)
    window = MainWindow(settings, job_form=job_form(tiny_models))
    qtbot.addWidget(window)
    panel = install_generation_panel(window, app_paths(), settings)
    panel._first_show = False
    try:
        assert window.open_image(tmp_path / "photo.png")
        window.mask_controller.load_mask(tmp_path / "photo_mask.png")
        prep = window.prepare_panel
        prep.align_combo.setCurrentIndex(prep.align_combo.findData("crop"))
        prep.only_masked_check.setChecked(True)
        prep.padding_spin.setValue(8)
        prep.target_spin.setValue(128)  # scaled up to about 128² (the default ~1 MP is slow here)
        panel.all_button.click()
        wait_idle(qtbot, panel)
        assert not panel.error_banner.isVisible(), panel.error_banner.text()
        run = panel.model.run
        assert run is not None and run.finished
        options = PrepareOptions(align="crop", only_masked=True, padding_px=8, masked_target=128)
        assert run.spec.prepare == options
        expected = prepare(photo, mask.astype(np.float32) / 255.0, options).record.input_size
        assert expected[0] < 200 and expected[1] < 150  # a crop, not the whole photo
        assert run.model_input is not None
        assert (run.model_input.width, run.model_input.height) == tuple(expected)
        result = load_image(run.result)
        assert result.shape == photo.shape
        assert np.array_equal(result[:20], photo[:20])  # outside the region: untouched
    finally:
        panel.shutdown()


def test_the_sampler_warning_shows_exactly_for_samplers_the_engine_cannot_resume(
    qtbot, make_panel
) -> None:
    """Bug 3: asked of the engine; euler_a / dpm++2s_a resume, dpm++2m / ipndm do not."""
    panel = make_panel()
    panel.model.probe_engine()
    qtbot.waitUntil(lambda: panel.model.catalog is not None, timeout=60_000)
    qtbot.waitUntil(lambda: not panel.model.session.busy, timeout=5_000)
    combo = panel.sampling_pane.sampler_combo
    label = panel.sampling_pane.warning_label
    resumable = panel.model.catalog.resumable
    assert {"euler", "euler_a", "dpm++2s_a"} <= resumable
    seen = {}
    for i in range(combo.count()):
        combo.setCurrentIndex(i)
        name = combo.currentData()
        seen[name] = label.isVisibleTo(panel) and "cannot be resumed" in label.text()
    assert seen["dpm++2m"] and seen["ipndm"]
    assert not seen["euler_a"] and not seen["dpm++2s_a"] and not seen["euler"]
    assert seen == {name: name not in resumable for name in seen}
    probe = panel.model.session._probe
    if probe is not None:
        probe.wait(10_000)
