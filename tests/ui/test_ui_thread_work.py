"""The UI thread's work does not grow with the photo (issue 16): the real main window with the
Generate panel, "only masked" on. A prompt keystroke touches no whole-mask array; a settled
small stroke neither, nor does it copy the picture again; the history strip's run scan and the
step strip's preview decoding run in worker threads, and a result overtaken by a newer request
is dropped. bench/ui_thread.py measures the milliseconds."""

from __future__ import annotations

import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication

from app.canvas.tools import BrushTool
from app.core.paths import app_paths
from app.core.settings import Settings
from app.imaging.io import save_png_atomic
from app.jobs.job_form import JobForm
from app.pipeline.job.params import ONLY_MASKED, PROMPT
from app.ui.generation import result as result_module
from app.ui.generation import steps as steps_module
from app.ui.shell.features import install_generation_panel
from app.ui.shell.main_window import MainWindow
from app.ui.workspace import controller as controller_module
from app.ui.workspace import run_photos
from app.ui.workspace.history_strip import HistoryEntry

SIDE = 512
WAIT_MS = 20_000


class CountingMask(np.ndarray):
    """The document's mask, counting numpy operations on the whole array (not on slices)."""

    whole_ops = 0

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        full = SIDE * SIDE
        if any(isinstance(a, CountingMask) and a.size == full for a in inputs):
            CountingMask.whole_ops += 1
        plain = [np.asarray(a) if isinstance(a, CountingMask) else a for a in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(np.asarray(o) for o in kwargs["out"])
        return getattr(ufunc, method)(*plain, **kwargs)


@pytest.fixture
def window(qtbot):
    settings = Settings()
    win = MainWindow(settings, job_form=JobForm())
    qtbot.addWidget(win)
    panel = install_generation_panel(win, app_paths(), settings)
    win.resize(1280, 720)
    win.show()
    doc = win.document
    doc.set_image(np.full((SIDE, SIDE, 3), 90, np.uint8))
    mask = np.zeros((SIDE, SIDE), np.float32)
    mask[100:200, 120:260] = 1.0
    doc.replace_mask("Test mask", mask)
    doc.mask = doc.mask.view(CountingMask)
    win.job_form.set(ONLY_MASKED, True)
    QApplication.processEvents()
    yield win
    panel.shutdown()
    getattr(win.workspace, "shutdown", lambda: None)()
    doc.set_modified(False)


def _settle(win) -> None:
    """What the mask-settle timer does 300 ms after the last dab, now."""
    win.generation_panel.model.inputs.document_changed()
    QApplication.processEvents()


def test_a_keystroke_touches_no_whole_mask_array(window) -> None:
    edit = window.generation_panel.prompt_pane.prompt_edit
    edit.insertPlainText("a")  # the first reading may convert the mask once
    QApplication.processEvents()
    CountingMask.whole_ops = 0
    for _ in range(5):
        edit.insertPlainText("b")
        QApplication.processEvents()
    assert window.job_form.get(PROMPT).endswith("bbbbb")
    assert CountingMask.whole_ops == 0
    # ... and what the keystrokes read is right: the mask's box sets the model's input.
    box = window.generation_panel.model.inputs.mask_box()
    assert box is not None and (box.x, box.y, box.width, box.height) == (120, 100, 140, 100)


def test_a_settled_small_stroke_touches_no_whole_array(window, monkeypatch) -> None:
    _settle(window)
    originals: list[object] = []
    result_view = window.generation_panel.run_view.result_view
    real = result_view.set_original
    monkeypatch.setattr(result_view, "set_original", lambda q: (originals.append(q), real(q)))
    CountingMask.whole_ops = 0
    doc = window.document
    window.paint_state.set_size_px(24)
    tool = BrushTool(doc, window.paint_state)
    tool.press(QPointF(400, 400))
    tool.move(QPointF(430, 420))
    tool.release()
    QApplication.processEvents()
    _settle(window)
    assert doc.mask[410, 415] > 0.5  # the stroke is there
    assert CountingMask.whole_ops == 0
    assert originals == []  # the picture did not change: it is not copied again
    inputs = window.generation_panel.model.inputs
    box = inputs.mask_box()
    assert box is not None and box.x + box.width >= 430 and box.y + box.height >= 420
    assert inputs.mask is not None and inputs.mask[410, 415] == round(doc.mask[410, 415] * 255)
    doc.undo()  # undo is exact, and the facts follow it
    assert inputs.mask_box() is not None and inputs.mask_box().width == 140


def _entry(name: str) -> HistoryEntry:
    return HistoryEntry(Path(name), "result", 1, Path(name) / "result.png", "", name, 1)


def test_the_history_scan_runs_off_the_ui_thread_and_a_stale_one_is_dropped(
    window,
    qtbot,
    monkeypatch,
) -> None:
    workspace, strip = window.workspace, window.workspace_area.history
    qtbot.waitUntil(lambda: workspace.history_scans.pending == 0)  # the photo's own scan
    ui_thread = threading.get_ident()
    threads: list[int] = []
    release_first = threading.Event()
    calls: list[str] = []

    def scan(_runs_dir, photo, *_rest):
        threads.append(threading.get_ident())
        name = "old" if not calls else "new"
        calls.append(name)
        if name == "old" and threading.get_ident() != ui_thread:
            release_first.wait(WAIT_MS / 1000)  # the first scan is slow
        return [name]

    monkeypatch.setattr(run_photos, "runs_of_photo", lambda *a: scan(*a))
    monkeypatch.setattr(controller_module, "runs_of_photo", lambda *a: scan(*a), raising=False)
    monkeypatch.setattr(controller_module, "entries_of", lambda run: [_entry(run)])
    thumb_threads: list[int] = []

    def thumbnail(path: Path):
        thumb_threads.append(threading.get_ident())
        return None

    monkeypatch.setattr(controller_module, "entry_thumbnail", thumbnail, raising=False)
    monkeypatch.setattr(
        controller_module,
        "photo_runs",
        lambda runs_dir, photo, current, pipeline: run_photos.runs_of_photo(runs_dir, photo),
        raising=False,
    )
    workspace.refresh_history()  # e.g. the run changed ...
    # the first scan is under way (and held) before the second request: which thread enters
    # scan() first is then not a race
    qtbot.waitUntil(lambda: calls == ["old"], timeout=WAIT_MS)
    workspace.refresh_history()  # ... and changed again before the first scan was done
    qtbot.waitUntil(lambda: [e.prompt for e in strip.entries()] == ["new"], timeout=WAIT_MS)
    assert threads and ui_thread not in threads
    release_first.set()
    qtbot.waitUntil(lambda: workspace.history_scans.dropped == 1, timeout=WAIT_MS)
    QApplication.processEvents()
    assert [e.prompt for e in strip.entries()] == ["new"]  # the old scan's result was dropped
    assert len(threads) == 2 and ui_thread not in threads
    assert thumb_threads and ui_thread not in thumb_threads  # thumbnails decoded there too


def _write_previews(folder: Path, steps: int, value: int) -> None:
    folder.mkdir(parents=True)
    for step in range(1, steps + 1):
        save_png_atomic(folder / f"preview_{step:03d}.png", np.full((16, 16, 3), value, np.uint8))


def test_step_previews_are_decoded_off_the_ui_thread_and_a_stale_load_is_dropped(
    window,
    qtbot,
    tmp_path: Path,
    monkeypatch,
) -> None:
    old_run, new_run = tmp_path / "old", tmp_path / "new"
    _write_previews(old_run / "checkpoints", 3, 10)
    _write_previews(new_run / "checkpoints", 2, 200)
    ui_thread = threading.get_ident()
    threads: list[int] = []
    release_old = threading.Event()
    real = getattr(steps_module, "read_step_previews", None)

    def read(folder: Path, last: int):
        threads.append(threading.get_ident())
        if folder.parent == old_run:
            release_old.wait(WAIT_MS / 1000)
        assert real is not None
        return real(folder, last)

    monkeypatch.setattr(steps_module, "read_step_previews", read, raising=False)
    view = window.generation_panel.run_view
    view.load_step_previews(SimpleNamespace(dir=old_run, last_completed_step=3))
    assert view.strip.steps() == []  # nothing decoded on the UI thread
    view.load_step_previews(SimpleNamespace(dir=new_run, last_completed_step=2))
    qtbot.waitUntil(lambda: view.strip.steps() == [1, 2], timeout=WAIT_MS)
    release_old.set()
    qtbot.waitUntil(lambda: view.strip.reads.dropped == 1, timeout=WAIT_MS)
    QApplication.processEvents()
    assert view.strip.steps() == [1, 2]
    assert view.strip.path(1) == str(new_run / "checkpoints" / "preview_001.png")
    assert threads and ui_thread not in threads


def _two_finished_runs(tmp_path: Path) -> tuple[Path, Path]:
    """Two run folders with a result.png each: the old one's pixels 10, the new one's 200."""
    old_run, new_run = tmp_path / "old", tmp_path / "new"
    for folder, value in ((old_run, 10), (new_run, 200)):
        folder.mkdir()
        save_png_atomic(folder / "result.png", np.full((60, 80, 3), value, np.uint8))
    return old_run, new_run


def test_a_runs_result_is_decoded_off_the_ui_thread_and_a_stale_one_never_lands(
    window,
    qtbot,
    tmp_path: Path,
    monkeypatch,
) -> None:
    """The Run tab's result box reads result.png in a worker when the shown run changes; the
    read of a run no longer shown is dropped, never shown over the newer run's."""
    old_run, new_run = _two_finished_runs(tmp_path)
    ui_thread = threading.get_ident()
    threads: list[int] = []
    release_old = threading.Event()
    real = getattr(result_module, "read_result", None)

    def read(path: Path, max_px: int):
        threads.append(threading.get_ident())
        if path.parent == old_run:
            release_old.wait(WAIT_MS / 1000)
        assert real is not None
        return real(path, max_px)

    monkeypatch.setattr(result_module, "read_result", read, raising=False)
    view = window.generation_panel.run_view

    def finished(folder: Path) -> SimpleNamespace:
        return SimpleNamespace(
            dir=folder, stages=(), finished=True, result=folder / "result.png",
            last_completed_step=0, steps=None, checkpoints=(), color_match=None,
        )  # fmt: skip

    view._run_changed(finished(old_run))
    assert not view.result_view.has_result()  # nothing decoded on the UI thread
    view._run_changed(finished(new_run))
    qtbot.waitUntil(view.result_view.has_result, timeout=WAIT_MS)
    release_old.set()
    qtbot.waitUntil(lambda: view.result_view.reads.dropped == 1, timeout=WAIT_MS)
    QApplication.processEvents()
    shown = view.result_view.current.pixmap().toImage()
    assert shown.pixelColor(0, 0).red() == 200  # the newer run's, not the stale one's
    assert threads and ui_thread not in threads
    # Cleared (no run) while a read is under way: nothing lands.
    view._run_changed(None)
    view._run_changed(finished(old_run))
    view._run_changed(None)
    qtbot.waitUntil(lambda: view.result_view.reads.pending == 0, timeout=WAIT_MS)
    QApplication.processEvents()
    assert not view.result_view.has_result()


def test_the_canvas_reads_an_opened_runs_result_off_the_ui_thread(
    window,
    qtbot,
    tmp_path: Path,
    monkeypatch,
) -> None:
    """The canvas layer decodes an opened run's result.png in a worker (an 8192² PNG took a
    second on the UI thread); a read overtaken by another run is dropped, never shown."""
    old_run, new_run = _two_finished_runs(tmp_path)
    ui_thread = threading.get_ident()
    threads: list[int] = []
    release_old = threading.Event()
    real = controller_module.load_image

    def read(path: Path):
        threads.append(threading.get_ident())
        if Path(path).parent == old_run:
            release_old.wait(WAIT_MS / 1000)
        return real(path)

    monkeypatch.setattr(controller_module, "load_image", read)
    workspace = window.workspace

    def finished(folder: Path) -> SimpleNamespace:
        return SimpleNamespace(
            dir=folder, finished=True, result=folder / "result.png", steps=4,
            spec=SimpleNamespace(image=None, steps=4, prepare=None), color_match=None,
        )  # fmt: skip

    workspace._run_changed(finished(old_run))
    assert workspace.shown is None and workspace.file_reads.busy  # not decoded on the UI thread
    workspace._run_changed(finished(new_run))
    qtbot.waitUntil(lambda: workspace.shown is not None, timeout=WAIT_MS)
    release_old.set()
    qtbot.waitUntil(lambda: workspace.file_reads.pending == 0, timeout=WAIT_MS)
    QApplication.processEvents()
    assert workspace.shown.path == new_run / "result.png"
    assert int(workspace.shown.frame[0, 0, 0]) == 200  # the newer run's, not the stale one's
    assert threads and ui_thread not in threads
    # Back to the photo while a read is under way: nothing lands over it.
    workspace._run_changed(None)
    release_old.clear()
    workspace._run_changed(finished(old_run))
    workspace.show_photo()
    release_old.set()
    qtbot.waitUntil(lambda: workspace.file_reads.pending == 0, timeout=WAIT_MS)
    QApplication.processEvents()
    assert workspace.shown is None and not window.canvas_view.layer.visible
