"""Every string of the runs UI (app/ui/runs/, the branch dialog) has a finished 简体中文
translation with the same {placeholders}; the runs' error templates too (context "errors")."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.ui.words.i18n import TRANSLATIONS_DIR, read_ts
from tests.ui import test_generation_translations as scan

ROOT = Path(__file__).resolve().parents[2]
# The Run tab opens it; its words are the runs' (context "Runs").
BRANCH_DIALOG = ROOT / "app" / "ui" / "generation" / "branch_dialog.py"
ERROR_TEMPLATES = (
    "{path} is not a run in the runs folder {root}.",
    "The run folder {path} could not be deleted: {reason}.",
    "Close programs that use files in it, then try again.",
)


def _table() -> dict[tuple[str, str], str]:
    table: dict[tuple[str, str], str] = {}
    for ts in sorted((TRANSLATIONS_DIR / "zh_CN").glob("*.ts")):
        table.update(read_ts(ts))
    return table


def test_every_runs_string_has_a_chinese_translation(monkeypatch: pytest.MonkeyPatch) -> None:
    runs_ui = [*(ROOT / "app" / "ui" / "runs").glob("*.py"), BRANCH_DIALOG]
    monkeypatch.setattr(scan, "FILES", sorted(runs_ui))
    sources = scan._sources()
    assert len(sources) > 30 and all(context == "Runs" for context, _ in sources)
    table = _table()
    assert sorted(s for s in sources if s not in table) == []
    for key in sources:
        assert sorted(scan.PLACEHOLDER.findall(key[1])) == sorted(
            scan.PLACEHOLDER.findall(table[key])
        ), key


def test_the_runs_error_templates_are_translated() -> None:
    table = _table()
    runner = (ROOT / "app" / "pipeline" / "runner.py").read_text(encoding="utf-8")
    for template in ERROR_TEMPLATES:
        assert f'"{template}"' in runner  # still the raise site's template
        zh = table[("errors", template)]
        assert sorted(scan.PLACEHOLDER.findall(zh)) == sorted(scan.PLACEHOLDER.findall(template))
