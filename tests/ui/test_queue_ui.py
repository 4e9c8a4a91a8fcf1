"""The queue in the window (app/ui/queue/, app/jobs/queue_model.py) on the real pipeline:
Add to queue × 2 random seeds, the Queue dock running them (state, step k of N, ETA), the
compare view (Use as new image, Discard the rest), the start-up offer; and every string in
简体中文. Screenshots at 1280×720 in both languages go to $STEPWISE_SCREENSHOTS when set."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QMessageBox

from app.core.paths import app_paths
from app.pipeline.queue.jobs import JobQueue
from app.ui.words.i18n import TRANSLATIONS_DIR, read_ts
from tests.ui import test_generation_translations as scan
from tests.ui.runs_fixtures import main_window

ROOT = Path(__file__).resolve().parents[2]
RUN_TIMEOUT_MS = 900_000
WINDOW_SIZE = (1280, 720)

pytestmark = pytest.mark.timeout(1200)


def test_every_queue_string_has_a_chinese_translation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scan, "FILES", sorted((ROOT / "app" / "ui" / "queue").glob("*.py")))
    sources = scan._sources()
    assert len(sources) > 40 and all(context == "Queue" for context, _ in sources)
    table: dict[tuple[str, str], str] = {}
    for ts in sorted((TRANSLATIONS_DIR / "zh_CN").glob("*.ts")):
        table.update(read_ts(ts))
    assert sorted(s for s in sources if s not in table) == []
    for key in sources:
        found = sorted(scan.PLACEHOLDER.findall(table[key]))
        assert sorted(scan.PLACEHOLDER.findall(key[1])) == found, key


def _screenshot(window, name: str) -> None:
    folder = os.environ.get("STEPWISE_SCREENSHOTS")
    if not folder:
        return
    window.resize(*WINDOW_SIZE)
    QCoreApplication.processEvents()
    Path(folder).mkdir(parents=True, exist_ok=True)
    window.grab().save(str(Path(folder) / f"{name}.png"))


def _pixels(path: Path) -> np.ndarray:
    return np.asarray(Image.open(path).convert("RGB"))


def test_queue_variations_run_compare_and_pick(qtbot, sd_stage, tiny_models, dialogs) -> None:
    window = main_window(qtbot, sd_stage, tiny_models)
    window.resize(*WINDOW_SIZE)
    controller = window.queue_controller
    model = controller.model
    window.generation_panel.model.session.trash = None  # discarded runs are deleted
    from app.pipeline.job.params import HEIGHT, STEPS, WIDTH

    form = window.generation_panel.model.form
    form.set(STEPS, 2)
    form.set(WIDTH, 64)
    form.set(HEIGHT, 64)
    controller.count.setValue(2)
    controller.random_seeds.setChecked(True)
    with qtbot.waitSignal(model.added, timeout=60_000) as added:
        controller.add_button.click()
    assert added.args == [2]
    panel = controller.queue_panel
    assert panel.tree.topLevelItemCount() == 2
    seeds = [v.job.spec.seed for v in model.views]
    assert len(set(seeds)) == 2
    assert [panel.tree.topLevelItem(i).text(1) for i in range(2)] == ["queued", "queued"]
    assert "2 jobs, 2 to run" in panel.summary.text()
    assert panel.run_button.isEnabled() and not panel.suspend_button.isEnabled()
    _screenshot(window, "queue-en-queued")

    etas: list[float] = []
    steps_shown: list[str] = []

    def watch() -> None:
        eta = model.eta_seconds()
        if eta is not None:
            etas.append(eta)
        for i in range(panel.tree.topLevelItemCount()):
            steps_shown.append(panel.tree.topLevelItem(i).text(2))

    model.changed.connect(watch)
    panel.run_button.click()
    assert model.running and panel.suspend_button.isEnabled()
    qtbot.waitUntil(lambda: not model.running, timeout=RUN_TIMEOUT_MS)
    assert [v.state for v in model.views] == ["done", "done"], [v.job.outcome for v in model.views]
    assert etas and all(e >= 0 for e in etas) and etas[-1] < max(etas)  # it counts down
    assert "step 1 of 2" in steps_shown and "step 2 of 2" in steps_shown
    assert all(not panel.tree.topLevelItem(i).icon(0).isNull() for i in range(2))  # thumbnails
    _screenshot(window, "queue-en-done")

    # Compare the variation set: one job selected → both results.
    panel.tree.topLevelItem(0).setSelected(True)
    dirs = panel.compare_dirs()
    assert [d.name for d in dirs] == [v.job.id for v in model.views]
    dialog = controller.open_compare(dirs)
    assert dialog is not None and len(dialog.tiles) == 2
    qtbot.addWidget(dialog)
    dialog.resize(*WINDOW_SIZE)
    _screenshot(dialog, "compare-en")
    dialog.pick(1)
    keep, other = Path(dirs[1]), Path(dirs[0])
    dialogs.answers.append(QMessageBox.StandardButton.Yes)
    dialog.discard_button.click()
    assert not other.exists() and keep.exists()
    assert [v.job.id for v in model.views] == [keep.name]  # its job left the queue too

    dialog = controller.open_compare([keep])
    assert dialog is not None
    qtbot.addWidget(dialog)
    dialog.use_button.click()
    picture = window.document.image
    assert picture is not None
    assert np.array_equal(np.asarray(picture)[..., :3], _pixels(keep / "result.png"))
    window.generation_panel.shutdown()


def test_start_up_offers_to_continue_an_unfinished_queue(qtbot, sd_stage, tiny_models, dialogs):
    from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles

    models = ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae))
    job = JobSpec(models=models, prompt="a house", steps=2, width=64, height=64, seed=3)
    JobQueue(app_paths()).add([job, dataclasses.replace(job, devices=DeviceChoice(threads=1))])
    dialogs.answers.append(QMessageBox.StandardButton.No)
    window = main_window(qtbot, sd_stage, tiny_models)
    qtbot.waitUntil(lambda: bool(dialogs.shown), timeout=30_000)
    kind, title, text = dialogs.shown[0]
    assert kind == "question" and title == "Continue the queue?"
    assert "2 unfinished jobs" in text
    assert not window.queue_controller.model.running  # "No": nothing runs
    window.generation_panel.shutdown()


def test_queue_dock_and_compare_view_in_chinese(qtbot, sd_stage, tiny_models) -> None:
    from app.ui.words.i18n import TsTranslator
    from tests.ui.runs_fixtures import finished_run, pipeline, spec

    translator = TsTranslator("zh_CN")
    QCoreApplication.installTranslator(translator)
    try:
        job = dataclasses.replace(spec(tiny_models, "一扇新门", 2), width=64, height=64, seed=9)
        done = finished_run(pipeline(sd_stage), job)
        JobQueue(app_paths()).add([job, dataclasses.replace(job, seed=10)])
        window = main_window(qtbot, sd_stage, tiny_models, show=False)
        controller = window.queue_controller
        controller.model.refresh()
        panel = controller.queue_panel
        assert panel.run_button.text() == "运行队列"
        assert controller.add_button.text() == "加入队列"
        assert panel.tree.topLevelItem(0).text(1) == "排队中"
        assert panel.summary.text().startswith("2 个任务，2 个待运行")
        window.show()
        controller.dock.raise_()
        _screenshot(window, "queue-zh-queued")
        window.generation_panel.parent().raise_()
        _screenshot(window, "generate-zh")
        dialog = controller.open_compare([done])
        assert dialog is not None and dialog.use_button.text() == "用作新图像"
        qtbot.addWidget(dialog)
        dialog.resize(*WINDOW_SIZE)
        _screenshot(dialog, "compare-zh")
        dialog.close()
        window.generation_panel.shutdown()
    finally:
        QCoreApplication.removeTranslator(translator)


def test_accept_this_step_finishes_the_run_from_the_selected_step(qtbot, sd_stage, tiny_models):
    from tests.ui.runs_fixtures import pipeline, spec, stopped_run

    job = dataclasses.replace(spec(tiny_models, "a door", 4), width=64, height=64, seed=4)
    run_dir, k = stopped_run(pipeline(sd_stage), job, 1)
    assert 1 <= k < 4
    window = main_window(qtbot, sd_stage, tiny_models)
    model = window.generation_panel.model
    view = window.generation_panel.run_view
    assert model.open_run(run_dir) is not None
    view.load_step_previews(model.run)  # decoded off the UI thread
    qtbot.waitUntil(lambda: k in view.strip.steps())
    view.strip.setCurrentRow(view.strip.steps().index(k))
    view.update_buttons()
    assert view.accept_button.isEnabled()
    with qtbot.waitSignal(model.runner_ended, timeout=RUN_TIMEOUT_MS) as ended:
        view.accept_button.click()
    assert ended.args == ["finished"], model.last_failure
    run = model.run
    assert run is not None and run.finished and run.accepted_step == k
    assert max(run.checkpoints) == k  # no later step ran
    from app.ui.workspace.history_strip import entries_of

    (result,) = [e for e in entries_of(run) if e.kind == "result"]
    assert result.step == k and result.caption() == f"Result, accepted at step {k}"
    window.generation_panel.shutdown()


def test_start_up_offers_a_queue_job_once_and_a_paused_queue_not_at_all(
    qtbot, sd_stage, tiny_models, dialogs
) -> None:
    """Issue 30 (7): after a kill mid-queue the job's run was offered twice (as an unfinished
    run and as a queue job); a queue the user paused was offered at every start."""
    from tests.engine.pause_hook import suspend_at
    from tests.ui.runs_fixtures import pipeline, spec

    job = dataclasses.replace(spec(tiny_models, "a gate", 4), width=64, height=64, seed=5)
    queue = JobQueue(app_paths())
    [queued] = queue.add([job])
    engine = pipeline(sd_stage)
    for folder in (queue.run_dir_of(queued.id), None):  # the queue's run, then one of the user's
        run = engine.create_run(job, folder)
        suspend_at(engine, run.dir, 1)
    own = run.dir
    dialogs.answers.append(QMessageBox.StandardButton.No)
    window = main_window(qtbot, sd_stage, tiny_models)
    runs = window.runs_controller
    qtbot.waitUntil(lambda: runs.dialog is not None and bool(dialogs.shown), timeout=60_000)
    assert [Path(r.entry.dir) for r in runs.dialog.list_view.rows] == [own]
    _kind, title, text = dialogs.shown[0]
    assert title == "Continue the queue?" and "1 unfinished jobs" in text
    runs.dialog.close()

    queue.set_paused(True)  # the user paused it: the next start asks nothing
    dialogs.shown.clear()
    window.queue_controller.offer_to_continue()
    assert dialogs.shown == []
    assert window.queue_controller.model.paused
    window.generation_panel.shutdown()
