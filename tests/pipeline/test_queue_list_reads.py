"""`queue list` reads a run folder only when it must (issue 38, left over): a job whose
outcome is recorded shows its state and step from the listing table (the run's progress is
kept there when the outcome is recorded); an unfinished job's run is read (it changes as it
runs). Counted, never timed."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.paths import app_paths
from app.engine.stage import Stage
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.queue import views as queue_views
from app.pipeline.queue.jobs import JobQueue
from app.pipeline.queue.records import Outcome
from app.pipeline.run.folder import create_run, open_run


def test_queue_list_reads_only_the_unfinished_jobs_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    queue = JobQueue(app_paths())
    spec = JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a red house")
    jobs = queue.add([spec] * 12)
    for n, job in enumerate(jobs[:10]):  # 8 finished (one accepted early), 2 interrupted
        run = create_run(queue.paths.runs_dir, spec, queue.run_dir_of(job.id))
        run.steps, run.last_completed_step = 20, 20 if n < 8 else 7
        if n == 3:
            run.last_completed_step = 12
            run.stage(Stage.DIFFUSE).key = "key"
            run.set_accepted(12, "key")
        run.save()
        if n < 8:
            queue.record(job.id, Outcome("done", str(run.dir), None, "2026-12-06"))
    before = queue.views()[1]  # every run read: the truth to compare with
    reads: list[Path] = []
    real = queue_views.open_run

    def counted(folder: Path) -> object:
        reads.append(Path(folder))
        return real(folder)

    monkeypatch.setattr(queue_views, "open_run", counted)
    _paused, listed = queue.listing()
    assert sorted(p.name for p in reads) == sorted(j.id for j in jobs[8:10])  # the unfinished
    assert [
        (v.job.id, v.state, v.run_dir, v.steps, v.last_completed_step, v.accepted_step)
        for v in listed
    ] == [
        (v.job.id, v.state, v.run_dir, v.steps, v.last_completed_step, v.accepted_step)
        for v in before
    ]
    assert [v.state for v in listed] == ["done"] * 8 + ["interrupted"] * 2 + ["queued"] * 2
    assert listed[3].accepted_step == 12 and listed[0].last_completed_step == 20
    # A finished run changed after its outcome (an earlier step accepted in the window): read.
    changed = open_run(queue.run_dir_of(jobs[0].id))
    changed.last_completed_step = 19
    changed.save()
    reads.clear()
    _paused, listed = queue.listing()
    assert sorted(p.name for p in reads) == sorted(j.id for j in (jobs[0], *jobs[8:10]))
    assert listed[0].last_completed_step == 19
