"""Every text a user can see in a widget tree (labels, buttons, titles, tooltips, items, menus,
headers, placeholders, suffixes) and the two checks a Simplified Chinese UI must pass:
no untranslated English word, no stray space joining pieces next to Chinese text."""

from __future__ import annotations

import re
from collections.abc import Iterator

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QDockWidget,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QTabBar,
    QTabWidget,
    QWidget,
)

INK_CONTRAST = 60  # lightness off the background that counts as a glyph's ink
TAB_UNDERLINE_PX = 3  # the selected tab's underline (dark.qss) is not text

# Names, units and values that stay as they are in a Chinese UI.
ALLOWED = {
    w.lower()
    for w in (
        "Ctrl Shift Alt Del Esc Enter Tab PNG JPEG JPG WebP GGUF safetensors VAE LoRA LLM CFG GPU "
        "CPU klein FLUX Qwen3 token tokens sd-cli sd-stage stable-diffusion.cpp Stepwise Telea "
        "Navier Stokes Flash Attention Vulkan Metal CUDA English MB GB KB KiB MiB GiB img2img "
        "euler simple Poisson LAB python Eta SDE dpm tcd"
    ).split()
}
ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
# A device's name and an engine identifier (a sampler such as euler_a, er_sde) are values.
VALUE = re.compile(r"(vulkan|cuda|metal)\d+|Vulkan\d+|[a-z][a-z0-9]*_[a-z0-9_]*")
PROGRAMS = re.compile(r"sd-cli|sd-stage|stable-diffusion\.cpp|--[a-z][a-z0-9-]*")  # names, flags
# A path (anything with a slash in it) and a file extension are values, never words to translate.
PATH = re.compile(r"(?:[A-Za-z]:)?[\\/]?[\w.~-]+(?:[\\/][\w.~-]*)+|(?<![\w.])\.[a-z0-9]{1,5}\b")
CJK = r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"
STRAY_SPACE = re.compile(rf"{CJK} +{CJK}|[。，、；：！？] +\S")


def problems(text: str) -> list[str]:
    """What is wrong with one visible text under zh_CN ([] when nothing)."""
    found = []
    plain = re.sub(r"<lora:[^>]*>", "0", text).replace("&", "")
    plain = re.sub(r"<[^>]+>", "", plain)  # rich text's tags are not shown
    plain = re.sub(r"\b[\w.-]+\.(png|json|ts|gguf|safetensors|txt|log)\b", "0", plain)
    plain = PATH.sub("0", plain)
    words = [
        w
        for w in ASCII_WORD.findall(PROGRAMS.sub("0", plain))
        if re.search("[A-Za-z]{3}", w) and w.lower() not in ALLOWED and not VALUE.fullmatch(w)
    ]
    if words:
        found.append("English: " + " ".join(words))
    if STRAY_SPACE.search(plain):
        found.append("stray space: " + STRAY_SPACE.search(plain).group(0))  # type: ignore[union-attr]
    return found


def _own_texts(widget: QWidget, where: str) -> Iterator[tuple[str, str]]:
    """A widget's tooltip, window or group title, text and placeholder."""
    if widget.toolTip():
        yield f"{where} tooltip", widget.toolTip()
    is_window = isinstance(widget, QDockWidget | QMainWindow) or widget.isWindow()
    if is_window and widget.windowTitle():
        yield f"{where} title", widget.windowTitle()
    if isinstance(widget, QLabel | QAbstractButton) and widget.text():
        # An eliding label shows its whole text cut at the width ("d.ggu…"): its whole text is
        # what was written (and translated), so that is what is checked.
        yield f"{where} text", getattr(widget, "full_text", None) or widget.text()
    if isinstance(widget, QGroupBox) and widget.title():
        yield f"{where} title", widget.title()
    if isinstance(widget, QLineEdit | QPlainTextEdit) and widget.placeholderText():
        yield f"{where} placeholder", widget.placeholderText()
    if isinstance(widget, QAbstractSpinBox):
        for part in (widget.suffix(), widget.prefix(), widget.specialValueText()):  # type: ignore[attr-defined]
            if part.strip():
                yield f"{where} suffix", part


def _combo_texts(widget: QComboBox, where: str) -> Iterator[tuple[str, str]]:
    for i in range(widget.count()):
        if widget.itemData(i) != widget.itemText(i):  # a value shown as itself is a name
            yield f"{where} item", widget.itemText(i)
        tip = widget.itemData(i, Qt.ItemDataRole.ToolTipRole)
        if tip:
            yield f"{where} item tooltip", str(tip)


def _tab_texts(widget: QTabWidget, where: str) -> Iterator[tuple[str, str]]:
    for i in range(widget.count()):
        yield f"{where} tab", widget.tabText(i)
        if widget.tabToolTip(i):
            yield f"{where} tab tooltip", widget.tabToolTip(i)


def _header_texts(widget: QAbstractItemView, where: str) -> Iterator[tuple[str, str]]:
    header = getattr(widget, "horizontalHeader", None) or getattr(widget, "header", None)
    if header is None:
        return
    view = header()
    for col in range(view.count()):
        for role, kind in ((Qt.ItemDataRole.DisplayRole, "header"),
                           (Qt.ItemDataRole.ToolTipRole, "header tooltip")):  # fmt: skip
            value = view.model().headerData(col, Qt.Orientation.Horizontal, role)
            if value:
                yield f"{where} {kind}", str(value)


def _menu_texts(widget: QMenu, where: str) -> Iterator[tuple[str, str]]:
    for action in widget.actions():
        if action.text():
            yield f"{where} menu", action.text()
        if action.toolTip() and action.toolTip() != action.text().replace("&", ""):
            yield f"{where} menu tooltip", action.toolTip()


def visible_texts(root: QWidget) -> Iterator[tuple[str, str]]:
    """(where, text) for every text `root` and its children show, hidden ones included (a
    collapsed section, a tab not in front: the user opens them)."""
    for widget in [root, *root.findChildren(QWidget)]:
        where = f"{type(widget).__name__}:{widget.objectName()}"
        yield from _own_texts(widget, where)
        if isinstance(widget, QComboBox):
            yield from _combo_texts(widget, where)
        if isinstance(widget, QTabWidget):
            yield from _tab_texts(widget, where)
        if isinstance(widget, QAbstractItemView):
            yield from _header_texts(widget, where)
        if isinstance(widget, QMenu):
            yield from _menu_texts(widget, where)


def untranslated(root: QWidget) -> list[str]:
    """Every visible text of `root` that fails a check, with where it is."""
    return [
        f"{where}: {text!r} ({'; '.join(found)})"
        for where, text in visible_texts(root)
        if (found := problems(text))
    ]


def _ink_rows(image: QImage, rect: QRect, background: QColor) -> int:
    """Rows of `rect` in `image` with text ink on them (a pixel clearly off the background)."""
    rows = 0
    for y in range(rect.top(), rect.bottom() + 1):
        if any(
            abs(QColor(image.pixel(x, y)).lightness() - background.lightness()) > INK_CONTRAST
            for x in range(rect.left(), rect.right() + 1)
        ):
            rows += 1
    return rows


def _ink_color(image: QImage, rect: QRect, background: QColor) -> QColor:
    """The text's colour as shown: the pixel of `rect` farthest in lightness from the background
    (the alone rendering uses it, so faint anti-aliased rows compare like with like)."""
    best, far = QColor(Qt.GlobalColor.white), -1
    for y in range(rect.top(), rect.bottom() + 1):
        for x in range(rect.left(), rect.right() + 1):
            color = QColor(image.pixel(x, y))
            distance = abs(color.lightness() - background.lightness())
            if distance > far:
                best, far = color, distance
    return best


def _ink_rows_alone(text: str, font: QFont, ink: QColor, background: QColor) -> int:
    """Rows the text's ink takes drawn with nothing around it (fallback fonts included)."""
    metrics = QFontMetrics(font)
    image = QImage(metrics.horizontalAdvance(text) + 20, metrics.height() * 3,
                   QImage.Format.Format_RGB32)  # fmt: skip
    image.fill(background)
    painter = QPainter(image)
    painter.setFont(font)
    painter.setPen(ink)
    painter.drawText(QPoint(10, metrics.height() * 2), text)
    painter.end()
    return _ink_rows(image, image.rect(), background)


def clipped_titles(window: QMainWindow) -> list[str]:
    """Every visible dock title bar and tab whose text loses ink rows to its height (a "生成"
    that reads "牛成"): the rows its ink takes in the window against the rows alone."""
    found = []
    for dock in window.findChildren(QDockWidget):
        content = dock.widget()
        if not dock.isVisible() or content is None or content.geometry().top() <= 0:
            continue
        image = dock.grab(QRect(0, 0, dock.width(), content.geometry().top())).toImage()
        background = QColor(image.pixel(1, 1))
        shown = _ink_rows(image, image.rect(), background)
        ink = _ink_color(image, image.rect(), background)
        whole = _ink_rows_alone(dock.windowTitle(), dock.font(), ink, background)
        if shown < whole:
            found.append(f"dock {dock.windowTitle()!r}: {shown} of {whole} rows")
    for bar in window.findChildren(QTabBar):
        if not bar.isVisible():
            continue
        image = bar.grab().toImage()
        for i in range(bar.count()):
            rect = bar.tabRect(i).adjusted(0, 0, 0, -TAB_UNDERLINE_PX)
            background = QColor(image.pixel(rect.left() + 1, rect.top() + 1))
            shown = _ink_rows(image, rect, background)
            ink = _ink_color(image, rect, background)
            whole = _ink_rows_alone(bar.tabText(i), bar.font(), ink, background)
            if shown < whole:
                found.append(f"tab {bar.tabText(i)!r}: {shown} of {whole} rows")
    return found
