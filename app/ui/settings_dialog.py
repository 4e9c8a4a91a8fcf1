"""Settings: the engine, the cache size, the language, and the engine switches of the job form
(threads, flash attention, memory-mapping). Model files and devices are chosen in the Generate
tab only (one editor for them)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core.settings import Settings
from app.jobs.job_form import JobForm
from app.pipeline.params import FLASH_ATTENTION, MMAP, THREADS

MIN_CACHE_MB = 256
MAX_CACHE_MB = 1024 * 1024


def _tr(text: str) -> str:
    return QCoreApplication.translate("SettingsDialog", text)


def _languages() -> dict[str, str]:
    try:
        from app.ui.i18n import LANGUAGES

        return dict(LANGUAGES)
    except ImportError:  # the painter's i18n module is optional for this dialog
        return {"en": "English", "zh_CN": "简体中文"}


class SettingsDialog(QDialog):
    """Edits a Settings object and the form's engine switches; `apply()` writes them back."""

    def __init__(self, settings: Settings, form: JobForm, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settings_dialog")
        self.setWindowTitle(_tr("Settings"))
        self.settings = settings
        self.form = form

        engine_box = QGroupBox(_tr("Engine switches"), self)
        dform = QFormLayout(engine_box)
        self.threads = QSpinBox(self)
        self.threads.setRange(int(THREADS.minimum or 0), int(THREADS.maximum or 256))
        self.threads.setSpecialValueText(_tr("Automatic"))
        self.flash = QCheckBox(_tr("Flash attention in the diffusion model"), self)
        self.mmap = QCheckBox(_tr("Memory-map model files"), self)
        dform.addRow(_tr("CPU threads"), self.threads)
        dform.addRow(self.flash)
        dform.addRow(self.mmap)

        general = QGroupBox(_tr("General"), self)
        gform = QFormLayout(general)
        self.engine_edit = QLineEdit(self)
        self.engine_edit.setPlaceholderText(_tr("Built-in engine"))
        self.cache_spin = QSpinBox(self)
        self.cache_spin.setObjectName("settings_cache_mb")
        self.cache_spin.setRange(MIN_CACHE_MB, MAX_CACHE_MB)
        self.cache_spin.setSingleStep(512)
        self.cache_spin.setSuffix(" MB")
        self.language = QComboBox(self)
        self.language.setObjectName("settings_language")
        self.language.addItem(_tr("Follow the system"), "")
        for code, name in _languages().items():
            self.language.addItem(name, code)
        self.language_note = QLabel(_tr("A new language shows after a restart."), self)
        gform.addRow(_tr("Engine (sd-stage)"), self.engine_edit)
        gform.addRow(_tr("Cache size"), self.cache_spin)
        gform.addRow(_tr("Language"), self.language)
        gform.addRow("", self.language_note)

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(general)
        layout.addWidget(engine_box)
        layout.addWidget(buttons)
        self._load()
        self.resize(560, self.sizeHint().height())

    def _load(self) -> None:
        s, f = self.settings, self.form
        self.threads.setValue(f.get(THREADS))
        self.flash.setChecked(f.get(FLASH_ATTENTION))
        self.mmap.setChecked(f.get(MMAP))
        self.engine_edit.setText(s.engine_path)
        self.cache_spin.setValue(max(MIN_CACHE_MB, s.cache_limit_mb))
        self.language.setCurrentIndex(max(0, self.language.findData(s.language)))

    def apply(self) -> None:
        s, f = self.settings, self.form
        f.set(THREADS, self.threads.value())
        f.set(FLASH_ATTENTION, self.flash.isChecked())
        f.set(MMAP, self.mmap.isChecked())
        s.engine_path = self.engine_edit.text().strip()
        s.cache_limit_mb = self.cache_spin.value()
        s.language = str(self.language.currentData())
