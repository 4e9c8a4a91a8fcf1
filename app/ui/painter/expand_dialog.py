"""Expand canvas…: pixels to add on each side, typed or computed from a target aspect ratio."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.imaging.frame import MAX_EXPANDED_SIDE_PX, Expansion, expansion_for_aspect
from app.imaging.geometry import Size

ASPECTS = ((1, 1), (4, 3), (3, 4), (3, 2), (2, 3), (16, 9), (9, 16), (21, 9))
# What a side's field takes as typed: above the largest side, so a value too large shows as
# typed and the line below says why OK is off (a spin box capped at the limit turned a typed
# 9000 into 900).
FIELD_MAX_PX = 99_999


class ExpandCanvasDialog(QDialog):
    """Asks for the pixels added on the left, top, right and bottom of a picture of `size`;
    `expansion()` is the answer. A target aspect ratio fills the four fields."""

    def __init__(self, size: Size, current: Expansion | None, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle(self.tr("Expand canvas"))
        self.size_px = size
        sides = QGroupBox(self.tr("Pixels to add"))
        grid = QGridLayout(sides)
        self.spins: dict[str, QSpinBox] = {}
        for key, text, row, column in (
            ("top", self.tr("Top"), 0, 1),
            ("left", self.tr("Left"), 1, 0),
            ("right", self.tr("Right"), 1, 2),
            ("bottom", self.tr("Bottom"), 2, 1),
        ):
            spin = QSpinBox()
            spin.setRange(0, FIELD_MAX_PX)
            spin.setSingleStep(16)
            spin.setSuffix(" px")
            spin.setAccessibleName(text)
            spin.setToolTip(text)
            spin.valueChanged.connect(self._update_result)
            self.spins[key] = spin
            box = QVBoxLayout()
            box.addWidget(QLabel(text))
            box.addWidget(spin)
            grid.addLayout(box, row, column)
        self.photo_label = QLabel(self.tr("Photo\n{w}×{h} px").format(w=size.width, h=size.height))
        grid.addWidget(self.photo_label, 1, 1)

        aspect = QGroupBox(self.tr("Or reach an aspect ratio"))
        form = QFormLayout(aspect)
        self.aspect_combo = QComboBox()
        for w, h in ASPECTS:
            self.aspect_combo.addItem(f"{w}:{h}", (w, h))
        self.anchor_combo = QComboBox()
        for value, text in (
            ("centre", self.tr("Both sides evenly")),
            ("left", self.tr("Left or top")),
            ("right", self.tr("Right or bottom")),
        ):
            self.anchor_combo.addItem(text, value)
        self.aspect_button = QPushButton(self.tr("Compute the sides"))
        self.aspect_button.clicked.connect(self.apply_aspect)
        form.addRow(self.tr("Ratio"), self.aspect_combo)
        form.addRow(self.tr("New area"), self.anchor_combo)
        form.addRow(self.aspect_button)

        self.result_label = QLabel()
        self.result_label.setObjectName("hintLabel")
        self.result_label.setWordWrap(True)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.reset_button = buttons.addButton(
            self.tr("No expansion"), QDialogButtonBox.ButtonRole.ResetRole
        )
        self.reset_button.clicked.connect(lambda: self.set_expansion(None))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)

        layout = QVBoxLayout(self)
        layout.addWidget(sides)
        layout.addWidget(aspect)
        layout.addWidget(self.result_label)
        layout.addWidget(buttons)
        self.set_expansion(current)

    def set_expansion(self, expansion: Expansion | None) -> None:
        e = expansion or Expansion(0, 0, 0, 0)
        for key, value in zip(("left", "top", "right", "bottom"), e, strict=True):
            self.spins[key].setValue(value)
        self._update_result()

    def expansion(self) -> Expansion | None:
        """The pixels to add (None: none)."""
        e = Expansion(*(self.spins[k].value() for k in ("left", "top", "right", "bottom")))
        return None if e.is_empty() else e

    def apply_aspect(self) -> None:
        ratio_w, ratio_h = self.aspect_combo.currentData()
        anchor = self.anchor_combo.currentData()
        portrait = self.size_px.width * ratio_h >= self.size_px.height * ratio_w
        if anchor == "left":
            anchor = "top" if portrait else "left"
        elif anchor == "right":
            anchor = "bottom" if portrait else "right"
        self.set_expansion(expansion_for_aspect(self.size_px, ratio_w, ratio_h, anchor))

    def _update_result(self) -> None:
        e = self.expansion() or Expansion(0, 0, 0, 0)
        grown = e.grown(self.size_px)
        too_big = max(grown) > MAX_EXPANDED_SIDE_PX
        if too_big:
            text = self.tr("{w}×{h} px is too large: no side may exceed {max} px.").format(
                w=grown.width, h=grown.height, max=MAX_EXPANDED_SIDE_PX
            )
        elif e.is_empty():
            text = self.tr("The canvas stays {w}×{h} px.").format(w=grown.width, h=grown.height)
        else:
            text = self.tr(
                "The canvas becomes {w}×{h} px; the new area is generated and blended into "
                "the photo."
            ).format(w=grown.width, h=grown.height)
        self.result_label.setText(text)
        self.ok_button.setEnabled(not too_big)
