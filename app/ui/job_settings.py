"""The job form's values in the settings file: `settings.job` (Param.name → value; settings
version 2 migrates the old sections into it)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from app.core.settings import Settings, save_settings
from app.jobs.job_form import JobForm


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
