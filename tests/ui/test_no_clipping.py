"""No text is cut at 1280×720 (issue 41): the real main window on the real pipeline and engine
(tiny models) with a photo, a finished run in the history strip, a step picked in the Run tab,
model-file notes and a queued job — every tab and dock raised in turn, in English and 简体中文;
every visible label, button, icon-list caption and scroll area is measured
(tests/ui/clipping.py). The Settings dialog is issue 37's, not measured here. Screenshots go
to tmp_path (and to $STEPWISE_SCREENSHOT_DIR when set)."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QApplication, QDockWidget

from app.imaging.io import encode_png, load_mask
from app.pipeline.queue.jobs import JobQueue
from app.ui.words.i18n import TsTranslator
from tests.ui.clipping import clipped, shot_dirs
from tests.ui.runs_fixtures import main_window, spec, write_photo

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]
W, H = 1280, 720
RUN_TIMEOUT_MS = 300_000


def _settle() -> None:
    for _ in range(5):
        QApplication.processEvents()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_no_text_is_cut_at_1280x720(qtbot, tmp_path, language, sd_stage, tiny_models) -> None:
    translator = TsTranslator(language) if language != "en" else None
    if translator is not None:
        QCoreApplication.installTranslator(translator)
    try:
        from app.core.paths import app_paths

        photo, mask = write_photo(tmp_path / "我的 照片", 320, 240)
        JobQueue(app_paths()).add([spec(tiny_models, "a queued door in the rain " * 3, 2)])
        window = main_window(qtbot, sd_stage, tiny_models, show=False)
        window.resize(W, H)
        window.show()
        qtbot.waitExposed(window)
        assert window.open_image(photo)
        window.document.replace_mask("painted", load_mask(mask).astype("float32") / 255.0)
        panel = window.generation_panel
        model = panel.model
        model.run_all()  # the plan is not asked: this is about what the window shows
        qtbot.waitUntil(
            lambda: model.run is not None and model.run.finished, timeout=RUN_TIMEOUT_MS
        )
        qtbot.waitUntil(lambda: not model.state.busy and not model.session.busy)
        history = window.workspace_area.history
        qtbot.waitUntil(lambda: len(history.entries()) >= 1, timeout=60_000)
        panel.tabs.setCurrentIndex(1)
        strip = panel.run_view.strip
        qtbot.waitUntil(lambda: len(strip.steps()) >= 2, timeout=60_000)
        item = strip.item(1)  # a step picked (a click): the Run tab must not scroll sideways
        qtbot.mouseClick(strip.viewport(), Qt.MouseButton.LeftButton,
                         pos=strip.visualItemRect(item).center())  # fmt: skip
        assert panel.run_view.strip.selected_step() == 2
        assert panel.run_view.step_label.text()
        # A model-file note (a file that is not there) under Setup.
        form = model.form
        form.update({"lora_dir": str(tmp_path / "不存在的 LoRA 文件夹")})
        window.queue_controller.model.refresh()
        _settle()
        # The window's run timed every stage here: the queue's estimate is known.
        assert window.queue_controller.model.eta_seconds() is not None
        dirs = shot_dirs(tmp_path)
        found: dict[str, list[str]] = {}
        for dock in window.findChildren(QDockWidget):
            if not dock.isVisible():
                continue
            dock.raise_()
            _settle()
            tabs = range(panel.tabs.count()) if dock.widget() is panel else [None]
            for tab in tabs:
                if tab is not None:
                    panel.tabs.setCurrentIndex(tab)
                    _settle()
                where = f"{dock.objectName()}-{tab if tab is not None else 0}-{language}"
                found[where] = clipped(window)
                image = window.grab()
                for d in dirs:
                    image.save(str(d / f"clip-{where}.png"))
        assert not any(found.values()), "\n".join(
            f"{where}: {p}" for where, problems in found.items() for p in problems
        )
        panel.shutdown()
    finally:
        if translator is not None:
            QCoreApplication.removeTranslator(translator)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_history_captions_keep_their_first_characters(qtbot, tmp_path, language) -> None:
    """Issue 41: the history strip read "5:13 · seed 42" for 15:13 — its cells were as wide as
    the first caption, and a wider one later (other digits, "Result, accepted at step 10") lost
    characters on both sides."""
    from app.ui.workspace.history_strip import HistoryEntry, ResultHistoryStrip

    translator = TsTranslator(language) if language != "en" else None
    if translator is not None:
        QCoreApplication.installTranslator(translator)
    try:
        strip = ResultHistoryStrip()
        qtbot.addWidget(strip)
        strip.resize(813, strip.height())  # the canvas's width at 1280×720
        png = tmp_path / "result.png"
        png.write_bytes(encode_png(np.full((48, 64, 3), 90, np.uint8)))
        entries = [
            HistoryEntry(tmp_path / "a", "result", 4, png, "2026-12-06T11:11:00", "a door", 1),
            HistoryEntry(tmp_path / "b", "decoded", 10, png, "2026-12-06T15:48:00", "a door", 42),
            HistoryEntry(
                tmp_path / "b",
                "result",
                10,
                png,
                "2026-12-06T15:48:00",
                "a door",
                42,
                accepted=True,
            ),  # fmt: skip
        ]
        entries += [  # more than the strip shows: it scrolls to the newest
            HistoryEntry(tmp_path / f"r{i}", "result", 4, png, f"2026-12-06T1{i}:1{i}:00", "a", i)
            for i in range(10)
        ]
        strip.set_entries(entries)
        strip.show()
        qtbot.waitExposed(strip)
        assert clipped(strip) == []
    finally:
        if translator is not None:
            QCoreApplication.removeTranslator(translator)
