"""The Queue dock: each job's thumbnail, state and step k of N, the whole queue's ETA, and
Run queue / Pause after this job / Suspend / Remove / Compare…. The list shows the jobs the
model read (a page; scrolled to its end, the next page), the summary the whole queue's counts."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core import platform_idle
from app.jobs.queue_model import OPEN_STATES, QueueModel
from app.pipeline import RESULT_FILE, JobView
from app.pipeline import work_policy as wp
from app.ui.queue.work_texts import mode_names, state_line

THUMB_PX = 48
ID_ROLE = Qt.ItemDataRole.UserRole


def _tr(text: str) -> str:
    return QCoreApplication.translate("Queue", text)


def state_text(state: str) -> str:
    return {
        "queued": _tr("queued"),
        "running": _tr("running"),
        "interrupted": _tr("interrupted"),
        "done": _tr("done"),
        "failed": _tr("failed"),
    }.get(state, state)


def duration_text(seconds: float) -> str:
    minutes = int(round(seconds / 60))
    if seconds < 90:
        return _tr("{seconds} s").format(seconds=int(round(seconds)))
    if minutes < 90:
        return _tr("{minutes} min").format(minutes=minutes)
    return _tr("{hours} h {minutes} min").format(hours=minutes // 60, minutes=minutes % 60)


class QueuePanel(QWidget):
    """Shows a QueueModel; the compare view is asked for with `compare_requested(run dirs)`."""

    compare_requested = Signal(list)  # list[Path]: finished run folders
    mode_chosen = Signal(str)  # a work policy mode picked in the dock (app/pipeline/work_policy)
    settings_requested = Signal()  # the policy's minutes and hours are in Settings

    def __init__(self, model: QueueModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("queue_panel")
        self.model = model
        self.summary = QLabel(self)
        self.summary.setObjectName("queue_summary")
        self.summary.setWordWrap(True)
        self.work_line = QLabel(self)  # the work policy and why the worker waits
        self.work_line.setObjectName("queue_work_state")
        self.work_line.setWordWrap(True)
        # The policy in force, changed here (its minutes and hours: Settings…); it applies to
        # a waiting or running queue at once.
        self.mode = QComboBox(self)
        self.mode.setObjectName("queue_work_mode")
        self.mode.setToolTip(_tr("When the queue may use the computer; it applies at once"))
        for mode, name in mode_names():
            self.mode.addItem(name, mode)
        if platform_idle.system_idle_source() is None:
            item = self.mode.model().item(self.mode.findData(wp.IDLE))  # type: ignore[attr-defined]
            item.setEnabled(False)
            item.setToolTip(_tr("This computer cannot tell how long it has been idle."))
        self.policy_settings = QPushButton(_tr("Settings…"), self)
        self.policy_settings.setObjectName("queue_work_settings")
        self.policy_settings.setToolTip(_tr("How long away, which hours, not on battery"))
        policy_row = QHBoxLayout()
        policy_row.addWidget(QLabel(_tr("Run the queue"), self))
        policy_row.addWidget(self.mode, 1)
        policy_row.addWidget(self.policy_settings)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("queue_jobs")
        self.tree.setHeaderLabels([_tr("Job"), _tr("State"), _tr("Step")])
        self.tree.setRootIsDecorated(False)
        # The prompt gives way (elided) so State and Step always show, however narrow the dock.
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.tree.setIconSize(QSize(THUMB_PX, THUMB_PX))
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.run_button = QPushButton(_tr("Run queue"), self)
        self.run_button.setObjectName("queue_run")
        self.pause_button = QPushButton(_tr("Pause after this job"), self)
        self.pause_button.setObjectName("queue_pause")
        self.suspend_button = QPushButton(_tr("Suspend the queue"), self)
        self.suspend_button.setObjectName("queue_suspend")
        self.suspend_button.setToolTip(_tr("Stop after the current step and free the GPU now"))
        self.remove_button = QPushButton(_tr("Remove"), self)
        self.remove_button.setObjectName("queue_remove")
        self.compare_button = QPushButton(_tr("Compare…"), self)
        self.compare_button.setObjectName("queue_compare")
        self.compare_button.setToolTip(
            _tr("The results of the selected jobs (or of the selected job's variations)")
        )
        # Compare… is always on: pressed with nothing to compare, this line says what to select.
        self.compare_hint = QLabel(self)
        self.compare_hint.setObjectName("queue_compare_hint")
        self.compare_hint.setWordWrap(True)
        self.compare_hint.hide()
        row = QHBoxLayout()
        for button in (self.run_button, self.pause_button, self.suspend_button):
            row.addWidget(button)
        row2 = QHBoxLayout()
        row2.addWidget(self.remove_button)
        row2.addStretch(1)
        row2.addWidget(self.compare_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.summary)
        layout.addLayout(policy_row)
        layout.addWidget(self.work_line)
        layout.addWidget(self.tree, 1)
        layout.addLayout(row)
        layout.addLayout(row2)
        layout.addWidget(self.compare_hint)
        self.run_button.clicked.connect(self.model.start)
        self.pause_button.clicked.connect(self._pause_or_resume)
        self.suspend_button.clicked.connect(self.model.suspend)
        self.remove_button.clicked.connect(self._remove)
        self.compare_button.clicked.connect(self._compare)
        self.mode.activated.connect(lambda _i: self.mode_chosen.emit(str(self.mode.currentData())))
        self.policy_settings.clicked.connect(self.settings_requested)
        self.tree.itemSelectionChanged.connect(self._update_buttons)
        self.tree.verticalScrollBar().valueChanged.connect(self._scrolled)
        model.changed.connect(self.show_model)
        self._thumbs: dict[str, QIcon] = {}
        self.show_model()

    # --- showing
    def show_model(self) -> None:
        m = self.model
        selected = set(self.selected_ids())
        # The rows are updated in place (the list stays where it was scrolled to): one per job
        # read, those past them taken away.
        for row, view in enumerate(m.views):
            item = self.tree.topLevelItem(row) or QTreeWidgetItem(self.tree)
            item.setText(0, self._job_text(view))
            item.setText(1, state_text(view.state))
            item.setData(0, ID_ROLE, view.job.id)
            item.setText(2, self._step_text(view))
            item.setIcon(0, self._thumb(view) or QIcon())
            item.setSelected(view.job.id in selected)
        while self.tree.topLevelItemCount() > len(m.views):
            self.tree.takeTopLevelItem(self.tree.topLevelItemCount() - 1)
        self.summary.setText(self._summary())
        self.work_line.setText(state_line(m.policy, m.work_state))
        index = self.mode.findData(m.policy.mode)
        if index >= 0 and index != self.mode.currentIndex():
            self.mode.setCurrentIndex(index)  # `activated` is the user's only
        self._update_buttons()

    def _scrolled(self, value: int) -> None:
        """The end of the list scrolled into view: the model reads the next page."""
        bar = self.tree.verticalScrollBar()
        if value >= bar.maximum() and self.model.has_more:
            self.model.more()

    def _job_text(self, view: JobView) -> str:
        spec = view.job.spec
        prompt = spec.prompt if len(spec.prompt) <= 40 else spec.prompt[:39] + "…"
        return _tr("{prompt} (seed {seed})").format(prompt=prompt, seed=spec.seed)

    def _step_text(self, view: JobView) -> str:
        steps = view.steps or view.job.spec.steps
        step = view.last_completed_step
        progress = self.model.progress
        if progress is not None and progress.job_id == view.job.id:
            step, steps = progress.step, progress.steps
        if view.accepted_step is not None:
            return _tr("accepted at {step} of {steps}").format(step=view.accepted_step, steps=steps)
        text = _tr("step {step} of {steps}").format(step=step, steps=steps)
        eta = self.model.job_eta(view) if view.state in OPEN_STATES else None
        if eta is not None:
            text += " · " + _tr("about {time}").format(time=duration_text(eta))
        return text

    def _thumb(self, view: JobView) -> QIcon | None:
        if view.state != "done" or view.run_dir is None:
            return None
        if view.job.id not in self._thumbs:
            pixmap = QPixmap(str(Path(view.run_dir) / RESULT_FILE))
            if pixmap.isNull():
                return None
            self._thumbs[view.job.id] = QIcon(
                pixmap.scaled(
                    THUMB_PX,
                    THUMB_PX,
                    Qt.AspectRatioMode.KeepAspectRatio,
                    Qt.TransformationMode.SmoothTransformation,
                )
            )
        return self._thumbs[view.job.id]

    def _summary(self) -> str:
        m = self.model
        counts = m.counts  # the whole queue's, not only the jobs read
        left = counts.open
        if counts.total == 1:
            text = _tr("1 job, {left} to run").format(left=left)
        else:
            text = _tr("{count} jobs, {left} to run").format(count=counts.total, left=left)
        # A worker held by the work policy is waiting, not running (the line below says why),
        # and its time left is work still to do, not a countdown.
        waiting = m.running and m.work_state is not None and not m.work_state.work
        if m.paused and m.running:  # the pause comes after the job in hand
            text += " · " + _tr("paused after the job in hand")
        elif m.paused and left:  # the pause happened: nothing runs
            text += " · " + _tr("paused")
        elif waiting:
            text += " · " + _tr("waiting")
        elif m.running:
            text += " · " + _tr("running")
        if left:
            eta = m.eta_seconds()
            if eta is None:
                text += " · " + _tr("time left unknown until each stage has run once")
            elif waiting or not m.running:
                text += " · " + _tr("about {time} of work").format(time=duration_text(eta))
            else:
                text += " · " + _tr("about {time} left").format(time=duration_text(eta))
        return text

    def _update_buttons(self) -> None:
        m = self.model
        self.run_button.setEnabled(not m.running and m.counts.waiting > 0)
        self.pause_button.setText(
            _tr("Resume the queue") if m.paused else _tr("Pause after this job")
        )
        # Pause / resume acts on a running queue; a stopped one continues with Run queue.
        self.pause_button.setEnabled(m.running)
        self.suspend_button.setEnabled(m.running)
        self.remove_button.setEnabled(bool(self.selected_ids()))
        if self.compare_dirs():
            self.compare_hint.hide()  # what it asked for is selected

    # --- acting
    def selected_ids(self) -> list[str]:
        return [str(item.data(0, ID_ROLE)) for item in self.tree.selectedItems()]

    def compare_dirs(self) -> list[Path]:
        """The finished run folders of the selected jobs; one job selected: its variation set."""
        ids = self.selected_ids()
        views = self.model.views
        if len(ids) == 1:
            one = next((v for v in views if v.job.id == ids[0]), None)
            if one is not None and one.job.variation is not None:
                variation = one.job.variation  # its set may go on past the jobs read
                views = self.model.variation_views(variation.set, variation.count)
                ids = [v.job.id for v in views]
        return [
            Path(v.run_dir)
            for v in views
            if v.job.id in ids and v.state == "done" and v.run_dir is not None
        ]

    def _pause_or_resume(self) -> None:
        if self.model.paused:
            self.model.resume()
        else:
            self.model.pause()

    def _remove(self) -> None:
        for job_id in self.selected_ids():
            self.model.remove(job_id)

    def _compare(self) -> None:
        dirs = self.compare_dirs()
        if dirs:
            self.compare_hint.hide()
            self.compare_requested.emit(dirs)
            return
        if self.selected_ids():
            hint = _tr(
                "The selected jobs have no result yet. Select jobs that are done (Ctrl+click "
                "for several), or one job of a set of variations, then press Compare… again."
            )
        else:
            hint = _tr(
                "To compare, select the finished jobs in the list (Ctrl+click for several), "
                "or one job of a set of variations, then press Compare… again."
            )
        self.compare_hint.setText(hint)
        self.compare_hint.show()
