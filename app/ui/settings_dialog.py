"""Settings: model paths, devices per stage, engine, cache size, language."""

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
from app.ui.generation_models import ModelFileField

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
    """Edits a Settings object; `apply()` writes the dialog back into it."""

    def __init__(
        self, settings: Settings, devices: list[tuple[str, str]], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settings_dialog")
        self.setWindowTitle(_tr("Settings"))
        self.settings = settings

        self.diffusion_field = ModelFileField("diffusion", self)
        self.llm_field = ModelFileField("llm", self)
        self.vae_field = ModelFileField("vae", self)
        self.lora_field = ModelFileField("lora", self)
        models = QGroupBox(_tr("Model files"), self)
        mform = QFormLayout(models)
        mform.addRow(_tr("Diffusion model"), self.diffusion_field)
        mform.addRow(_tr("Text encoder (LLM)"), self.llm_field)
        mform.addRow(_tr("VAE"), self.vae_field)
        mform.addRow(_tr("LoRA folder"), self.lora_field)

        self.device_combos: dict[str, QComboBox] = {}
        devices_box = QGroupBox(_tr("Devices"), self)
        dform = QFormLayout(devices_box)
        known = [("cpu", _tr("CPU"))] + [(n, d) for n, d in devices if n != "cpu"]
        for stage, title in (
            ("llm", _tr("Text encoder")),
            ("diffusion", _tr("Diffusion")),
            ("vae", _tr("VAE")),
        ):
            combo = QComboBox(self)
            combo.setObjectName(f"settings_device_{stage}")
            for name, description in known:
                combo.addItem(description if name == "cpu" else f"{name} – {description}", name)
            current = getattr(settings.devices, stage)
            if combo.findData(current) < 0:
                combo.addItem(_tr("{name} (not detected)").format(name=current), current)
            combo.setCurrentIndex(combo.findData(current))
            self.device_combos[stage] = combo
            dform.addRow(title, combo)
        self.threads = QSpinBox(self)
        self.threads.setRange(0, 256)
        self.threads.setSpecialValueText(_tr("Automatic"))
        self.flash = QCheckBox(_tr("Flash attention in the diffusion model"), self)
        self.tiling = QCheckBox(_tr("VAE tiling (less memory)"), self)
        self.mmap = QCheckBox(_tr("Memory-map model files"), self)
        dform.addRow(_tr("CPU threads"), self.threads)
        dform.addRow(self.flash)
        dform.addRow(self.tiling)
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
        layout.addWidget(models)
        layout.addWidget(devices_box)
        layout.addWidget(general)
        layout.addWidget(buttons)
        self._load()
        self.resize(640, self.sizeHint().height())

    def _load(self) -> None:
        s = self.settings
        self.diffusion_field.set_path(s.models.diffusion_model)
        self.llm_field.set_path(s.models.llm)
        self.vae_field.set_path(s.models.vae)
        self.lora_field.set_path(s.models.lora_dir)
        self.threads.setValue(s.devices.threads)
        self.flash.setChecked(s.devices.flash_attention)
        self.tiling.setChecked(s.devices.vae_tiling)
        self.mmap.setChecked(s.devices.mmap)
        self.engine_edit.setText(s.engine_path)
        self.cache_spin.setValue(max(MIN_CACHE_MB, s.cache_limit_mb))
        self.language.setCurrentIndex(max(0, self.language.findData(s.language)))

    def apply(self) -> None:
        s = self.settings
        s.models.diffusion_model = self.diffusion_field.path()
        s.models.llm = self.llm_field.path()
        s.models.vae = self.vae_field.path()
        s.models.lora_dir = self.lora_field.path()
        for stage, combo in self.device_combos.items():
            setattr(s.devices, stage, str(combo.currentData()))
        s.devices.threads = self.threads.value()
        s.devices.flash_attention = self.flash.isChecked()
        s.devices.vae_tiling = self.tiling.isChecked()
        s.devices.mmap = self.mmap.isChecked()
        s.engine_path = self.engine_edit.text().strip()
        s.cache_limit_mb = self.cache_spin.value()
        s.language = str(self.language.currentData())
