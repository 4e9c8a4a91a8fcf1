"""Buttons for whole-mask operations; the actions themselves live in the main window."""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.ui.kit.action_button import action_button

GROW_MAX_PX = 512
BLUR_MAX_PX = 256


class MaskPanel(QWidget):
    """Clear / fill / invert, grow and shrink by N px, blur by N px, load and save."""

    def __init__(self, actions: dict[str, QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        box = QGroupBox(self.tr("Mask"))
        rows = QVBoxLayout(box)

        self.grow_spin = QSpinBox()
        self.grow_spin.setRange(1, GROW_MAX_PX)
        self.grow_spin.setValue(8)
        self.grow_spin.setSuffix(" px")
        self.grow_spin.setToolTip(self.tr("How far grow and shrink move the mask edge"))
        self.blur_spin = QSpinBox()
        self.blur_spin.setRange(1, BLUR_MAX_PX)
        self.blur_spin.setValue(8)
        self.blur_spin.setSuffix(" px")
        self.blur_spin.setToolTip(self.tr("Blur radius"))
        edge_label, blur_label = QLabel(self.tr("Edge")), QLabel(self.tr("Blur"))
        label_width = max(edge_label.sizeHint().width(), blur_label.sizeHint().width())

        def row(*widgets: QWidget) -> None:
            line = QHBoxLayout()
            for widget in widgets:
                if isinstance(widget, QLabel):
                    widget.setFixedWidth(label_width)
                if isinstance(widget, QSpinBox):
                    widget.setFixedWidth(84)
                line.addWidget(widget)
            rows.addLayout(line)

        row(
            action_button(actions["clear"]),
            action_button(actions["fill"]),
            action_button(actions["invert"]),
        )
        row(
            edge_label,
            self.grow_spin,
            action_button(actions["grow"]),
            action_button(actions["shrink"]),
        )
        row(blur_label, self.blur_spin, action_button(actions["blur"]))
        row(action_button(actions["load_mask"]), action_button(actions["save_mask"]))

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(box)

    def grow_px(self) -> int:
        return self.grow_spin.value()

    def blur_px(self) -> int:
        return self.blur_spin.value()
