"""The generation model over the real pipeline and the real sd-stage (tiny models): the main
flows, the Prepare options reaching the engine (bug 1), unfinished-run offers (bug 2) and the
sampler warning from the engine's own catalog (bug 3)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.core.paths import app_paths
from app.imaging.io import load_image
from app.imaging.prepare import PrepareOptions, prepare
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.run_session import RunSession
from app.jobs.run_state import RunState
from app.pipeline.api import EngineCatalog, SamplerInfo
from app.pipeline.failures import NoteCode
from app.pipeline.job.params import (
    ALIGN,
    MASKED_TARGET,
    ONLY_MASKED,
    PADDING,
    PROMPT,
    SAMPLER,
    STEPS,
    VAE_MODEL,
)
from tests.engine.pause_hook import hold_session_at_step

REPO = Path(__file__).resolve().parents[2]
RUN_TIMEOUT_MS = 180_000


def photo(width: int = 200, height: int = 150) -> tuple[np.ndarray, np.ndarray]:
    y, x = np.mgrid[0:height, 0:width]
    image = np.stack([x * 255 // width, y * 255 // height, (x + y) % 256], -1).astype(np.uint8)
    mask = np.zeros((height, width), np.uint8)
    mask[40:90, 60:120] = 255
    return image, mask


@pytest.fixture
def make_model(qtbot, sd_stage: Path, tiny_form):
    made: list[GenerationModel] = []

    def make(steps: int = 3, prompt: str = "a blue door") -> GenerationModel:
        form = tiny_form(prompt, steps)
        model = GenerationModel(form, RunSession(app_paths(), engine=sd_stage))
        model.inputs.set_document(*photo())
        made.append(model)
        return model

    yield make
    for model in made:
        model.shutdown()


def wait_state(qtbot, model: GenerationModel, *states: RunState) -> None:
    qtbot.waitUntil(
        lambda: model.state in states and (model.state.busy or not model.session.busy),
        timeout=RUN_TIMEOUT_MS,
    )


@pytest.mark.slow
def test_run_next_stage_runs_one_stage_at_a_time(qtbot, make_model) -> None:
    model = make_model()
    done: list[str] = []
    for _ in range(3):
        model.run_next_stage()
        wait_state(qtbot, model, RunState.IDLE)
        run = model.run
        assert run is not None
        done = [s.name for s in run.stages if s.state in ("done", "cached", "skipped")]
    assert done == ["prepare", "vae-encode", "llm-encode"]
    assert model.run is not None and not model.run.finished
    model.run_all()  # continues the same run
    wait_state(qtbot, model, RunState.FINISHED)
    assert model.run.finished and model.run.result is not None


@pytest.mark.slow
def test_prepare_options_reach_the_engine_and_the_result_fills_the_photo(qtbot, make_model):
    """Bug 1: align crop + only masked give the engine the cropped region's size."""
    model = make_model()
    model.form.set(ALIGN, "crop")
    model.form.set(ONLY_MASKED, True)
    model.form.set(PADDING, 8)
    model.form.set(MASKED_TARGET, 0)  # the region at its own size (scaling: tests/imaging)
    model.run_all()
    wait_state(qtbot, model, RunState.FINISHED, RunState.FAILED)
    assert model.state is RunState.FINISHED, model.last_failure
    image, mask = photo()
    options = PrepareOptions(align="crop", only_masked=True, padding_px=8, masked_target=0)
    expected = prepare(image, mask.astype(np.float32) / 255.0, options)
    w, h = expected.record.input_size
    assert (w, h) != (208, 160) and w < 200 and h < 150  # not the whole photo, padded
    run = model.run
    assert run is not None and run.model_input is not None
    assert (run.model_input.width, run.model_input.height) == (w, h)
    assert run.spec.prepare == options
    result = load_image(run.result)
    assert result.shape == image.shape  # composited back into the full photo
    assert np.array_equal(result[:20], image[:20])  # far from the mask: untouched


@pytest.mark.slow
def test_second_run_is_cached_and_starts_no_text_encoder(qtbot, make_model) -> None:
    first = make_model()
    first.run_all()
    wait_state(qtbot, first, RunState.FINISHED)
    assert (first.run.dir / "logs" / "llm-encode.log").is_file()
    second = make_model()
    second.run_all()
    wait_state(qtbot, second, RunState.FINISHED)
    run = second.run
    assert run.dir != first.run.dir
    assert run.stage("llm-encode").cached
    assert not (run.dir / "logs" / "llm-encode.log").exists()  # the engine never ran it


@pytest.mark.slow
def test_pause_then_resume_finishes_the_run(qtbot, make_model) -> None:
    model = make_model(steps=12)
    states: list[RunState] = []
    model.state_changed.connect(states.append)
    # The user's pause on step 1's event; the engine holds there by itself too (the test hook),
    # so the pause cannot arrive after the tiny steps have all run.
    hold_session_at_step(model.session, 1)
    model.runner_started.connect(
        lambda runner, _kind: runner.step_progress.connect(
            lambda step, *_: model.pause() if step == 1 else None
        )
    )
    model.run_all()
    wait_state(qtbot, model, RunState.PAUSED)
    assert model.can_resume()
    model.resume()
    wait_state(qtbot, model, RunState.FINISHED)
    assert RunState.PAUSING in states and RunState.PAUSED in states
    assert model.run.finished


@pytest.mark.slow
def test_suspend_then_resume_in_a_new_session(qtbot, make_model) -> None:
    model = make_model(steps=12)
    hold_session_at_step(model.session, 2)  # the engine holds after step 2 ...
    model.runner_started.connect(
        lambda runner, _kind: runner.paused.connect(lambda _step: model.suspend())
    )  # ... and is suspended there
    model.run_all()
    wait_state(qtbot, model, RunState.SUSPENDED)
    run_dir = model.run.dir
    stopped_at = model.run.last_completed_step
    assert 2 <= stopped_at < 12
    later = make_model(steps=4, prompt="something else")
    offered = [s.dir for s in later.session.unfinished_runs()]
    assert run_dir in offered
    later.open_unfinished(run_dir)
    assert later.form.get(STEPS) == 12 and later.form.get(PROMPT) == "a blue door"
    assert later.state is RunState.SUSPENDED and later.can_resume()
    later.resume()
    wait_state(qtbot, later, RunState.FINISHED)
    assert later.run.dir == run_dir and later.run.finished


@pytest.mark.slow
def test_a_run_that_failed_before_starting_is_not_offered(qtbot, make_model, tmp_path) -> None:
    """Bug 2: nothing to resume, so no "Resume … at step 0"."""
    model = make_model()
    # Looks like a safetensors file (it passes the up-front check), but the engine cannot
    # load it: the run exists and fails in its first engine stage, with nothing to resume.
    broken = tmp_path / "broken-vae.safetensors"
    header = b'{"x": 1}'
    broken.write_bytes(len(header).to_bytes(8, "little") + header)
    model.form.set(VAE_MODEL, str(broken))
    model.run_all()
    wait_state(qtbot, model, RunState.FAILED)
    assert model.last_failure is not None
    assert model.run.dir not in [s.dir for s in model.session.unfinished_runs()]


@pytest.mark.slow
def test_sampler_warning_follows_the_engines_catalog(qtbot, make_model) -> None:
    """Bug 3: the warning appears exactly for the samplers the engine cannot resume."""
    model = make_model()
    catalog = model.session.pipeline.catalog()
    assert {"euler_a", "dpm++2s_a"} <= catalog.resumable  # the engine resumes them
    assert "dpm++2m" not in catalog.resumable and "ipndm" not in catalog.resumable
    model.set_catalog(catalog)
    for sampler in catalog.samplers:
        model.form.set(SAMPLER, sampler.name)
        warned = any(n.code is NoteCode.SAMPLER_NOT_RESUMABLE for n in model.notes)
        assert warned == (not sampler.resumable), sampler.name


def test_notes_follow_the_form_without_an_engine(qtbot) -> None:
    model = GenerationModel(JobForm(), RunSession(app_paths()))
    seen: list[list] = []
    model.notes_changed.connect(seen.append)
    model.set_catalog(EngineCatalog((SamplerInfo("euler", True), SamplerInfo("x", False)), ()))
    model.form.set(SAMPLER, "x")
    assert [n.code for n in seen[-1]] == [NoteCode.SAMPLER_NOT_RESUMABLE]
    model.form.set(SAMPLER, "euler")
    assert seen[-1] == []


def test_the_generation_model_needs_no_widgets(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from PySide6.QtCore import QCoreApplication\n"
        "app = QCoreApplication([])\n"
        "from app.core.paths import app_paths\n"
        "from app.jobs.generation import GenerationModel\n"
        "from app.jobs.job_form import JobForm\n"
        "from app.jobs.run_session import RunSession\n"
        "model = GenerationModel(JobForm(), RunSession(app_paths()))\n"
        "assert model.state == 'idle', model.state\n"
        "assert 'PySide6.QtWidgets' not in sys.modules\n"
        "print('ok')\n"
    )
    env = {"STEPWISE_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
