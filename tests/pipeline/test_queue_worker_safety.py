"""The queue worker and the user's files and disk (issue 29, defects 6 and 7): a folder at
runs/<job id> that Stepwise did not make is never deleted; a full disk stops the worker with
the jobs still queued; the estimate comes from the job's real size."""

from __future__ import annotations

from collections import namedtuple
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.core.paths import app_paths
from app.pipeline.control import RunControl
from app.pipeline.job import preflight
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.queue.jobs import JobQueue
from app.pipeline.queue.worker import NO_ROOM, make_run_folder, run_queue
from app.pipeline.runner import Pipeline


@pytest.fixture()
def queue() -> JobQueue:
    return JobQueue(app_paths())


def _models(tiny_models) -> ModelFiles:
    return ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae))


def test_a_folder_of_the_users_files_at_the_runs_place_is_kept(queue: JobQueue) -> None:
    """Defect 7: the worker rmtree'd runs/<job id> when it held no run.json."""
    (job,) = queue.add([JobSpec(models=ModelFiles("d", "l", "v"), prompt="a")])
    place = queue.run_dir_of(job.id)
    (place / "holiday").mkdir(parents=True)
    (place / "holiday" / "photo.jpg").write_bytes(b"the user's")
    with pytest.raises(Exception, match="not a Stepwise run") as caught:
        make_run_folder(queue, job, lambda spec, folder: folder.mkdir(parents=True))
    assert "Traceback" not in str(caught.value)
    assert (place / "holiday" / "photo.jpg").read_bytes() == b"the user's"
    place.joinpath("holiday", "photo.jpg").unlink()
    place.joinpath("holiday").rmdir()  # an empty folder: nothing is lost, it is used
    made = make_run_folder(queue, job, lambda spec, folder: folder.mkdir(parents=True))
    assert made == place


def test_a_file_or_link_at_the_runs_place_fails_that_job_not_the_queue(
    queue: JobQueue,
    tmp_path: Path,
    tiny_models,
) -> None:
    first, second = queue.add(
        [JobSpec(models=_models(tiny_models), prompt=p, steps=1) for p in ("a", "b")]
    )
    queue.paths.runs_dir.mkdir(parents=True, exist_ok=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    queue.run_dir_of(first.id).symlink_to(outside)
    queue.run_dir_of(second.id).write_text("the user's")
    pipeline = Pipeline(app_paths(), engine=tmp_path / "no-engine", cache_limit_mb=16)
    report = run_queue(pipeline, queue, RunControl())
    assert report.failed == [first.id, second.id]
    assert queue.run_dir_of(second.id).read_text() == "the user's"
    assert queue.run_dir_of(first.id).is_symlink() and list(outside.iterdir()) == []
    failures = [j.outcome.failure for j in queue.read().jobs if j.outcome]
    assert all("not a Stepwise run" in (f or "") for f in failures)


def test_a_full_disk_stops_the_worker_and_leaves_the_jobs_queued(
    queue: JobQueue,
    tmp_path: Path,
    tiny_models,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Defect 6: every queued job was failed for good in a second when the disk had less room
    than the estimate, and stayed failed after space was freed."""
    queue.add([JobSpec(models=_models(tiny_models), prompt=p, steps=1) for p in ("a", "b")])
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(preflight.shutil, "disk_usage", lambda _p: usage(10, 9, 1))
    pipeline = Pipeline(app_paths(), engine=tmp_path / "no-engine", cache_limit_mb=16)
    report = run_queue(pipeline, queue, RunControl())
    assert report.reason == NO_ROOM and report.failed == []
    assert [v.state for v in queue.views()[1]] == ["queued", "queued"]


def test_the_disk_estimate_uses_the_pictures_real_size(tmp_path: Path) -> None:
    """Defect 6: 89 MB asked for a job that ends near 1 MB (a 64 MiB margin and the spec's
    1024² default size for a small photo)."""
    image = tmp_path / "small.png"
    Image.fromarray(np.zeros((64, 96, 3), np.uint8)).save(image)
    spec = JobSpec(models=ModelFiles("d", "l", "v"), prompt="a", image=str(image), steps=4)
    assert preflight.expected_run_bytes(spec) < 16 * 2**20
    big = JobSpec(models=ModelFiles("d", "l", "v"), prompt="a", width=2048, height=2048)
    assert preflight.expected_run_bytes(big) > preflight.expected_run_bytes(spec)
