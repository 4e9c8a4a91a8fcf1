"""Help → Measure this computer: the dialog runs the pipeline's measurement on the real engine
(the tiny models, the CPU device, one size and step: quick in the suite), shows progress, the
report, and applies its settings to the job form only after the user says yes, listing them."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from app.core.paths import app_paths
from app.core.settings import Settings
from app.pipeline.job import params as P
from app.pipeline.measure.session import make_setup
from app.ui.shell.measure_dialog import MeasureDialog

pytestmark = pytest.mark.timeout(900)


def test_measure_dialog_reports_and_applies_with_consent(
    qtbot,
    sd_stage: Path,
    tiny_form,
    dialogs,
) -> None:
    paths = app_paths()
    form = tiny_form()
    form.set(P.VAE_TILING, True)  # the measurement will choose untiled on the CPU

    def setup_of(engine: Path):
        return make_setup(
            paths, Settings(), engine, quick=True, sizes=((32, 32),), devices=("cpu",), steps=1
        )

    dialog = MeasureDialog(paths, form, sd_stage, setup_of)
    qtbot.addWidget(dialog)
    statuses: list[str] = []
    dialog.worker.progress.connect(lambda *_: statuses.append(dialog.status.text()))
    with qtbot.waitSignal(dialog.worker.done, timeout=600_000):
        pass
    dialog.worker.wait()
    assert any("left" in s for s in statuses[1:]), statuses  # an ETA once a stage was timed
    assert dialog.status.text().startswith("Done; the report is in ")
    assert dialog.markdown.startswith("# Stepwise: measure of this computer")
    assert "# " not in dialog.text.toPlainText().splitlines()[0]  # rendered, not its source
    dialog.copy_button.click()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == dialog.markdown
    assert dialog.report is not None and dialog.report["choice"]["vae_tiling"] is False
    dialogs.answers.append(QMessageBox.StandardButton.No)
    assert dialog.apply() == [] and form.get(P.VAE_TILING) is True  # no consent: unchanged
    dialogs.answers.append(QMessageBox.StandardButton.Yes)
    changes = dialog.apply()
    assert ("vae_tiling", True, False) in changes and form.get(P.VAE_TILING) is False
    assert "vae_tiling: True → False" in dialogs.shown[-1][2]
    dialog.reject()


def test_the_dialog_says_what_it_will_do_and_its_progress_in_chinese(qtbot, tiny_form) -> None:
    """Issue 41: Measure this computer started with no word of what it would do, and its
    progress read "cpu: vae-decode 512×512, tiled False" in 简体中文. The step in hand is data
    (MeasureStep) worded by the window."""
    from PySide6.QtCore import QCoreApplication

    from app.pipeline.measure.probe import LARGEST, MeasureStep
    from app.ui.shell import measure_dialog
    from app.ui.words.i18n import TsTranslator
    from tests.ui.visible_text import problems

    steps = [
        MeasureStep("cpu", "llm-encode"),
        MeasureStep("cpu", "diffuse", 512, 512, flash_attention=True),
        MeasureStep("vulkan0", "vae-decode", 512, 512, tiled=False),
        MeasureStep("cpu", LARGEST),
    ]
    assert str(steps[2]) == "vulkan0: vae-decode 512×512, tiled False"  # the CLI's words
    assert "each stage" in measure_dialog.intro_text()
    translator = TsTranslator("zh_CN")
    QCoreApplication.installTranslator(translator)
    try:
        for text in [measure_dialog.intro_text(), *map(measure_dialog.step_text, steps)]:
            assert problems(text) == [], text
        assert "×" in measure_dialog.step_text(steps[1])
    finally:
        QCoreApplication.removeTranslator(translator)
