"""Guards against lost work: the unsaved-mask question, and the wheel that changes nothing it
merely passes over (one application-wide filter; the panel scrolls instead)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QMessageBox,
    QScrollArea,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.ui.kit.guards import confirm_replace_unsaved, install_wheel_guard
from tests.ui.painter import open_window

NOTCH = 120


def wheel(widget: QWidget, notches: int = -1) -> None:
    """A real wheel event through QApplication.notify (which hands an ignored one to parents)."""
    pos = QPointF(widget.rect().center())
    event = QWheelEvent(
        pos,
        QPointF(widget.mapToGlobal(pos.toPoint())),
        QPoint(0, 0),
        QPoint(0, notches * NOTCH),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(widget, event)


def test_an_unmodified_document_is_replaced_without_asking(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    assert confirm_replace_unsaved(window, window.document) is True
    assert dialogs.shown == []


def test_unsaved_work_asks_and_cancel_keeps_it(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    window.mask_controller.fill()
    assert window.document.modified
    dialogs.answers = [QMessageBox.StandardButton.Cancel]
    assert confirm_replace_unsaved(window, window.document) is False
    dialogs.answers = [QMessageBox.StandardButton.Discard]
    assert confirm_replace_unsaved(window, window.document) is True
    assert dialogs.kinds() == ["question", "question"]
    assert "not saved" in dialogs.texts()


def test_save_is_offered_and_its_result_decides(qtbot, tmp_path, dialogs) -> None:
    window = open_window(qtbot, tmp_path)
    window.mask_controller.fill()
    saved: list[bool] = []

    def save(ok: bool) -> bool:
        saved.append(ok)
        return ok

    dialogs.answers = [QMessageBox.StandardButton.Save, QMessageBox.StandardButton.Save]
    assert confirm_replace_unsaved(window, window.document, lambda: save(False)) is False
    assert confirm_replace_unsaved(window, window.document, lambda: save(True)) is True
    assert saved == [False, True]
    assert "Save them first?" in dialogs.texts()


class Panel(QScrollArea):
    """A tall panel in a scroll area, its value widgets near the top."""

    def __init__(self) -> None:
        super().__init__()
        content = QWidget()
        layout = QVBoxLayout(content)
        self.combo = QComboBox()
        self.combo.addItems(["Pad", "Crop", "Scale"])
        self.spin = QSpinBox()
        self.spin.setRange(0, 100)
        self.spin.setValue(50)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 100)
        self.slider.setValue(50)
        for widget in (self.combo, self.spin, self.slider):
            layout.addWidget(widget)
        layout.addSpacing(3000)
        self.setWidget(content)
        self.setWidgetResizable(True)
        self.resize(300, 200)


def test_the_wheel_over_unfocused_value_widgets_scrolls_the_panel(qtbot, qapp) -> None:
    guard = install_wheel_guard(qapp)
    try:
        panel = Panel()
        qtbot.addWidget(panel)
        panel.show()
        qtbot.waitExposed(panel)
        panel.setFocus()
        bar = panel.verticalScrollBar()
        assert panel.spin.focusPolicy() == Qt.FocusPolicy.StrongFocus  # polished after
        for widget in (panel.combo, panel.spin, panel.slider):
            before = bar.value()
            wheel(widget, -1)
            assert not widget.hasFocus()
            assert bar.value() > before, type(widget).__name__
        assert panel.combo.currentIndex() == 0
        assert panel.spin.value() == 50
        assert panel.slider.value() == 50
        # Focused (clicked or tabbed into), the wheel changes the value as usual.
        panel.spin.setFocus()
        qtbot.waitUntil(panel.spin.hasFocus)
        wheel(panel.spin, 1)
        assert panel.spin.value() == 51
    finally:
        qapp.removeEventFilter(guard)
        guard.deleteLater()


def test_without_the_guard_the_wheel_changes_the_combo(qtbot) -> None:
    # The control for the test above: Qt's own behaviour is what the guard prevents.
    panel = Panel()
    qtbot.addWidget(panel)
    panel.show()
    qtbot.waitExposed(panel)
    wheel(panel.combo, -1)
    assert panel.combo.currentIndex() == 1


def test_the_align_combo_of_the_paint_panel_ignores_the_wheel(qtbot, qapp, tmp_path) -> None:
    guard = install_wheel_guard(qapp)
    try:
        window = open_window(qtbot, tmp_path)
        combo = window.prepare_panel.align_combo
        before = combo.currentData()
        wheel(combo, -1)
        wheel(combo, -1)
        assert combo.currentData() == before
        assert window.job_form.values()["align"] == before
        # Made before the guard, it still lost the wheel focus Qt would give it first.
        assert combo.focusPolicy() == Qt.FocusPolicy.StrongFocus
        assert window.prepare_panel.fill_combo.focusPolicy() == Qt.FocusPolicy.StrongFocus
    finally:
        qapp.removeEventFilter(guard)
        guard.deleteLater()
