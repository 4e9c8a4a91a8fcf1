"""The run's pictures in the side panel, small: the canvas shows them full size (app/ui/
workspace); here a thumbnail of the original and of the newest preview or the result, and
"Save result…"."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QRect, QSize, Qt, Signal
from PySide6.QtGui import QImage, QPainter, QPaintEvent, QPixmap
from PySide6.QtWidgets import (
    QHBoxLayout,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.jobs.background import LatestOnly

THUMB_PANE_PX = 96


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

    def sizeHint(self) -> QSize:
        return QSize(320, 320)

    def paintEvent(self, event: QPaintEvent) -> None:
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


def read_result(path: Path, max_px: int) -> QImage | None:
    """The picture at `path` fitted into max_px × max_px (never enlarged), None if unreadable:
    for a worker thread (QImage), so a 8192² result never decodes on the UI thread."""
    image = QImage(str(path))
    if image.isNull():
        return None
    if max(image.width(), image.height()) > max_px > 0:
        image = image.scaled(
            max_px,
            max_px,
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
    return image


class GenerationResultView(QWidget):
    """A small reminder of what the run made (the canvas is where pictures are seen): the
    original and the newest preview or the result as thumbnails, and "Save result…", which is
    enabled only while a result is on show."""

    save_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("generation_result_view")
        self.original = ImagePane(self)
        self.original.setObjectName("generation_original")
        self.current = ImagePane(self)
        self.current.setObjectName("generation_current")
        self.current.set_placeholder(_tr("Previews and the result appear on the canvas."))
        self.original.set_placeholder(_tr("Text to image: no original."))
        for pane in (self.original, self.current):
            pane.setMinimumSize(THUMB_PANE_PX, THUMB_PANE_PX)
            pane.setMaximumHeight(THUMB_PANE_PX + 24)
        self.save_button = QPushButton(_tr("Save result…"), self)
        self.save_button.setObjectName("generation_save_result")
        self.save_button.setEnabled(False)
        panes = QHBoxLayout()
        panes.setContentsMargins(0, 0, 0, 0)
        panes.addWidget(self.original, 1)
        panes.addWidget(self.current, 1)
        tools = QHBoxLayout()
        tools.setContentsMargins(0, 0, 0, 0)
        tools.addStretch(1)
        tools.addWidget(self.save_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(panes)
        layout.addLayout(tools)
        layout.addStretch(1)
        self.save_button.clicked.connect(self.save_requested)
        self._result_image = QImage()
        self.reads = LatestOnly("RunResult", self)  # a run's result.png, read off the UI thread
        self._result_of: Path | None = None  # the run folder whose result is being read

    # --- content ---------------------------------------------------------------------------

    def set_original(self, image: QImage | None) -> None:
        self.original.set_image(image, _tr("Original") if image is not None else "")

    def show_preview(self, step: int, steps: int, image: QImage) -> None:
        self.current.set_image(
            image,
            _tr("Step {step} of {steps} (preview)").format(step=step, steps=steps)
            if steps
            else _tr("Step {step}").format(step=step),
        )

    def show_image(self, image: QImage, caption: str) -> None:
        self.current.set_image(image, caption)

    def show_result(self, image: QImage) -> None:
        self._result_image = image
        self.current.set_image(image, _tr("Result"))
        self.save_button.setEnabled(not image.isNull())

    def load_result(self, run_dir: Path, path: Path) -> None:
        """The result of the run in `run_dir`, read and fitted to the pane off the UI thread;
        shown when it arrives only if no other run's result was asked for or cleared since."""
        pane = self.current
        max_px = int(max(pane.width(), pane.height(), THUMB_PANE_PX) * pane.devicePixelRatioF())
        self._result_of = Path(run_dir)
        self.reads.request(
            lambda: read_result(Path(path), max_px),
            lambda image: self._result_read(Path(run_dir), image),
        )

    def _result_read(self, run_dir: Path, image: QImage | None) -> None:
        if image is not None and run_dir == self._result_of:
            self.show_result(image)

    def has_result(self) -> bool:
        return not self._result_image.isNull()

    def clear_result(self) -> None:
        self.reads.cancel()  # a read under way belongs to the run shown before
        self._result_of = None
        self._result_image = QImage()
        self.save_button.setEnabled(False)
        self.current.set_image(None)

    def showing(self) -> str:
        """ "both" (tests and screenshots; before / after lives on the canvas now)."""
        return "both"
