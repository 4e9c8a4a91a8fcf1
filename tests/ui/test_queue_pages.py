"""The Queue dock reads a large queue by pages (issue 38, left over): the first page of jobs
with their run folders, the rest as counts from the database's indexes; scrolling to the end
reads the next page. Counted, never timed: how many run folders the model reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.core.paths import app_paths
from app.jobs.queue_model import QueueModel
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.queue import views as queue_views
from app.pipeline.queue.jobs import JobQueue
from app.pipeline.queue.records import Outcome
from app.pipeline.run.folder import RUN_FILE
from app.ui.queue.panel import QueuePanel

JOBS = 5000
ONE_PAGE = 250  # the most run folders one page may read (the dock's page is smaller)


def _big_queue() -> JobQueue:
    """5,000 jobs, each with a run folder (a run.json the reader refuses: still a read), the
    first 3 done and the 5th failed."""
    queue = JobQueue(app_paths())
    spec = JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a red house")
    jobs = queue.add([spec] * JOBS)
    for job in jobs:
        folder = queue.run_dir_of(job.id)
        folder.mkdir(parents=True)
        (folder / RUN_FILE).write_text("{}", encoding="utf-8")
    for job in jobs[:3]:
        queue.record(job.id, Outcome("done", str(queue.run_dir_of(job.id)), None, "2026-12-06"))
    queue.record(jobs[4].id, Outcome("failed", "", "EngineCrashed: test", "2026-12-06"))
    return queue


def test_the_dock_reads_a_large_queue_by_pages(qtbot, monkeypatch: pytest.MonkeyPatch) -> None:
    _big_queue()
    reads: list[Path] = []
    real = queue_views.open_run

    def counted(folder: Path, *args: object, **kwargs: object) -> object:
        reads.append(Path(folder))
        return real(folder, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(queue_views, "open_run", counted)
    model = QueueModel(app_paths())
    panel = QueuePanel(model)
    qtbot.addWidget(panel)
    panel.resize(320, 400)
    panel.show()
    model.refresh()
    assert 0 < len(reads) <= ONE_PAGE, len(reads)  # the page's run folders, not 5,000
    assert 0 < panel.tree.topLevelItemCount() <= ONE_PAGE
    # The whole queue's figures from the indexes: 5,000 jobs, 4,996 to run.
    assert (model.counts.total, model.counts.open, model.counts.failed) == (JOBS, JOBS - 4, 1)
    assert "5000 jobs, 4996 to run" in panel.summary.text()
    assert panel.run_button.isEnabled()
    shown = panel.tree.topLevelItemCount()
    reads.clear()
    bar = panel.tree.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0)  # the rows laid out
    bar.setValue(bar.maximum())  # the end of the list scrolls into view: the next page
    assert shown < panel.tree.topLevelItemCount() <= 2 * ONE_PAGE
    assert len(reads) <= 2 * ONE_PAGE  # the rows shown, read again
    assert model.counts.total == JOBS


def test_one_job_is_one_job(qtbot) -> None:
    """ "1 jobs" read wrong: one job has its own words (and its zh_CN)."""
    queue = JobQueue(app_paths())
    queue.add([JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="a house")])
    model = QueueModel(app_paths())
    panel = QueuePanel(model)
    qtbot.addWidget(panel)
    model.refresh()
    assert "1 job, 1 to run" in panel.summary.text()
