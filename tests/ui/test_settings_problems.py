"""Saved settings that were not valid (replaced by their defaults) and settings that fail to
save reach the user: a status bar message in the window and a log line."""

from __future__ import annotations

import logging

from app.core.errors import OutputError
from app.core.settings import Settings
from app.jobs.job_form import JobForm
from app.pipeline.job.params import ALIGN, PROMPT
from app.ui.shell.main_window import MainWindow


def _window(qtbot, form: JobForm) -> MainWindow:
    window = MainWindow(Settings(), job_form=form)
    qtbot.addWidget(window)
    return window


def test_replaced_settings_are_shown_and_logged(qtbot, caplog) -> None:
    caplog.set_level(logging.WARNING)
    form = JobForm({"align": "stretch", "steps": 9})
    window = _window(qtbot, form)
    assert form.get(ALIGN) == "pad"
    message = window.statusBar().currentMessage()
    assert "defaults" in message and "align" in message
    assert any("align" in r.getMessage() and "default" in r.getMessage() for r in caplog.records)


def test_a_failed_save_is_shown_and_logged(qtbot, caplog, tmp_path) -> None:
    caplog.set_level(logging.WARNING)
    target = tmp_path / "settings.json"

    def saver(_values: dict) -> None:
        raise OutputError("The disk is full while writing {path}.", path=target)

    form = JobForm(saver=saver)
    window = _window(qtbot, form)
    form.set(PROMPT, "a red door")
    form.save_now()
    message = window.statusBar().currentMessage()
    assert "could not be saved" in message and str(target) in message
    logged = [r for r in caplog.records if "could not be saved" in r.getMessage()]
    assert logged and str(target) in logged[0].getMessage()
