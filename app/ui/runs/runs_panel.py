"""The Runs panel: every run, newest first, scrollable, with Resume / Show result / Open and
Discard; refreshed when a run ends or a new one is made."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.jobs.run_history import RunEntry
from app.ui.runs.entry import RunListView, default_actions


def _tr(text: str) -> str:
    return QCoreApplication.translate("Runs", text)


class RunsPanel(QWidget):
    """All runs; the controller fills it (listed off the UI thread) and handles the actions."""

    action_requested = Signal(str, object)  # action, RunEntry
    refresh_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("runs_panel")
        self.count_label = QLabel(self)
        self.count_label.setObjectName("runs_count")
        self.refresh_button = QPushButton(_tr("Refresh"), self)
        self.refresh_button.setObjectName("runs_refresh")
        self.refresh_button.clicked.connect(self.refresh_requested)
        self.list_view = RunListView(_tr("No runs yet. Run all in the Generate tab makes one."))
        self.list_view.setParent(self)
        self.list_view.action_requested.connect(self.action_requested)
        top = QHBoxLayout()
        top.addWidget(self.count_label, 1)
        top.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.list_view, 1)
        self.set_entries([])

    def set_entries(
        self,
        entries: Sequence[RunEntry],
        actions: Callable[[RunEntry], Sequence[str]] = default_actions,
    ) -> None:
        self.list_view.set_entries(entries, actions)
        unfinished = sum(1 for e in entries if e.unfinished)
        self.count_label.setText(
            _tr("{count} runs, {unfinished} unfinished").format(
                count=len(entries), unfinished=unfinished
            )
        )
