"""Up-front validation (app/pipeline/job/preflight.py): every bad job is refused before any stage,
with a message naming the field or folder (issue 9, defects 3 and 4)."""

from __future__ import annotations

import dataclasses
import json
import os
import struct
from pathlib import Path

import pytest

from app.core.errors import InputError, OutputError, StepwiseError
from app.core.paths import app_paths
from app.pipeline import events as ev
from app.pipeline.api import EngineCatalog, SamplerInfo
from app.pipeline.control import RunControl
from app.pipeline.execute.failure_kinds import failure_kind
from app.pipeline.failures import FailureKind
from app.pipeline.job import preflight
from app.pipeline.job.identity import ModelFileError
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.runner import Pipeline


@pytest.fixture()
def models(tmp_path: Path) -> ModelFiles:
    """Three files with the right first bytes (GGUF, GGUF, safetensors)."""
    dit = tmp_path / "dit.gguf"
    dit.write_bytes(b"GGUF" + bytes(60))
    llm = tmp_path / "llm.gguf"
    llm.write_bytes(b"GGUF" + bytes(60))
    header = json.dumps({"__metadata__": {}}).encode()
    vae = tmp_path / "vae.safetensors"
    vae.write_bytes(struct.pack("<Q", len(header)) + header)
    return ModelFiles(str(dit), str(llm), str(vae))


@pytest.fixture()
def pipeline(tmp_path: Path) -> Pipeline:
    return Pipeline(app_paths(), tmp_path / "no-engine" / "sd-stage")


def _spec(models: ModelFiles, **changes: object) -> JobSpec:
    return dataclasses.replace(JobSpec(models=models, prompt="a red house"), **changes)


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("steps", 0, "steps (--steps)"),
        ("steps", 201, "steps (--steps)"),
        ("width", 0, "width (--width)"),
        ("height", -16, "height (--height)"),
        ("strength", 1.5, "strength (--strength)"),
        ("cfg_scale", -1.0, "cfg scale (--cfg-scale)"),
        ("seed", -2, "seed (--seed)"),
        ("seed", 2**31, "seed (--seed)"),
        ("preview", "big", "preview (--preview)"),
    ],
)
def test_bad_value_refused_before_any_folder(
    pipeline: Pipeline, models: ModelFiles, tmp_path: Path, field: str, value: object, named: str
) -> None:
    run_dir = tmp_path / "run"
    with pytest.raises(InputError) as caught:
        pipeline.create_run(_spec(models, **{field: value}), run_dir)
    assert named in caught.value.user_message()
    assert caught.value.fix
    assert failure_kind(caught.value) is FailureKind.INPUT
    assert not run_dir.exists()  # nothing was made, no stage ran


def test_limits_come_from_the_table(models: ModelFiles) -> None:
    preflight.check_values(_spec(models, steps=200, width=4096, seed=-1, strength=0.0))
    with pytest.raises(InputError, match="from 1 to 200"):
        preflight.check_values(_spec(models, steps=0))


def test_sampler_and_scheduler_against_the_catalog(models: ModelFiles) -> None:
    catalog = EngineCatalog((SamplerInfo("euler", True),), ("simple", "discrete"))
    preflight.check_catalog(_spec(models), catalog)
    with pytest.raises(InputError, match="sampler .*'dpm9'.*euler"):
        preflight.check_catalog(_spec(models, sampler="dpm9"), catalog)
    with pytest.raises(InputError, match="scheduler .*'nope'.*simple, discrete"):
        preflight.check_catalog(_spec(models, scheduler="nope"), catalog)


def test_model_files_of_the_right_kind(models: ModelFiles, tmp_path: Path) -> None:
    preflight.check_models(_spec(models))
    text = tmp_path / "notes.txt"
    text.write_text("not a model at all")
    cases = {
        "": "No FLUX.2 diffusion model",
        str(tmp_path / "missing.gguf"): "does not exist",
        str(tmp_path): "is not a file",
        str(text): "is not a GGUF or safetensors model",
    }
    for path, message in cases.items():
        spec = _spec(dataclasses.replace(models, diffusion=path))
        with pytest.raises(ModelFileError, match=message) as caught:
            preflight.check_models(spec)
        assert "FLUX.2 diffusion model (--diffusion-model)" in caught.value.user_message()
        assert failure_kind(caught.value) is FailureKind.MODEL_FILE
    bad_lora = _spec(dataclasses.replace(models, lora_dir=str(text)))
    with pytest.raises(InputError, match=r"LoRA folder \(--lora-model-dir\)"):
        preflight.check_models(bad_lora)


def test_run_dir_under_a_file(pipeline: Pipeline, models: ModelFiles, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(OutputError) as caught:
        pipeline.create_run(_spec(models), blocker / "run")
    message = caught.value.user_message()
    assert str(blocker) in message and "--run-dir" in message
    assert failure_kind(caught.value) is FailureKind.OUTPUT


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="POSIX modes, not root")
def test_run_dir_read_only(pipeline: Pipeline, models: ModelFiles, tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(OutputError, match="read-only") as caught:
            pipeline.create_run(_spec(models), locked / "run")
        assert str(locked) in caught.value.user_message()
    finally:
        locked.chmod(0o700)


def test_not_enough_disk(models: ModelFiles, tmp_path: Path, monkeypatch) -> None:
    import shutil

    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(preflight.shutil, "disk_usage", lambda _p: usage._replace(free=10 * 2**20))
    with pytest.raises(OutputError, match="10 MB free") as caught:
        preflight.check_run_folder(tmp_path / "run", _spec(models))
    assert failure_kind(caught.value) is FailureKind.NO_ROOM  # a queued job waits for room
    assert preflight.expected_run_bytes(_spec(models, steps=8)) > preflight.expected_run_bytes(
        _spec(models, steps=4)
    )


def test_execute_refuses_a_bad_run_before_any_stage(
    pipeline: Pipeline, models: ModelFiles, tmp_path: Path
) -> None:
    """A run changed on disk (or by an older version) is checked again by execute()."""
    run = pipeline.create_run(_spec(models), tmp_path / "run")
    live = pipeline.open_run(run.dir)
    live.spec_changed(dataclasses.replace(live.spec, steps=0))
    live.save()
    events = list(pipeline.execute(run.dir, RunControl()))
    assert not any(isinstance(e, ev.StageStarted) for e in events)
    failed = events[-1]
    assert isinstance(failed, ev.RunFailed) and failed.kind is FailureKind.INPUT
    assert "steps (--steps)" in failed.message


def test_update_run_refuses_a_bad_change(
    pipeline: Pipeline, models: ModelFiles, tmp_path: Path
) -> None:
    run = pipeline.create_run(_spec(models), tmp_path / "run")
    with pytest.raises(InputError, match="width"):
        pipeline.update_run(run.dir, {"width": 0})
    assert pipeline.snapshot(run.dir).spec.width == 512


def test_errors_are_user_errors() -> None:
    assert issubclass(ModelFileError, StepwiseError)
