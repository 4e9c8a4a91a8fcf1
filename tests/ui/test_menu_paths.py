"""Menu paths in texts (issue 41): one arrow everywhere — the shortcut list's, the tr() sources',
the translations', README's — and one every Chinese font has (▸ is a box in many)."""

from __future__ import annotations

from pathlib import Path

from app.ui.words.sentences import MENU_PATH_SEPARATOR

ROOT = Path(__file__).resolve().parents[2]
TRIANGLE = "\u25b8"  # ▸


def _texts() -> list[Path]:
    return [
        *sorted((ROOT / "app").rglob("*.py")),
        *sorted((ROOT / "resources" / "translations").rglob("*.ts")),
        ROOT / "README.md",
        ROOT / "ARCHITECTURE.md",
    ]


def test_no_text_writes_a_menu_path_with_the_triangle() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in _texts()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if TRIANGLE in line
    ]
    assert found == []


def test_the_arrow_is_one_every_chinese_font_has() -> None:
    assert MENU_PATH_SEPARATOR == " → "
    MENU_PATH_SEPARATOR.encode("gb2312")  # GB2312 has →; every Chinese font has GB2312


def test_the_texts_use_the_arrow() -> None:
    """The known menu paths read with the arrow in English and in Chinese."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "**Help → Try with demo models**" in readme
    failures = (ROOT / "resources/translations/zh_CN/errors_failures.ts").read_text("utf-8")
    assert "Generate → Setup → Models" in failures and "生成 → 配置 → 模型" in failures
