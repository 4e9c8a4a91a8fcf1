"""The Queue dock tells the truth: State and Step always show, the ETA comes from every stage
measured on this computer (unknown until each ran once), a waiting queue says so, the paused
state is exact."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

from app.core.paths import app_paths
from app.jobs.eta import stages_of
from app.jobs.queue_model import QueueModel
from app.pipeline import events as ev
from app.pipeline.api import RunSnapshot, StageSnapshot
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.queue.records import JobView, QueuedInput, QueuedJob, QueuePage
from app.pipeline.work_policy import AT_COMPUTER, IDLE, Verdict, WorkPolicy
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


# This computer, as the test's timings: seconds per stage by the model's pixels (diffuse's
# load plus its steps; decode about a minute at 512², as on the RX 590 of issue 41).
def true_seconds(stage: str, pixels: int, steps: int = 0) -> float:
    return {
        "prepare": 0.2,
        "vae-encode": 0.5 + 2e-5 * pixels,
        "llm-encode": 6.0,
        "diffuse": 4.0 + steps * 1.2e-5 * pixels,
        "vae-decode": 1.0 + 2.3e-4 * pixels,
        "composite": 0.3,
    }[stage]


def true_step(pixels: int) -> float:
    return 1.2e-5 * pixels


def _job(job_id: str, w: int, h: int, steps: int, picture: bool = False) -> QueuedJob:
    files = ModelFiles("d.gguf", "l.gguf", "v.safetensors")
    spec = JobSpec(models=files, prompt=PROMPT, steps=steps, width=w, height=h)
    if picture:
        spec = dataclasses.replace(spec, image="image.png", mask="mask.png")
    image = QueuedInput("image.png", f"{w}x{h}", "photo.png") if picture else None
    return QueuedJob(id=job_id, created="2026-12-05T14:00:00", spec=spec, image=image)


def _recorded_run(job: QueuedJob, folder: Path) -> RunSnapshot:
    """A finished run's record as this computer timed it (cached stages cost nothing)."""
    spec, px = job.spec, job.spec.width * job.spec.height
    stages = tuple(
        StageSnapshot(name, "done", False, true_seconds(name, px, spec.steps), "vulkan0")
        for name in stages_of(spec)
    )
    return RunSnapshot(folder, job.id, "", spec, stages, spec.steps, spec.steps, (), None, None,
                       None)  # fmt: skip


def test_the_queue_eta_counts_every_stage_of_mixed_jobs(qtbot, tmp_path: Path) -> None:
    """Issue 41: "about 28 s left" for a queue that took 288 s (diffusion steps only; decode
    took ~60 s a job), and "unknown" after a restart. Now every stage counts: the finished
    runs' records (read again after a restart), the job in hand's measured stages, other sizes
    scaled by their pixels; the estimate holds within ±30 % of the true time left."""
    done_a, done_b = _job("done-a", 512, 512, 8), _job("done-b", 768, 768, 8, picture=True)
    runs = {tmp_path / j.id: _recorded_run(j, tmp_path / j.id) for j in (done_a, done_b)}
    open_jobs = [
        (_job("j1", 512, 512, 20), "running"),
        (_job("j2", 512, 512, 20), "queued"),
        (_job("j3", 1024, 768, 12, picture=True), "queued"),
        (_job("j4", 640, 640, 30), "interrupted"),
    ]
    views = [JobView(done_a, "done", tmp_path / "done-a", 8, 8, None),
             JobView(done_b, "done", tmp_path / "done-b", 8, 8, None)]  # fmt: skip
    views += [JobView(j, state, None, j.spec.steps, 0, None) for j, state in open_jobs]
    views[-1] = dataclasses.replace(views[-1], last_completed_step=10)  # j4 resumes at 10
    model = QueueModel(app_paths(), snapshot=lambda folder: runs[folder])
    model.queue.page = lambda _limit: QueuePage(False, tuple(views))  # type: ignore[method-assign]
    panel = QueuePanel(model)
    qtbot.addWidget(panel)
    model.refresh()  # a new start: only the records of finished runs are known
    # The job in hand: llm-encode took its 6 s, diffuse is at step 5 of 20.
    model._job_event("j1", ev.StageFinished(stage="prepare", seconds=0.2, cached=False))
    model._job_event("j1", ev.StageFinished(stage="llm-encode", seconds=6.0, cached=False))
    model._job_event("j1", ev.StageStarted(stage="diffuse", run_dir=tmp_path / "j1"))
    step = true_step(512 * 512)
    for k in range(1, 6):
        model._job_event("j1", ev.StepProgressed(k, 20, step, (20 - k) * step))

    def left(stages: tuple[str, ...], px: int, steps: int, from_step: int = 0) -> float:
        out = sum(true_seconds(s, px) for s in stages if s != "diffuse")
        if "diffuse" in stages:
            out += (4.0 if from_step == 0 else 0.0) + (steps - from_step) * true_step(px)
        return out

    full = ("prepare", "llm-encode", "diffuse", "vae-decode", "composite")
    truth = {
        "j1": left(("diffuse", "vae-decode", "composite"), 512 * 512, 20, 5),
        "j2": left(full, 512 * 512, 20),
        "j3": left(("vae-encode", *full), 1024 * 768, 12),
        "j4": left(("diffuse", "vae-decode", "composite"), 640 * 640, 30, 10),
    }
    for view in views[2:]:
        estimate = model.job_eta(view)
        assert estimate is not None, view.job.id
        assert abs(estimate - truth[view.job.id]) <= 0.3 * truth[view.job.id], (
            view.job.id, estimate, truth[view.job.id])  # fmt: skip
    eta = model.eta_seconds()
    assert eta is not None and abs(eta - sum(truth.values())) <= 0.3 * sum(truth.values())
    assert eta > 120  # the decodes count: not the ~10x low steps-only figure
    panel.show_model()
    assert "about" in panel.tree.topLevelItem(3).text(2)  # each job's own estimate


def test_the_eta_is_unknown_until_each_stage_ran_here(qtbot) -> None:
    views = [_view("a", "aa", "running"), _view("b", "aa")]
    model, panel = _panel(qtbot, views)
    assert model.eta_seconds() is None
    assert "unknown" in panel.summary.text()
    model._job_event("a", ev.StepProgressed(step=2, steps=8, seconds_per_step=3.0, eta_s=18.0))
    assert model.eta_seconds() is None  # llm-encode and the decode never ran on this computer


def test_a_waiting_queue_says_waiting_not_about_0_s_left(qtbot) -> None:
    views = [_view("a", "aa", "interrupted", 8)]
    model, panel = _panel(qtbot, views)
    for stage, seconds in (("llm-encode", 5.0), ("vae-encode", 1.0), ("vae-decode", 30.0)):
        model.times.record(stage, views[0].job.spec, seconds)
    model.times.record_step(views[0].job.spec, 2.0)
    model.worker = SimpleNamespace(gate=SimpleNamespace(policy=WorkPolicy(mode=IDLE)))  # type: ignore[assignment]
    model.work_state = Verdict(False, AT_COMPUTER)
    model.changed.emit()
    text = panel.summary.text() + " " + panel.work_line.text()
    assert "waiting: you are at the computer" in text
    assert "running" not in panel.summary.text() and "0 s left" not in text
    assert "of work" in panel.summary.text()  # the work still to do, not a countdown
    model.worker = None


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
