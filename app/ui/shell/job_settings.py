"""The job form's values in the settings file: `settings.job` (Param.name → value; settings
version 2 migrates the old sections into it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication

from app.core.settings import Settings, save_settings
from app.jobs.job_form import JobForm

STATUS_MS = 20_000  # long enough to be read at start-up


def _tr(text: str) -> str:
    return QCoreApplication.translate("JobSettings", text)


def store_job_values(settings: Settings, values: Mapping[str, Any]) -> None:
    """Copies the form's persisted values into `settings` (the caller saves the file)."""
    settings.job = dict(values)


def settings_saver(settings: Settings, path: Path | None) -> Callable[[dict[str, Any]], None]:
    """The form's saver: into `settings`, then the file (atomically) when `path` is given."""

    def save(values: dict[str, Any]) -> None:
        store_job_values(settings, values)
        if path is not None:
            save_settings(path, settings)

    return save


def form_from_settings(settings: Settings, path: Path | None = None) -> JobForm:
    """The job form over `settings.job` (bad or missing values at the table's defaults)."""
    return JobForm(dict(settings.job), saver=settings_saver(settings, path))


def report_form_problems(form: JobForm, show: Callable[[str, int], None]) -> None:
    """Says in the status bar (`show(text, ms)`) when saved settings were not valid and got
    their defaults, and whenever a save fails (the form logs both)."""
    if form.replaced:
        names = ", ".join(form.replaced)
        show(
            _tr("Some saved settings were not valid; their defaults are used: {names}").format(
                names=names
            ),
            STATUS_MS,
        )
    form.save_failed.connect(
        lambda reason: show(
            _tr("The settings could not be saved: {reason}").format(reason=reason), STATUS_MS
        )
    )
