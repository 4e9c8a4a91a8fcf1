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
    assert "VAE tiling: on → off" in dialogs.shown[-1][2]  # its words, not `vae_tiling`
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
        # Chinese punctuation between the parts ("VAE 解码 512×512, 不分块" had a Latin comma)
        assert measure_dialog.step_text(steps[2]).endswith("512×512，不分块"), steps[2]
    finally:
        QCoreApplication.removeTranslator(translator)


GIB = 1024**3


def _report() -> dict:
    """A measurement of a computer with a GPU (as the JSON has it): a failed stage, the
    Windows list of what the release was not checked on, and a choice with switches."""
    from app.engine.errors import EngineOutOfMemory
    from app.engine.stage import Stage
    from app.pipeline.execute.failure_kinds import failure_for
    from app.pipeline.measure.probe import failure_data
    from app.pipeline.measure.report import UNCHECKED_ON_WINDOWS

    oom = EngineOutOfMemory(exit_code=4)  # as probe.py keeps a stage that failed

    def row(stage: str, device: str, wall: float, **kw: object) -> dict:
        base = {"size": None, "flash_attention": None, "vae_tiling": None,
                "planned_bytes": 3 * GIB, "measured_bytes": 2 * GIB + 5}  # fmt: skip
        return {"stage": stage, "device": device, "wall_s": wall, **base, **kw}

    return {
        "format": 1, "created": "2026-12-06T20:15:00+0800", "seconds": 412.5,
        "cancelled": False, "engine": "C:/Program Files/Stepwise/engine/sd-stage.exe",
        "models": {"note": "shape-only models of klein 9B", "diffusion": "d/klein-9b.gguf",
                   "llm": "d/qwen3.gguf", "vae": "d/vae.safetensors"},
        "steps": 2, "threads": 0, "sizes": [[1024, 1024]],
        "devices": [
            {"name": "vulkan0", "description": "AMD Radeon RX 590 Series (RADV POLARIS10)",
             "total_bytes": 8 * GIB, "free_bytes": 7 * GIB, "max_alloc_bytes": 2 * GIB,
             "fp16": True, "driver": {"backend": "vulkan", "device": "AMD", "uma": "0",
                                      "fp16": "1", "shared memory": "65536", "int dot": "0"}},
            {"name": "cpu", "description": "AMD Ryzen 5 2600", "total_bytes": 16 * GIB,
             "free_bytes": 12 * GIB, "max_alloc_bytes": None, "fp16": False, "driver": None},
        ],
        "rows": [
            row("llm-encode", "vulkan0", 4.2), row("llm-encode", "cpu", 21.0),
            row("diffuse", "vulkan0", 30, size=[1024, 1024], flash_attention=False,
                s_per_step=9.81),
            row("diffuse", "vulkan0", 28, size=[1024, 1024], flash_attention=True,
                s_per_step=8.7),
            row("diffuse", "cpu", 300, size=[1024, 1024], flash_attention=False,
                s_per_step=140.0),
            row("vae-decode", "vulkan0", 61.0, size=[1024, 1024], vae_tiling=True),
            {"stage": "vae-decode", "device": "vulkan0", "size": [1024, 1024],
             "flash_attention": None, "vae_tiling": False, "planned_bytes": 9 * GIB,
             "error": str(oom), "failure": failure_data(failure_for(oom, Stage.VAE_DECODE))},
        ],
        "largest": {"vulkan0": [768, 768], "cpu": None},
        "system": {"os": "Windows-10-10.0.19045-SP0", "python": "3.12.7",
                   "ansi_encoding": "cp936", "stdout_encoding": "utf-8"},
        "unchecked": list(UNCHECKED_ON_WINDOWS),
        "choice": {"diffusion_device": "vulkan0", "flash_attention": True,
                   "llm_device": "vulkan0", "vae_device": "vulkan0", "vae_tiling": True},
    }  # fmt: skip


def _show(qtbot, monkeypatch, tmp_path, report: dict):
    """The dialog with `report` as the worker hands it over (its English Markdown and JSON
    written as the measurement writes them); no engine runs."""
    from app.jobs.job_form import JobForm
    from app.jobs.measure_worker import MeasureWorker
    from app.pipeline.measure.report import write_report

    monkeypatch.setattr(MeasureWorker, "start", lambda self: None)
    md, _js = write_report(report, tmp_path / "measure")
    dialog = MeasureDialog(app_paths(), JobForm(), None, lambda engine: None)
    qtbot.addWidget(dialog)
    dialog.worker.done.emit(report, str(md))
    return dialog, md


SETTING_NAMES = [p.name for p in (P.LLM_DEVICE, P.DIFFUSION_DEVICE, P.VAE_DEVICE,
                                  P.FLASH_ATTENTION, P.VAE_TILING)] + [
    "s_per_step", "wall_s", "ansi_encoding", "stdout_encoding", "planned_bytes", "measured_bytes"
]  # fmt: skip


def test_the_report_is_shown_in_chinese_without_setting_names_and_copied(
    qtbot, monkeypatch, tmp_path, dialogs
) -> None:
    """Issue 41: the report was English Markdown shown as source, with setting names
    (`llm_device`) and Python booleans. Under zh_CN the dialog shows it rendered with Chinese
    labels, yes/no and on/off, seconds and memory with units; Copy puts that text on the
    clipboard; the file beside the JSON stays English (for us)."""
    import re

    from PySide6.QtCore import QCoreApplication
    from PySide6.QtGui import QDesktopServices, QGuiApplication

    from app.ui.words.i18n import TsTranslator
    from tests.ui.clipping import clipped
    from tests.ui.visible_text import problems

    translator = TsTranslator("zh_CN")
    QCoreApplication.installTranslator(translator)
    try:
        dialog, md = _show(qtbot, monkeypatch, tmp_path, _report())
        shown = dialog.text.toPlainText()
        for text in (shown, dialog.markdown):
            assert [n for n in SETTING_NAMES if n in text] == [], text
            assert re.findall(r"\b(True|False|None)\b", text) == [], text
        assert "测量" in shown.splitlines()[0] and "#" not in shown  # rendered, not its source
        assert "秒/步" in shown and "GiB" in shown and "是" in shown  # units, yes/no
        words = re.sub(r"`[^`]*`", "0", dialog.markdown)  # quoted values: paths, the driver
        for name in ("AMD Radeon RX 590 Series (RADV POLARIS10)", "AMD Ryzen", "AMD", "ANSI",
                     "SmartScreen", "DPI", "Windows"):  # fmt: skip
            words = words.replace(name, "0")  # the devices' and other proper names
        assert [(line, problems(line)) for line in words.splitlines() if problems(line)] == []
        assert dialog.text.document().toHtml().count("<table") >= 4  # its tables as tables
        assert md.read_text(encoding="utf-8").startswith("# Stepwise: measure of this computer")
        assert "- llm_device = vulkan0" in md.read_text(encoding="utf-8")  # the file: for us
        QGuiApplication.clipboard().clear()
        dialog.copy_button.click()
        assert QGuiApplication.clipboard().text() == dialog.markdown
        assert "测量" in dialog.markdown.splitlines()[0]
        opened: list[str] = []
        monkeypatch.setattr(
            QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile())
        )
        dialog.open_button.click()  # the folder of the .md and its .json, in the file manager
        assert opened == [str(md.parent)] and md.with_suffix(".json").is_file()
        dialog.show()
        qtbot.waitExposed(dialog)
        assert dialog.width() <= 1280 and dialog.height() <= 720 - 40 - 31  # a taskbar, a title
        assert clipped(dialog) == [] and dialog.text.horizontalScrollBar().maximum() == 0
        dialogs.answers.append(QMessageBox.StandardButton.No)
        dialog.apply()  # the question lists each change in the user's words
        asked = dialogs.shown[-1][2]
        assert [n for n in SETTING_NAMES if n in asked] == [] and "True" not in asked, asked
        assert problems(asked) == [], asked
        dialog.reject()
    finally:
        QCoreApplication.removeTranslator(translator)


def test_the_report_in_english_keeps_its_numbers(qtbot, monkeypatch, tmp_path) -> None:
    dialog, _md = _show(qtbot, monkeypatch, tmp_path, _report())
    shown = dialog.text.toPlainText()
    assert shown.splitlines()[0] == "Stepwise: measure of this computer"
    for fact in (
        "9.81 s/step",
        "8.7 s/step",
        "×0.89",
        "8.0 GiB",
        "21 s",
        "×0.20",
        "768×768",
        "Diffusion runs on: vulkan0",
        "Flash attention: on",
        "failed",
        "cp936",
        "(shape 1:1)",  # the decode's 1024×1024 as a ratio, not "1024:1024"
    ):
        assert fact in shown, fact
    assert [n for n in SETTING_NAMES if n in shown] == []
