"""Every user-visible string of the generation UI (and of Settings and Measure) has a finished
Simplified Chinese translation with the same {placeholders}, and the panel really shows it under
zh_CN."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from app.ui.words.i18n import TRANSLATIONS_DIR, read_ts

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(
    [
        *(ROOT / "app" / "ui" / "generation").glob("*.py"),
        *(ROOT / "app" / "ui" / "shell").glob("settings_*.py"),
        *(ROOT / "app" / "ui" / "shell").glob("measure_*.py"),
    ]
)
PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def _sources() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path in FILES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        context = None
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == "_tr":
                for call in ast.walk(node):
                    if isinstance(call, ast.Call) and getattr(call.func, "attr", "") == "translate":
                        context = call.args[0].value
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            args = node.args
            if name == "_tr" and args and isinstance(args[0], ast.Constant):
                assert context, f"{path.name} calls _tr without a translate context"
                found.add((context, args[0].value))
            elif (
                name == "translate"
                and len(args) == 2
                and all(isinstance(a, ast.Constant) for a in args)
            ):
                found.add((args[0].value, args[1].value))
    return found


def test_every_generation_string_has_a_chinese_translation() -> None:
    table = {}
    for ts in sorted((TRANSLATIONS_DIR / "zh_CN").glob("*.ts")):
        table.update(read_ts(ts))
    sources = _sources()
    assert len(sources) > 150
    missing = sorted(s for s in sources if s not in table)
    assert missing == []
    for key in sources:
        assert sorted(PLACEHOLDER.findall(key[1])) == sorted(PLACEHOLDER.findall(table[key])), key


def test_the_panel_speaks_chinese(qtbot) -> None:
    from PySide6.QtCore import QCoreApplication

    from app.core.paths import app_paths
    from app.jobs.generation import GenerationModel
    from app.jobs.job_form import JobForm
    from app.jobs.run_session import RunSession
    from app.ui.generation import GenerationPanel
    from app.ui.words.i18n import TsTranslator

    translator = TsTranslator("zh_CN")
    QCoreApplication.installTranslator(translator)
    try:
        panel = GenerationPanel(GenerationModel(JobForm(), RunSession(app_paths())))
        qtbot.addWidget(panel)
        assert panel.all_button.text() == "全部运行"
        assert panel.run_view.stage_list.topLevelItem(3).text(0) == "扩散"
    finally:
        QCoreApplication.removeTranslator(translator)


def test_every_failure_kind_and_note_code_has_ui_words() -> None:
    from app.pipeline.failures import Failure, FailureKind, Note, NoteCode
    from app.ui.words import texts

    assert set(texts._FAILURES) == set(FailureKind)
    assert set(texts._NOTES) == set(NoteCode)
    for kind in FailureKind:
        assert texts.failure_title(kind) and texts.failure_hint(Failure(kind, "diffuse", ""))
    assert str(NoteCode.FLAG_UNKNOWN) not in texts.note_text(
        Note(NoteCode.FLAG_UNKNOWN, {"flag": "-x"})
    )
