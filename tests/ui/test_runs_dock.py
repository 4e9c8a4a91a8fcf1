"""The Runs dock on the real main window, pipeline and sd-stage (tiny models): a failed run's
entry says what went wrong in the UI's language (English, 简体中文), elided to the dock; a run
is titled by the user's photo (run.json records its file name, never its folder), resumed or
opened, in the window title, the dock entry and the history strip; a run.json written before
the name was recorded still opens, titled as before (image.png)."""

from __future__ import annotations

import dataclasses
import json
import re
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication

from app.imaging.io import load_mask
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.run.folder import open_run
from app.pipeline.run.records import RunInputs
from app.pipeline.runner import Pipeline
from app.ui.words import texts
from app.ui.words.i18n import TsTranslator
from tests.engine.pause_hook import suspend_at
from tests.ui.runs_fixtures import main_window, pipeline, spec, write_photo

pytestmark = pytest.mark.slow
RUN_TIMEOUT_MS = 180_000
PHOTO = "海边 小屋.png"  # the user's photo: a name with a space and Chinese in it
# Three ASCII words in a row: an English sentence (as tests/ui/test_failure_rendering.py).
ENGLISH = re.compile(r"[A-Za-z][A-Za-z']*(?:\s+[A-Za-z][A-Za-z']*){2,}")


@pytest.fixture(params=["en", "zh_CN"])
def language(request, qapp):
    translator = TsTranslator("zh_CN") if request.param == "zh_CN" else None
    if translator is not None:
        QCoreApplication.installTranslator(translator)
    yield request.param
    if translator is not None:
        QCoreApplication.removeTranslator(translator)


def failed_run(api: Pipeline, job: JobSpec, tmp: Path) -> tuple[Path, Path]:
    """A run whose VAE file is gone when it executes (a real model-file failure): its folder
    and the missing file."""
    vae = tmp / "gone-vae.safetensors"
    shutil.copyfile(job.models.vae, vae)
    models = ModelFiles(job.models.diffusion, job.models.llm, str(vae))
    run = api.create_run(JobSpec(**{**job.__dict__, "models": models}))
    vae.unlink()
    events = list(api.execute(run.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFailed), events[-1]
    return run.dir, vae


def test_a_failed_runs_entry_says_what_went_wrong_in_the_ui_language(
    qtbot, tmp_path, sd_stage, tiny_models, language
) -> None:
    image, mask = write_photo(tmp_path / "in")
    job = spec(tiny_models, "a door", 3, image, mask)
    folder, vae = failed_run(pipeline(sd_stage), job, tmp_path)
    window = main_window(qtbot, sd_stage, tiny_models)
    window.resize(1280, 720)
    panel = window.runs_controller.runs_panel
    qtbot.waitUntil(lambda: len(panel.list_view.rows) == 1)
    if window.runs_controller.dialog is not None:
        window.runs_controller.dialog.close()
    row = panel.list_view.rows[0]
    failure = row.entry.failure
    assert row.entry.dir == folder and failure is not None and failure.message
    message, hint = texts.failure_message(failure), texts.failure_hint(failure)
    assert vae.name in message  # the file it names
    assert row.failure_label.full_text == message and not row.failure_label.isHidden()
    assert row.failure_label.toolTip() == f"{message}\n{hint}"
    assert texts.failure_title(failure.kind) in row.status_label.full_text
    if language == "en":
        assert message == f"The VAE {vae} does not exist."  # the window's words, no flag
        assert "--vae" in failure.detail  # the CLI and the log keep theirs
    else:
        left = message.replace(str(failure.values.get("path", "")), " ")
        for value in failure.values.values():
            left = left.replace(str(value), " ")
        assert ENGLISH.findall(left) == [] and message != failure.detail
        assert ENGLISH.findall(hint) == [], hint
    # One line, elided to the dock's width at 1280×720.
    label = row.failure_label
    qtbot.waitUntil(lambda: label.width() > 40)
    shown = label.text()
    assert label.fontMetrics().horizontalAdvance(shown) <= label.width()
    assert shown == message or ("…" in shown and shown[-3:] == message[-3:])  # end in view
    window.generation_panel.shutdown()


def wait_idle(qtbot, model) -> None:
    qtbot.waitUntil(
        lambda: not model.state.busy and not model.session.busy and not model.start_held,
        timeout=RUN_TIMEOUT_MS,
    )


def users_photo(tmp: Path) -> tuple[Path, Path]:
    image, mask = write_photo(tmp / "我的 照片")
    return image.rename(image.with_name(PHOTO)), mask


def test_the_gui_records_the_photos_name_not_its_folder(qtbot, tmp_path, sd_stage, tiny_models):
    photo, mask = users_photo(tmp_path)
    window = main_window(qtbot, sd_stage, tiny_models)
    assert window.open_image(photo)
    window.document.replace_mask("painted", load_mask(mask).astype("float32") / 255.0)
    model = window.generation_panel.model
    model.run_next_stage()  # prepare: the document's copy is written and a run made of it
    wait_idle(qtbot, model)
    run = model.run
    assert run is not None and run.photo_name == PHOTO
    record = json.loads((run.dir / "run.json").read_text(encoding="utf-8"))["inputs"]["image"]
    assert record["name"] == PHOTO and Path(record["file"]).name == "image.png"
    assert str(photo.parent) not in (run.dir / "run.json").read_text(encoding="utf-8")
    window.generation_panel.shutdown()


def test_a_resumed_run_is_titled_by_its_photo(qtbot, tmp_path, sd_stage, tiny_models) -> None:
    photo, mask = users_photo(tmp_path)
    api = pipeline(sd_stage)
    run = api.create_run(spec(tiny_models, "a door by the sea", 4, photo, mask), photo_name=PHOTO)
    assert isinstance(suspend_at(api, run.dir, 2)[-1], ev.RunSuspended)
    assert api.snapshot(run.dir).resumable
    window = main_window(qtbot, sd_stage, tiny_models)
    controller = window.runs_controller
    panel = controller.runs_panel
    qtbot.waitUntil(lambda: panel.list_view.row(run.dir) is not None)
    if controller.dialog is not None:
        controller.dialog.close()
    row = panel.list_view.row(run.dir)
    assert row is not None and row.details_label.full_text.startswith(f"{PHOTO} · ")
    row.buttons["resume"].click()
    assert window.windowTitle().startswith(f"{PHOTO} ")  # not "image.png", the run's copy
    assert window.document.image_path is not None
    assert window.document.image_path.name == "image.png"  # the copy it was read from
    model = window.generation_panel.model
    wait_idle(qtbot, model)
    assert model.run is not None and model.run.finished
    history = window.workspace_area.history
    qtbot.waitUntil(lambda: any(e.run_dir == run.dir for e in history.entries()))
    [entry] = [e for e in history.entries() if e.run_dir == run.dir]
    assert PHOTO in entry.tooltip().splitlines()
    assert window.windowTitle().startswith(f"{PHOTO} ")
    window.generation_panel.shutdown()


def test_a_run_json_without_the_photos_name_still_opens(qtbot, tmp_path, sd_stage, tiny_models):
    photo, mask = users_photo(tmp_path)
    api = pipeline(sd_stage)
    run = api.create_run(spec(tiny_models, "an old door", 2, photo, mask), photo_name=PHOTO)
    old = open_run(run.dir)  # as a run made before the name was recorded
    inputs = old.inputs
    assert inputs.image is not None
    old.inputs = RunInputs(dataclasses.replace(inputs.image, name=""), inputs.mask, inputs.refs)
    old.save()
    record = json.loads((run.dir / "run.json").read_text(encoding="utf-8"))["inputs"]["image"]
    assert "name" not in record  # the shape of an old run.json
    assert api.snapshot(run.dir).photo_name is None
    window = main_window(qtbot, sd_stage, tiny_models)
    panel = window.runs_controller.runs_panel
    qtbot.waitUntil(lambda: panel.list_view.row(run.dir) is not None)
    row = panel.list_view.row(run.dir)
    assert row is not None and not row.details_label.full_text.startswith(PHOTO)
    row.buttons["open"].click()
    assert window.windowTitle().startswith("image.png ")  # as before: the run's copy
    window.generation_panel.shutdown()


def test_the_runs_dock_never_offers_to_continue_a_run_the_queue_holds(
    qtbot, sd_stage, tiny_models
) -> None:
    """Issue 41: Runs offered "Continue" on the job the queue was rendering; a click said
    "prepare failed: … run by another Stepwise process" and left that job's seed in the form.
    One run, one owner: a queue job's unfinished run offers no Continue (nor Discard) here,
    while a run nobody holds still does."""
    from app.core.paths import app_paths
    from app.pipeline.queue.jobs import JobQueue
    from tests.ui.runs_fixtures import stopped_run

    api = pipeline(sd_stage)
    job = spec(tiny_models, "a door the queue renders", 4)
    [queued] = JobQueue(app_paths()).add([job])
    run = api.create_run(job, app_paths().runs_dir / queued.id)
    assert isinstance(suspend_at(api, run.dir, 2)[-1], ev.RunSuspended)
    mine, _step = stopped_run(api, spec(tiny_models, "a door of my own", 4), 2)
    window = main_window(qtbot, sd_stage, tiny_models)
    controller = window.runs_controller
    panel = controller.runs_panel
    rows = panel.list_view
    qtbot.waitUntil(lambda: rows.row(run.dir) is not None and rows.row(mine) is not None)
    held, free = rows.row(run.dir), rows.row(mine)
    assert held is not None and free is not None
    assert "resume" not in held.buttons and "discard" not in held.buttons
    assert "resume" in free.buttons
    seed = window.generation_panel.model.form.values()["seed"]
    controller.act("resume", held.entry)  # even asked directly: the queue's to continue
    assert window.generation_panel.model.run is None
    assert window.generation_panel.model.form.values()["seed"] == seed
    window.generation_panel.shutdown()
