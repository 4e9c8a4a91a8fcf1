"""Buttons for whole-mask operations; the actions themselves live in the main window."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QGridLayout,
    QGroupBox,
    QLabel,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

GROW_MAX_PX = 512
BLUR_MAX_PX = 256


def _button(action: QAction) -> QToolButton:
    button = QToolButton()
    button.setDefaultAction(action)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
    return button


class MaskPanel(QWidget):
    """Clear / fill / invert, grow and shrink by N px, blur by N px, load and save."""

    def __init__(self, actions: dict[str, QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        box = QGroupBox(self.tr("Mask"))
        grid = QGridLayout(box)
        grid.addWidget(_button(actions["clear"]), 0, 0)
        grid.addWidget(_button(actions["fill"]), 0, 1)
        grid.addWidget(_button(actions["invert"]), 0, 2)

        self.grow_spin = QSpinBox()
        self.grow_spin.setRange(1, GROW_MAX_PX)
        self.grow_spin.setValue(8)
        self.grow_spin.setSuffix(" px")
        self.grow_spin.setToolTip(self.tr("How far grow and shrink move the mask edge"))
        grid.addWidget(QLabel(self.tr("Edge")), 1, 0)
        grid.addWidget(self.grow_spin, 1, 1, 1, 2)
        grid.addWidget(_button(actions["grow"]), 2, 1)
        grid.addWidget(_button(actions["shrink"]), 2, 2)

        self.blur_spin = QSpinBox()
        self.blur_spin.setRange(1, BLUR_MAX_PX)
        self.blur_spin.setValue(8)
        self.blur_spin.setSuffix(" px")
        self.blur_spin.setToolTip(self.tr("Blur radius"))
        grid.addWidget(QLabel(self.tr("Blur")), 3, 0)
        grid.addWidget(self.blur_spin, 3, 1)
        grid.addWidget(_button(actions["blur"]), 3, 2)

        grid.addWidget(_button(actions["load_mask"]), 4, 0, 1, 2)
        grid.addWidget(_button(actions["save_mask"]), 4, 2)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(box)

    def grow_px(self) -> int:
        return self.grow_spin.value()

    def blur_px(self) -> int:
        return self.blur_spin.value()
