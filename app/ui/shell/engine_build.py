"""The engine build in the status bar: while native/build.py builds (the first ./run.sh builds
it in the background while the window is open), the status bar says the stage, compile k/N,
the time elapsed and the time left in the window's language, then that the engine is ready —
or that the build stopped without one, with its log."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QObject, QTimer, Signal

from app.jobs.workers import AppThread
from app.pipeline.engine_info import BuildRunning, EngineBuildState, engine_build_state
from app.ui.shell.main_window import MainWindow

TR_CONTEXT = "EngineBuild"
BUILD_POLL_MS = 3000
READY_MESSAGE_MS = 8000


def _tr(text: str) -> str:
    return QCoreApplication.translate(TR_CONTEXT, text)


def clock_text(seconds: float) -> str:
    """m:ss (h:mm:ss from an hour), the same in every language."""
    total = max(0, int(round(seconds)))
    minutes, secs = divmod(total, 60)
    if minutes < 60:
        return f"{minutes}:{secs:02d}"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


def stage_text(build: BuildRunning) -> str:
    if build.stage == "compile" and build.total == 100:  # make: a percent
        return _tr("compiling {percent} %").format(percent=build.done)
    if build.stage == "compile" and build.total:
        return _tr("compiling {done}/{total}").format(done=build.done, total=build.total)
    return {
        "download": _tr("downloading the source"),
        "patch": _tr("applying Stepwise's patches"),
        "configure": _tr("configuring"),
        "compile": _tr("compiling"),
    }.get(build.stage, _tr("starting"))


def progress_text(build: BuildRunning) -> str:
    """'compiling 120/340, 4:10 elapsed, about 7:40 left' in the window's language."""
    values = {"stage": stage_text(build), "elapsed": clock_text(build.elapsed_s)}
    if build.left_s is None:
        return _tr("{stage}, {elapsed} elapsed, no estimate yet").format(**values)
    if build.left_s < 1:
        return _tr("{stage}, {elapsed} elapsed, taking longer than estimated").format(**values)
    return _tr("{stage}, {elapsed} elapsed, about {left} left").format(
        left=clock_text(build.left_s), **values
    )


def status_text(state: EngineBuildState) -> str:
    """The status bar's sentence while a build runs (state.running is set)."""
    assert state.running is not None
    progress = progress_text(state.running)
    if state.engine_ready:  # the faster engine, built beside the one in use
        return _tr(
            "Building a faster engine ({progress}); runs use the current one until then."
        ).format(progress=progress)
    return _tr("Building the engine ({progress}); generating works when it is done.").format(
        progress=progress
    )


class _BuildPoll(AppThread):
    found = Signal(object)  # EngineBuildState

    def __init__(self, ask: Callable[[], EngineBuildState], parent: QObject) -> None:
        super().__init__(parent)
        self._ask = ask

    def run(self) -> None:
        self.found.emit(self._ask())


class EngineBuildStatus(QObject):
    """Polls the build every BUILD_POLL_MS while one runs; `on_ready` when it has ended (the
    generation panel probes the engine again)."""

    def __init__(
        self,
        window: MainWindow,
        on_ready: Callable[[], None] | None = None,
        ask: Callable[[], EngineBuildState] = engine_build_state,
    ) -> None:
        super().__init__(window)
        self.window, self.on_ready, self._ask = window, on_ready, ask
        self.building: BuildRunning | None = None
        self._poll: _BuildPoll | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(BUILD_POLL_MS)
        self._timer.timeout.connect(self.check)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)

    def start(self) -> None:
        self.check()

    def check(self) -> None:
        if self._poll is not None:
            return
        poll = _BuildPoll(self._ask, self)
        poll.found.connect(self.show)
        poll.finished.connect(self._poll_done)
        self._poll = poll
        poll.start()

    def _poll_done(self) -> None:
        poll, self._poll = self._poll, None
        if poll is not None:
            poll.wait()
            poll.deleteLater()

    def show(self, state: EngineBuildState) -> None:
        was_building = self.building is not None
        self.building = state.running
        bar = self.window.statusBar()
        if state.running is not None:
            bar.showMessage(status_text(state))
            self._timer.start()
            return
        self._timer.stop()
        if not was_building:
            return
        if state.engine_ready and state.built is False:  # the faster one failed
            bar.showMessage(
                _tr(
                    "The faster engine could not be built; runs use the current one. Its log: {log}"
                ).format(log=state.log)
            )
        elif state.engine_ready:
            bar.showMessage(_tr("The engine is ready; the next run uses it."), READY_MESSAGE_MS)
        elif state.log is not None:
            bar.showMessage(
                _tr("The engine build stopped without an engine; its log: {log}").format(
                    log=state.log
                )
            )
        else:
            bar.showMessage(_tr("The engine build stopped without an engine."))
        if self.on_ready is not None:
            self.on_ready()

    def stop(self) -> None:
        self._timer.stop()
        if self._poll is not None:
            self._poll.wait()
