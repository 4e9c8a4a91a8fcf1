"""The Queue dock tells the truth: State and Step always show, the ETA comes from the step
time measured for each job's size (unknown until one is measured), the paused state is exact."""

from __future__ import annotations

from app.core.paths import app_paths
from app.jobs.queue_model import QueueModel
from app.pipeline import events as ev
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.queue.records import JobView, QueuedInput, QueuedJob
from app.ui.queue.panel import QueuePanel

PROMPT = "a wooden door with brass handles and a small round window, in the evening light"


def _view(job_id: str, picture: str, state: str = "queued", done: int = 0) -> JobView:
    spec = JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt=PROMPT, steps=8)
    image = QueuedInput("image.png", picture, "photo.png")
    job = QueuedJob(id=job_id, created="2026-12-05T14:00:00", spec=spec, image=image)
    return JobView(job, state, None, 8, done, None)


def _panel(qtbot, views: list[JobView]) -> tuple[QueueModel, QueuePanel]:
    model = QueueModel(app_paths())
    model.refresh = lambda: model.changed.emit()  # type: ignore[method-assign]  # the views below
    model.views = views
    panel = QueuePanel(model)
    qtbot.addWidget(panel)
    panel.resize(320, 400)
    panel.show()
    qtbot.waitExposed(panel)
    return model, panel


def test_state_and_step_show_beside_a_long_prompt(qtbot) -> None:
    _model, panel = _panel(qtbot, [_view(f"job{i}", "aa") for i in range(4)])
    viewport = panel.tree.viewport().width()
    header = panel.tree.header()
    for column in (1, 2):
        right = header.sectionViewportPosition(column) + header.sectionSize(column)
        assert right <= viewport, (column, right, viewport)
        text = panel.tree.topLevelItem(0).text(column)
        assert header.sectionSize(column) >= panel.tree.fontMetrics().horizontalAdvance(text)


def test_the_eta_is_per_size_and_unknown_until_measured(qtbot) -> None:
    views = [_view("a", "aa", "running"), _view("b", "aa"), _view("c", "bb")]
    model, panel = _panel(qtbot, views)
    assert model.eta_seconds() is None
    assert "time left unknown until a step is measured" in panel.summary.text()
    model._job_event("a", ev.StepProgressed(step=2, steps=8, seconds_per_step=3.0, eta_s=18.0))
    assert model.eta_seconds() is None  # job c is of another size: nothing measured for it
    assert "unknown" in panel.summary.text()
    model.step_seconds[next(iter(model.step_seconds))] = 3.0
    model.views = views[:2]
    model.changed.emit()
    assert model.eta_seconds() == (6 + 8) * 3.0
    assert "about 42 s left" in panel.summary.text()


def test_the_paused_state_is_exact(qtbot) -> None:
    model, panel = _panel(qtbot, [_view("a", "aa", "done", 8), _view("b", "aa")])
    model.paused = True  # the pause happened: nothing runs
    model.changed.emit()
    assert "paused after the job in hand" not in panel.summary.text()
    assert "paused" in panel.summary.text()
    assert panel.run_button.isEnabled() and not panel.pause_button.isEnabled()


def test_add_to_queue_variations_skip_the_seeds_of_queued_jobs(qtbot, tiny_models) -> None:
    """Issue 30 (8): Resume put a finished job's seed back in the form and "Add to queue × 3"
    queued that seed again. The GUI's add skips the seeds the queue (as last read) holds."""
    files = ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae))
    spec = JobSpec(models=files, prompt=PROMPT, seed=10, width=64, height=64)
    model = QueueModel(app_paths())
    model.queue.add([spec])
    model.refresh()
    said: list[object] = []
    model.failed.connect(said.append)
    model.added.connect(said.append)
    model.add((None, None, ()), lambda _files: spec, count=3)
    qtbot.waitUntil(lambda: bool(said), timeout=60_000)
    assert said == [3]
    assert [v.job.spec.seed for v in model.views] == [10, 11, 12, 13]
