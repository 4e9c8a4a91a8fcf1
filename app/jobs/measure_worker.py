"""Measure this computer off the UI thread (Help → Measure this computer): the pipeline's
measurement (app/pipeline/measure/session.py) in an EngineWorker, so its engine children are
ended when the window goes; `cancel()` stops the stage in hand and ends with a partial report."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.core.paths import AppPaths
from app.core.settings import Settings
from app.jobs.run_session import make_pipeline
from app.jobs.run_state import log_error, user_text
from app.jobs.workers import EngineWorker
from app.pipeline.measure.probe import MeasureSetup
from app.pipeline.measure.session import make_setup, measure

log = logging.getLogger(__name__)

SetupOf = Callable[[Path], MeasureSetup]  # the engine → what to measure


def default_setup(paths: AppPaths, settings: Settings) -> SetupOf:
    return lambda engine: make_setup(paths, settings, engine)


class MeasureWorker(EngineWorker):
    progress = Signal(int, int, object, object)  # done, total, MeasureStep, ETA seconds | None
    done = Signal(object, str)  # the report (dict), the Markdown file
    failed = Signal(str)

    def __init__(
        self,
        paths: AppPaths,
        engine: Path | None,
        setup_of: SetupOf,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("MeasureWorker")
        self._paths, self._engine, self._setup_of = paths, engine, setup_of
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    def work(self) -> None:
        try:
            setup = self._setup_of(make_pipeline(self._paths, self._engine).engine_binary())
            report, md, _js = measure(setup, self._paths, self.progress.emit, self._cancel)
        except Exception as exc:
            log_error(log, "measuring this computer failed", exc)
            self.failed.emit(user_text(exc))
            return
        self.done.emit(report, str(md))
