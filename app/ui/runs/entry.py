"""One run as a row: thumbnail, prompt, state and step, date, models; its action buttons. And
the scrollable list of such rows the start-up dialog and the Runs panel share."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QDateTime, Qt, Signal
from PySide6.QtGui import QPixmap, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from app.jobs.run_history import THUMBNAIL_PX, RunEntry, RunStatus
from app.ui.words.texts import failure_hint, failure_message, failure_title

PROMPT_CHARS = 90
# Action names (the buttons' object names are "runs_<action>").
RESUME, DISCARD, SHOW_RESULT, OPEN = "resume", "discard", "show_result", "open"


def _tr(text: str) -> str:
    return QCoreApplication.translate("Runs", text)


def action_title(action: str) -> str:
    return {
        RESUME: _tr("Resume"),
        DISCARD: _tr("Discard…"),
        SHOW_RESULT: _tr("Show result"),
        OPEN: _tr("Open"),
    }.get(action, action)


def local_date(created: str) -> str:
    """The run's ISO date (UTC) in local time, to the minute."""
    when = QDateTime.fromString(created, Qt.DateFormat.ISODate)
    if not when.isValid():
        return created
    return when.toLocalTime().toString("yyyy-MM-dd HH:mm")


def status_text(entry: RunEntry) -> str:
    steps = entry.steps or "?"
    if entry.status is RunStatus.FINISHED:
        return _tr("Finished, {steps} steps").format(steps=steps)
    if entry.status is RunStatus.STOPPED:
        return _tr("Stopped after step {step} of {steps}").format(step=entry.step, steps=steps)
    if entry.status is RunStatus.FAILED:
        why = failure_title(entry.failure.kind) if entry.failure is not None else ""
        text = _tr("Failed after step {step} of {steps}").format(step=entry.step, steps=steps)
        return f"{text}: {why}" if why else text
    return _tr("Not started")


def failure_lines(entry: RunEntry) -> tuple[str, str]:
    """A failed run's message and what to try, in the UI's language ("" where there is none)."""
    if entry.failure is None:
        return "", ""
    return failure_message(entry.failure), failure_hint(entry.failure)


def details_text(entry: RunEntry) -> str:
    w, h = entry.size
    photo = [entry.photo] if entry.photo else []  # the photo's name, where the run has one
    parts = [*photo, *entry.models, f"{w}×{h}", _tr("seed {seed}").format(seed=entry.seed)]
    return " · ".join(parts)


def prompt_text(entry: RunEntry) -> str:
    prompt = " ".join(entry.prompt.split())
    if len(prompt) > PROMPT_CHARS:
        prompt = prompt[: PROMPT_CHARS - 1] + "…"
    return prompt or _tr("(no prompt)")


def default_actions(entry: RunEntry) -> tuple[str, ...]:
    """What a row offers: resume what can go on, show what is done, open the rest."""
    if entry.status is RunStatus.FINISHED:
        return (SHOW_RESULT, DISCARD)
    if entry.unfinished:
        return (RESUME, DISCARD)
    return (OPEN, DISCARD)


class ElidedLabel(QLabel):
    """One line that ends in "…" when the panel is narrow; the whole text is the tooltip."""

    def __init__(
        self,
        text: str,
        parent: QWidget | None = None,
        mode: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
    ) -> None:
        super().__init__(parent)
        self.full_text = text
        self._mode = mode
        self.setToolTip(text)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._elide()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(self.width(), 40)
        self.setText(self.fontMetrics().elidedText(self.full_text, self._mode, width))


class RunEntryWidget(QFrame):
    """A run: its picture, prompt, state, date and models; a button per action."""

    action_requested = Signal(str, object)  # action, RunEntry

    def __init__(
        self, entry: RunEntry, actions: Sequence[str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.entry = entry
        self.setObjectName("runs_entry")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.thumbnail = QLabel(self)
        self.thumbnail.setFixedSize(THUMBNAIL_PX, THUMBNAIL_PX)
        self.thumbnail.setAlignment(Qt.AlignmentFlag.AlignCenter)
        if entry.thumbnail is not None and not entry.thumbnail.isNull():
            self.thumbnail.setPixmap(QPixmap.fromImage(entry.thumbnail))
        else:
            self.thumbnail.setText(_tr("no picture yet"))
            self.thumbnail.setWordWrap(True)
        self.prompt_label = ElidedLabel(prompt_text(entry), self)
        self.prompt_label.setObjectName("runs_prompt")
        font = self.prompt_label.font()
        font.setBold(True)
        self.prompt_label.setFont(font)
        self.status_label = ElidedLabel(f"{status_text(entry)} · {local_date(entry.created)}", self)
        self.status_label.setObjectName("runs_status")
        message, hint = failure_lines(entry)
        # What went wrong, one elided line; the whole message and what to try as its tooltip.
        # in the middle: a long path inside it leaves the sentence's start and end in view
        self.failure_label = ElidedLabel(message, self, Qt.TextElideMode.ElideMiddle)
        self.failure_label.setObjectName("runs_failure")
        self.failure_label.setToolTip("\n".join(t for t in (message, hint) if t))
        self.failure_label.setVisible(bool(message))
        self.details_label = ElidedLabel(details_text(entry), self)
        self.details_label.setObjectName("runs_details")
        self.details_label.setToolTip(f"{details_text(entry)}\n{entry.dir}")
        self.buttons: dict[str, QPushButton] = {}
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addStretch(1)
        for action in actions:
            button = QPushButton(action_title(action), self)
            button.setObjectName(f"runs_{action}")
            button.clicked.connect(lambda _=False, a=action: self.action_requested.emit(a, entry))
            self.buttons[action] = button
            row.addWidget(button)
        text = QVBoxLayout()
        text.setContentsMargins(0, 0, 0, 0)
        text.setSpacing(2)
        text.addWidget(self.prompt_label)
        text.addWidget(self.status_label)
        text.addWidget(self.failure_label)
        text.addWidget(self.details_label)
        text.addStretch(1)
        text.addLayout(row)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.thumbnail, 0, Qt.AlignmentFlag.AlignTop)
        layout.addLayout(text, 1)


class RunListView(QScrollArea):
    """Rows of runs, scrollable: it never makes its window taller than the screen."""

    action_requested = Signal(str, object)  # action, RunEntry

    def __init__(self, empty_text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runs_list")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setMinimumHeight(THUMBNAIL_PX + 24)
        self._content = QWidget(self)
        self._layout = QVBoxLayout(self._content)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(4)
        self._empty = QLabel(empty_text, self._content)
        self._empty.setObjectName("runs_empty")
        self._empty.setWordWrap(True)
        self._layout.addWidget(self._empty)
        self._layout.addStretch(1)
        self.setWidget(self._content)
        self.rows: list[RunEntryWidget] = []

    def set_entries(
        self,
        entries: Sequence[RunEntry],
        actions: Callable[[RunEntry], Sequence[str]] = default_actions,
    ) -> None:
        for row in self.rows:
            self._layout.removeWidget(row)
            row.deleteLater()
        self.rows = []
        for i, entry in enumerate(entries):
            row = RunEntryWidget(entry, actions(entry), self._content)
            row.action_requested.connect(self.action_requested)
            self._layout.insertWidget(i, row)
            self.rows.append(row)
        self._empty.setVisible(not self.rows)

    def remove(self, run_dir: Path) -> None:
        for row in [r for r in self.rows if Path(r.entry.dir) == Path(run_dir)]:
            self.rows.remove(row)
            self._layout.removeWidget(row)
            row.deleteLater()
        self._empty.setVisible(not self.rows)

    def entries(self) -> list[RunEntry]:
        return [row.entry for row in self.rows]

    def row(self, run_dir: Path) -> RunEntryWidget | None:
        for row in self.rows:
            if Path(row.entry.dir) == Path(run_dir):
                return row
        return None
