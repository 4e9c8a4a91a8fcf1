"""The history strip under the canvas (issue 16, walk item 9): its entries say when their run
was made, so two results of seed 42 differ, and its appearing does not shrink the canvas."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.core.settings import Settings
from app.imaging.io import save_png_atomic
from app.ui.shell.main_window import MainWindow
from app.ui.workspace.history_strip import HistoryEntry


def _entry(tmp_path: Path, created: str) -> HistoryEntry:
    path = tmp_path / f"result_{created[11:13]}.png"
    save_png_atomic(path, np.full((16, 16, 3), 120, np.uint8))
    return HistoryEntry(tmp_path, "result", 4, path, created, "a red door", 42)


def test_entries_of_the_same_seed_say_when_they_were_made(qtbot, tmp_path: Path) -> None:
    window = MainWindow(Settings())
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    qtbot.waitExposed(window)
    canvas = window.canvas_view
    height = canvas.height()
    strip = window.workspace_area.history
    entries = [_entry(tmp_path, "2026-12-02T03:15:00Z"), _entry(tmp_path, "2026-12-02T04:40:00Z")]
    strip.set_entries(entries)
    assert strip.isVisible()
    labels = [strip.item(row).text() for row in range(strip.count())]
    assert labels[0] != labels[1] and all("seed 42" in label for label in labels)
    assert canvas.height() == height  # the strip's place was kept: the picture does not jump
