"""The Devices pane: a device per stage from the engine's own list, VAE tiling, fitting to
the GPU's memory (fit_memory, max_alloc_mb) and the memory plan beside the size."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QSpinBox,
    QWidget,
)

from app.jobs.generation import GenerationModel
from app.jobs.memory_plan import MemoryPlan
from app.pipeline.api import DeviceInfo
from app.pipeline.job.params import (
    DIFFUSION_DEVICE,
    LLM_DEVICE,
    VAE_DEVICE,
    VAE_TILE_SIZE,
    VAE_TILING,
)
from app.ui.generation.plan_view import MemorySettings
from app.ui.kit.bind import bind


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationPanel", text)


class DevicesPane(QGroupBox):
    def __init__(
        self,
        model: GenerationModel,
        parent: QWidget | None = None,
        memory_plan: MemoryPlan | None = None,
    ) -> None:
        """memory_plan: the planner the pane shows (None: one without an engine, which says
        so; the composition root passes MemoryPlan(model, session_plan_fn(model)))."""
        super().__init__(_tr("Devices"), parent)
        self.model = model
        self.memory_plan = memory_plan or MemoryPlan(model, None, self)
        self.device_combos: dict[str, QComboBox] = {}
        layout = QFormLayout(self)
        self._params = {"llm": LLM_DEVICE, "diffusion": DIFFUSION_DEVICE, "vae": VAE_DEVICE}
        for stage, title in (
            ("llm", _tr("Text encoder")),
            ("diffusion", _tr("Diffusion")),
            ("vae", _tr("VAE")),
        ):
            combo = QComboBox(self)
            combo.setObjectName(f"generation_device_{stage}")
            self.device_combos[stage] = combo
            layout.addRow(title, combo)
        self.vae_tiling = QCheckBox(_tr("VAE tiling (less memory)"), self)
        self.vae_tile_size = QSpinBox(self)
        self.vae_tile_size.setObjectName("generation_vae_tile_size")
        self.vae_tile_size.setToolTip(_tr("Smaller tiles need less memory and take longer."))
        self.detect_devices = QPushButton(_tr("Detect devices"), self)
        self.detect_devices.setObjectName("generation_detect_devices")
        self.device_note = QLabel(self)
        self.device_note.setWordWrap(True)
        layout.addRow(self.vae_tiling)
        layout.addRow(_tr("VAE tile size (latent cells)"), self.vae_tile_size)
        layout.addRow(self.detect_devices, self.device_note)
        self.memory = MemorySettings(model, self.memory_plan, self)
        self.fit_memory, self.max_alloc, self.plan_view = (
            self.memory.fit_memory,
            self.memory.max_alloc,
            self.memory.plan_view,
        )
        layout.addRow(self.memory)
        self.set_devices(model.devices)
        for stage, combo in self.device_combos.items():
            bind(combo, model.form, self._params[stage])
        bind(self.vae_tiling, model.form, VAE_TILING)
        bind(self.vae_tile_size, model.form, VAE_TILE_SIZE)
        self.vae_tile_size.setEnabled(model.form.get(VAE_TILING))
        self.vae_tiling.toggled.connect(self.vae_tile_size.setEnabled)
        self.detect_devices.clicked.connect(self.probe)
        model.devices_changed.connect(self._devices_found)
        model.devices_failed.connect(self._devices_failed)

    def probe(self) -> None:
        self.detect_devices.setEnabled(False)
        self.device_note.setText(_tr("Asking the engine…"))
        self.model.probe_engine()

    def set_devices(self, devices: list[DeviceInfo]) -> None:
        """Offers `devices`; a chosen device the engine did not list stays, marked."""
        names = {d.name for d in devices}
        for stage, combo in self.device_combos.items():
            wanted = self.model.form.get(self._params[stage])
            combo.blockSignals(True)
            combo.clear()
            for d in devices:
                label = _tr("CPU") if d.name == "cpu" else f"{d.name} – {d.description}"
                combo.addItem(label, d.name)
            if wanted not in names:
                combo.addItem(_tr("{name} (not detected)").format(name=wanted), wanted)
            combo.setCurrentIndex(max(0, combo.findData(wanted)))
            combo.blockSignals(False)

    def _devices_found(self, devices: list[DeviceInfo]) -> None:
        self.set_devices(devices)
        self.detect_devices.setEnabled(True)
        gpus = len([d for d in devices if d.name != "cpu"])
        self.device_note.setText(
            _tr("{count} GPU device(s) found.").format(count=gpus)
            if gpus
            else _tr("No GPU found; everything runs on the CPU.")
        )

    def _devices_failed(self, message: str) -> None:
        self.detect_devices.setEnabled(True)
        self.device_note.setText(_tr("Could not ask the engine: {message}").format(message=message))
