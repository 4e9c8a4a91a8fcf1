"""The result history under the canvas: this run's decoded steps and results and the earlier
runs of the same photo, as thumbnails; a click shows one on the canvas."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QPainter, QPaintEvent, QPixmap, QResizeEvent
from PySide6.QtWidgets import QListView, QListWidget, QListWidgetItem, QStyle, QWidget

from app.pipeline import STEPS_DIR
from app.pipeline.api import RunSnapshot

THUMB_PX = 64
PROMPT_CHARS = 60
_DECODED = re.compile(r"^step_(\d+)\.png$")


def _tr(text: str) -> str:
    return QCoreApplication.translate("WorkspaceHistory", text)


@dataclass(frozen=True)
class HistoryEntry:
    """One picture of a run: a decoded step or the result."""

    run_dir: Path
    kind: str  # "decoded" | "result"
    step: int  # the decoded step; for a result, the run's steps
    path: Path
    created: str
    prompt: str
    seed: int
    accepted: bool = False  # a result finished early at `step` (app/pipeline/execute/accept.py)
    photo: str = ""  # the name of the photo the run was made of ("" where none is recorded)

    def caption(self) -> str:
        if self.kind == "result" and self.accepted:
            return _tr("Result, accepted at step {step}").format(step=self.step)
        if self.kind == "result":
            return _tr("Result")
        return _tr("Step {step}").format(step=self.step)

    def subtitle(self) -> str:
        """What tells entries of the same caption apart: when the run was made, its seed."""
        try:  # run.json's UTC time, shown in the user's own
            made = datetime.fromisoformat(self.created).astimezone().strftime("%H:%M")
        except ValueError:
            made = ""
        return _tr("{time} · seed {seed}").format(time=made, seed=self.seed)

    def tooltip(self) -> str:
        prompt = self.prompt if len(self.prompt) <= PROMPT_CHARS else self.prompt[:59] + "…"
        what = (
            _tr("Result of the run of {created}")
            if self.kind == "result"
            else _tr("Step {step}, decoded, of the run of {created}")
        ).format(step=self.step, created=self.created.replace("T", " ")[:16])
        photo = f"{self.photo}\n" if self.photo else ""
        return f"{what}\n{photo}{prompt}\n" + _tr("Seed {seed}").format(seed=self.seed)


def entries_of(run: RunSnapshot) -> list[HistoryEntry]:
    """A run's decoded steps (in step order) and its result, as far as they are on disk."""
    out: list[HistoryEntry] = []
    created, prompt, seed = run.created, run.spec.prompt, run.spec.seed
    photo = run.photo_name or ""
    try:
        names = sorted(p.name for p in (Path(run.dir) / STEPS_DIR).iterdir())
    except OSError:
        names = []
    for name in names:
        match = _DECODED.match(name)
        if match:
            path = Path(run.dir) / STEPS_DIR / name
            step = int(match.group(1))
            entry = HistoryEntry(Path(run.dir), "decoded", step, path, created, prompt, seed)
            out.append(dataclasses.replace(entry, photo=photo))
    if run.result is not None and Path(run.result).is_file():
        accepted = run.accepted_step is not None
        steps = run.steps or run.spec.steps
        if run.accepted_step is not None:
            steps = run.accepted_step
        result = Path(run.result)
        out.append(
            HistoryEntry(
                Path(run.dir), "result", steps, result, created, prompt, seed, accepted, photo
            )
        )
    return out


class ResultHistoryStrip(QListWidget):
    """Thumbnails left to right, oldest first; `entry_chosen` on a click (or Enter)."""

    entry_chosen = Signal(object)  # HistoryEntry

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("workspace_history")
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setFlow(QListView.Flow.LeftToRight)
        self.setWrapping(False)
        self.setMovement(QListView.Movement.Static)
        self.setIconSize(QSize(THUMB_PX, THUMB_PX))
        self.setSpacing(2)
        self.setUniformItemSizes(False)  # each caption its own width (grid: _fit_captions)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scrollbar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        self.setFixedHeight(THUMB_PX + 2 * self.fontMetrics().height() + 16 + scrollbar)
        self._entries: list[HistoryEntry] = []
        self._cell = 0  # a cell's width (_fit_captions)
        self.itemClicked.connect(self._clicked)
        self.itemActivated.connect(self._clicked)

    def entries(self) -> list[HistoryEntry]:
        return list(self._entries)

    def set_entries(
        self,
        entries: list[HistoryEntry],
        thumbnails: Mapping[HistoryEntry, QImage | None] | None = None,
    ) -> None:
        """Shows `entries` (kept items keep their thumbnails; new ones take theirs from
        `thumbnails`, read off the UI thread, else from their file); the newest stays in
        view."""
        thumbnails = thumbnails or {}
        icons = {
            self._entries[row]: self.item(row).icon()
            for row in range(self.count())
            if row < len(self._entries)
        }
        self.clear()
        self._entries = list(entries)
        for entry in self._entries:
            icon = icons.get(entry) or _icon(thumbnails.get(entry, _UNREAD), entry.path)
            label = entry.caption() + "\n" + entry.subtitle()
            item = QListWidgetItem(icon, label)
            item.setToolTip(entry.tooltip())
            item.setTextAlignment(Qt.AlignmentFlag.AlignHCenter)
            self.addItem(item)
        self._fit_captions()
        self.viewport().update()  # the placeholder goes or comes
        if self.count():
            self.scrollToItem(self.item(self.count() - 1))
            self._snap()

    def _fit_captions(self) -> None:
        """Each cell as wide as the widest caption line ("15:13 · seed 42" and "Result,
        accepted at step 10" lost letters in cells as wide as the first caption), and the
        cells share the view's width exactly, scrolled by whole cells: a caption at the view's
        left edge is never cut ("5:13 · seed 42" for 15:13)."""
        metrics = self.fontMetrics()
        widest = max(
            (
                metrics.horizontalAdvance(line)
                for row in range(self.count())
                for line in self.item(row).text().split("\n")
            ),
            default=0,
        )
        least = max(THUMB_PX, widest) + 12
        view = max(least, self.viewport().width())
        cell = view // max(1, view // least)
        grid = QSize(cell, THUMB_PX + 2 * metrics.height() + 12)
        if self.gridSize() != grid:
            self.setGridSize(grid)
        self._cell = cell

    def _snap(self) -> None:
        """The scroll position on a cell's edge (the newest kept in view)."""
        bar = self.horizontalScrollBar()
        cell = self._cell
        if cell > 0 and bar.maximum() > 0:
            bar.setValue(min(bar.maximum(), -(-bar.value() // cell) * cell))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_captions()
        if self.count():
            self.scrollToItem(self.item(self.count() - 1))
            self._snap()

    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if not self._entries:  # always in its place (the canvas never resizes): say what for
            painter = QPainter(self.viewport())
            painter.setPen(self.palette().placeholderText().color())
            painter.drawText(
                self.viewport().rect(),
                int(Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap),
                _tr("The results of this photo appear here."),
            )
            painter.end()

    def select_path(self, path: Path | None) -> None:
        """Marks the entry of the picture on show (none: -1)."""
        rows = [i for i, e in enumerate(self._entries) if path is not None and e.path == path]
        row = rows[0] if rows else -1
        self.blockSignals(True)
        self.setCurrentRow(row)
        self.blockSignals(False)

    def _clicked(self, item: QListWidgetItem) -> None:
        row = self.row(item)
        if 0 <= row < len(self._entries):
            self.entry_chosen.emit(self._entries[row])


_UNREAD = QImage()  # no thumbnail given: read the file (on the caller's thread)


def entry_thumbnail(path: Path) -> QImage | None:
    """The picture at `path` scaled to a thumbnail, None if unreadable (any thread: QImage)."""
    image = QImage(str(path))
    if image.isNull():
        return None
    return image.scaled(
        THUMB_PX,
        THUMB_PX,
        Qt.AspectRatioMode.KeepAspectRatio,
        Qt.TransformationMode.SmoothTransformation,
    )


def _icon(thumbnail: QImage | None, path: Path) -> QIcon:
    if thumbnail is _UNREAD:
        thumbnail = entry_thumbnail(path)
    return QIcon() if thumbnail is None else QIcon(QPixmap.fromImage(thumbnail))
