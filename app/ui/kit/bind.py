"""bind(): one widget ⇄ one field of the job form, both ways, with no mapping code in panes.

A widget change sets the field (a value the table refuses puts the widget back); a field
change (an sd-cli import, a resumed run, the other pane bound to the same field) updates the
widget without echoing back. Supported: QComboBox (item data, else text), QSpinBox,
QDoubleSpinBox, QCheckBox, QLineEdit, QPlainTextEdit, and any widget with path() /
set_path() / path_changed (app.ui.generation.model_files.ModelFileField).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QWidget,
)

from app.jobs.job_form import JobForm
from app.pipeline.job.params import Param
from app.ui.words.param_tips import param_tip


class Binding(QObject):
    """Keeps `widget` and `form[param]` equal; lives as long as the widget."""

    def __init__(self, widget: QWidget, form: JobForm, param: Param) -> None:
        super().__init__(widget)
        self.widget, self.form, self.param = widget, form, param
        self._updating = False
        read, write, signal = _accessors(widget)
        self._read: Callable[[], Any] = read
        self._write: Callable[[Any], None] = write
        if isinstance(widget, QSpinBox | QDoubleSpinBox):  # the table's range
            cast = int if isinstance(widget, QSpinBox) else float
            if param.minimum is not None:
                widget.setMinimum(cast(param.minimum))  # type: ignore[arg-type]
            if param.maximum is not None:
                widget.setMaximum(cast(param.maximum))  # type: ignore[arg-type]
        self.show(form.get(param))
        signal.connect(self._widget_changed)
        form.signal(param).connect(self.show)
        if not widget.toolTip():  # the UI's own words, never the table's CLI help
            widget.setToolTip(param_tip(param.name))

    def show(self, value: Any) -> None:
        """Puts a field value into the widget."""
        if self._updating:
            return
        self._updating = True
        try:
            self._write(value)
        finally:
            self._updating = False

    def _widget_changed(self, *_: Any) -> None:
        if self._updating:
            return
        value = self._read()
        if self.param.kind is str and isinstance(value, str) and isinstance(self.widget, QLineEdit):
            value = value.strip()
        try:
            self._updating = True
            self.form.set(self.param, value)
        except ValueError:
            self._updating = False
            self.show(self.form.get(self.param))  # refused: show what the form holds
        finally:
            self._updating = False


def bind(widget: QWidget, form: JobForm, param: Param) -> Binding:
    """Binds `widget` to the form field `param` (see the module doc for the widget kinds)."""
    return Binding(widget, form, param)


def _accessors(widget: QWidget) -> tuple[Callable[[], Any], Callable[[Any], None], Any]:
    if isinstance(widget, QComboBox):
        return (
            lambda: _combo_value(widget),
            lambda v: _combo_show(widget, v),
            widget.currentIndexChanged,
        )
    if isinstance(widget, QSpinBox):
        return widget.value, lambda v: widget.setValue(int(v)), widget.valueChanged
    if isinstance(widget, QDoubleSpinBox):
        return widget.value, lambda v: widget.setValue(float(v)), widget.valueChanged
    if isinstance(widget, QCheckBox):
        return widget.isChecked, lambda v: widget.setChecked(bool(v)), widget.toggled
    if isinstance(widget, QLineEdit):
        return widget.text, lambda v: widget.setText(str(v)), widget.editingFinished
    if isinstance(widget, QPlainTextEdit):

        def write_text(value: Any) -> None:
            if widget.toPlainText() != value:
                widget.setPlainText(str(value))

        return widget.toPlainText, write_text, widget.textChanged
    path_changed = getattr(widget, "path_changed", None)
    if path_changed is not None:
        return widget.path, lambda v: widget.set_path(str(v)), path_changed  # type: ignore[attr-defined]
    raise TypeError(f"bind(): {type(widget).__name__} is not a supported widget")


def _combo_value(combo: QComboBox) -> Any:
    data = combo.currentData()
    return combo.currentText() if data is None else data


def _combo_show(combo: QComboBox, value: Any) -> None:
    index = combo.findData(value)
    if index < 0:
        index = combo.findText(str(value))
    if index < 0:  # a value the list does not offer (yet): shown, not lost
        combo.addItem(str(value), value)
        index = combo.count() - 1
    combo.setCurrentIndex(index)
