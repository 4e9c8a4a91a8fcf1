"""The image area of a run: the live preview while diffusing, then the result beside the
original, with a before/after toggle."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QRect, QSize, Qt, Signal
from PySide6.QtGui import QImage, QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationResult", text)


class ImagePane(QWidget):
    """Paints one pixmap scaled to fit, centred, with a caption underneath."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pixmap = QPixmap()
        self._scaled = QPixmap()  # _pixmap scaled to the last painted size: repaints are cheap
        self._caption = ""
        self._placeholder = ""
        self.setMinimumSize(120, 120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def set_image(self, image: QImage | QPixmap | None, caption: str = "") -> None:
        if image is None:
            self._pixmap = QPixmap()
        elif isinstance(image, QImage):
            self._pixmap = QPixmap.fromImage(image)
        else:
            self._pixmap = image
        self._scaled = QPixmap()
        self._caption = caption
        self.update()

    def set_placeholder(self, text: str) -> None:
        self._placeholder = text
        self.update()

    def has_image(self) -> bool:
        return not self._pixmap.isNull()

    def pixmap(self) -> QPixmap:
        return self._pixmap

    def caption(self) -> str:
        return self._caption

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(320, 320)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        area = self.rect().adjusted(2, 2, -2, -22)
        painter.fillRect(area, self.palette().window().color().darker(112))
        if self._pixmap.isNull():
            painter.setPen(self.palette().placeholderText().color())
            painter.drawText(
                area,
                int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap),
                self._placeholder,
            )
        else:
            size = self._pixmap.size().scaled(area.size(), Qt.AspectRatioMode.KeepAspectRatio)
            dpr = self.devicePixelRatioF()
            device_size = size * dpr
            if self._scaled.size() != device_size:
                # Small previews scale up with nearest-neighbour so latent pixels stay honest;
                # large ones scale down smoothly, once per size rather than on every repaint.
                smooth = (
                    self._pixmap.width() >= device_size.width()
                    and self._pixmap.height() >= device_size.height()
                )
                mode = (
                    Qt.TransformationMode.SmoothTransformation
                    if smooth
                    else Qt.TransformationMode.FastTransformation
                )
                self._scaled = self._pixmap.scaled(
                    device_size, Qt.AspectRatioMode.IgnoreAspectRatio, mode
                )
                self._scaled.setDevicePixelRatio(dpr)
            target = QRect(0, 0, size.width(), size.height())
            target.moveCenter(area.center())
            painter.drawPixmap(target.topLeft(), self._scaled)
        painter.setPen(self.palette().text().color())
        caption_rect = QRect(0, self.height() - 20, self.width(), 20)
        painter.drawText(caption_rect, int(Qt.AlignmentFlag.AlignCenter), self._caption)


class GenerationResultView(QWidget):
    """Left: the original; right: the preview or the result. Side by side, or one pane with a
    before/after toggle."""

    save_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("generation_result_view")
        self.original = ImagePane(self)
        self.original.setObjectName("generation_original")
        self.current = ImagePane(self)
        self.current.setObjectName("generation_current")
        self.current.set_placeholder(_tr("The preview of each step and the result appear here."))
        self.original.set_placeholder(_tr("Text to image: no original."))
        self.side_by_side = QCheckBox(_tr("Side by side"), self)
        self.side_by_side.setObjectName("generation_side_by_side")
        self.side_by_side.setChecked(True)
        self.before_after = QPushButton(_tr("Show before"), self)
        self.before_after.setObjectName("generation_before_after")
        self.before_after.setCheckable(True)
        self.before_after.setToolTip(_tr("Toggle between the original and the result"))
        self.save_button = QPushButton(_tr("Save result…"), self)
        self.save_button.setObjectName("generation_save_result")
        self.save_button.setEnabled(False)
        tools = QHBoxLayout()
        tools.setContentsMargins(0, 0, 0, 0)
        tools.addWidget(self.side_by_side)
        tools.addWidget(self.before_after)
        tools.addStretch(1)
        tools.addWidget(self.save_button)
        panes = QHBoxLayout()
        panes.setContentsMargins(0, 0, 0, 0)
        panes.addWidget(self.original, 1)
        panes.addWidget(self.current, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(panes, 1)
        layout.addLayout(tools)
        self.side_by_side.toggled.connect(self._layout_changed)
        self.before_after.toggled.connect(self._layout_changed)
        self.save_button.clicked.connect(self.save_requested)
        self._result_image = QImage()
        self._result_caption = ""
        self._layout_changed()

    # --- content ---------------------------------------------------------------------------

    def set_original(self, image: QImage | None) -> None:
        self.original.set_image(image, _tr("Original") if image is not None else "")
        self._layout_changed()

    def show_preview(self, step: int, steps: int, image: QImage) -> None:
        self.current.set_image(
            image,
            _tr("Step {step} of {steps} (preview)").format(step=step, steps=steps)
            if steps
            else _tr("Step {step}").format(step=step),
        )
        self._show_current()

    def show_image(self, image: QImage, caption: str) -> None:
        self.current.set_image(image, caption)
        self._show_current()

    def show_result(self, image: QImage) -> None:
        self._result_image = image
        self.current.set_image(image, _tr("Result"))
        self.save_button.setEnabled(not image.isNull())
        self._show_current()

    def has_result(self) -> bool:
        return not self._result_image.isNull()

    def clear_result(self) -> None:
        self._result_image = QImage()
        self.save_button.setEnabled(False)
        self.current.set_image(None)

    def _show_current(self) -> None:
        if self.before_after.isChecked():
            self.before_after.setChecked(False)
        self._layout_changed()

    # --- layout ----------------------------------------------------------------------------

    def _layout_changed(self) -> None:
        side = self.side_by_side.isChecked()
        before = self.before_after.isChecked()
        self.before_after.setEnabled(not side and self.original.has_image())
        self.before_after.setText(_tr("Show after") if before else _tr("Show before"))
        if side:
            self.original.setVisible(True)
            self.current.setVisible(True)
        else:
            self.original.setVisible(before)
            self.current.setVisible(not before)

    def showing(self) -> str:
        """ "both", "before" or "after" (tests and screenshots)."""
        if self.original.isVisibleTo(self) and self.current.isVisibleTo(self):
            return "both"
        return "before" if self.original.isVisibleTo(self) else "after"
