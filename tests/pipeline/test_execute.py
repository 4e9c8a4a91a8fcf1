"""Pipeline.execute with the real engine: invalidation, txt2img, one terminal event."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.core.paths import app_paths
from app.pipeline import events as ev
from app.pipeline.api import ModelInput, RunSnapshot
from app.pipeline.control import RunControl
from app.pipeline.failures import FailureKind
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.runner import Pipeline


@pytest.fixture()
def pipeline(sd_stage: Path) -> Pipeline:
    return Pipeline(app_paths(), sd_stage)


@pytest.fixture()
def images(tmp_path: Path) -> tuple[Path, Path, Path]:
    from app.pipeline.selftest import selftest_images as _selftest_images

    image, mask = _selftest_images(tmp_path / "in")
    other = np.zeros((128, 128), np.uint8)
    other[0:48, 0:48] = 255
    Image.fromarray(other).save(tmp_path / "in" / "mask2.png")
    return image, mask, tmp_path / "in" / "mask2.png"


def _execute(pipeline: Pipeline, run: RunSnapshot) -> tuple[set[str], list]:
    events = list(pipeline.execute(run.dir, RunControl()))
    terminals = [e for e in events if isinstance(e, ev.TERMINAL_EVENTS)]
    assert len(terminals) == 1 and events[-1] is terminals[0], events[-3:]
    assert isinstance(terminals[0], ev.RunFinished), terminals[0]
    ran = {e.stage for e in events if isinstance(e, ev.StageFinished) and not e.cached}
    return ran, events


def test_changes_rerun_only_what_follows(pipeline: Pipeline, tiny_models, images) -> None:
    image, mask, mask2 = images
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a blue door",
        image=str(image),
        mask=str(mask),
        preview="proj",
    )
    run = pipeline.create_run(spec)
    ran, events = _execute(pipeline, run)
    assert ran >= {"prepare", "diffuse", "vae-decode", "composite"}
    assert any(isinstance(e, ev.PreviewSaved) and e.path.is_relative_to(run.dir) for e in events)
    assert _execute(pipeline, run)[0] == set()

    pipeline.update_run(run.dir, {"prompt": "a green door"})
    assert _execute(pipeline, run)[0] == {"llm-encode", "diffuse", "vae-decode", "composite"}
    pipeline.update_run(run.dir, {"seed": 7})
    assert _execute(pipeline, run)[0] == {"diffuse", "vae-decode", "composite"}
    pipeline.update_run(run.dir, {"mask": str(mask2)})
    assert _execute(pipeline, run)[0] == {
        "prepare",
        "vae-encode",
        "diffuse",
        "vae-decode",
        "composite",
    }
    reopened = pipeline.snapshot(run.dir)
    assert reopened.result is not None and reopened.result.exists()
    assert reopened.finished and reopened.spec.mask == str(mask2)


def test_txt2img_skips_vae_encode(pipeline: Pipeline, tiny_models) -> None:
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a cat",
        width=128,
        height=96,
        steps=3,
        preview="none",
    )
    run = pipeline.create_run(spec)
    ran, _ = _execute(pipeline, run)
    assert "vae-encode" not in ran
    done = pipeline.snapshot(run.dir)
    states = {s.name: s.state for s in done.stages}
    assert states["vae-encode"] == "skipped"
    assert (run.dir / "result.png").read_bytes() == (run.dir / "decoded.png").read_bytes()
    with Image.open(run.dir / "result.png") as img:
        assert img.size == (128, 96)
    assert done.steps == 3 and done.last_completed_step == 3
    assert done.model_input == ModelInput(128, 96, None)
    assert done.failure is None


def test_damaged_cache_entry_is_recomputed(pipeline: Pipeline, tiny_models) -> None:
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a damaged cache",
        width=64,
        height=64,
        steps=1,
        preview="none",
    )
    first = pipeline.create_run(spec)
    _execute(pipeline, first)
    for path in pipeline.cache.root.rglob("conditioning.bin"):
        path.write_bytes(b"\0" * path.stat().st_size)
    second = pipeline.create_run(spec)
    ran, _ = _execute(pipeline, second)
    assert "llm-encode" in ran
    assert (second.dir / "conditioning.bin").read_bytes() == (
        first.dir / "conditioning.bin"
    ).read_bytes()


def test_decode_step_writes_a_picture(pipeline: Pipeline, tiny_models) -> None:
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="steps",
        width=64,
        height=64,
        steps=3,
        preview="none",
    )
    run = pipeline.create_run(spec)
    _execute(pipeline, run)
    events = list(pipeline.decode_step(run.dir, 2, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-1]
    assert events[-1].result_path == run.dir / "steps" / "step_002.png"
    with Image.open(events[-1].result_path) as img:
        assert img.size == (64, 64)
    failed = list(pipeline.decode_step(run.dir, 9, RunControl()))
    assert isinstance(failed[-1], ev.RunFailed) and failed[-1].kind is FailureKind.INPUT


def _small_spec(tiny_models, **changes) -> JobSpec:
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a branch",
        width=64,
        height=64,
        steps=6,
        preview="none",
    )
    return JobSpec(**{**spec.__dict__, **changes})


def test_branch_shares_checkpoints_when_diffusion_inputs_are_equal(
    pipeline: Pipeline, tiny_models
) -> None:
    run = pipeline.create_run(_small_spec(tiny_models))
    _execute(pipeline, run)
    same = pipeline.branch(
        run.dir, 3, {"preview": "proj"}
    )  # does not change the diffusion's inputs
    ran, events = _execute(pipeline, same)
    assert ran == {"diffuse", "vae-decode", "composite"}  # prepare and the encodes are shared
    assert any(isinstance(e, ev.LogLine) and "after step 3" in e.text for e in events)
    assert [e.step for e in events if isinstance(e, ev.StepProgressed)] == [4, 5, 6]
    assert (same.dir / "result.png").read_bytes() == (run.dir / "result.png").read_bytes()

    other = pipeline.branch(run.dir, 3, {"seed": 99})
    ran, events = _execute(pipeline, other)
    assert [e.step for e in events if isinstance(e, ev.StepProgressed)] == [1, 2, 3, 4, 5, 6]
    assert (other.dir / "result.png").read_bytes() != (run.dir / "result.png").read_bytes()


def test_pause_between_stages_holds_without_an_engine(pipeline: Pipeline, tiny_models) -> None:
    import threading

    run = pipeline.create_run(_small_spec(tiny_models, steps=1))
    control = RunControl()
    control.pause()
    events = pipeline.execute(run.dir, control)
    first = next(events)  # before the first stage
    assert isinstance(first, ev.Paused), first
    assert control.process_id is None
    threading.Timer(0.2, control.resume).start()
    rest = list(events)
    assert isinstance(rest[0], ev.Resumed)
    assert isinstance(rest[-1], ev.RunFinished)


def test_cancel_between_stages(pipeline: Pipeline, tiny_models) -> None:
    run = pipeline.create_run(_small_spec(tiny_models, steps=1))
    control = RunControl()
    events = pipeline.execute(run.dir, control)
    for event in events:
        if isinstance(event, ev.StageFinished) and event.stage == "prepare":
            control.cancel()
        if isinstance(event, ev.TERMINAL_EVENTS):
            assert isinstance(event, ev.RunCancelled)
            break
    else:
        raise AssertionError("no terminal event")
