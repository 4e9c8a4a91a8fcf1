"""The Settings dialog's "Queue" group: when the queue's worker may use the computer
(Settings.work; app/pipeline/work_policy.py). "When I am away" is offered only where this
computer can tell its idle time (app/core/platform_idle.py)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from app.core import platform_idle
from app.core.errors import InputError
from app.core.settings import WorkSettings
from app.pipeline import work_policy as wp
from app.ui.queue.work_texts import mode_names


def _tr(text: str) -> str:
    return QCoreApplication.translate("Queue", text)


class WorkPolicyBox(QGroupBox):
    def __init__(self, parent: QWidget | None = None, *, idle_offered: bool | None = None):
        super().__init__(_tr("Queue"), parent)
        self.setObjectName("settings_work_policy")
        if idle_offered is None:
            idle_offered = platform_idle.system_idle_source() is not None
        form = QFormLayout(self)
        self.mode = QComboBox(self)
        self.mode.setObjectName("settings_work_mode")
        for mode, name in mode_names():
            self.mode.addItem(name, mode)
        if not idle_offered:
            item = self.mode.model().item(self.mode.findData(wp.IDLE))  # type: ignore[attr-defined]
            item.setEnabled(False)
            item.setToolTip(_tr("This computer cannot tell how long it has been idle."))
        self.mode.setToolTip(
            _tr(
                "When you come back, the job in hand stops within seconds (the GPU is free) "
                "and continues from its last step later."
            )
        )
        self.idle_minutes = QSpinBox(self)
        self.idle_minutes.setObjectName("settings_idle_minutes")
        self.idle_minutes.setRange(1, wp.MAX_IDLE_MINUTES)
        self.idle_minutes.setSuffix(_tr(" min"))
        self.hours = QLineEdit(self)
        self.hours.setObjectName("settings_work_hours")
        self.hours.setInputMask("99:99-99:99")
        self.hours.setToolTip(_tr("From–to, for example 01:00-07:00 (it may cross midnight)"))
        self.not_on_battery = QCheckBox(_tr("Not while on battery"), self)
        self.not_on_battery.setObjectName("settings_not_on_battery")
        form.addRow(_tr("Run the queue"), self.mode)
        form.addRow(_tr("Away after"), self.idle_minutes)
        form.addRow(_tr("Hours"), self.hours)
        form.addRow(self.not_on_battery)
        self.mode.currentIndexChanged.connect(self._enable)

    def _enable(self) -> None:
        mode = self.mode.currentData()
        self.idle_minutes.setEnabled(mode == wp.IDLE)
        self.hours.setEnabled(mode == wp.HOURS)

    def load(self, work: WorkSettings) -> None:
        policy = wp.policy_from_settings(work)
        index = self.mode.findData(policy.mode)
        self.mode.setCurrentIndex(max(0, index))
        self.idle_minutes.setValue(policy.idle_minutes)
        self.hours.setText(policy.hours)
        self.not_on_battery.setChecked(policy.not_on_battery)
        self._enable()

    def value(self, old: WorkSettings) -> WorkSettings:
        """What the group shows; hours that do not read as HH:MM-HH:MM keep the old ones."""
        hours = self.hours.text()
        try:
            wp.parse_hours(hours)
        except InputError:
            hours = old.hours
        mode = str(self.mode.currentData())
        return WorkSettings(mode, self.idle_minutes.value(), hours, self.not_on_battery.isChecked())
