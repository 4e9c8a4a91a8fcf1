"""The worker thread that drives one whole pipeline call (execute every stage due, decode a
step, accept a step: many stages, one engine process each) and turns its events into Qt
signals.

The pipeline (app/pipeline) yields plain frozen dataclasses from a generator; CallRunner
iterates that generator in its own thread and re-emits every event as a typed signal, so
widgets never touch the thread or the pipeline's internals. Events are matched on the
pipeline's event classes (app.pipeline.events); anything else is logged and ignored.

Exactly one terminal signal is emitted per run: run_finished, run_failed, run_cancelled or
run_suspended. They carry a `run_` prefix because QThread already owns `finished`.

Previews: the worker decodes every preview PNG into a QImage (allowed off the UI thread),
emits a small thumbnail for every step (preview_saved) and the full image through a
one-slot mailbox (preview_ready): if the UI has not taken the previous full preview yet, the
newer one replaces it, so a lagging UI only ever paints the newest.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtGui import QImage

from app.jobs.workers import AppThread
from app.pipeline import events as ev
from app.pipeline import failure_for
from app.pipeline.failures import Failure, FailureKind

if TYPE_CHECKING:
    from app.pipeline.api import PipelineAPI
    from app.pipeline.control import RunControl

log = logging.getLogger(__name__)

THUMBNAIL_PX = 96
NO_TERMINAL = "The run ended without a terminal event."
# A preview path longer than this, or outside the run folder, is not ours: skip it.
MAX_PATH_CHARS = 4096


class Control(Protocol):
    """What the runner needs from app.pipeline.control.RunControl."""

    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def suspend(self) -> None: ...
    def cancel(self) -> None: ...


EventSource = Callable[["RunControl"], ev.EventStream]


class CallRunner(AppThread):
    """Runs `source(control)` in a worker thread and re-emits its events as signals."""

    stage_started = Signal(str)  # stage
    stage_finished = Signal(str, float, bool)  # stage, seconds, cached
    step_progress = Signal(int, int, float, float)  # step, steps, seconds/step, eta seconds
    preview_saved = Signal(int, str, QImage)  # step, path, thumbnail (every step)
    preview_ready = Signal(int, QImage)  # step, full image (newest only)
    checkpoint_saved = Signal(int, str)  # step, path
    log_line = Signal(str, str)  # stage, text
    device_reported = Signal(str, str)  # stage, device it really runs on
    paused = Signal(int)  # step
    resumed = Signal(int)  # step
    result_loaded = Signal(str, QImage)  # result path, image fitted to the view (not for a
    # run of one stage other than composite: its output is no result)
    # exactly one of these per run
    run_finished = Signal(str)  # result path
    run_failed = Signal(object)  # Failure (its templates and values: rendered by the UI)
    run_cancelled = Signal(int)  # last completed step
    run_suspended = Signal(int)  # last completed step
    # after the terminal signal, once the worker thread has finished (delivered in the UI
    # thread): the terminal kind, "finished" | "failed" | "cancelled" | "suspended"
    run_ended = Signal(str)

    _preview_posted = Signal()

    def __init__(
        self,
        source: EventSource,
        control: RunControl,
        parent: QObject | None = None,
        *,
        name: str = "run",
        loads_result: bool = True,
    ) -> None:
        super().__init__(parent)
        # result_loaded only for a picture worth showing as a result: a run of one stage ends
        # with that stage's output (e.g. the prepared input), which is not a result.
        self._loads_result = loads_result
        self._source = source
        self._control = control
        self._name = name
        self._lock = threading.Lock()
        self._pending_preview: tuple[int, QImage] | None = None
        self._terminal_sent = False
        self._current_stage = ""
        self._last_step = 0
        self._terminal_kind = ""
        self._preview_max_px = 0
        self.setObjectName(f"CallRunner-{name}")
        # The runner object lives in the creating (UI) thread, so this queued hop runs
        # _deliver_preview there and coalesces everything posted in between.
        self._preview_posted.connect(self._deliver_preview, Qt.ConnectionType.QueuedConnection)
        self.finished.connect(self._thread_finished, Qt.ConnectionType.QueuedConnection)

    # ---- construction helpers -------------------------------------------------------------

    @classmethod
    def for_execute(
        cls,
        pipeline: PipelineAPI,
        run_dir: Path,
        *,
        only: str | None = None,
        control: RunControl | None = None,
        parent: QObject | None = None,
    ) -> CallRunner:
        """A runner over PipelineAPI.execute(run_dir, control, only=...)."""
        control = control or _new_control()
        return cls(
            lambda c: pipeline.execute(run_dir, c, only=only),
            control,
            parent,
            name=only or "all",
            loads_result=only in (None, "composite"),
        )

    @classmethod
    def for_decode_step(
        cls,
        pipeline: PipelineAPI,
        run_dir: Path,
        step: int,
        *,
        control: RunControl | None = None,
        parent: QObject | None = None,
    ) -> CallRunner:
        """A runner over PipelineAPI.decode_step(run_dir, step, control) ("Decode this step")."""
        control = control or _new_control()
        return cls(
            lambda c: pipeline.decode_step(run_dir, step, c),
            control,
            parent,
            name=f"decode-{step}",
        )

    # ---- control, callable from the UI thread (never blocks) -----------------------------

    @property
    def control(self) -> Control:
        return self._control

    @property
    def terminal_kind(self) -> str:
        """ "finished", "failed", "cancelled", "suspended", or "" while running."""
        return self._terminal_kind

    def pause(self) -> None:
        self._control.pause()

    def resume(self) -> None:
        self._control.resume()

    def suspend(self) -> None:
        self._control.suspend()

    def cancel(self) -> None:
        self._control.cancel()

    def set_preview_max_px(self, pixels: int) -> None:
        """Scale full previews down to fit this many pixels (the view's size) in the worker, so
        the UI thread only converts and paints; 0 = full size."""
        self._preview_max_px = max(0, int(pixels))

    def _take_preview(self) -> tuple[int, QImage] | None:
        with self._lock:
            pending, self._pending_preview = self._pending_preview, None
        return pending

    # ---- worker ---------------------------------------------------------------------------

    def run(self) -> None:  # QThread entry point
        events: ev.EventStream | None = None
        try:
            events = self._source(self._control)
            for event in events:
                self._dispatch(event)
                if self._terminal_sent:
                    break
        except Exception as exc:  # a bug or an unexpected failure below us: say so, once
            log.error("Run %s raised", self._name, exc_info=exc)
            failure = failure_for(exc, self._current_stage)
            self._terminal("failed", lambda: self.run_failed.emit(failure))
        finally:
            if events is not None:
                try:
                    events.close()  # runs the pipeline's own clean-up (stops a child it owns)
                except Exception:
                    log.exception("Closing the event source of run %s failed", self._name)
            if not self._terminal_sent:
                text = NO_TERMINAL
                lost = Failure(FailureKind.BUG, self._current_stage, text, None, text)
                self._terminal("failed", lambda: self.run_failed.emit(lost))

    def _terminal(self, kind: str, emit: Callable[[], None]) -> None:
        if self._terminal_sent:
            log.warning("Ignoring a second terminal event (%s) in run %s", kind, self._name)
            return
        self._terminal_sent = True
        self._terminal_kind = kind
        emit()

    def _dispatch(self, event: ev.Event) -> None:
        match event:
            case ev.StageStarted():
                self._current_stage = event.stage
                self.stage_started.emit(event.stage)
            case ev.StageFinished():
                self.stage_finished.emit(event.stage, float(event.seconds or 0.0), event.cached)
            case ev.StepProgressed():
                self._last_step = event.step
                self.step_progress.emit(
                    event.step,
                    event.steps,
                    float(event.seconds_per_step or 0.0),
                    float(event.eta_s or 0.0),
                )
            case ev.PreviewSaved():
                self._on_preview(event)
            case ev.CheckpointSaved():
                self.checkpoint_saved.emit(event.step, str(event.path))
            case ev.Paused():
                self.paused.emit(event.step)
            case ev.Resumed():
                self.resumed.emit(event.step)
            case ev.LogLine():
                self.log_line.emit(event.stage, event.text)
            case ev.DeviceReported():
                self.device_reported.emit(event.stage, event.device)
            case ev.RunFinished():
                self._on_run_finished(event)
            case ev.RunFailed():
                self._on_run_failed(event)
            case ev.RunCancelled():
                self._terminal("cancelled", lambda: self.run_cancelled.emit(event.step or 0))
            case ev.RunSuspended():
                self._terminal("suspended", lambda: self.run_suspended.emit(event.step or 0))
            case _:
                log.debug("Ignoring unknown pipeline event %r", event)

    def _on_preview(self, e: ev.PreviewSaved) -> None:
        path = str(e.path)
        if len(path) > MAX_PATH_CHARS:
            return
        image = QImage(path)
        if image.isNull():
            log.debug("Preview %s could not be read", path)
            return
        thumb = image.scaled(
            THUMBNAIL_PX,
            THUMBNAIL_PX,
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
        self.preview_saved.emit(int(e.step), path, thumb)
        image = self._fit_to_view(image)
        with self._lock:
            already_posted = self._pending_preview is not None
            self._pending_preview = (int(e.step), image)
        if not already_posted:
            self._preview_posted.emit()

    def _fit_to_view(self, image: QImage) -> QImage:
        limit = self._preview_max_px
        if limit and max(image.width(), image.height()) > limit:
            return image.scaled(
                limit,
                limit,
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
        return image

    @Slot()
    def _thread_finished(self) -> None:
        self.run_ended.emit(self._terminal_kind or "failed")

    @Slot()
    def _deliver_preview(self) -> None:
        pending = self._take_preview()
        if pending is not None:
            self.preview_ready.emit(pending[0], pending[1])

    def _on_run_finished(self, e: ev.RunFinished) -> None:
        image = QImage(str(e.result_path)) if self._loads_result else QImage()
        if not image.isNull():  # decoded (and fitted to the view) off the UI thread
            self.result_loaded.emit(str(e.result_path), self._fit_to_view(image))
        self._terminal("finished", lambda: self.run_finished.emit(str(e.result_path)))

    def _on_run_failed(self, e: ev.RunFailed) -> None:
        failure = dataclasses.replace(e.failure, stage=e.stage or self._current_stage)
        self._terminal("failed", lambda: self.run_failed.emit(failure))


def _new_control() -> RunControl:
    from app.pipeline.control import RunControl

    return RunControl()
