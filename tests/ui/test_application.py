"""The composition root and the ways a picture gets in: command line, drag and drop."""

from __future__ import annotations

import json
import sys

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication

from app.core.paths import app_paths
from app.pipeline.engine_info import BuildRunning, EngineBuildState
from app.ui.shell import application
from app.ui.shell.engine_build import EngineBuildStatus
from tests.ui.painter import IMAGE_H, IMAGE_W, open_window, write_picture


def test_run_application_opens_the_argument_and_saves_settings(
    qapp, tmp_path, monkeypatch, stepwise_home
) -> None:
    picture = write_picture(tmp_path / "argument.png")
    seen = {}
    created = []

    class RecordingWindow(application.MainWindow):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            created.append(self)

    def fake_exec() -> int:
        # Let the queued "open the argument" run, then look at the window and quit.
        for _ in range(20):
            QApplication.processEvents()
        (window,) = created
        seen["size"] = (window.document.width, window.document.height)
        seen["path"] = window.document.image_path
        seen["help"] = [a.text() for a in window.help_actions.menu.actions() if a.text()]
        window.paint_state.set_size_px(99)
        window.hide()
        return 0

    monkeypatch.setattr(application, "MainWindow", RecordingWindow)
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    monkeypatch.setattr(QApplication, "exec", staticmethod(fake_exec))
    monkeypatch.setattr(application.QApplication, "instance", staticmethod(lambda: qapp))
    try:
        assert application.run_application([str(picture)]) == 0
    finally:
        qapp.setStyleSheet("")
    assert sys.excepthook is not sys.__excepthook__
    help_items = seen.pop("help")
    assert seen == {"size": (IMAGE_W, IMAGE_H), "path": picture}
    assert help_items[0] == "Try with demo models" and "&About Stepwise" in help_items
    assert help_items.count("&Keyboard Shortcuts") == 1
    saved = json.loads(app_paths().settings_file.read_text(encoding="utf-8"))
    assert saved["paint"]["brush_size"] == 99
    assert str(picture) in saved["recent_files"]


def test_dropping_an_image_file_opens_it(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    dropped = write_picture(tmp_path / "dropped.png", 64, 48)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(dropped))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)
    assert window.document.image_path == dropped
    assert (window.document.width, window.document.height) == (64, 48)


CHILD = """
import sys

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from app.jobs.job_form import SAVE_DELAY_MS
from app.pipeline.job.params import DIFFUSION_MODEL
from app.pipeline.engine_info import BuildRunning, EngineBuildState
from app.ui.shell import application
from app.ui.shell.engine_build import EngineBuildStatus
from app.ui.shell.main_window import MainWindow

def window():
    found = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]
    return found[0] if found and not found[0].document.is_empty() else None

def change_model():
    if window() is None:
        QTimer.singleShot(50, change_model)
        return
    window().job_form.set(DIFFUSION_MODEL, sys.argv[2])  # as the model field does
    QTimer.singleShot(SAVE_DELAY_MS + 300, open_another)

def open_another():
    window().open_image(sys.argv[3])  # the recent files change; killed right after
    print("changed", flush=True)

QTimer.singleShot(0, change_model)
application.run_application([sys.argv[1]])
"""


def test_a_kill_9_keeps_the_model_path_and_the_recent_files(tmp_path, stepwise_home) -> None:
    """A real Stepwise process changes a model path, then opens another picture and is
    SIGKILLed right after, with no chance to save on quit: the file already has both."""
    import os
    import signal
    import subprocess

    picture = write_picture(tmp_path / "first.png")
    second = write_picture(tmp_path / "second.png")
    model = tmp_path / "models" / "flux-2-klein-9b-Q4_0.gguf"
    env = dict(
        os.environ,
        STEPWISE_HOME=str(stepwise_home),
        QT_QPA_PLATFORM="offscreen",
        STEPWISE_SD_STAGE=str(tmp_path / "no-engine"),  # the device probe fails at once
    )
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(picture), str(model), str(second)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
        cwd=str(application.RESOURCES_DIR.parent),
    )
    try:
        assert child.stdout is not None
        for line in child.stdout:
            if line.strip() == "changed":
                break
        else:
            raise AssertionError("the child never made its changes")
        assert child.poll() is None  # still running: nothing was saved by a clean quit
        os.kill(child.pid, signal.SIGKILL)
    finally:
        if child.poll() is None:
            child.kill()
        child.wait(timeout=30)
        if child.stdout is not None:
            child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    saved = json.loads(app_paths().settings_file.read_text(encoding="utf-8"))
    assert saved["job"]["diffusion_model"] == str(model)
    assert saved["recent_files"][:2] == [str(second), str(picture)]


def test_brush_changes_are_saved_once_they_settle(qtbot, tmp_path, stepwise_home) -> None:
    settings = application.Settings()
    window = open_window(qtbot, tmp_path, settings)
    path = app_paths().settings_file
    autosave = application.SettingsAutosave(window, settings, path)
    for size in (40, 50, 61):
        window.paint_state.set_size_px(size)
    assert not path.exists()  # not on every change of a drag
    qtbot.waitUntil(path.exists, timeout=5_000)
    assert json.loads(path.read_text(encoding="utf-8"))["paint"]["brush_size"] == 61
    autosave.deleteLater()


def test_settings_ok_after_only_the_language_leaves_the_job_alone(
    qtbot, tmp_path, monkeypatch, stepwise_home
) -> None:
    from app.jobs.job_form import JobForm
    from app.pipeline.job import params as P
    from app.ui.shell import settings_dialog

    settings = application.Settings()
    form = JobForm(
        {
            "llm_device": "cpu",
            "diffusion_device": "cpu",
            "vae_device": "cpu",
            "diffusion_model": str(tmp_path / "dit.gguf"),
            "threads": 3,
        }
    )
    before = form.values()
    sets: list[str] = []
    form.changed.connect(lambda *a: sets.append(str(a)))
    paths = app_paths()

    def exec_with_language_only(dialog: settings_dialog.SettingsDialog) -> int:
        dialog.language.setCurrentIndex(dialog.language.findData("zh_CN"))
        return 1

    monkeypatch.setattr(settings_dialog.SettingsDialog, "exec", exec_with_language_only)
    assert settings_dialog.open_settings_dialog(None, settings, form, paths)
    assert form.values() == before
    assert form.get(P.DIFFUSION_DEVICE) == "cpu" and form.get(P.THREADS) == 3
    assert sets == []  # the form was not even touched
    assert settings.language == "zh_CN"
    saved = json.loads(paths.settings_file.read_text(encoding="utf-8"))
    assert saved["language"] == "zh_CN"  # saved at once, not at quit


@pytest.mark.parametrize("engine_ready", [False, True])
def test_the_window_says_when_the_engine_is_being_built(
    qtbot, tmp_path, engine_ready: bool
) -> None:
    """No engine yet: generating waits for the build. An engine already (the faster Vulkan one
    is built in the background, issue 30 item 12): runs use the one there is meanwhile."""
    window = open_window(qtbot, tmp_path)
    running = BuildRunning("compile", 120, 340, 250.0, 460.0)
    answers = [
        EngineBuildState(running, engine_ready, None),
        EngineBuildState(None, True, None),
    ]
    ready: list[bool] = []
    status = EngineBuildStatus(window, lambda: ready.append(True), ask=lambda: answers.pop(0))
    status.start()
    qtbot.waitUntil(lambda: status.building is not None, timeout=10_000)
    said = window.statusBar().currentMessage()
    assert "compiling 120/340, 4:10 elapsed, about 7:40 left" in said
    if engine_ready:
        assert said.startswith("Building a faster engine (") and "use the current one" in said
    else:
        assert said.startswith("Building the engine (") and "generating works when" in said
    status.check()
    qtbot.waitUntil(lambda: ready == [True], timeout=10_000)
    assert window.statusBar().currentMessage() == "The engine is ready; the next run uses it."
    status.stop()


def test_a_build_that_stops_without_an_engine_names_its_log(qtbot, tmp_path) -> None:
    window = open_window(qtbot, tmp_path)
    log = tmp_path / "engine-build.log"
    answers = [
        EngineBuildState(BuildRunning("", 0, 0, 3.0, None), False, log),
        EngineBuildState(None, False, log),
    ]
    status = EngineBuildStatus(window, ask=lambda: answers.pop(0))
    status.start()
    qtbot.waitUntil(lambda: status.building is not None, timeout=10_000)
    assert "starting, 0:03 elapsed, no estimate yet" in window.statusBar().currentMessage()
    status.check()
    qtbot.waitUntil(lambda: status.building is None, timeout=10_000)
    said = window.statusBar().currentMessage()
    assert said == f"The engine build stopped without an engine; its log: {log}"
    # The faster one failed beside a working engine: not "the engine is ready".
    answers += [
        EngineBuildState(BuildRunning("compile", 5, 100, 30.0, None), True, log),
        EngineBuildState(None, True, log, built=False),
    ]
    status.check()
    qtbot.waitUntil(lambda: status.building is not None, timeout=10_000)
    status.check()
    qtbot.waitUntil(lambda: status.building is None, timeout=10_000)
    said = window.statusBar().currentMessage()
    assert said.startswith("The faster engine could not be built; runs use the current one.")
    status.stop()
