"""Sentences joined into one text: English puts a space after a full stop, Chinese none.

Texts built from translated sentences with " " between them ("… 像素。 它被缩放 …") go through
tidy() before they are shown: a space after a full-width punctuation mark is dropped; nothing
else changes (English has no such marks)."""

from __future__ import annotations

import re

# A menu path in any text ("Help → Measure this computer", "生成 → 配置 → 模型"): an arrow every
# Chinese font has (the triangle U+25B8 is a box in many of them). Written literally in tr()
# sources, the .ts files and README; the shortcut list joins its paths with this;
# tests/ui/test_menu_paths.py keeps the triangle out of all of them.
MENU_PATH_SEPARATOR = " → "
_AFTER_FULL_WIDTH = re.compile(r"([。！？；：，、）】」』])[ \t]+")


def tidy(text: str) -> str:
    """`text` without the spaces a join left after full-width punctuation."""
    return _AFTER_FULL_WIDTH.sub(r"\1", text)
