"""A seed of -1 is drawn once; the inputs/ copies are verified before use; a format-1 run
folder (written by the previous version) resumes."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import numpy as np
from PIL import Image

from app.core.paths import app_paths
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.failures import FailureKind
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.run.folder import RUN_FILE
from app.pipeline.run.format import checksum
from app.pipeline.runner import Pipeline
from tests.engine.pause_hook import suspend_at


def _models(tmp_path: Path) -> ModelFiles:
    """Files with a model's first bytes (create_run's preflight reads them), never loaded."""
    for name in ("d.gguf", "l.gguf"):
        (tmp_path / name).write_bytes(b"GGUF" + bytes(28))
    (tmp_path / "v.safetensors").write_bytes(b"\x02" + bytes(7) + b"{}")
    return ModelFiles(*(str(tmp_path / n) for n in ("d.gguf", "l.gguf", "v.safetensors")))


def test_a_random_seed_is_drawn_once_and_recorded(tmp_path: Path) -> None:
    pipeline = Pipeline(app_paths(), cache_limit_mb=16)
    run = pipeline.create_run(JobSpec(models=_models(tmp_path), prompt="x", seed=-1))
    assert 0 <= run.spec.seed
    assert pipeline.snapshot(run.dir).spec.seed == run.spec.seed  # resume samples the same
    again = pipeline.update_run(run.dir, {"seed": -1})
    assert again.spec.seed >= 0
    assert json.loads((run.dir / RUN_FILE).read_text())["spec"]["seed"] == again.spec.seed


def test_a_changed_input_copy_is_a_damaged_failure(tmp_path: Path, sd_stage: Path) -> None:
    tmp_path.joinpath("in").mkdir()
    image, mask = tmp_path / "in" / "image.png", tmp_path / "in" / "mask.png"
    Image.fromarray(np.full((64, 64, 3), 90, np.uint8)).save(image)
    Image.fromarray(np.full((64, 64), 255, np.uint8)).save(mask)
    models = _models(tmp_path)  # not loaded by prepare
    pipeline = Pipeline(app_paths(), sd_stage, cache_limit_mb=16)
    run = pipeline.create_run(JobSpec(models=models, prompt="x", image=str(image), mask=str(mask)))
    copy = run.dir / "inputs" / "image.png"
    Image.fromarray(np.full((64, 64, 3), 200, np.uint8)).save(copy)  # not what was recorded
    failed = list(pipeline.execute(run.dir, RunControl(), only="prepare"))[-1]
    assert isinstance(failed, ev.RunFailed) and failed.kind is FailureKind.DAMAGED
    assert str(copy) in failed.message and failed.stage == "prepare"


def _as_format_1(run_dir: Path) -> None:
    """Rewrites run.json as the previous version wrote it (format 1: "size", no failure)."""
    path = run_dir / RUN_FILE
    data = json.loads(path.read_text())
    mi = data.pop("model_input")
    data.pop("failure")
    data["size"] = [mi["width"], mi["height"]]
    for name, rec in data["stages"].items():
        if name != "diffuse":
            rec.pop("checkpoint_key")
    data["format"] = 1
    data["checksum"] = checksum(data)
    path.write_text(json.dumps(data))
    (run_dir / "run.json.bak").unlink(missing_ok=True)


def test_a_suspended_format_1_run_resumes(sd_stage: Path, tiny_models) -> None:
    pipeline = Pipeline(app_paths(), sd_stage, cache_limit_mb=16)
    models = ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae))
    spec = JobSpec(models=models, prompt="old run", width=64, height=64, steps=6, preview="none")
    reference = pipeline.create_run(spec)
    assert isinstance(list(pipeline.execute(reference.dir, RunControl()))[-1], ev.RunFinished)
    run = pipeline.create_run(spec)
    events = suspend_at(pipeline, run.dir, 2)  # held at step 2 by the engine, then suspended
    assert isinstance(events[-1], ev.RunSuspended), events[-3:]
    step = events[-1].step
    _as_format_1(run.dir)
    snap = pipeline.snapshot(run.dir)
    assert snap.resumable and snap.last_completed_step == step
    resumed = list(pipeline.execute(run.dir, RunControl()))
    assert isinstance(resumed[-1], ev.RunFinished), resumed[-3:]
    assert [e.step for e in resumed if isinstance(e, ev.StepProgressed)] == list(range(step + 1, 7))
    assert (run.dir / "result.png").read_bytes() == (reference.dir / "result.png").read_bytes()
    assert json.loads((run.dir / RUN_FILE).read_text())["format"] == 2


def test_a_run_suspended_under_a_build_resumes_under_its_stamp_less_copy(
    sd_stage: Path, tiny_models, tmp_path: Path
) -> None:
    """Issue 29, defect 5: the same engine bytes without their build stamp (a copy, an installed
    bundle) resume the run from its checkpoint; no step is computed again."""
    models = ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae))
    spec = JobSpec(models=models, prompt="copied engine", width=64, height=64, steps=5)
    built = Pipeline(app_paths(), sd_stage, cache_limit_mb=16)
    run = built.create_run(dataclasses.replace(spec, preview="none"))
    events = suspend_at(built, run.dir, 2)
    assert isinstance(events[-1], ev.RunSuspended), events[-3:]
    copy = tmp_path / "bundle" / sd_stage.name
    copy.parent.mkdir()
    shutil.copy2(sd_stage, copy)  # no stepwise-build.json beside it
    bundled = Pipeline(app_paths(), copy, cache_limit_mb=16)
    assert bundled.engine_version(copy) == built.engine_version(sd_stage)
    assert bundled.snapshot(run.dir).resumable
    resumed = list(bundled.execute(run.dir, RunControl()))
    assert isinstance(resumed[-1], ev.RunFinished), resumed[-3:]
    done = [e.step for e in resumed if isinstance(e, ev.StepProgressed)]
    assert done == list(range(events[-1].step + 1, 6))
