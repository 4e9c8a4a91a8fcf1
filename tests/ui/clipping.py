"""Clipped text in a rendered widget tree: a label or button narrower (or, wrapped, shorter)
than its text, a scroll area whose content is wider than its view (it scrolls sideways or cuts
the right edge). What tests/ui/test_no_clipping.py asks of every tab and dock at 1280×720."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6 import QtGui
from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics
from PySide6.QtWidgets import (
    QAbstractButton,
    QCheckBox,
    QHeaderView,
    QLabel,
    QListView,
    QPushButton,
    QRadioButton,
    QScrollArea,
    QStyle,
    QStyleOptionButton,
    QTableWidget,
    QTreeWidget,
    QWidget,
)

SLACK_PX = 1  # rounding of fractional advances


def _shown(widget: QWidget) -> bool:
    """Visible on screen: shown, with a size, inside its window."""
    return widget.isVisible() and widget.width() > 0 and not widget.visibleRegion().isEmpty()


def _lines_width(metrics: QFontMetrics, text: str) -> int:
    return max((metrics.horizontalAdvance(line) for line in text.split("\n")), default=0)


def _label_problem(label: QLabel) -> str | None:
    text = label.text()
    if not text or label.pixmap() is not None and not label.pixmap().isNull():
        return None
    if label.textFormat() == Qt.TextFormat.RichText or (
        label.textFormat() == Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text)
    ):
        return None  # rich text lays itself out; its tags are no measure
    if label.property("elided") is True:  # draws "…" itself, its whole text in the tooltip
        return None if text in label.toolTip() else "elided, and the tooltip lacks its text"
    rect = label.contentsRect()
    margin = 2 * label.margin() + max(0, label.indent())
    metrics = label.fontMetrics()
    if label.wordWrap():
        need = label.heightForWidth(label.width())
        if need > label.height() + SLACK_PX:
            return f"cut top/bottom: needs {need} px high, has {label.height()}"
        return None
    width = _lines_width(metrics, text)
    if width > rect.width() - margin + SLACK_PX:
        return f"cut: needs {width} px wide, has {rect.width() - margin}"
    lines = text.count("\n") + 1
    if lines * metrics.height() > rect.height() + SLACK_PX:
        return f"cut top/bottom: needs {lines * metrics.height()} px high, has {rect.height()}"
    return None


def _button_problem(button: QAbstractButton) -> str | None:
    text = button.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
    if not text:
        return None
    metrics = button.fontMetrics()
    width = _lines_width(metrics, text)
    if isinstance(button, QPushButton):
        option = QStyleOptionButton()
        option.initFrom(button)
        option.text = button.text()
        option.icon = button.icon()
        option.iconSize = button.iconSize()
        room = button.style().subElementRect(
            QStyle.SubElement.SE_PushButtonContents, option, button
        )
        icon = button.iconSize().width() + 4 if not button.icon().isNull() else 0
        if width + icon > room.width() + SLACK_PX:
            return f"cut: needs {width + icon} px wide, has {room.width()}"
        return None
    if isinstance(button, QCheckBox | QRadioButton):
        if button.sizeHint().width() > button.width() + SLACK_PX:
            return f"cut: needs {button.sizeHint().width()} px wide, has {button.width()}"
    return None


def _scroll_problem(area: QScrollArea) -> str | None:
    content = area.widget()
    if content is None or not area.widgetResizable():
        return None
    view = area.viewport().width()
    need = content.minimumSizeHint().width()
    if need > view + SLACK_PX:
        return f"scrolls sideways: content needs {need} px wide, the view is {view}"
    return None


def _icon_list_problem(view: QListView) -> str | None:
    """An icon-mode list: each item's caption lines fit the item's cell."""
    if view.viewMode() != QListView.ViewMode.IconMode:
        return None
    model = view.model()
    metrics = view.fontMetrics()
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        text = str(model.data(index) or "")
        width = _lines_width(metrics, text)
        rect = view.visualRect(index)
        if text and width > rect.width() + SLACK_PX:
            return f"item {text!r} cut: needs {width} px wide, has {rect.width()}"
        # Scrolled part-way out of view: the centred caption loses its first or last letters.
        left, right = rect.center().x() - width // 2, rect.center().x() + width // 2
        shown = view.viewport().width()
        if text and right > 0 and left < shown and (left < -SLACK_PX or right > shown + SLACK_PX):
            return f"item {text!r} cut by the view's edge: spans {left}..{right} of 0..{shown}"
    return None


def _tree_problem(tree: QTreeWidget) -> str | None:
    """A tree's columns sized to their contents (State, Step, Time): each cell's text fits its
    column, and the column lies inside the view (a stretched column elides on purpose)."""
    header = tree.header()
    metrics = tree.fontMetrics()
    shown = tree.viewport().width()
    margin = 2 * (tree.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, tree) + 1)
    for column in range(tree.columnCount()):
        if header.sectionResizeMode(column) != QHeaderView.ResizeMode.ResizeToContents:
            continue
        right = header.sectionViewportPosition(column) + header.sectionSize(column)
        if header.isSectionHidden(column):
            continue
        if right > shown + SLACK_PX:
            return f"column {column} ends at {right}, the view at {shown}"
        for row in range(tree.topLevelItemCount()):
            text = tree.topLevelItem(row).text(column)
            need, has = metrics.horizontalAdvance(text) + margin, header.sectionSize(column)
            if text and need > has + SLACK_PX:
                return f"cell {text!r} cut: needs {need} px, the column has {has}"
    return None


def _table_problem(table: QTableWidget) -> str | None:
    """Every cell's text fits its cell: on one line, or wrapped (the table wraps words) within
    the row's height; a table elides what does not fit ("Open…" read "Open...")."""
    metrics = table.fontMetrics()
    margin = 2 * (
        table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, table) + 1
    )
    for row in range(table.rowCount()):
        for column in range(table.columnCount()):
            item = table.item(row, column)
            text = item.text() if item is not None else ""
            if not text:
                continue
            width = table.columnWidth(column) - margin
            if not table.wordWrap():
                need = _lines_width(metrics, text)
                if need > width + SLACK_PX:
                    return f"cell {text!r} cut: needs {need} px, the column has {width}"
                continue
            flags = int(Qt.TextFlag.TextWordWrap)
            room = metrics.boundingRect(0, 0, max(1, width), 100_000, flags, text)
            if room.width() > width + SLACK_PX or room.height() > table.rowHeight(row) + SLACK_PX:
                return f"cell {text!r} cut: needs {room.width()}×{room.height()} px, has " + (
                    f"{width}×{table.rowHeight(row)}"
                )
    return None


def clipped(root: QWidget) -> list[str]:
    """Every visible text in `root` that does not fit where it is shown, as
    "ClassName 'name' «text»: why"."""
    found = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not _shown(widget):
            continue
        problem = None
        if isinstance(widget, QLabel):
            problem = _label_problem(widget)
        elif isinstance(widget, QAbstractButton):
            problem = _button_problem(widget)
        elif isinstance(widget, QScrollArea):
            problem = _scroll_problem(widget)
        elif isinstance(widget, QListView):
            problem = _icon_list_problem(widget)
        elif isinstance(widget, QTreeWidget):
            problem = _tree_problem(widget)
        elif isinstance(widget, QTableWidget):
            problem = _table_problem(widget)
        if problem is not None:
            text = widget.text() if isinstance(widget, QLabel | QAbstractButton) else ""
            name = widget.objectName() or type(widget.parentWidget()).__name__
            found.append(f"{type(widget).__name__} {name!r} «{text[:60]}»: {problem}")
    return found


def shot_dirs(tmp_path: Path) -> list[Path]:
    """Where a test's screenshots go: its tmp folder, and $STEPWISE_SCREENSHOT_DIR when set (to
    look at them)."""
    dirs = [tmp_path / "shots"]
    if os.environ.get("STEPWISE_SCREENSHOT_DIR"):
        dirs.append(Path(os.environ["STEPWISE_SCREENSHOT_DIR"]))
    for d in dirs:
        d.mkdir(parents=True, exist_ok=True)
    return dirs
