"""The engine build in the status bar (issue 41 item 10): the build's numbers rendered in the
window's language — never native/build.py's English line inside a Chinese sentence — and an
estimate that moves with the clock."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QLabel

from app.pipeline.engine_info import BuildRunning, EngineBuildState
from app.ui.shell.application import ui_font
from app.ui.shell.engine_build import clock_text, progress_text, status_text
from app.ui.words.i18n import TsTranslator
from tests.ui.painter import open_window

SHOTS = Path(os.environ.get("STEPWISE_SHOTS", "/tmp/stepwise-shots"))
MESSAGE_MARGIN_PX = 8  # QStatusBar's own padding around its message

LATIN = re.compile(r"[A-Za-z]")

BUILDS = [
    BuildRunning("", 0, 0, 2.0, None),
    BuildRunning("download", 0, 0, 12.0, None),
    BuildRunning("patch", 0, 0, 40.0, 1500.0),
    BuildRunning("configure", 0, 0, 61.0, 1400.0),
    BuildRunning("compile", 0, 0, 70.0, None),
    BuildRunning("compile", 45, 100, 600.0, 733.0),
    BuildRunning("compile", 120, 340, 250.0, 460.0),
    BuildRunning("compile", 97, 100, 1900.0, -480.0),
]


@pytest.mark.parametrize("engine_ready", [False, True])
def test_the_build_is_said_in_chinese_without_english(zh_cn, engine_ready: bool) -> None:
    for build in BUILDS:
        text = status_text(EngineBuildState(build, engine_ready, None))
        assert LATIN.findall(text.replace("Stepwise", "")) == [], text
    said = status_text(EngineBuildState(BUILDS[6], False, None))
    assert said == "正在构建引擎（正在编译 120/340，已用 4:10，约剩 7:40）；构建完成后即可生成。"


def test_the_build_in_english(qapp) -> None:
    assert progress_text(BUILDS[0]) == "starting, 0:02 elapsed, no estimate yet"
    assert progress_text(BUILDS[5]) == "compiling 45 %, 10:00 elapsed, about 12:13 left"
    assert progress_text(BUILDS[6]) == "compiling 120/340, 4:10 elapsed, about 7:40 left"
    # Past the build's own estimate while one long file compiles: said, with the clock moving.
    assert progress_text(BUILDS[7]) == (
        "compiling 97 %, 31:40 elapsed, taking longer than estimated"
    )


def test_clock_text() -> None:
    assert clock_text(0) == "0:00"
    assert clock_text(59.6) == "1:00"
    assert clock_text(3725) == "1:02:05"
    assert clock_text(-3) == "0:00"


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_longest_build_message_fits_the_status_bar_at_1280(
    qtbot, tmp_path, language: str
) -> None:
    """At 1280x720 the status bar's message shares the row with the painter's labels: the
    build's sentence, with its longest numbers, is not cut (the first English one was)."""
    translator = TsTranslator("zh_CN") if language == "zh_CN" else None
    if translator is not None:
        QCoreApplication.installTranslator(translator)
    try:
        window = open_window(qtbot, tmp_path)
        window.setFont(ui_font(window.font(), language))  # the app's, without its global style
        window.resize(1280, 720)
        qtbot.waitUntil(lambda: window.width() == 1280)
        bar = window.statusBar()
        labels = [w for w in bar.findChildren(QLabel) if w.isVisible() and w.x() > 0]
        room = min(label.x() for label in labels) - 2 * MESSAGE_MARGIN_PX
        longest = BuildRunning("compile", 1234, 1234, 3599.0, 3599.0)
        for engine_ready in (False, True):
            text = status_text(EngineBuildState(longest, engine_ready, None))
            bar.showMessage(text)
            width = bar.fontMetrics().horizontalAdvance(text)
            assert width <= room, (text, room)
        if language == "zh_CN":  # looked at: /work/logs/shots/first-start-*.png
            SHOTS.mkdir(parents=True, exist_ok=True)
            assert window.grab().save(str(SHOTS / f"first-start-bar-{language}.png"))
    finally:
        if translator is not None:
            QCoreApplication.removeTranslator(translator)
