"""A stopped run goes on from its checkpoint (real sd-stage, tiny models): a device change on a
suspended or failed run continues that run (no step recomputed, no new run); a branch takes
later changes instead of being orphaned; Resume is offered only when something is stopped;
discarding a run moves its folder to the trash."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.core.paths import app_paths
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.run_history import RunStatus, entry_of, list_entries, move_to_trash
from app.jobs.run_session import RunSession
from app.jobs.run_state import RunState
from app.jobs.values import first_rerun, neutral_changes
from app.pipeline.job.params import (
    PROMPT,
    SEED,
    STEPS,
    THREADS,
    VAE_DEVICE,
)
from tests.engine.pause_hook import hold_session_at_step

pytestmark = pytest.mark.slow
RUN_TIMEOUT_MS = 180_000


def photo() -> tuple[np.ndarray, np.ndarray]:
    y, x = np.mgrid[0:96, 0:128]
    image = np.stack([x * 2, y * 2, (x + y) % 256], -1).astype(np.uint8)
    mask = np.zeros((96, 128), np.uint8)
    mask[20:70, 30:100] = 255
    return image, mask


@pytest.fixture
def make_model(qtbot, sd_stage: Path, tiny_form):
    made: list[GenerationModel] = []

    def make(steps: int = 6, prompt: str = "a blue door") -> GenerationModel:
        form = tiny_form(prompt, steps)
        session = RunSession(app_paths(), engine=sd_stage)
        session.trash = None  # never the developer's trash
        model = GenerationModel(form, session)
        model.inputs.set_document(*photo())
        made.append(model)
        return model

    yield make
    for model in made:
        model.shutdown()


def wait_idle(qtbot, model: GenerationModel) -> None:
    qtbot.waitUntil(lambda: not model.state.busy and not model.session.busy, timeout=RUN_TIMEOUT_MS)


def record_steps(model: GenerationModel) -> list[int]:
    """Every diffusion step the engine reports, across runners."""
    steps: list[int] = []
    model.session.runner_started.connect(
        lambda runner: runner.step_progress.connect(lambda step, *_: steps.append(step))
    )
    return steps


def suspend_at(qtbot, model: GenerationModel, step: int) -> int:
    """Suspends the run where its engine holds by itself after `step` (the test hook): a suspend
    sent on the step's event raced the tiny steps and under load came after the last one."""
    hold_session_at_step(model.session, step)
    model.runner_started.connect(
        lambda runner, _kind: runner.paused.connect(lambda _step: model.suspend())
    )
    model.run_all()
    wait_idle(qtbot, model)
    assert model.state is RunState.SUSPENDED, model.last_failure
    model.runner_started.disconnect()
    return model.run.last_completed_step


def test_a_device_change_on_a_suspended_then_failed_run_continues_it(qtbot, make_model) -> None:
    model = make_model(steps=8)
    k = suspend_at(qtbot, model, 2)
    run_dir = model.run.dir
    assert 2 <= k < 8
    steps = record_steps(model)
    # A device the CPU engine does not have: the run stops with a failure (up front or in
    # a stage); either way the same run stays current and keeps its checkpoint.
    model.form.set(VAE_DEVICE, "vulkan7")
    model.run_all()
    wait_idle(qtbot, model)
    assert model.run.dir == run_dir
    if model.state is not RunState.FINISHED:
        assert model.state is RunState.FAILED and model.last_failure is not None
        assert model.can_resume()
        model.form.set(VAE_DEVICE, "cpu")
        model.run_all()
        wait_idle(qtbot, model)
    assert model.state is RunState.FINISHED, model.last_failure
    assert model.run.dir == run_dir and model.run.finished
    assert model.run.spec.devices.vae == "cpu"
    assert steps == list(range(k + 1, 9))  # no step recomputed
    assert [s.dir for s in model.session.pipeline.list_runs()] == [run_dir]  # no new run


def test_resume_applies_the_forms_devices_and_continues_from_the_checkpoint(
    qtbot, make_model
) -> None:
    model = make_model(steps=6)
    k = suspend_at(qtbot, model, 2)
    assert model.can_resume()
    steps = record_steps(model)
    model.form.set(THREADS, 2)  # an engine switch: changes no result
    model.form.set(SEED, 999)  # changes the result: Resume leaves the run's own seed
    seed = model.run.spec.seed
    model.resume()
    wait_idle(qtbot, model)
    run = model.run
    assert run.finished and run.spec.devices.threads == 2 and run.spec.seed == seed
    assert steps == list(range(k + 1, 7))


def test_a_branch_takes_later_changes_instead_of_being_orphaned(qtbot, make_model) -> None:
    model = make_model(steps=4)
    model.run_all()
    wait_idle(qtbot, model)
    original = model.run
    assert original.finished
    branch = model.branch(2, {})
    assert branch is not None and branch.dir != original.dir
    assert max(branch.checkpoints) == 2  # steps 1..2 shared (0: the starting latent)
    assert model.form.get(SEED) == original.spec.seed  # the form describes the branch
    model.form.set(SEED, original.spec.seed + 1)  # changed after branching
    steps = record_steps(model)
    model.run_all()
    wait_idle(qtbot, model)
    assert model.run.dir == branch.dir and model.run.finished  # the branch, not a new run
    assert model.run.spec.seed == original.spec.seed + 1
    assert steps == [1, 2, 3, 4]  # a new seed changes every step
    assert {s.dir for s in model.session.pipeline.list_runs()} == {original.dir, branch.dir}


def test_an_unchanged_branch_continues_from_its_step(qtbot, make_model) -> None:
    model = make_model(steps=5)
    model.run_all()
    wait_idle(qtbot, model)
    branch = model.branch(3, {"preview": "none"})
    assert branch is not None and max(branch.checkpoints) == 3
    steps = record_steps(model)
    model.run_all()
    wait_idle(qtbot, model)
    assert model.run.dir == branch.dir and model.run.finished
    assert steps == [4, 5]


def test_resume_is_offered_only_when_something_is_stopped(qtbot, make_model) -> None:
    model = make_model(steps=3)
    assert not model.can_resume()
    for _ in range(3):  # prepare, vae-encode, llm-encode: an engine stage is done
        model.run_next_stage()
        wait_idle(qtbot, model)
    assert model.state is RunState.IDLE and model.run.resumable
    assert not model.can_resume()  # nothing paused or stopped: Run all goes on
    model.run_all()
    wait_idle(qtbot, model)
    assert model.state is RunState.FINISHED and not model.can_resume()


def test_entries_say_what_each_run_is_and_discard_uses_the_trash(
    qtbot, make_model, tmp_path, monkeypatch
) -> None:
    model = make_model(steps=6, prompt="a stopped door")
    k = suspend_at(qtbot, model, 2)
    stopped = model.run.dir
    model.new_run()
    model.form.set(PROMPT, "a finished door")
    model.form.set(STEPS, 2)
    model.run_all()
    wait_idle(qtbot, model)
    finished = model.run.dir
    entries = list_entries(model.session.pipeline)
    assert [e.dir for e in entries] == [finished, stopped]  # newest first
    done, halted = entries
    assert done.status is RunStatus.FINISHED and done.picture == model.run.result
    assert (halted.status, halted.step, halted.steps) == (RunStatus.STOPPED, k, 6)
    assert halted.picture is not None and halted.picture.name == f"preview_{k:03d}.png"
    assert halted.thumbnail is not None and not halted.thumbnail.isNull()
    assert halted.prompt == "a stopped door" and halted.unfinished and not done.unfinished
    assert [e.dir for e in list_entries(model.session.pipeline, unfinished_only=True)] == [stopped]
    assert entry_of(model.session.pipeline.snapshot(stopped)) == halted  # thumbnail aside
    # The real trash (Qt's freedesktop one) inside the test's own data home.
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    monkeypatch.setenv("XDG_DATA_HOME", str(xdg))
    model.session.trash = move_to_trash
    assert model.discard_run(stopped)
    assert not stopped.exists()
    trashed = xdg / "Trash" / "files" / stopped.name
    assert (trashed / "run.json").is_file()
    assert model.run.dir == finished  # the current run is another one
    model.session.trash = None
    assert model.discard_run(finished)  # the current run, idle: deleted, forgotten
    assert not finished.exists() and model.run is None
    assert model.session.pipeline.list_runs() == []


def test_what_a_branch_reruns_follows_the_parameter_table() -> None:
    assert first_rerun({}) is None
    assert first_rerun({"preview": "none", "devices": object()}) is None
    assert first_rerun({"seed": 3, "steps": 9}) == "diffuse"
    assert first_rerun({"seed": 3, "prompt": "x"}) == "llm-encode"
    assert first_rerun({"mask": "m.png"}) == "prepare"


def test_neutral_changes_take_only_what_changes_no_result() -> None:
    from app.pipeline.job.spec import spec_from_values

    form = JobForm()
    old = spec_from_values(form.values())
    values = form.values()
    values.update({"vae_device": "vulkan0", "seed": 7, "threads": 3, "prompt": "other"})
    changes = neutral_changes(old, values)
    assert set(changes) == {"devices"}
    assert changes["devices"].vae == "vulkan0" and changes["devices"].threads == 3
    assert neutral_changes(old, form.values()) == {}
