"""Quitting waits for or cancels every background thread before Qt goes: a real Stepwise
process (offscreen) quits with each kind of background work in flight — a run held at a step
("Suspend and quit", its decoded previews), the history strip's scan, a file read for the
canvas, a memory plan — and exits 0. Qt aborts the process (exit 134, `QThread: Destroyed
while thread 'HistoryScan' is still running`) when a running thread is destroyed: a run's end
delivered after the shutdown started a history scan nobody waited for."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from app.imaging.io import save_png_atomic
from app.ui.shell import application

pytestmark = pytest.mark.slow

QUIT_TIMEOUT_S = 120

CHILD = """
import os, sys
import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from app.core.settings import Settings
from app.imaging.io import load_image
from app.ui.shell import application
from app.ui.shell.main_window import MainWindow
from tests.models.forms import tiny_job_form
from tests.models.generate import ModelSet

photo, engine, kind = sys.argv[1], sys.argv[2], sys.argv[3]
models = ModelSet(*(__import__("pathlib").Path(p) for p in sys.argv[4:7]))
settings = Settings()
settings.engine_path = engine
application.load_settings = lambda _path: settings
application.form_from_settings = lambda _s, _p: tiny_job_form(models, "a green door", 3)
B = QMessageBox.StandardButton

def answer(_parent, _title, _text, buttons, *_rest):
    # "Unsaved mask": discard it; "A run is in progress": Suspend and quit (Yes).
    return B.Discard if buttons & B.Discard else B.Yes

QMessageBox.question = staticmethod(answer)

# A slow disk or a 12-megapixel photo to hash: the history scan and a file read outlast the
# owners' own wait at shutdown (a fault injected by slowing the real call down).
SLOW_S = 8
import time
from app.ui.workspace import controller as workspace_controller
real_photo_runs = workspace_controller.photo_runs
def slow_photo_runs(*args):
    time.sleep(SLOW_S)
    return real_photo_runs(*args)
workspace_controller.photo_runs = slow_photo_runs

def window():
    found = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]
    return found[0] if found and not found[0].document.is_empty() else None

def quit_now():
    print("quitting", flush=True)
    window().close()

def start():
    win = window()
    if win is None:
        QTimer.singleShot(50, start)
        return
    mask = np.zeros((win.document.height, win.document.width), np.float32)
    mask[16:48, 16:48] = 1.0
    win.document.replace_mask("test mask", mask)
    model = win.generation_panel.model
    if kind == "run":
        os.environ["SD_STAGE_TEST_PAUSE_AT_STEP"] = "1"  # the engine holds the run at step 1
        model.session.runner_started.connect(
            lambda runner: runner.paused.connect(lambda _step: quit_now())
        )
        win.generation_panel.all_button.click()
        return
    if kind == "history":
        win.workspace.refresh_history()
    elif kind == "file":
        def slow_read():
            time.sleep(SLOW_S)
            return load_image(photo)
        win.workspace.file_reads.request(slow_read, lambda _frame: None)
    elif kind == "plan":
        win.generation_panel.memory_plan.refresh()
    quit_now()  # the work just started: in flight

QTimer.singleShot(0, start)
code = application.run_application([photo])
print("exit", code, flush=True)
sys.exit(code)
"""


@pytest.mark.parametrize("kind", ["run", "history", "file", "plan"])
def test_quitting_with_work_in_flight_exits_cleanly(
    kind: str, tmp_path: Path, sd_stage: Path, tiny_models, stepwise_home: Path
) -> None:
    picture = tmp_path / "photo.png"
    y, x = np.mgrid[0:64, 0:96]
    save_png_atomic(picture, np.stack([x * 2, y * 3, (x + y) % 256], -1).astype(np.uint8))
    env = dict(os.environ, STEPWISE_HOME=str(stepwise_home), QT_QPA_PLATFORM="offscreen")
    env.pop("SD_STAGE_TEST_PAUSE_AT_STEP", None)
    models = [str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)]
    child = subprocess.run(
        [sys.executable, "-c", CHILD, str(picture), str(sd_stage), kind, *models],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(application.RESOURCES_DIR.parent),
        timeout=QUIT_TIMEOUT_S,
    )
    out = child.stdout + child.stderr
    assert "quitting" in child.stdout, out
    assert "Destroyed while thread" not in out, out
    assert child.returncode == 0, out
