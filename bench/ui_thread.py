"""UI-thread cost of a prompt keystroke, of a settled brush stroke, and of a change of the run
shown, by photo size.

    .venv/bin/python bench/ui_thread.py [--sizes 1024,4096,8192] [--keys 20] [--strokes 6]
                                        [--changes 6]

The real main window with the Generate panel installed (offscreen), a photo of N×N px with a
painted mask, "only masked" off and on. A keystroke is one character typed into the prompt
box and every event it causes handled; a settled stroke is a 64-px brush stroke of 12 pointer
events through the canvas's BrushTool, the mask-settle timer fired (what the job's inputs do
300 ms after the last dab) and the events handled. Work handed to worker threads is not
counted: that is the point.

Printed side by side per size: the UI thread's CPU time (time.thread_time, the robust figure on
a busy machine: preemption by other processes is not in it) and the wall time, medians, and the
ratio to the target (≤ 8 ms per keystroke, ≤ 30 ms per stroke at every size: the cost must not
grow with the photo). Painting the canvas is not in these figures (offscreen, nothing is
exposed between events).

A run change is the shown run switched between two finished runs whose result.png is N×N px
(made here, not by the engine), until the Run tab's result box shows the new run's result:
"Run tab" calls the Run tab's own handler alone, "window" makes the run current through the
session, so every listener (the canvas layer, the history strip) does its part too. The UI
thread's CPU time spent in events until the result is shown is the figure (the loop that waits
sleeps between event rounds, so the wait itself costs next to nothing).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

KEY_TARGET_MS = 8.0
STROKE_TARGET_MS = 30.0
WAIT_CEILING_S = 300.0
BRUSH_PX = 64
STROKE_EVENTS = 12


def _photo(size: int) -> np.ndarray:
    y, x = np.mgrid[0:size, 0:size].astype(np.uint16)
    return np.stack([x % 256, y % 256, (x + y) // 64 % 256], -1).astype(np.uint8)


def _window(settings_cls, form_cls):
    from app.core.paths import app_paths
    from app.ui.shell.features import install_generation_panel
    from app.ui.shell.main_window import MainWindow

    settings = settings_cls()
    window = MainWindow(settings, job_form=form_cls())
    install_generation_panel(window, app_paths(), settings)
    window.resize(1280, 720)
    window.show()
    return window


def _settle_timers(window) -> list:
    from PySide6.QtCore import QTimer

    from app.ui.shell.features import MASK_SETTLE_MS

    model = window.generation_panel.model
    return [t for t in model.findChildren(QTimer) if t.interval() == MASK_SETTLE_MS]


def measure(size: int, only_masked: bool, keys: int, strokes: int) -> dict[str, float]:
    from PySide6.QtCore import QPointF, QRect
    from PySide6.QtWidgets import QApplication

    from app.canvas.tools import BrushTool
    from app.core.settings import Settings
    from app.jobs.job_form import JobForm
    from app.pipeline.job.params import ONLY_MASKED

    window = _window(Settings, JobForm)
    try:
        doc = window.document
        doc.set_image(_photo(size))
        mask = np.zeros((size, size), np.float32)
        mask[size // 4 : size // 2, size // 4 : size // 2] = 1.0
        doc.replace_mask("Bench mask", mask)
        window.job_form.set(ONLY_MASKED, only_masked)
        QApplication.processEvents()
        edit = window.generation_panel.prompt_pane.prompt_edit
        settle = _settle_timers(window)
        for timer in settle:
            timer.stop()
        QApplication.processEvents()

        key_cpu, key_wall = [], []
        for _ in range(keys + 1):
            start, start_cpu = time.perf_counter(), time.thread_time()
            edit.insertPlainText("a")
            QApplication.processEvents()
            key_cpu.append((time.thread_time() - start_cpu) * 1000.0)
            key_wall.append((time.perf_counter() - start) * 1000.0)

        state = window.paint_state
        state.set_size_px(BRUSH_PX)
        tool = BrushTool(doc, state)
        stroke_cpu, stroke_wall = [], []
        for i in range(strokes + 1):
            x0, y0 = size * 0.6 + 8 * i, size * 0.6
            start, start_cpu = time.perf_counter(), time.thread_time()
            tool.press(QPointF(x0, y0))
            for k in range(1, STROKE_EVENTS + 1):
                tool.move(QPointF(x0 + 10 * k, y0 + 6 * k))
                QApplication.processEvents()
            tool.release()
            QApplication.processEvents()
            for timer in settle:  # the settle timer fires (no 300-ms wait in the figures)
                if timer.isActive():
                    timer.stop()
                    timer.timeout.emit()
            QApplication.processEvents()
            stroke_cpu.append((time.thread_time() - start_cpu) * 1000.0)
            stroke_wall.append((time.perf_counter() - start) * 1000.0)
        doc.notify_mask_region(QRect(0, 0, 1, 1))
        # The first of each is warm-up (first conversions, kernels, caches).
        return {
            "key_cpu": statistics.median(key_cpu[1:]),
            "key_wall": statistics.median(key_wall[1:]),
            "stroke_cpu": statistics.median(stroke_cpu[1:]),
            "stroke_wall": statistics.median(stroke_wall[1:]),
        }
    finally:
        window.generation_panel.shutdown()
        window.document.set_modified(False)
        window.close()
        window.deleteLater()
        QApplication.processEvents()


def _finished_run(folder: Path, result: Path):
    from app.pipeline.api import RunSnapshot
    from app.pipeline.job.spec import JobSpec, ModelFiles
    from app.pipeline.run.records import RESULT_FILE

    folder.mkdir(parents=True, exist_ok=True)
    os.link(result, folder / RESULT_FILE)
    spec = JobSpec(models=ModelFiles("d.gguf", "l.gguf", "v.safetensors"), prompt="bench")
    return RunSnapshot(
        dir=folder, id=folder.name, created="2026-12-02T00:00:00+00:00", spec=spec, stages=(),
        steps=4, last_completed_step=4, checkpoints=(), result=folder / RESULT_FILE,
        model_input=None, failure=None,
    )  # fmt: skip


def _until(app, done) -> None:
    end = time.perf_counter() + WAIT_CEILING_S
    while not done() and time.perf_counter() < end:
        app.processEvents()
        time.sleep(0.01)  # not UI-thread CPU: the figure counts only the events handled
    app.processEvents()
    if not done():
        raise RuntimeError("the result never showed")


def measure_run_change(size: int, changes: int, work: Path) -> dict[str, float]:
    from PySide6.QtWidgets import QApplication

    from app.core.settings import Settings
    from app.imaging.io import encode_png
    from app.jobs.job_form import JobForm

    app = QApplication.instance()
    result = work / f"result-{size}.png"
    result.write_bytes(encode_png(_photo(size), 1))
    runs = [_finished_run(work / f"run-{size}-{i}", result) for i in range(2)]
    window = _window(Settings, JobForm)
    try:
        view = window.generation_panel.run_view
        session = window.generation_panel.model.session
        figures: dict[str, float] = {}
        for name, change in (
            ("tab", view._run_changed),
            ("window", session._set_run),
        ):
            cpu, wall = [], []
            for i in range(changes + 1):
                view._run_changed(None)
                session._set_run(None)
                reads = getattr(view.result_view, "reads", None)  # None: read on the UI thread
                _until(app, lambda r=reads: r is None or not r.busy)
                run = runs[i % 2]
                start, start_cpu = time.perf_counter(), time.thread_time()
                change(run)
                _until(app, lambda r=run: view.result_view.has_result() and view.shown_run == r.dir)
                cpu.append((time.thread_time() - start_cpu) * 1000.0)
                wall.append((time.perf_counter() - start) * 1000.0)
            figures[f"{name}_cpu"] = statistics.median(cpu[1:])
            figures[f"{name}_wall"] = statistics.median(wall[1:])
        return figures
    finally:
        window.generation_panel.shutdown()
        window.document.set_modified(False)
        window.close()
        window.deleteLater()
        QApplication.processEvents()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="1024,4096,8192")
    parser.add_argument("--keys", type=int, default=20)
    parser.add_argument("--strokes", type=int, default=6)
    parser.add_argument("--changes", type=int, default=6)
    parser.add_argument("--only", choices=("input", "run-change"), default=None)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    home = tempfile.mkdtemp(prefix="stepwise-bench-ui-")
    os.environ["STEPWISE_HOME"] = home
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.only != "run-change":
        _input_table(sizes, args.keys, args.strokes)
    if args.only != "input":
        _run_change_table(sizes, args.changes, Path(home))
    from PySide6.QtCore import QThread

    for thread in app.findChildren(QThread):  # the workers (history scans) end before the app
        thread.wait(60_000)
    del app
    return 0


def _run_change_table(sizes: list[int], changes: int, work: Path) -> None:
    rows = [(size, measure_run_change(size, changes, work)) for size in sizes]
    print(f"{'result':>11} | {'Run tab cpu':>11} {'wall':>8} | {'window cpu':>10} {'wall':>8}")
    for size, f in rows:
        print(
            f"{f'{size}²':>11} | {f['tab_cpu']:11.2f} {f['tab_wall']:8.2f} | "
            f"{f['window_cpu']:10.2f} {f['window_wall']:8.2f}"
        )
    print("run change: ms until the new run's result is shown, medians (UI-thread CPU, wall).")


def _input_table(sizes: list[int], keys: int, strokes: int) -> None:
    rows = []
    for size in sizes:
        for only_masked in (False, True):
            figures = measure(size, only_masked, keys, strokes)
            rows.append((size, only_masked, figures))
    print(
        f"{'photo':>11} {'only masked':>11} | {'key cpu':>8} {'key wall':>9} {'ratio':>6} | "
        f"{'stroke cpu':>10} {'stroke wall':>11} {'ratio':>6}"
    )
    for size, only_masked, f in rows:
        print(
            f"{f'{size}²':>11} {('on' if only_masked else 'off'):>11} | "
            f"{f['key_cpu']:8.2f} {f['key_wall']:9.2f} {f['key_cpu'] / KEY_TARGET_MS:6.2f} | "
            f"{f['stroke_cpu']:10.2f} {f['stroke_wall']:11.2f} "
            f"{f['stroke_cpu'] / STROKE_TARGET_MS:6.2f}"
        )
    print(
        f"ms on the UI thread, medians; ratio = UI-thread CPU / target (keystroke "
        f"{KEY_TARGET_MS:g} ms, settled stroke {STROKE_TARGET_MS:g} ms); ≤ 1.00 meets it."
    )


if __name__ == "__main__":
    sys.exit(main())
