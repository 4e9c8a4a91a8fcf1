"""Diffusion progress: a bar with an ETA from the measured seconds per step, and a strip with
one thumbnail per step (click to enlarge)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QElapsedTimer, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QFocusEvent, QIcon, QImage, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QVBoxLayout,
    QWidget,
)

from app.jobs.background import LatestOnly
from app.pipeline import preview_file
from app.ui.generation.stages import format_seconds

THUMB_PX = 72
ENLARGED_MAX_PX = 900
CLOCK_MS = 1000  # a stage without steps shows its elapsed time this often


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationSteps", text)


class GenerationProgressBar(QWidget):
    """Step k of N, s/step and the time left."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bar = QProgressBar(self)
        self.bar.setObjectName("generation_progress")
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self.bar.setTextVisible(True)
        self.detail = QLabel(self)
        self.detail.setObjectName("generation_eta")
        # One line of fixed height: a new ETA every step must not re-lay out the whole panel.
        self.detail.setFixedHeight(self.detail.fontMetrics().height() + 2)
        self.detail.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.bar)
        layout.addWidget(self.detail)
        self._busy_text = ""
        self._started = QElapsedTimer()
        self._clock = QTimer(self)
        self._clock.setInterval(CLOCK_MS)
        self._clock.timeout.connect(self._tick)
        self.reset()

    def reset(self, text: str = "") -> None:
        self._stop_clock()
        self.bar.setRange(0, 1)
        self.bar.setValue(0)
        self.bar.setFormat(text or _tr("Idle"))
        self.detail.setText("")

    def busy(self, text: str) -> None:
        """Indeterminate: a stage without steps is running; the time it has taken so far is
        shown every second (a VAE decode can take minutes)."""
        self.bar.setRange(0, 0)
        self.bar.setFormat(text)
        self._busy_text = text
        self._started.start()
        self._clock.start()
        self._tick()

    def _tick(self) -> None:
        elapsed = format_seconds(self._started.elapsed() / 1000.0)
        self.detail.setText(
            _tr("{stage} · {elapsed} so far").format(stage=self._busy_text, elapsed=elapsed)
        )

    def _stop_clock(self) -> None:
        self._clock.stop()

    def set_step(self, step: int, steps: int, seconds_per_step: float, eta_s: float) -> None:
        self._stop_clock()
        self.bar.setRange(0, max(1, steps))
        self.bar.setValue(step)
        self.bar.setFormat(_tr("Step {step} of {steps}").format(step=step, steps=steps))
        if seconds_per_step > 0:
            self.detail.setText(
                _tr("{sps} per step · about {eta} left").format(
                    sps=format_seconds(seconds_per_step), eta=format_seconds(eta_s)
                )
            )
        else:
            self.detail.setText("")

    def set_note(self, text: str) -> None:
        self._stop_clock()
        self.detail.setText(text)


class StepImageDialog(QDialog):
    """One step's preview, large."""

    def __init__(self, step: int, path: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(_tr("Step {step}").format(step=step))
        image = QImage(path)
        label = QLabel(self)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        if image.isNull():
            label.setText(_tr("The preview of step {step} could not be read.").format(step=step))
        else:
            if max(image.width(), image.height()) < 384:
                # tiny previews (latent-size projections) are easier to judge scaled up
                image = image.scaled(
                    384,
                    384,
                    Qt.AspectRatioMode.KeepAspectRatio,
                    Qt.TransformationMode.FastTransformation,
                )
            elif max(image.width(), image.height()) > ENLARGED_MAX_PX:
                image = image.scaled(
                    ENLARGED_MAX_PX,
                    ENLARGED_MAX_PX,
                    Qt.AspectRatioMode.KeepAspectRatio,
                    Qt.TransformationMode.SmoothTransformation,
                )
            label.setPixmap(QPixmap.fromImage(image))
        scroll = QScrollArea(self)
        scroll.setWidget(label)
        scroll.setWidgetResizable(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll)
        layout.addWidget(buttons)
        self.resize(
            min(ENLARGED_MAX_PX, max(420, label.sizeHint().width() + 40)),
            min(ENLARGED_MAX_PX, max(420, label.sizeHint().height() + 80)),
        )


def read_step_previews(folder: Path, last: int) -> list[tuple[int, str, QImage]]:
    """(step, path, thumbnail) of each readable preview_NNN.png of steps 1..last in `folder`,
    scaled to the strip's size (QImage: fine off the UI thread)."""
    found = []
    for step in range(1, last + 1):
        path = folder / preview_file(step)
        image = QImage(str(path))
        if not image.isNull():
            thumb = image.scaled(
                THUMB_PX,
                THUMB_PX,
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
            found.append((step, str(path), thumb))
    return found


class GenerationStepStrip(QListWidget):
    """A horizontal strip of per-step thumbnails; selecting one picks the step for "Decode this
    step" / "Branch from here", double-click (or Enter) enlarges it."""

    step_selected = Signal(int)  # clicked: show it large in the viewer, pick it
    enlarge_requested = Signal(int, str)  # double-clicked: open it in its own window
    # a newer step arrived while one was selected: the selection is dropped (the canvas shows
    # the newest step, so "step k selected" would be stale)
    selection_cleared = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("generation_step_strip")
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setFlow(QListView.Flow.LeftToRight)
        self.setWrapping(False)
        self.setMovement(QListView.Movement.Static)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setIconSize(QSize(THUMB_PX, THUMB_PX))
        self.setSpacing(3)
        self.setUniformItemSizes(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scrollbar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        self.setFixedHeight(THUMB_PX + self.fontMetrics().height() + 22 + scrollbar)
        self._paths: dict[int, str] = {}
        self._focusing = False  # in focusInEvent: a current item set now is not a pick
        self.reads = LatestOnly("StepPreviews", self)  # a run's thumbnails, read off the UI
        self.currentItemChanged.connect(self._current_changed)
        self.itemClicked.connect(self._clicked)
        self.itemDoubleClicked.connect(self._double_clicked)

    def steps(self) -> list[int]:
        return sorted(self._paths)

    def path(self, step: int) -> str:
        return self._paths.get(step, "")

    def selected_step(self) -> int | None:
        item = self.currentItem()
        return None if item is None else int(item.data(Qt.ItemDataRole.UserRole))

    def add_step(self, step: int, path: str, thumb: QImage) -> None:
        """Adds (or replaces) the thumbnail of `step`; the strip follows the newest step."""
        self._paths[step] = path
        icon = QIcon(
            QPixmap.fromImage(
                thumb.scaled(
                    THUMB_PX,
                    THUMB_PX,
                    Qt.AspectRatioMode.KeepAspectRatio,
                    Qt.TransformationMode.SmoothTransformation,
                )
            )
        )
        for row in range(self.count()):
            item = self.item(row)
            if int(item.data(Qt.ItemDataRole.UserRole)) == step:
                item.setIcon(icon)
                return
        if self.currentItem() is not None and step > (self.selected_step() or 0):
            self.setCurrentRow(-1)
            self.clearSelection()
            self.selection_cleared.emit()
        item = QListWidgetItem(icon, str(step))
        item.setData(Qt.ItemDataRole.UserRole, step)
        item.setToolTip(
            _tr("Step {step}: click to select, double-click to enlarge").format(step=step)
        )
        item.setTextAlignment(Qt.AlignmentFlag.AlignHCenter)
        row = 0
        while row < self.count() and int(self.item(row).data(Qt.ItemDataRole.UserRole)) < step:
            row += 1
        self.insertItem(row, item)
        self.scrollToItem(item)

    def keep_steps_up_to(self, last: int) -> None:
        """Removes the steps after `last` (a branch keeps only the shared ones)."""
        for row in reversed(range(self.count())):
            step = int(self.item(row).data(Qt.ItemDataRole.UserRole))
            if step > last:
                self.takeItem(row)
                self._paths.pop(step, None)

    def load_steps(self, folder: Path, last: int) -> None:
        """The thumbnails of steps 1..last from `folder`, decoded off the UI thread; cleared
        again (another run) before they arrive, they are dropped."""
        self.clear_steps()
        self.reads.request(lambda: read_step_previews(folder, last), self._steps_read)

    def _steps_read(self, found: list[tuple[int, str, QImage]]) -> None:
        for step, path, thumb in found:
            self.add_step(step, path, thumb)

    def clear_steps(self) -> None:
        self.reads.cancel()
        self._paths.clear()
        self.clear()

    def focusInEvent(self, event: QFocusEvent) -> None:
        """Focus arriving (Cancel turned off passes it here) makes Qt pick the first step: not
        the user's pick (the canvas said "step 1 of 40" after a cancel), so it is undone."""
        had = self.currentItem() is not None
        self._focusing = True
        try:
            super().focusInEvent(event)
        finally:
            self._focusing = False
        if not had and self.currentItem() is not None:
            self.setCurrentRow(-1)
            self.clearSelection()

    def _current_changed(self, current: QListWidgetItem | None, _previous: object) -> None:
        if current is not None and self.hasFocus() and not self._focusing:
            self.step_selected.emit(int(current.data(Qt.ItemDataRole.UserRole)))

    def _clicked(self, item: QListWidgetItem) -> None:
        self.step_selected.emit(int(item.data(Qt.ItemDataRole.UserRole)))

    def _double_clicked(self, item: QListWidgetItem) -> None:
        step = int(item.data(Qt.ItemDataRole.UserRole))
        self.enlarge_requested.emit(step, self._paths.get(step, ""))
