"""Guards against lost work: asking before unsaved painting is replaced, and keeping the mouse
wheel from changing a setting the pointer merely passes over (it scrolls the panel instead)."""

from __future__ import annotations

import typing
from collections.abc import Callable

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPointF, Qt, QTimer
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QMessageBox,
    QScrollBar,
    QWidget,
)

from app.ui.words.sentences import tidy

TR_CONTEXT = "Guards"


def _tr(text: str) -> str:
    return QCoreApplication.translate("Guards", text)


class UnsavedWork(typing.Protocol):
    """What the guard reads of a document (app/canvas/document.py's MaskDocument)."""

    @property
    def modified(self) -> bool: ...


def confirm_replace_unsaved(
    parent: QWidget | None,
    document: UnsavedWork,
    save: Callable[[], bool] | None = None,
) -> bool:
    """True when it is fine to replace the open picture and mask: nothing is unsaved, or the
    user saved (through `save`, offered when given) or chose to discard the changes."""
    if not document.modified:
        return True
    buttons = QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel
    if save is not None:
        buttons |= QMessageBox.StandardButton.Save
    answer = QMessageBox.question(
        parent,
        _tr("Unsaved mask"),
        tidy(
            _tr(
                "The mask has changes that are not saved. They are lost when another picture "
                "replaces this one."
            )
            + (" " + _tr("Save them first?") if save is not None else "")
        ),
        buttons,
        QMessageBox.StandardButton.Save if save is not None else QMessageBox.StandardButton.Cancel,
    )
    if answer == QMessageBox.StandardButton.Save and save is not None:
        return bool(save())
    return answer == QMessageBox.StandardButton.Discard


WHEEL_GUARDED = (QComboBox, QAbstractSpinBox, QAbstractSlider)


class FirstShow(QObject):
    """Calls `then` once, after the watched window is first shown (never before start-up):
    the start-up offers of unfinished runs and of the queue."""

    def __init__(self, watched: QObject, then: Callable[[], object]) -> None:
        super().__init__(watched)
        self._then = then
        watched.installEventFilter(self)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show:
            obj.removeEventFilter(self)
            QTimer.singleShot(0, self._then)
        return False


def wheel_guarded(obj: QObject) -> bool:
    """A value widget the wheel must not change unless it has the focus (scroll bars scroll)."""
    return isinstance(obj, WHEEL_GUARDED) and not isinstance(obj, QScrollBar)


class WheelGuard(QObject):
    """Application-wide: the wheel over an unfocused combo box, spin box or slider changes
    nothing and goes on to the widget's parents (the panel's scroll area scrolls). Installed
    once on the QApplication, so every panel, present and future, is covered."""

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Polish and wheel_guarded(obj):
            no_wheel_focus(typing.cast(QWidget, obj))
            return False
        if kind != QEvent.Type.Wheel or not wheel_guarded(obj):
            return False
        widget = typing.cast(QWidget, obj)
        if widget.hasFocus():
            return False
        area = _scroll_area_around(widget)
        if area is not None:
            _scroll(area, widget, typing.cast(QWheelEvent, event))
            event.accept()  # scrolled once; a real event must not go on to the parents too
        else:
            event.ignore()  # a real wheel event goes on to the parents; the value stays
        return True


def _scroll_area_around(widget: QWidget) -> QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None and not parent.isWindow():
        if isinstance(parent, QAbstractScrollArea):
            return parent
        parent = parent.parentWidget()
    return parent if isinstance(parent, QAbstractScrollArea) else None


def _scroll(area: QAbstractScrollArea, widget: QWidget, event: QWheelEvent) -> None:
    """Hands the wheel to the scroll area's viewport (Qt does not pass a synthesized wheel
    event on to parents, and a real one would reach the panel's content widget first)."""
    viewport = area.viewport()
    pos = QPointF(widget.mapTo(viewport, event.position().toPoint()))
    forwarded = QWheelEvent(
        pos,
        event.globalPosition(),
        event.pixelDelta(),
        event.angleDelta(),
        event.buttons(),
        event.modifiers(),
        event.phase(),
        event.inverted(),
    )
    QCoreApplication.sendEvent(viewport, forwarded)


def no_wheel_focus(widget: QWidget) -> None:
    # Qt focuses a WheelFocus widget before it delivers a real wheel event to it, which
    # would let the wheel through: click or Tab still focus it.
    if widget.focusPolicy() == Qt.FocusPolicy.WheelFocus:
        widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)


def install_wheel_guard(app: QCoreApplication) -> WheelGuard:
    """Installs the guard on `app` (the application is its parent and keeps it alive);
    widgets that exist already lose their wheel focus now, later ones when polished."""
    guard = WheelGuard(app)
    app.installEventFilter(guard)
    for widget in QApplication.allWidgets():
        if wheel_guarded(widget):
            no_wheel_focus(widget)
    return guard
