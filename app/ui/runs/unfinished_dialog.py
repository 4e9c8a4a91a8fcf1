"""The start-up offer: the runs with something to resume, each with Resume and Discard, and
Keep for later. Not modal: the window stays usable behind it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QDialog, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.jobs.run_history import RunEntry
from app.ui.runs.entry import DISCARD, RESUME, RunListView

DIALOG_SIZE = (620, 460)


def _tr(text: str) -> str:
    return QCoreApplication.translate("Runs", text)


class UnfinishedRunsDialog(QDialog):
    """Unfinished runs: Resume one, Discard any, or keep them all for later."""

    action_requested = Signal(str, object)  # action, RunEntry

    def __init__(self, entries: Sequence[RunEntry], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runs_unfinished_dialog")
        self.setWindowTitle(_tr("Unfinished runs"))
        self.setModal(False)
        intro = QLabel(
            _tr(
                "These runs stopped before their result. Resume one to continue from its last "
                "finished step, with its photo and mask back on the canvas."
            ),
            self,
        )
        intro.setWordWrap(True)
        self.list_view = RunListView(_tr("No unfinished runs."), self)
        self.list_view.set_entries(entries, lambda _entry: (RESUME, DISCARD))
        self.list_view.action_requested.connect(self.action_requested)
        self.keep_button = QPushButton(_tr("Keep for later"), self)
        self.keep_button.setObjectName("runs_keep_for_later")
        self.keep_button.setToolTip(_tr("Close; the runs stay in the Runs panel"))
        self.keep_button.clicked.connect(self.reject)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.keep_button)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list_view, 1)
        layout.addLayout(row)
        self.resize(*DIALOG_SIZE)

    def remove(self, run_dir: Path) -> None:
        """A run was resumed elsewhere or discarded; the offer closes when none is left."""
        self.list_view.remove(run_dir)
        if not self.list_view.rows:
            self.accept()
