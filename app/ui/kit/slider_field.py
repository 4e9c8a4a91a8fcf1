"""A labelled slider with a spin box beside it, for integer settings (sizes, percentages)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QSlider, QSpinBox, QWidget


class SliderField(QWidget):
    """Slider and spin box kept in step; `value_changed` fires once per change."""

    value_changed = Signal(int)

    def __init__(
        self,
        minimum: int,
        maximum: int,
        value: int,
        suffix: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(minimum, maximum)
        self.spin = QSpinBox()
        self.spin.setRange(minimum, maximum)
        self.spin.setSuffix(suffix)
        self.spin.setKeyboardTracking(False)
        self.spin.setMinimumWidth(72)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.spin)
        self.set_value(value)
        self.slider.valueChanged.connect(self._changed)
        self.spin.valueChanged.connect(self._changed)

    def value(self) -> int:
        return self.spin.value()

    def set_value(self, value: int) -> None:
        for w in (self.slider, self.spin):
            w.blockSignals(True)
            w.setValue(value)
            w.blockSignals(False)

    def _changed(self, value: int) -> None:
        if value == self.value() and value == self.slider.value():
            return
        self.set_value(value)
        self.value_changed.emit(value)
