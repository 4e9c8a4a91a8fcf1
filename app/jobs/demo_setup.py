"""Prepares the demo set off the UI thread."""

from __future__ import annotations

import logging

from PySide6.QtCore import QObject, Signal

from app.core.paths import AppPaths
from app.jobs.workers import AppThread
from app.pipeline.demo import prepare_demo

log = logging.getLogger(__name__)


class DemoSetup(AppThread):
    """Runs prepare_demo in a thread; exactly one of demo_ready / demo_failed is emitted."""

    demo_ready = Signal(object)  # DemoSet
    demo_failed = Signal(str)

    def __init__(self, paths: AppPaths, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("DemoSetup")
        self._paths = paths

    def run(self) -> None:  # QThread entry point
        try:
            demo = prepare_demo(self._paths)
        except Exception as exc:  # disk full, no permission: the panel says so
            log.warning("Preparing the demo set failed: %s", exc)
            self.demo_failed.emit(str(exc))
            return
        self.demo_ready.emit(demo)
