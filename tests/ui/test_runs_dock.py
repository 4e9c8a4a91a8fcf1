"""The Runs dock on the real main window, pipeline and sd-stage (tiny models): a failed run's
entry says what went wrong in the UI's language (English, 简体中文), elided to the dock."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication

from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.runner import Pipeline
from app.pipeline.spec import JobSpec, ModelFiles
from app.ui import texts
from app.ui.i18n import TsTranslator
from tests.ui.runs_fixtures import main_window, pipeline, spec, write_photo

pytestmark = pytest.mark.slow
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
        assert message == failure.text() and message in failure.detail
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
    assert shown == message or shown.endswith("…")
    window.generation_panel.shutdown()
