"""Under the app's style sheet (dark.qss) a drop-down list and a number field show their arrows:
looked at under Xvfb, "Run the queue [Always]", "Preset", "Show" and "× 1" read as plain text
fields — the sheet styled their frames, which leaves Fusion drawing no arrow at all."""

from __future__ import annotations

import numpy as np
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QComboBox, QSpinBox, QWidget

from app.ui.shell.application import ICONS_DIR, STYLE_FILE

ARROW_ZONE_PX = 20  # the right end of the field, where its arrows belong
LIGHT = 120  # an arrow is light grey on the field's #1a1c20


def _style() -> str:
    return STYLE_FILE.read_text(encoding="utf-8").replace("@ICONS@", ICONS_DIR.as_posix())


def _light_pixels_at_the_right(qtbot, widget: QWidget) -> int:
    widget.setStyleSheet(_style())
    qtbot.addWidget(widget)
    widget.resize(160, widget.sizeHint().height())
    widget.show()
    qtbot.waitExposed(widget)
    image = widget.grab().toImage().convertToFormat(QImage.Format.Format_RGB888)
    w, h = image.width(), image.height()
    rows = np.frombuffer(image.constBits(), np.uint8).reshape(h, image.bytesPerLine())
    pixels = rows[:, : w * 3].reshape(h, w, 3)
    zone = pixels[3:-3, w - ARROW_ZONE_PX : w - 3]
    return int((zone.max(axis=2) > LIGHT).sum())


def test_a_drop_down_list_shows_its_arrow(qtbot) -> None:
    combo = QComboBox()
    combo.addItems(["Always", "When idle"])
    assert _light_pixels_at_the_right(qtbot, combo) > 4


def test_a_number_field_shows_its_arrows(qtbot) -> None:
    spin = QSpinBox()
    spin.setPrefix("× ")
    spin.setRange(1, 10)
    spin.setValue(5)  # neither end: both arrows at full strength
    assert _light_pixels_at_the_right(qtbot, spin) > 8
