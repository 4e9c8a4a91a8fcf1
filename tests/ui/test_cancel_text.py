"""After Cancel the Run tab keeps the step the run reached (issue 30 item 11): the Diffuse row
reads "cancelled" (not "pending"), the caption "Cancelled at step k of N" (not "step 1 of N"),
and a cancel before the first step does not say "after step 0"."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from PySide6.QtCore import Qt

from app.core.paths import app_paths
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.run_session import RunSession
from app.jobs.run_state import RunState
from app.pipeline.api import RunSnapshot, StageSnapshot
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.ui.generation.run_view import RunView


def _run(tmp_path: Path, step: int) -> RunSnapshot:
    spec = JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a door",
                   steps=40)  # fmt: skip
    stages = tuple(StageSnapshot(name, "done" if name != "diffuse" else "pending", False, 1.0, None)
                   for name in ("prepare", "vae-encode", "llm-encode", "diffuse"))  # fmt: skip
    return RunSnapshot(tmp_path, "run", "2026-12-05T14:00:00", spec, stages, 40, step,
                       (step,) if step else (), None, None, None)  # fmt: skip


def _view(qtbot, tmp_path: Path, step: int) -> tuple[GenerationModel, RunView, list[str]]:
    model = GenerationModel(JobForm(), RunSession(app_paths()))
    view = RunView(model)
    qtbot.addWidget(view)
    said: list[str] = []
    view.status.connect(said.append)
    model.session.run = _run(tmp_path, step)
    model.run_changed.emit(model.run)
    view.kind = "execute"
    model.state = RunState.RUNNING
    model.state_changed.emit(RunState.RUNNING)
    view.stage_list.set_state("diffuse", "running")
    model.state = RunState.CANCELLED
    model.state_changed.emit(RunState.CANCELLED)
    model.run_changed.emit(dataclasses.replace(model.session.run))  # read again from disk
    return model, view, said


def test_a_cancel_keeps_the_step_reached(qtbot, tmp_path) -> None:
    _model, view, said = _view(qtbot, tmp_path, 12)
    assert view.stage_list.state("diffuse") == "cancelled"
    assert view.progress.bar.format() == "Cancelled at step 12 of 40"
    assert said[-1] == "Cancelled after step 12. Run all continues from there."


def test_a_cancel_before_the_first_step_says_so(qtbot, tmp_path) -> None:
    _model, view, said = _view(qtbot, tmp_path, 0)
    assert view.progress.bar.format() == "Cancelled"
    assert "step 0" not in said[-1]
    assert said[-1] == (
        "Cancelled before the first step. Run all continues with the stages that are done."
    )


def test_a_disabled_step_action_says_how_to_enable_it(qtbot, tmp_path) -> None:
    """While a run is paused, Decode / Accept / Branch are off: their tooltips say Suspend
    turns them on; once stopped, the plain tooltip is back."""
    model = GenerationModel(JobForm(), RunSession(app_paths()))
    view = RunView(model)
    qtbot.addWidget(view)
    model.session.run = _run(tmp_path, 12)
    plain = view.decode_button.toolTip()
    model.state = RunState.PAUSED
    model.state_changed.emit(RunState.PAUSED)
    for button in (view.decode_button, view.accept_button, view.branch_button):
        assert not button.isEnabled()
        assert "Suspend" in button.toolTip(), button.toolTip()
    model.state = RunState.SUSPENDED
    model.state_changed.emit(RunState.SUSPENDED)
    assert view.decode_button.toolTip() == plain


def _record(model: GenerationModel, device: str | None) -> None:
    run = model.session.run
    assert run is not None
    stages = tuple(dataclasses.replace(s, device=device) for s in run.stages)
    devices = dataclasses.replace(run.spec.devices, diffusion=device or "cpu")
    spec = dataclasses.replace(run.spec, devices=devices)
    model.session.run = dataclasses.replace(run, stages=stages, spec=spec)


def _suspend(model: GenerationModel) -> None:
    model.state = RunState.SUSPENDED
    model.state_changed.emit(RunState.SUSPENDED)


def test_decoding_a_step_after_a_cancel_leaves_diffuse_where_it_stopped(qtbot, tmp_path) -> None:
    """Issue 41: after Cancel / Suspend and then "Decode this step", Diffuse read "pending"
    (等待中). The row comes from the run's record: stopped at its last step."""
    model, view, _said = _view(qtbot, tmp_path, 12)
    view.kind = "decode"  # Decode this step (step 5), then it ends
    model.state = RunState.RUNNING
    model.state_changed.emit(RunState.RUNNING)
    model.state = RunState.FINISHED
    model.state_changed.emit(RunState.FINISHED)
    model.run_changed.emit(dataclasses.replace(model.session.run))  # the record read again
    assert view.stage_list.state("diffuse") == "stopped"
    item = view.stage_list.findItems("Diffuse", Qt.MatchFlag.MatchExactly)[0]
    assert item.text(1) == "stopped at step 12"


def test_the_gpu_is_free_only_when_a_gpu_stage_was_loaded(qtbot, tmp_path) -> None:
    model, view, said = _view(qtbot, tmp_path, 12)
    _record(model, "cpu")  # every stage ran on the CPU
    _suspend(model)
    assert "GPU" not in said[-1] and said[-1].startswith("Suspended after step 12.")
    _record(model, "vulkan0")
    _suspend(model)
    assert "the GPU is free" in said[-1]


def test_focus_coming_to_the_step_strip_picks_no_step(qtbot, tmp_path) -> None:
    """Issue 41: after Cancel / Suspend the canvas caption read "step 1 of 40": the Cancel
    button turned off, focus passed to the step strip, and Qt made step 1 current on focus —
    which the strip took for the user's pick. Only a click or a key picks a step."""
    from PySide6.QtGui import QImage

    model, view, _said = _view(qtbot, tmp_path, 12)
    picked: list[int] = []
    view.strip.step_selected.connect(picked.append)
    thumb = QImage(8, 8, QImage.Format.Format_RGB32)
    thumb.fill(0)
    for step in (1, 2, 3):
        view.strip.add_step(step, str(tmp_path / f"preview_{step:03d}.png"), thumb)
    view.show()
    view.activateWindow()
    qtbot.waitActive(view)
    view.strip.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(view.strip.hasFocus)
    assert picked == [] and view.strip.selected_step() is None
    qtbot.keyClick(view.strip, Qt.Key.Key_Right)  # a key is the user's pick
    assert picked and view.strip.selected_step() == picked[-1]


def test_the_run_tabs_time_left_counts_the_decode_from_this_computers_times(qtbot, tmp_path):
    """Issue 41: the time left counted the diffusion steps only (decode took ~60 s a job on
    the RX 590). The Run tab adds the stages after diffuse as this computer timed them."""
    model = GenerationModel(JobForm(), RunSession(app_paths()))
    view = RunView(model)
    qtbot.addWidget(view)
    model.session.run = _run(tmp_path, 2)
    view._step_progress(2, 40, 1.0, 38.0)
    view.flush()
    assert "about 38.0 s left" in view.progress.detail.text()  # nothing timed here yet
    model.stage_times.record("vae-decode", model.session.run.spec, 60.0)
    model.stage_times.record("composite", model.session.run.spec, 0.5)
    view._step_progress(3, 40, 1.0, 37.0)
    view.flush()
    assert "about 1:38 left" in view.progress.detail.text()  # 37 s of steps + 60.5 s after
