"""The unfinished-runs offer: only runs with something to resume (bug 2 of issue 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.paths import app_paths
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.failures import FailureKind
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.runner import Pipeline


@pytest.fixture()
def pipeline(sd_stage: Path) -> Pipeline:
    return Pipeline(app_paths(), sd_stage, cache_limit_mb=16)


def _spec(models, **changes) -> JobSpec:
    values = {
        "prompt": "unfinished",
        "width": 64,
        "height": 64,
        "steps": 2,
        "preview": "none",
        **changes,
    }
    return JobSpec(
        models=ModelFiles(str(models.diffusion), str(models.llm), str(models.vae)), **values
    )


def test_a_run_that_failed_before_doing_anything_is_not_offered(
    pipeline: Pipeline, tmp_path: Path
) -> None:
    for name in ("missing.gguf", "l.gguf"):
        (tmp_path / name).write_bytes(b"GGUF" + bytes(28))
    (tmp_path / "v.safetensors").write_bytes(b"\x02" + bytes(7) + b"{}")
    models = ModelFiles(
        str(tmp_path / "missing.gguf"), str(tmp_path / "l.gguf"), str(tmp_path / "v.safetensors")
    )
    run = pipeline.create_run(JobSpec(models=models, prompt="never started"))
    (tmp_path / "missing.gguf").unlink()  # gone after the run was made: execute refuses it
    events = list(pipeline.execute(run.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFailed)
    assert events[-1].kind is FailureKind.MODEL_FILE and "missing.gguf" in events[-1].message
    snap = pipeline.snapshot(run.dir)
    assert snap.failure is not None and snap.failure.kind is FailureKind.MODEL_FILE
    assert not snap.resumable
    assert pipeline.unfinished_runs() == []


def test_a_fresh_run_is_not_offered_a_started_one_is(pipeline: Pipeline, tiny_models) -> None:
    fresh = pipeline.create_run(_spec(tiny_models))
    started = pipeline.create_run(_spec(tiny_models, prompt="started"))
    done = list(pipeline.execute(started.dir, RunControl(), only="prepare"))
    assert isinstance(done[-1], ev.RunFinished), done[-1]
    assert pipeline.unfinished_runs() == []  # prepare alone is nothing to resume
    done = list(pipeline.execute(started.dir, RunControl(), only="llm-encode"))
    assert isinstance(done[-1], ev.RunFinished), done[-1]
    offered = pipeline.unfinished_runs()
    assert [s.dir for s in offered] == [started.dir]
    assert offered[0].prompt == "started" and offered[0].last_completed_step == 0
    assert fresh.dir not in [s.dir for s in offered]
    finished = list(pipeline.execute(started.dir, RunControl()))
    assert isinstance(finished[-1], ev.RunFinished)
    assert pipeline.unfinished_runs() == []
