"""JobQueue over a scripted pipeline: jobs run in order, one at a time; stop() drains."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from app.core.paths import app_paths
from app.jobs.job_queue import JobQueue
from app.jobs.run_session import RunSession
from app.pipeline.spec import JobSpec, ModelFiles
from tests.jobs.scripted import ScriptedPipeline

SPEC = JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a door", steps=3)


def test_jobs_run_one_after_another(qtbot, tmp_path: Path) -> None:
    pipeline = ScriptedPipeline(tmp_path / "runs")
    session = RunSession(app_paths(), pipeline=pipeline)
    queue = JobQueue(session)
    for seed in (1, 2, 3):
        queue.add(dataclasses.replace(SPEC, seed=seed))
    ended: list[tuple[int, str]] = []
    queue.job_ended.connect(lambda n, kind: ended.append((n, kind)))
    with qtbot.waitSignal(queue.queue_finished, timeout=20_000):
        queue.start()
    assert ended == [(1, "finished"), (2, "finished"), (3, "finished")]
    assert [r.spec.seed for r in pipeline.runs.values()] == [1, 2, 3]
    assert all(r.finished for r in pipeline.runs.values())


def test_stop_lets_the_current_job_finish(qtbot, tmp_path: Path) -> None:
    pipeline = ScriptedPipeline(tmp_path / "runs", step_s=0.05)
    session = RunSession(app_paths(), pipeline=pipeline)
    queue = JobQueue(session)
    for seed in (1, 2, 3):
        queue.add(dataclasses.replace(SPEC, seed=seed))
    with qtbot.waitSignal(queue.queue_finished, timeout=20_000):
        queue.start()
        queue.stop()
    assert len(pipeline.runs) == 1 and next(iter(pipeline.runs.values())).finished
