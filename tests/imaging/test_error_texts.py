"""Every message and fix that app/imaging raises for the user is a constant template (no
f-string) with a finished 简体中文 translation in Qt context "errors" with the same
{placeholders}, and the UI's translation fills it in."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from app.core.errors import ERROR_CONTEXT, InputError
from app.imaging.geometry import Size
from app.imaging.io import MaskSizeError
from app.ui.words.i18n import TRANSLATIONS_DIR, read_ts

ROOT = Path(__file__).resolve().parents[2]
# MaskSizeError builds its message itself (its super().__init__ call in io.py is checked).
ERRORS = {"InputError", "OutputError", "DamagedFileError", "StepwiseError"}
# png_params.py (helper C1) keeps its own texts and their translations.
OTHER_OWNERS = {"png_params.py"}
PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def _constants(tree: ast.Module) -> dict[str, list[str]]:
    """Module-level names bound to a string (or a dict of strings)."""
    out: dict[str, list[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if not isinstance(target, ast.Name):
                continue
            value = node.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                out[target.id] = [value.value]
            elif isinstance(value, ast.Dict):
                out[target.id] = [
                    v.value
                    for v in value.values
                    if isinstance(v, ast.Constant) and isinstance(v.value, str)
                ]
    return out


def _strings(node: ast.expr, constants: dict[str, list[str]], where: str) -> list[str]:
    assert not isinstance(node, ast.JoinedStr), f"{where}: an f-string cannot be translated"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return constants[node.value.id]
    raise AssertionError(f"{where}: the message is not a constant template")


def imaging_templates() -> set[str]:
    found: set[str] = set()
    # job_inputs.py's reference-image messages live in the same .ts file.
    paths = [*sorted((ROOT / "app" / "imaging").glob("*.py")), ROOT / "app/jobs/job_inputs.py"]
    for path in paths:
        if path.name in OTHER_OWNERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = _constants(tree)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = getattr(func, "id", None) or getattr(func, "attr", None)
            is_super = name == "__init__" and isinstance(func, ast.Attribute)
            if name not in ERRORS and not (is_super and path.name == "io.py"):
                continue
            where = f"{path.name}:{node.lineno}"
            if node.args:
                found.update(_strings(node.args[0], constants, where))
            for keyword in node.keywords:
                if keyword.arg == "fix":
                    found.update(_strings(keyword.value, constants, where))
    return found


def _errors_table() -> dict[tuple[str, str], str]:
    """Every errors_*.ts (errors_imaging.ts, and those of features added in parallel, e.g.
    errors_region.ts for imaging/frame.py)."""
    table: dict[tuple[str, str], str] = {}
    for path in sorted((TRANSLATIONS_DIR / "zh_CN").glob("errors_*.ts")):
        table.update(read_ts(path))
    return table


def test_imaging_errors_are_templates_with_chinese_translations() -> None:
    table = _errors_table()
    templates = imaging_templates()
    assert len(templates) > 30
    missing = sorted(t for t in templates if (ERROR_CONTEXT, t) not in table)
    assert missing == []
    for text in templates:
        translated = table[(ERROR_CONTEXT, text)]
        assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(translated)), text


def test_the_ui_fills_in_the_translated_template(tmp_path: Path) -> None:
    # The app merges every zh_CN file; a feature may keep its errors in its own errors_*.ts.
    table: dict[tuple[str, str], str] = {}
    for path in sorted((TRANSLATIONS_DIR / "zh_CN").glob("errors_*.ts")):
        table.update(read_ts(path))

    def translate(text: str) -> str:
        return table.get((ERROR_CONTEXT, text), text)

    error = MaskSizeError(Size(10, 20), Size(30, 40), tmp_path / "m.png")
    assert error.user_message() == (
        f"The mask is 10×20 px but the picture is 30×40 px. ({tmp_path / 'm.png'}) "
        "Scale the mask to the picture's size or paint a new one."
    )
    chinese = error.user_message(translate)
    assert "10×20" in chinese and "30×40" in chinese and "蒙版" in chinese
    missing = InputError(
        "{path} does not exist.", path=tmp_path / "x.png", fix="Check the file name."
    )
    text = missing.user_message(translate)
    assert str(tmp_path / "x.png") in text and "不存在" in text
