"""The stage list: each pipeline stage with its state (cached, pending, running, done, failed)
and how long it took."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QHeaderView, QTreeWidget, QTreeWidgetItem, QWidget

STAGE_ORDER = ("prepare", "vae-encode", "llm-encode", "diffuse", "vae-decode", "composite")
STATE_COLORS = {
    "pending": "#808080",
    "running": "#1565c0",
    "done": "#2e7d32",
    "cached": "#00838f",
    "failed": "#c62828",
    "paused": "#b26a00",
    "suspended": "#b26a00",
    "cancelled": "#b26a00",
    "stopped": "#b26a00",
    "skipped": "#808080",
}


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationStages", text)


def stage_title(stage: str) -> str:
    return {
        "prepare": _tr("Prepare image"),
        "vae-encode": _tr("Encode image (VAE)"),
        "llm-encode": _tr("Encode prompt (LLM)"),
        "diffuse": _tr("Diffuse"),
        "vae-decode": _tr("Decode (VAE)"),
        "composite": _tr("Composite"),
    }.get(stage, stage)


def state_title(state: str) -> str:
    return {
        "pending": _tr("pending"),
        "running": _tr("running"),
        "done": _tr("done"),
        "cached": _tr("cached"),
        "failed": _tr("failed"),
        "paused": _tr("paused"),
        "suspended": _tr("suspended"),
        "cancelled": _tr("cancelled"),
        "skipped": _tr("not needed"),
    }.get(state, state)


def format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, secs = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes}:{secs:02d}"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}"


class GenerationStageList(QTreeWidget):
    """One row per stage: name, state, time."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("generation_stage_list")
        self.setColumnCount(3)
        self.setHeaderLabels([_tr("Stage"), _tr("State"), _tr("Time")])
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setSelectionMode(QTreeWidget.SelectionMode.NoSelection)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        header = self.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(False)
        self._states: dict[str, str] = {}
        self._seconds: dict[str, float | None] = {}
        self._items: dict[str, QTreeWidgetItem] = {}
        self.set_stages(list(STAGE_ORDER))
        rows = len(STAGE_ORDER) + 1
        self.setFixedHeight(self.sizeHintForRow(0) * rows + 2 * self.frameWidth() + 6)

    def set_stages(self, stages: list[str]) -> None:
        self.clear()
        self._items = {}
        for stage in stages:
            item = QTreeWidgetItem([stage_title(stage), "", ""])
            item.setData(0, Qt.ItemDataRole.UserRole, stage)
            self.addTopLevelItem(item)
            self._items[stage] = item
            self.set_state(stage, self._states.get(stage, "pending"), self._seconds.get(stage))

    def set_state(self, stage: str, state: str, seconds: float | None = None) -> None:
        item = self._items.get(stage)
        if item is None:
            return
        self._states[stage] = state
        self._seconds[stage] = seconds
        item.setText(1, state_title(state))
        item.setText(2, format_seconds(seconds))
        item.setForeground(1, QBrush(QColor(STATE_COLORS.get(state, "#808080"))))
        font = item.font(0)
        font.setBold(state == "running")
        item.setFont(0, font)
        item.setFont(1, font)

    def set_stopped(self, stage: str, step: int, seconds: float | None = None) -> None:
        """A stage its run's record shows stopped part-way (diffuse after a suspend, a cancel,
        a decode of a step): where it stopped, not "pending"."""
        self.set_state(stage, "stopped", seconds)
        item = self._items.get(stage)
        if item is not None:
            item.setText(1, _tr("stopped at step {step}").format(step=step))

    def set_device(self, stage: str, device: str) -> None:
        """The device the engine reported for `stage` (shown as the row's tooltip)."""
        item = self._items.get(stage)
        if item is not None and device:
            text = _tr("Runs on {device}").format(device=device)
            for column in range(3):
                item.setToolTip(column, text)

    def state(self, stage: str) -> str:  # type: ignore[override]
        return self._states.get(stage, "pending")

    def states(self) -> dict[str, str]:
        return {stage: self._states.get(stage, "pending") for stage in self._items}

    def reset(self) -> None:
        for stage in self._items:
            self.set_state(stage, "pending")
