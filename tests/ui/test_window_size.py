"""The main window's minimum size stays within 1280×720 whatever the state: the real window
(app/ui/shell/main_window.py) with the generation panel installed, 10 unfinished runs offered (the
start-up dialog and the Runs panel) and an error banner shown, in English and 简体中文.
Screenshots of the window, the dialog and the Runs panel at 1280×720 go to tmp_path (and to
$STEPWISE_SCREENSHOT_DIR when set)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication

from app.core.paths import app_paths
from app.pipeline.runner import Pipeline
from app.ui.words.i18n import TsTranslator
from tests.ui.clipping import shot_dirs
from tests.ui.runs_fixtures import main_window, spec, stopped_run, write_photo

pytestmark = pytest.mark.slow
MAX_W, MAX_H = 1280, 720
RUNS = 10


def _save(widget, name: str, dirs: list[Path]) -> None:
    image = widget.grab()
    assert not image.isNull()
    for d in dirs:
        assert image.save(str(d / name)), d / name


@pytest.fixture(scope="module")
def ten_runs_made(tmp_path_factory: pytest.TempPathFactory, sd_stage: Path, tiny_models):
    """The 10 unfinished runs, made once for both languages (in a home of their own)."""
    home = tmp_path_factory.mktemp("ten-runs-home")
    image, mask = write_photo(home / "in")
    api = Pipeline(app_paths({"STEPWISE_HOME": str(home)}), sd_stage, cache_limit_mb=64)
    made = []
    for i in range(RUNS):
        photo = (image, mask) if i % 2 == 0 else (None, None)
        job = spec(tiny_models, f"door number {i} in the rain, a long prompt " * 2, 4, *photo)
        made.append(stopped_run(api, job, after_step=1 + i % 2)[0])
    return made


@pytest.fixture
def ten_unfinished_runs(ten_runs_made: list[Path]) -> list[Path]:
    """Copies of the 10 runs in this test's own home (a run folder is relocatable)."""
    runs_dir = app_paths().runs_dir
    runs_dir.mkdir(parents=True, exist_ok=True)
    return [Path(shutil.copytree(run, runs_dir / run.name)) for run in ten_runs_made]


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_minimum_size_fits_1280x720_with_10_runs_and_an_error(
    qtbot, tmp_path, language, ten_unfinished_runs, sd_stage, tiny_models
) -> None:
    translator = TsTranslator(language) if language != "en" else None
    if translator is not None:
        QCoreApplication.installTranslator(translator)
    try:
        window = main_window(qtbot, sd_stage, tiny_models)
        controller = window.runs_controller
        panel = window.generation_panel
        qtbot.waitUntil(lambda: controller.dialog is not None and controller.dialog.isVisible())
        qtbot.waitUntil(lambda: len(controller.runs_panel.list_view.rows) == RUNS)
        dialog = controller.dialog
        assert len(dialog.list_view.rows) == RUNS
        panel.error_banner.show_error(
            "Diffuse failed: the engine stopped unexpectedly. " * 6,
            "Try: run the stage again; if it fails again, open the engine log.",
        )
        panel.tabs.setCurrentIndex(1)
        controller.generate_dock.raise_()
        QApplication.processEvents()
        hint = window.minimumSizeHint().expandedTo(window.minimumSize())
        assert hint.width() <= MAX_W and hint.height() <= MAX_H, hint
        for dock in (controller.generate_dock, controller.runs_dock):
            dock.raise_()
            QApplication.processEvents()
            hint = window.minimumSizeHint().expandedTo(window.minimumSize())
            assert hint.width() <= MAX_W and hint.height() <= MAX_H, (dock.objectName(), hint)
        dialog_min = dialog.minimumSizeHint()
        assert dialog_min.width() <= MAX_W and dialog_min.height() <= MAX_H, dialog_min
        window.resize(MAX_W, MAX_H)
        QApplication.processEvents()
        assert (window.width(), window.height()) == (MAX_W, MAX_H)

        dirs = shot_dirs(tmp_path)
        controller.generate_dock.raise_()
        QApplication.processEvents()
        _save(window, f"window-generate-{language}.png", dirs)
        controller.runs_dock.raise_()
        QApplication.processEvents()
        _save(window, f"window-runs-{language}.png", dirs)
        dialog.resize(MAX_W * 2 // 3, MAX_H * 2 // 3)
        QApplication.processEvents()
        _save(dialog, f"unfinished-dialog-{language}.png", dirs)
        if translator is not None:
            assert dialog.windowTitle() == "未完成的运行"
            assert controller.runs_dock.windowTitle() == "运行记录"
        dialog.close()
        panel.shutdown()
    finally:
        if translator is not None:
            QCoreApplication.removeTranslator(translator)
