"""The generation panel: model files, prompt, sampling, devices, the stage list, diffusion
progress with per-step previews, and the result beside the original."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QImage, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QStyle,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.canvas import files as canvas_files
from app.core.errors import StepwiseError
from app.core.settings import Settings
from app.jobs.demo_setup import DemoSetup
from app.jobs.run_session import RunSession
from app.jobs.stage_runner import StageRunner
from app.pipeline.spec import DeviceChoice, JobSpec, ModelFiles, spec_to_dict
from app.ui.generation_log import (
    MEMORY_LOG_LINES,
    EngineLogDialog,
    GenerationErrorBanner,
    next_step_hint,
    read_log_tail,
)
from app.ui.generation_models import ModelFileField, list_loras
from app.ui.generation_result import GenerationResultView
from app.ui.generation_stages import GenerationStageList, stage_title
from app.ui.generation_steps import GenerationProgressBar, GenerationStepStrip, StepImageDialog

ALIGN_PX = 16
SAMPLERS = (
    "euler",
    "euler_a",
    "heun",
    "dpm2",
    "dpm++2s_a",
    "dpm++2m",
    "dpm++2mv2",
    "ipndm",
    "ipndm_v",
    "lcm",
    "ddim_trailing",
    "tcd",
)
SCHEDULERS = (
    "simple",
    "discrete",
    "karras",
    "exponential",
    "ays",
    "gits",
    "sgm_uniform",
    "smoothstep",
)
PREVIEW_MODES = ("proj", "vae", "none")
MAX_SEED = 2**31 - 1
DONE_STATES = ("done", "cached", "skipped")
UI_UPDATE_MS = 40


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationPanel", text)


def preview_title(mode: str) -> str:
    return {
        "proj": _tr("Fast (latent projection)"),
        "vae": _tr("Accurate (VAE, slower)"),
        "none": _tr("Off"),
    }.get(mode, mode)


def klein_notes(cfg: float, steps: int, sampler: str, scheduler: str, negative: str) -> list[str]:
    """Settings that cost time or do nothing with FLUX.2 klein (translated)."""
    notes = []
    if cfg != 1.0:
        notes.append(
            _tr(
                "CFG {cfg:g}: klein is distilled for CFG 1. Any other value runs the "
                "diffusion model twice per step (about twice as slow)."
            ).format(cfg=cfg)
        )
    elif negative.strip():
        notes.append(_tr("The negative prompt does nothing at CFG 1."))
    if steps > 8:
        notes.append(
            _tr("{steps} steps: klein is distilled for about 4; more steps rarely help.").format(
                steps=steps
            )
        )
    if scheduler != "simple":
        notes.append(
            _tr(
                "Scheduler \u201c{name}\u201d: \u201csimple\u201d gives klein its "
                "flux2-like schedule."
            ).format(name=scheduler)
        )
    if sampler not in (
        "euler",
        "heun",
        "dpm2",
        "dpm++2m",
        "dpm++2mv2",
        "ipndm",
        "ipndm_v",
        "ddim_trailing",
    ):
        notes.append(
            _tr(
                "Sampler \u201c{name}\u201d adds noise every step: a suspended run "
                "may not resume exactly."
            ).format(name=sampler)
        )
    return notes


def align_up(value: int, multiple: int = ALIGN_PX) -> int:
    return max(multiple, (value + multiple - 1) // multiple * multiple)


class GenerationPanel(QWidget):
    """Everything needed to set up, run, watch and keep one generation."""

    settings_changed = Signal()
    result_saved = Signal(str)
    demo_opened = Signal(str)  # the demo picture's path, once it is in the document

    def __init__(
        self,
        session: RunSession,
        settings: Settings,
        parent: QWidget | None = None,
        *,
        save_settings: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("generation_panel")
        self.session = session
        self.settings = settings
        self._save_settings = save_settings
        self._input_image: str | None = None
        self._input_mask: str | None = None
        self._input_size: tuple[int, int] | None = None
        self._document: Any = None
        self._runner: StageRunner | None = None
        self._runner_kind = ""  # "execute" | "decode"
        self._only: str | None = None  # the one stage a "Run next stage" runs
        self._decode_step = 0
        self._paused = False
        self._steps_total = 0
        self._log_lines: deque[str] = deque(maxlen=MEMORY_LOG_LINES)
        self._last_log_path = ""
        self._last_failure = ""
        self._offered_unfinished = False
        self._warmed = False
        self._pending_progress: tuple[int, int, float, float] | None = None
        self._pending_thumbs: list[tuple[int, str, QImage]] = []
        self._ui_timer = QTimer(self)
        self._ui_timer.setSingleShot(True)
        self._ui_timer.setInterval(UI_UPDATE_MS)
        self._ui_timer.timeout.connect(self._flush_ui)
        self._unfinished: list[Any] = []
        self._devices: list[tuple[str, str]] = [("cpu", "CPU")]
        self._demo_setup: DemoSetup | None = None

        self._build()
        self._load_settings()
        self._connect()
        self._refresh_loras()
        self._update_size_row()
        self._update_warnings()
        self._update_buttons()
        self._update_demo_button()
        session.runner_started.connect(self._bind_runner)
        session.runner_ended.connect(self._runner_ended)
        session.run_changed.connect(self._run_changed)

    # ==== construction =======================================================================

    def _build(self) -> None:
        # --- models
        self.diffusion_field = ModelFileField("diffusion", self)
        self.llm_field = ModelFileField("llm", self)
        self.vae_field = ModelFileField("vae", self)
        self.lora_field = ModelFileField("lora", self)
        models = QGroupBox(_tr("Models"), self)
        form = QFormLayout(models)
        form.addRow(_tr("Diffusion model"), self.diffusion_field)
        form.addRow(_tr("Text encoder (LLM)"), self.llm_field)
        form.addRow(_tr("VAE"), self.vae_field)
        form.addRow(_tr("LoRA folder"), self.lora_field)
        self.demo_button = QPushButton(_tr("Try with demo models"), self)
        self.demo_button.setObjectName("generation_try_demo")
        self.demo_button.setToolTip(
            _tr(
                "Make tiny demo models and a demo picture (seconds, a few MB) to see the "
                "whole workflow before downloading real models"
            )
        )
        self.demo_note = QLabel(self)
        self.demo_note.setObjectName("generation_demo_note")
        self.demo_note.setWordWrap(True)
        self.demo_note.hide()
        form.addRow(self.demo_button)
        form.addRow(self.demo_note)

        # --- prompt
        self.prompt_edit = QPlainTextEdit(self)
        self.prompt_edit.setObjectName("generation_prompt")
        self.prompt_edit.setPlaceholderText(_tr("Describe what to paint in the masked area…"))
        self.prompt_edit.setFixedHeight(72)
        self.negative_edit = QPlainTextEdit(self)
        self.negative_edit.setObjectName("generation_negative")
        self.negative_edit.setPlaceholderText(_tr("Negative prompt (used only when CFG ≠ 1)"))
        self.negative_edit.setFixedHeight(40)
        self.lora_combo = QComboBox(self)
        self.lora_combo.setObjectName("generation_lora_combo")
        self.lora_insert = QPushButton(_tr("Insert LoRA tag"), self)
        self.lora_insert.setObjectName("generation_lora_insert")
        lora_row = QHBoxLayout()
        lora_row.addWidget(self.lora_combo, 1)
        lora_row.addWidget(self.lora_insert)
        prompt_box = QGroupBox(_tr("Prompt"), self)
        prompt_layout = QVBoxLayout(prompt_box)
        prompt_layout.addWidget(self.prompt_edit)
        prompt_layout.addLayout(lora_row)
        prompt_layout.addWidget(self.negative_edit)

        # --- size and sampling
        self.size_label = QLabel(self)
        self.size_label.setObjectName("generation_size_label")
        self.size_label.setWordWrap(True)
        self.width_spin = self._size_spin("generation_width")
        self.height_spin = self._size_spin("generation_height")
        size_row = QHBoxLayout()
        size_row.addWidget(self.width_spin)
        size_row.addWidget(QLabel("×", self))
        size_row.addWidget(self.height_spin)
        size_row.addStretch(1)
        self.size_widget = QWidget(self)
        self.size_widget.setLayout(size_row)
        size_row.setContentsMargins(0, 0, 0, 0)
        self.steps_spin = QSpinBox(self)
        self.steps_spin.setObjectName("generation_steps")
        self.steps_spin.setRange(1, 150)
        self.seed_spin = QSpinBox(self)
        self.seed_spin.setObjectName("generation_seed")
        self.seed_spin.setRange(0, MAX_SEED)
        self.random_seed = QCheckBox(_tr("Random"), self)
        self.random_seed.setObjectName("generation_random_seed")
        self.random_seed.setToolTip(_tr("Pick a new seed for every new run"))
        self.dice = QToolButton(self)
        self.dice.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_BrowserReload))
        self.dice.setToolTip(_tr("New random seed now"))
        seed_row = QHBoxLayout()
        seed_row.setContentsMargins(0, 0, 0, 0)
        seed_row.addWidget(self.seed_spin, 1)
        seed_row.addWidget(self.dice)
        seed_row.addWidget(self.random_seed)
        self.strength_spin = QDoubleSpinBox(self)
        self.strength_spin.setObjectName("generation_strength")
        self.strength_spin.setRange(0.01, 1.0)
        self.strength_spin.setSingleStep(0.05)
        self.strength_spin.setDecimals(2)
        self.sampler_combo = QComboBox(self)
        self.sampler_combo.setObjectName("generation_sampler")
        self.sampler_combo.addItems(SAMPLERS)
        self.scheduler_combo = QComboBox(self)
        self.scheduler_combo.setObjectName("generation_scheduler")
        self.scheduler_combo.addItems(SCHEDULERS)
        self.cfg_spin = QDoubleSpinBox(self)
        self.cfg_spin.setObjectName("generation_cfg")
        self.cfg_spin.setRange(0.0, 30.0)
        self.cfg_spin.setSingleStep(0.5)
        self.cfg_spin.setDecimals(1)
        self.warning_label = QLabel(self)
        self.warning_label.setObjectName("generation_klein_warning")
        self.warning_label.setWordWrap(True)
        self.warning_label.setStyleSheet("color: #b26a00;")
        self.preview_combo = QComboBox(self)
        self.preview_combo.setObjectName("generation_preview_mode")
        for mode in PREVIEW_MODES:
            self.preview_combo.addItem(preview_title(mode), mode)
        sampling = QGroupBox(_tr("Image and sampling"), self)
        sform = QFormLayout(sampling)
        sform.addRow(_tr("Size"), self.size_widget)
        sform.addRow("", self.size_label)
        sform.addRow(_tr("Steps"), self.steps_spin)
        sform.addRow(_tr("Seed"), seed_row)
        sform.addRow(_tr("Strength"), self.strength_spin)
        sform.addRow(_tr("Sampler"), self.sampler_combo)
        sform.addRow(_tr("Scheduler"), self.scheduler_combo)
        sform.addRow(_tr("CFG scale"), self.cfg_spin)
        sform.addRow(self.warning_label)
        sform.addRow(_tr("Preview"), self.preview_combo)

        # --- devices
        self.device_combos: dict[str, QComboBox] = {}
        devices = QGroupBox(_tr("Devices"), self)
        dform = QFormLayout(devices)
        for stage, title in (
            ("llm", _tr("Text encoder")),
            ("diffusion", _tr("Diffusion")),
            ("vae", _tr("VAE")),
        ):
            combo = QComboBox(self)
            combo.setObjectName(f"generation_device_{stage}")
            self.device_combos[stage] = combo
            dform.addRow(title, combo)
        self.vae_tiling = QCheckBox(_tr("VAE tiling (less memory)"), self)
        self.detect_devices = QPushButton(_tr("Detect devices"), self)
        self.detect_devices.setObjectName("generation_detect_devices")
        self.device_note = QLabel(self)
        self.device_note.setWordWrap(True)
        dform.addRow(self.vae_tiling)
        dform.addRow(self.detect_devices, self.device_note)

        setup = QWidget(self)
        setup_layout = QVBoxLayout(setup)
        setup_layout.setContentsMargins(4, 4, 4, 4)
        for box in (models, prompt_box, sampling, devices):
            setup_layout.addWidget(box)
        setup_layout.addStretch(1)
        setup_scroll = QScrollArea(self)
        setup_scroll.setWidget(setup)
        setup_scroll.setWidgetResizable(True)
        setup_scroll.setFrameShape(QFrame.Shape.NoFrame)
        setup_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

        # --- run tab
        self.stage_list = GenerationStageList(self)
        self.progress = GenerationProgressBar(self)
        self.pause_button = QPushButton(_tr("Pause"), self)
        self.pause_button.setObjectName("generation_pause")
        self.pause_button.setToolTip(_tr("Hold after the current step; the model stays loaded"))
        self.resume_button = QPushButton(_tr("Resume"), self)
        self.resume_button.setObjectName("generation_resume")
        self.suspend_button = QPushButton(_tr("Suspend"), self)
        self.suspend_button.setObjectName("generation_suspend")
        self.suspend_button.setToolTip(
            _tr("Save the current step and free the GPU; resume later, even after a restart")
        )
        self.cancel_button = QPushButton(_tr("Cancel"), self)
        self.cancel_button.setObjectName("generation_cancel")
        self.cancel_button.setToolTip(_tr("Stop; the steps already done are kept"))
        controls = QHBoxLayout()
        for button in (
            self.pause_button,
            self.resume_button,
            self.suspend_button,
            self.cancel_button,
        ):
            controls.addWidget(button)
        self.strip = GenerationStepStrip(self)
        self.decode_button = QPushButton(_tr("Decode this step"), self)
        self.decode_button.setObjectName("generation_decode_step")
        self.decode_button.setToolTip(_tr("Turn the selected step into a full image with the VAE"))
        self.branch_button = QPushButton(_tr("Branch from here"), self)
        self.branch_button.setObjectName("generation_branch")
        self.branch_button.setToolTip(
            _tr(
                "Start a new run that keeps the steps up to the "
                "selected one and uses the current settings after it"
            )
        )
        self.step_label = QLabel(self)
        step_row = QHBoxLayout()
        step_row.addWidget(self.step_label, 1)
        step_row.addWidget(self.decode_button)
        step_row.addWidget(self.branch_button)
        self.result_view = GenerationResultView(self)

        run_tab = QWidget(self)
        run_layout = QVBoxLayout(run_tab)
        run_layout.setContentsMargins(4, 4, 4, 4)
        run_layout.addWidget(self.stage_list)
        run_layout.addWidget(self.progress)
        run_layout.addLayout(controls)
        run_layout.addWidget(self.strip)
        run_layout.addLayout(step_row)
        run_layout.addWidget(self.result_view, 1)

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("generation_tabs")
        self.tabs.addTab(setup_scroll, _tr("Setup"))
        self.tabs.addTab(run_tab, _tr("Run"))

        # --- top: unfinished runs, tools
        self.unfinished_box = QFrame(self)
        self.unfinished_box.setObjectName("generation_unfinished")
        self.unfinished_box.setFrameShape(QFrame.Shape.StyledPanel)
        self.unfinished_layout = QVBoxLayout(self.unfinished_box)
        self.unfinished_box.hide()
        self.import_button = QPushButton(_tr("Import sd-cli command…"), self)
        self.import_button.setObjectName("generation_import_sdcli")
        self.settings_button = QPushButton(_tr("Settings…"), self)
        self.settings_button.setObjectName("generation_settings")
        tools = QHBoxLayout()
        tools.addWidget(self.import_button)
        tools.addStretch(1)
        tools.addWidget(self.settings_button)

        # --- bottom: errors and the run buttons
        self.error_banner = GenerationErrorBanner(self)
        self.status_label = QLabel(self)
        self.status_label.setObjectName("generation_status")
        self.status_label.setWordWrap(True)
        self.log_button = QPushButton(_tr("Show engine log"), self)
        self.log_button.setObjectName("generation_engine_log")
        self.next_button = QPushButton(_tr("Run next stage"), self)
        self.next_button.setObjectName("generation_run_next")
        self.all_button = QPushButton(_tr("Run all"), self)
        self.all_button.setObjectName("generation_run_all")
        self.all_button.setDefault(True)
        self.all_button.setShortcut(QKeySequence("Ctrl+Return"))
        self.all_button.setToolTip(_tr("Run every stage that is not done yet (Ctrl+Enter)"))
        self.new_run_button = QPushButton(_tr("New run"), self)
        self.new_run_button.setObjectName("generation_new_run")
        self.new_run_button.setToolTip(
            _tr("Forget the current run; the next start makes a new one (cached stages are reused)")
        )
        run_row = QHBoxLayout()
        run_row.addWidget(self.log_button)
        run_row.addWidget(self.new_run_button)
        run_row.addStretch(1)
        run_row.addWidget(self.next_button)
        run_row.addWidget(self.all_button)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(tools)
        layout.addWidget(self.unfinished_box)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.error_banner)
        layout.addWidget(self.status_label)
        layout.addLayout(run_row)

    def _size_spin(self, name: str) -> QSpinBox:
        spin = QSpinBox(self)
        spin.setObjectName(name)
        spin.setRange(ALIGN_PX * 4, 4096)
        spin.setSingleStep(ALIGN_PX)
        spin.setSuffix(" px")
        return spin

    def _connect(self) -> None:
        self.lora_field.path_changed.connect(self._refresh_loras)
        self.lora_insert.clicked.connect(self._insert_lora)
        self.width_spin.editingFinished.connect(lambda: self._align_spin(self.width_spin))
        self.height_spin.editingFinished.connect(lambda: self._align_spin(self.height_spin))
        for spin in (self.cfg_spin, self.steps_spin):
            spin.valueChanged.connect(self._update_warnings)
        self.sampler_combo.currentTextChanged.connect(self._update_warnings)
        self.scheduler_combo.currentTextChanged.connect(self._update_warnings)
        self.negative_edit.textChanged.connect(self._update_warnings)
        self.random_seed.toggled.connect(self.seed_spin.setDisabled)
        self.dice.clicked.connect(lambda: self.seed_spin.setValue(random.randint(0, MAX_SEED)))
        self.detect_devices.clicked.connect(self.probe_devices)
        self.demo_button.clicked.connect(self.try_demo_models)
        for field in (self.diffusion_field, self.llm_field, self.vae_field):
            field.path_changed.connect(self._update_demo_button)
        self.pause_button.clicked.connect(self.pause)
        self.resume_button.clicked.connect(self.resume)
        self.suspend_button.clicked.connect(self.suspend)
        self.cancel_button.clicked.connect(self.cancel)
        self.next_button.clicked.connect(self.run_next_stage)
        self.all_button.clicked.connect(self.run_all)
        self.new_run_button.clicked.connect(self.new_run)
        self.decode_button.clicked.connect(self.decode_selected_step)
        self.branch_button.clicked.connect(self.branch_from_selected_step)
        self.strip.step_selected.connect(self._step_selected)
        self.strip.enlarge_requested.connect(self._enlarge_step)
        self.log_button.clicked.connect(self.show_engine_log)
        self.error_banner.show_log_requested.connect(self.show_engine_log)
        self.result_view.save_requested.connect(self.save_result_dialog)
        self.import_button.clicked.connect(self.open_sdcli_import)
        self.settings_button.clicked.connect(self.open_settings)

    # ==== settings <-> form ==================================================================

    def _load_settings(self) -> None:
        m, g, d = self.settings.models, self.settings.generation, self.settings.devices
        self.diffusion_field.set_path(m.diffusion_model)
        self.llm_field.set_path(m.llm)
        self.vae_field.set_path(m.vae)
        self.lora_field.set_path(m.lora_dir)
        self.prompt_edit.setPlainText(g.prompt)
        self.negative_edit.setPlainText(g.negative_prompt)
        self.steps_spin.setValue(g.steps)
        self.seed_spin.setValue(min(max(g.seed, 0), MAX_SEED))
        self.random_seed.setChecked(g.random_seed)
        self.seed_spin.setDisabled(g.random_seed)
        self.strength_spin.setValue(g.strength)
        self._set_combo_text(self.sampler_combo, g.sampler)
        self._set_combo_text(self.scheduler_combo, g.scheduler)
        self.cfg_spin.setValue(g.cfg_scale)
        index = self.preview_combo.findData(g.preview)
        self.preview_combo.setCurrentIndex(max(0, index))
        self.width_spin.setValue(512)
        self.height_spin.setValue(512)
        self.vae_tiling.setChecked(d.vae_tiling)
        self._fill_devices()

    def store_settings(self) -> None:
        """Writes the form back into the Settings object (and saves, if a saver was given)."""
        m, g, d = self.settings.models, self.settings.generation, self.settings.devices
        m.diffusion_model = self.diffusion_field.path()
        m.llm = self.llm_field.path()
        m.vae = self.vae_field.path()
        m.lora_dir = self.lora_field.path()
        g.prompt = self.prompt_edit.toPlainText()
        g.negative_prompt = self.negative_edit.toPlainText()
        g.steps = self.steps_spin.value()
        g.seed = self.seed_spin.value()
        g.random_seed = self.random_seed.isChecked()
        g.strength = self.strength_spin.value()
        g.sampler = self.sampler_combo.currentText()
        g.scheduler = self.scheduler_combo.currentText()
        g.cfg_scale = self.cfg_spin.value()
        g.preview = str(self.preview_combo.currentData())
        for stage, combo in self.device_combos.items():
            setattr(d, stage, str(combo.currentData() or "cpu"))
        d.vae_tiling = self.vae_tiling.isChecked()
        if self._save_settings is not None:
            try:
                self._save_settings()
            except OSError as exc:
                self._set_status(_tr("Settings could not be saved: {error}").format(error=exc))
        self.settings_changed.emit()

    def reload_settings(self) -> None:
        """The settings changed elsewhere (the settings dialog): show them."""
        self._load_settings()
        self._update_warnings()

    @staticmethod
    def _set_combo_text(combo: QComboBox, text: str) -> None:
        index = combo.findText(text)
        if index < 0:
            combo.addItem(text)
            index = combo.count() - 1
        combo.setCurrentIndex(index)

    # ==== devices ============================================================================

    def probe_devices(self) -> None:
        """Asks the engine which devices exist (off the UI thread)."""
        self.detect_devices.setEnabled(False)
        self.device_note.setText(_tr("Asking the engine…"))
        try:
            probe = self.session.probe_devices(self._devices_found, self._devices_failed)
        except Exception as exc:
            self._devices_failed(_user_text(exc))
            return
        if probe is None:
            self._devices_failed(
                _tr(
                    "this build cannot list devices yet; CPU and the "
                    "devices saved in the settings are offered."
                )
            )
            return

    def _devices_found(self, devices: list) -> None:
        self._devices = [("cpu", "CPU")] + [(n, d) for n, d in devices if n.lower() != "cpu"]
        self._fill_devices()
        self.detect_devices.setEnabled(True)
        gpus = len(self._devices) - 1
        self.device_note.setText(
            _tr("{count} GPU device(s) found.").format(count=gpus)
            if gpus
            else _tr("No GPU found; everything runs on the CPU.")
        )

    def _devices_failed(self, message: str) -> None:
        self.detect_devices.setEnabled(True)
        self.device_note.setText(_tr("Could not ask the engine: {message}").format(message=message))

    def set_devices(self, devices: list[tuple[str, str]]) -> None:
        self._devices_found(devices)

    def _fill_devices(self) -> None:
        d = self.settings.devices
        names = {n for n, _ in self._devices}
        for stage, combo in self.device_combos.items():
            wanted = str(combo.currentData() or getattr(d, stage))
            combo.blockSignals(True)
            combo.clear()
            for name, description in self._devices:
                label = _tr("CPU") if name == "cpu" else f"{name} – {description}"
                combo.addItem(label, name)
            if wanted not in names:
                combo.addItem(_tr("{name} (not detected)").format(name=wanted), wanted)
            combo.setCurrentIndex(max(0, combo.findData(wanted)))
            combo.blockSignals(False)

    # ==== demo models ========================================================================

    def _update_demo_button(self) -> None:
        fields = (self.diffusion_field, self.llm_field, self.vae_field)
        self.demo_button.setVisible(not any(f.path() for f in fields))

    def try_demo_models(self) -> None:
        """Generates the demo set off the UI thread, then fills the form and opens the picture."""
        if self._demo_setup is not None:
            return
        self.demo_button.setEnabled(False)
        self.demo_note.setText(_tr("Preparing the demo models…"))
        self.demo_note.setStyleSheet("")
        self.demo_note.show()
        setup = DemoSetup(self.session.paths, self)
        setup.demo_ready.connect(self._demo_ready)
        setup.demo_failed.connect(self._demo_failed)
        setup.finished.connect(self._demo_finished)
        self._demo_setup = setup
        setup.start()

    def _demo_finished(self) -> None:
        setup, self._demo_setup = self._demo_setup, None
        if setup is not None:
            setup.wait()
            setup.deleteLater()
        self.demo_button.setEnabled(True)

    def _demo_failed(self, message: str) -> None:
        self.demo_note.setText(
            _tr("The demo models could not be made: {message}").format(message=message)
        )
        self.demo_note.setStyleSheet("color: #c62828;")

    def _demo_ready(self, demo: Any) -> None:
        self.diffusion_field.set_path(str(demo.models.diffusion))
        self.llm_field.set_path(str(demo.models.llm))
        self.vae_field.set_path(str(demo.models.vae))
        for combo in self.device_combos.values():
            if combo.findData("cpu") < 0:
                combo.addItem(_tr("CPU"), "cpu")
            combo.setCurrentIndex(combo.findData("cpu"))
        if not self.prompt_edit.toPlainText().strip():
            self.prompt_edit.setPlainText("a small red house")
        doc = self._document
        if doc is not None:
            try:
                doc.set_image(canvas_files.read_picture(demo.image), demo.image)
                mask = canvas_files.read_mask(demo.mask, (doc.width, doc.height))
                doc.replace_mask(_tr("Demo mask"), mask)
            except (StepwiseError, OSError, ValueError) as exc:
                self._demo_failed(_user_text(exc))
                return
            self.demo_opened.emit(str(demo.image))
        self.demo_note.setText(
            _tr(
                "Demo models are ready and run on the CPU. They have random weights, so "
                "they paint noise by design: they show the workflow, not real pictures. "
                "Choose real FLUX.2 klein files when you want real results."
            )
        )
        self.demo_note.setStyleSheet("color: #b26a00;")
        self.store_settings()

    # ==== input image ========================================================================

    def set_document(self, document: Any) -> None:
        """Follows a canvas MaskDocument: its image and mask become the job's input."""
        if self._document is not None:
            try:
                self._document.image_changed.disconnect(self._document_changed)
            except (RuntimeError, TypeError):
                pass
        self._document = document
        if document is not None:
            document.image_changed.connect(self._document_changed)
        self._document_changed()

    def _document_changed(self) -> None:
        doc = self._document
        if doc is None or doc.is_empty():
            self._input_size = None
        else:
            self._input_size = (doc.width, doc.height)
        self._update_size_row()
        self._show_original()

    def set_input_files(self, image: str | None, mask: str | None = None) -> None:
        """Inputs as files (tests, CLI-like use); None = text to image."""
        self._document = None
        self._input_image = image
        self._input_mask = mask
        if image:
            probe = QImage(image)
            self._input_size = None if probe.isNull() else (probe.width(), probe.height())
        else:
            self._input_size = None
        self._update_size_row()
        self._show_original()

    def _show_original(self) -> None:
        if self._document is not None and not self._document.is_empty():
            image = self._document.image
            h, w = image.shape[:2]
            data = np.ascontiguousarray(image)
            qimage = QImage(data.data, w, h, 3 * w, QImage.Format.Format_RGB888).copy()
            self.result_view.set_original(qimage)
        elif self._input_image:
            self.result_view.set_original(QImage(self._input_image))
        else:
            self.result_view.set_original(None)

    def _update_size_row(self) -> None:
        if self._input_size is None:
            self.size_widget.setEnabled(True)
            self.size_label.setText(_tr("Text to image: choose the size (multiples of 16)."))
            self.strength_spin.setEnabled(False)
        else:
            w, h = self._input_size
            self.size_widget.setEnabled(False)
            self.width_spin.setValue(align_up(w))
            self.height_spin.setValue(align_up(h))
            if (w, h) == (align_up(w), align_up(h)):
                text = _tr("From the image: {w}×{h}.").format(w=w, h=h)
            else:
                text = _tr("From the image: {w}×{h}, aligned to {aw}×{ah}.").format(
                    w=w, h=h, aw=align_up(w), ah=align_up(h)
                )
            self.size_label.setText(text)
            self.strength_spin.setEnabled(True)

    def _align_spin(self, spin: QSpinBox) -> None:
        value = spin.value()
        aligned = max(spin.minimum(), round(value / ALIGN_PX) * ALIGN_PX)
        if aligned != value:
            spin.setValue(aligned)

    def _write_document_inputs(self) -> tuple[str | None, str | None]:
        doc = self._document
        if doc is None or doc.is_empty():
            return self._input_image, self._input_mask
        from PIL import Image

        folder = self.session.paths.cache_dir / "inputs"
        folder.mkdir(parents=True, exist_ok=True)
        image = np.ascontiguousarray(doc.image)
        mask = np.ascontiguousarray(np.clip(doc.mask * 255.0 + 0.5, 0, 255).astype(np.uint8))
        key = hashlib.sha256(image.tobytes() + mask.tobytes()).hexdigest()[:20]
        image_path = folder / f"{key}-image.png"
        mask_path = folder / f"{key}-mask.png"
        if not image_path.exists():
            Image.fromarray(image, "RGB").save(image_path)
        if not mask_path.exists():
            Image.fromarray(mask, "L").save(mask_path)
        has_mask = bool(mask.any())
        return str(image_path), (str(mask_path) if has_mask else None)

    # ==== prompt helpers =====================================================================

    def _refresh_loras(self) -> None:
        names = list_loras(self.lora_field.path())
        self.lora_combo.clear()
        if names:
            self.lora_combo.addItems(names)
        elif self.lora_field.path():
            self.lora_combo.addItem(_tr("(no LoRAs in the folder)"))
        else:
            self.lora_combo.addItem(_tr("(choose a LoRA folder to list its LoRAs)"))
        self.lora_combo.setEnabled(bool(names))
        self.lora_insert.setEnabled(bool(names))

    def _insert_lora(self) -> None:
        name = self.lora_combo.currentText()
        if not name or not self.lora_combo.isEnabled():
            return
        cursor = self.prompt_edit.textCursor()
        text = self.prompt_edit.toPlainText()
        sep = "" if not text or text.endswith(" ") else " "
        cursor.movePosition(cursor.MoveOperation.End)
        cursor.insertText(f"{sep}<lora:{name}:1.0>")
        self.prompt_edit.setTextCursor(cursor)

    def _update_warnings(self) -> None:
        notes = klein_notes(
            self.cfg_spin.value(),
            self.steps_spin.value(),
            self.sampler_combo.currentText(),
            self.scheduler_combo.currentText(),
            self.negative_edit.toPlainText(),
        )
        self.warning_label.setText("\n".join("⚠ " + n for n in notes))
        self.warning_label.setVisible(bool(notes))

    # ==== the job ============================================================================

    def build_spec(self, seed: int | None = None) -> JobSpec:
        """The JobSpec the form describes; raises ValueError with a message for the user."""
        problems = [
            f.check.message
            for f in (self.diffusion_field, self.llm_field, self.vae_field, self.lora_field)
            if not f.is_valid()
        ]
        if problems:
            raise ValueError(" ".join(problems))
        if not self.prompt_edit.toPlainText().strip():
            raise ValueError(_tr("Write a prompt first."))
        image, mask = self._write_document_inputs()
        devices = DeviceChoice(
            llm=str(self.device_combos["llm"].currentData() or "cpu"),
            diffusion=str(self.device_combos["diffusion"].currentData() or "cpu"),
            vae=str(self.device_combos["vae"].currentData() or "cpu"),
            threads=self.settings.devices.threads,
            flash_attention=self.settings.devices.flash_attention,
            vae_tiling=self.vae_tiling.isChecked(),
            mmap=self.settings.devices.mmap,
        )
        return JobSpec(
            models=ModelFiles(
                self.diffusion_field.path(),
                self.llm_field.path(),
                self.vae_field.path(),
                self.lora_field.path(),
            ),
            prompt=self.prompt_edit.toPlainText().strip(),
            negative_prompt=self.negative_edit.toPlainText().strip(),
            image=image,
            mask=mask,
            width=self.width_spin.value(),
            height=self.height_spin.value(),
            steps=self.steps_spin.value(),
            seed=self.seed_spin.value() if seed is None else seed,
            strength=self.strength_spin.value() if image else 1.0,
            cfg_scale=round(self.cfg_spin.value(), 3),
            sampler=self.sampler_combo.currentText(),
            scheduler=self.scheduler_combo.currentText(),
            preview=str(self.preview_combo.currentData()),
            devices=devices,
        )

    def _run_for_form(self) -> Any:
        """The current run if it still matches the form and isn't finished; else a new one."""
        run = self.session.run
        current_seed = run.spec.seed if run is not None else None
        spec = self.build_spec(seed=current_seed if self.random_seed.isChecked() else None)
        if run is not None and not getattr(run, "finished", False) and _same_job(run.spec, spec):
            return run
        if self.random_seed.isChecked():
            spec = dataclasses.replace(spec, seed=random.randint(0, MAX_SEED))
            self.seed_spin.setValue(spec.seed)
        self.store_settings()
        self.strip.clear_steps()
        self.result_view.clear_result()
        return self.session.create_run(spec)

    def run_all(self) -> None:
        self._start(only=None)

    def run_next_stage(self) -> None:
        self._start(only="next")

    def new_run(self) -> None:
        if self.session.busy:
            return
        self.session.clear_run()
        self.strip.clear_steps()
        self.result_view.clear_result()
        self.stage_list.reset()
        self.progress.reset()
        self._set_status(_tr("The next start makes a new run."))

    def _start(self, only: str | None) -> None:
        if self.session.busy:
            return
        self.error_banner.hide()
        try:
            run = self._run_for_form()
        except ValueError as exc:
            self._show_error(str(exc), _tr("Fix this under Setup, then start again."))
            self.tabs.setCurrentIndex(0)
            return
        except Exception as exc:  # the pipeline refused the job: a message for the user
            self._show_error(_user_text(exc), _tr("Check the settings, then start again."))
            return
        stage = None
        if only == "next":
            stage = self._next_stage(run)
            if stage is None:
                self._set_status(_tr("Every stage is done. Change a setting or start a new run."))
                self._show_result_of(run)
                return
        self.tabs.setCurrentIndex(1)
        self._runner_kind = "execute"
        self._only = stage
        try:
            self.session.execute(only=stage)
        except Exception as exc:
            self._show_error(
                _user_text(exc), _tr("Try again; if it keeps failing, open the engine log.")
            )

    @staticmethod
    def _next_stage(run: Any) -> str | None:
        spec = run.spec
        # Without an image or references there is nothing to encode: the pipeline marks
        # vae-encode skipped on the way, so one click goes on to the prompt.
        nothing_to_encode = spec.image is None and not spec.refs
        for state in run.stages():
            if state.state in DONE_STATES:
                continue
            if state.name == "vae-encode" and nothing_to_encode:
                continue
            return state.name
        return None

    # ==== runner binding =====================================================================

    def _bind_runner(self, runner: StageRunner) -> None:
        self._runner = runner
        pane = self.result_view.current
        runner.set_preview_max_px(int(max(pane.width(), pane.height()) * pane.devicePixelRatioF()))
        self._paused = False
        runner.stage_started.connect(self._stage_started)
        runner.stage_finished.connect(self._stage_finished)
        runner.step_progress.connect(self._step_progress)
        runner.preview_saved.connect(self._preview_saved)
        runner.preview_ready.connect(self._preview_ready)
        runner.log_line.connect(self._log_line)
        runner.paused.connect(self._runner_paused)
        runner.resumed.connect(self._runner_resumed)
        runner.result_loaded.connect(self._result_loaded)
        runner.device_reported.connect(self.stage_list.set_device)
        runner.run_finished.connect(self._run_finished)
        runner.run_failed.connect(self._run_failed)
        runner.run_cancelled.connect(self._run_cancelled)
        runner.run_suspended.connect(self._run_suspended)
        if self._runner_kind != "decode":
            self._set_status(_tr("Running…"))
        self._update_buttons()

    def _stage_started(self, stage: str) -> None:
        if self._runner_kind == "decode":
            self.progress.busy(_tr("Decoding step {step}…").format(step=self._decode_step))
            return
        self.stage_list.set_state(stage, "running")
        if stage == "diffuse":
            run = self.session.run
            steps = getattr(run, "steps", None) or self.steps_spin.value()
            self._steps_total = int(steps)
            done = getattr(run, "last_completed_step", 0) or 0
            self.progress.set_step(int(done), self._steps_total, 0.0, 0.0)
            self.progress.set_note(_tr("Loading the diffusion model…"))
        else:
            self.progress.busy(stage_title(stage) + "…")
        self._set_status(_tr("{stage}…").format(stage=stage_title(stage)))

    def _stage_finished(self, stage: str, seconds: float, cached: bool) -> None:
        if self._runner_kind == "decode":
            return
        self.stage_list.set_state(stage, "cached" if cached else "done", seconds)

    def _step_progress(self, step: int, steps: int, sps: float, eta: float) -> None:
        self._steps_total = steps
        self._pending_progress = (step, steps, sps, eta)
        self._schedule_ui()

    def _preview_saved(self, step: int, path: str, thumb: QImage) -> None:
        self._pending_thumbs.append((step, path, thumb))
        self._schedule_ui()

    def _schedule_ui(self) -> None:
        # Steps can arrive faster than it is worth repainting for: the bar, the ETA and the
        # strip are brought up to date at most every UI_UPDATE_MS, in one go.
        if not self._ui_timer.isActive():
            self._ui_timer.start()

    def _flush_ui(self) -> None:
        self._ui_timer.stop()
        thumbs, self._pending_thumbs = self._pending_thumbs, []
        for step, path, thumb in thumbs:
            self.strip.add_step(step, path, thumb)
        if self._pending_progress is not None:
            self.progress.set_step(*self._pending_progress)
            self._pending_progress = None

    def _preview_ready(self, step: int, image: QImage) -> None:
        self.result_view.show_preview(step, self._steps_total, image)

    def _log_line(self, stage: str, text: str) -> None:
        self._log_lines.append(f"[{stage}] {text}")

    def _runner_paused(self, step: int) -> None:
        self._flush_ui()
        self._paused = True
        self.stage_list.set_state("diffuse", "paused")
        self._set_status(_tr("Paused after step {step}. The model stays loaded.").format(step=step))
        self._update_buttons()

    def _runner_resumed(self, step: int) -> None:
        self._paused = False
        self.stage_list.set_state("diffuse", "running")
        self._set_status(_tr("Running…"))
        self._update_buttons()

    def _result_loaded(self, path: str, image: QImage) -> None:
        if self._runner_kind == "decode":
            self.result_view.show_image(
                image, _tr("Step {step}, decoded").format(step=self._decode_step)
            )
        else:
            self.result_view.show_result(image)

    def _run_finished(self, path: str) -> None:
        self._flush_ui()
        if self._runner_kind == "decode":
            self._set_status(
                _tr("Step {step} decoded: {path}").format(step=self._decode_step, path=path)
            )
        elif self._only is not None and self._only != "composite":
            self.progress.reset(_tr("{stage}: done").format(stage=stage_title(self._only)))
            self._set_status(
                _tr("{stage} is done. Run next stage continues.").format(
                    stage=stage_title(self._only)
                )
            )
        else:
            self.progress.reset(_tr("Done"))
            self._set_status(_tr("Done. The result is saved in the run folder with its settings."))

    def _run_failed(self, stage: str, message: str, log_path: str) -> None:
        self._flush_ui()
        self._last_log_path = log_path
        self._last_failure = message
        if stage and self._runner_kind != "decode":
            self.stage_list.set_state(stage, "failed")
        self.progress.reset(_tr("Failed"))
        title = _tr("{stage} failed: {message}").format(
            stage=stage_title(stage) if stage else _tr("The run"), message=message
        )
        self._show_error(title, next_step_hint(stage, message))

    def _run_cancelled(self, step: int) -> None:
        self._flush_ui()
        self.progress.reset(_tr("Cancelled"))
        self._set_status(
            _tr("Cancelled after step {step}. Run all continues from there.").format(step=step)
        )

    def _run_suspended(self, step: int) -> None:
        self._flush_ui()
        self.stage_list.set_state("diffuse", "suspended")
        self.progress.reset(
            _tr("Suspended at step {step} of {steps}").format(
                step=step, steps=self._steps_total or "?"
            )
        )
        self._set_status(
            _tr(
                "Suspended after step {step}; the GPU is free. Resume continues "
                "from there, even after a restart."
            ).format(step=step)
        )

    def _runner_ended(self, kind: str) -> None:
        self._flush_ui()
        decode = self._runner_kind == "decode"
        self._runner = None
        self._runner_kind = ""
        self._paused = False
        run = self.session.run
        if run is not None and not decode:
            self._show_stage_states(run, keep={"diffuse"} if kind == "suspended" else set())
        self._update_buttons()

    def _run_changed(self, run: Any) -> None:
        if run is None:
            return
        self._show_stage_states(run)
        self._update_buttons()

    def _show_stage_states(self, run: Any, keep: set[str] | None = None) -> None:
        keep = keep or set()
        for state in run.stages():
            if state.name in keep:
                continue
            self.stage_list.set_state(state.name, state.state, state.seconds)
        size = (
            getattr(run, "data", {}).get("size")
            if isinstance(getattr(run, "data", None), dict)
            else None
        )
        if run.spec.image and isinstance(size, list) and len(size) == 2:
            # What the engine really gets (aligned, maybe cropped to the mask's region).
            self.size_label.setText(_tr("Prepared image: {w}×{h}.").format(w=size[0], h=size[1]))

    def _show_result_of(self, run: Any) -> None:
        result = getattr(run, "result", None)
        if result and Path(result).is_file():
            self.result_view.show_result(QImage(str(result)))

    # ==== controls ===========================================================================

    def pause(self) -> None:
        if self._runner is not None:
            self._runner.pause()
            self._set_status(_tr("Pausing after the current step…"))

    def resume(self) -> None:
        if self._runner is not None and self._paused:
            self._runner.resume()
        elif self._runner is None and self.session.run is not None:
            self._runner_kind = "execute"
            self._only = None
            self.error_banner.hide()
            self.tabs.setCurrentIndex(1)
            try:
                self.session.execute()
            except Exception as exc:
                self._show_error(_user_text(exc), next_step_hint("diffuse", str(exc)))

    def suspend(self) -> None:
        if self._runner is not None:
            self._runner.suspend()
            self._set_status(_tr("Suspending after the current step…"))

    def cancel(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
            self._set_status(_tr("Cancelling…"))

    def _update_buttons(self) -> None:
        running = self._runner is not None
        run = self.session.run
        resumable = (
            not running
            and run is not None
            and not getattr(run, "finished", False)
            and self._has_started(run)
        )
        self.pause_button.setEnabled(
            running and not self._paused and self._runner_kind == "execute"
        )
        self.resume_button.setEnabled((running and self._paused) or resumable)
        self.suspend_button.setEnabled(running and self._runner_kind == "execute")
        self.cancel_button.setEnabled(running)
        self.next_button.setEnabled(not running)
        self.all_button.setEnabled(not running)
        self.new_run_button.setEnabled(not running and run is not None)
        has_step = self.strip.selected_step() is not None
        self.decode_button.setEnabled(not running and has_step and run is not None)
        self.branch_button.setEnabled(not running and has_step and run is not None)
        for widget in (self.import_button, self.settings_button):
            widget.setEnabled(not running)

    @staticmethod
    def _has_started(run: Any) -> bool:
        return any(s.state not in ("pending",) for s in run.stages())

    # ==== steps: select, enlarge, decode, branch =============================================

    def _step_selected(self, step: int) -> None:
        path = self.strip.path(step)
        self.step_label.setText(_tr("Step {step} selected").format(step=step))
        image = QImage(path) if path else QImage()
        if not image.isNull():
            self.result_view.show_image(image, _tr("Step {step} (preview)").format(step=step))
        self._update_buttons()

    def _enlarge_step(self, step: int, path: str) -> None:
        StepImageDialog(step, path, self).exec()

    def decode_selected_step(self) -> None:
        step = self.strip.selected_step()
        if step is None or self.session.busy or self.session.run is None:
            return
        self._decode_step = step
        self._runner_kind = "decode"
        try:
            self.session.decode_step(step)
        except Exception as exc:
            self._runner_kind = ""
            self._show_error(_user_text(exc), next_step_hint("vae-decode", str(exc)))

    def branch_from_selected_step(self) -> None:
        step = self.strip.selected_step()
        run = self.session.run
        if step is None or run is None or self.session.busy:
            return
        try:
            form = self.build_spec(seed=run.spec.seed)
            changes = _spec_changes(run.spec, form)
            self.session.branch(step, **changes)
        except ValueError as exc:
            self._show_error(str(exc), _tr("Fix this under Setup, then branch again."))
            return
        except Exception as exc:
            self._show_error(
                _user_text(exc),
                _tr(
                    "Branching keeps the model, size, seed and "
                    "sampler; change only the prompt, steps "
                    "after this one, or devices."
                ),
            )
            return
        for other in self.strip.steps():
            if other > step:
                self._remove_step(other)
        self._set_status(
            _tr("New run branched from step {step}. Run all continues it.").format(step=step)
        )

    def _remove_step(self, step: int) -> None:
        for row in range(self.strip.count()):
            item = self.strip.item(row)
            if int(item.data(Qt.ItemDataRole.UserRole)) == step:
                self.strip.takeItem(row)
                self.strip._paths.pop(step, None)
                return

    # ==== unfinished runs ====================================================================

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if not self._warmed:
            self._warmed = True
            QTimer.singleShot(0, self._warm_up)
        if not self._offered_unfinished:
            # First show: offer unfinished runs and ask the engine for its devices (both off
            # the paint path; the probe runs in its own thread).
            self._offered_unfinished = True
            QTimer.singleShot(0, self.offer_unfinished_runs)
            QTimer.singleShot(0, self.probe_devices)

    def _warm_up(self) -> None:
        """Polishes and lays out the Run tab before it is first needed, so the first start
        doesn't pay for it in one long frame."""
        run_tab = self.tabs.widget(1)
        for widget in [run_tab, *run_tab.findChildren(QWidget)]:
            widget.ensurePolished()
        if run_tab.layout() is not None:
            run_tab.resize(self.tabs.currentWidget().size())
            run_tab.layout().activate()

    def offer_unfinished_runs(self) -> None:
        """Shows "Resume run … at step k of N" for each run that did not finish."""
        self._offered_unfinished = True
        self._unfinished = self.session.unfinished_runs()
        while self.unfinished_layout.count():
            item = self.unfinished_layout.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        if not self._unfinished:
            self.unfinished_box.hide()
            return
        title = QLabel(_tr("<b>Unfinished runs</b>"), self.unfinished_box)
        self.unfinished_layout.addWidget(title)
        for summary in self._unfinished[:5]:
            button = QPushButton(_summary_text(summary), self.unfinished_box)
            button.setObjectName("generation_resume_unfinished")
            button.setStyleSheet("text-align: left; padding: 3px 6px;")
            button.clicked.connect(lambda _=False, s=summary: self.resume_unfinished(s))
            self.unfinished_layout.addWidget(button)
        dismiss = QPushButton(_tr("Not now"), self.unfinished_box)
        dismiss.clicked.connect(self.unfinished_box.hide)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(dismiss)
        self.unfinished_layout.addLayout(row)
        self.unfinished_box.show()

    def resume_unfinished(self, summary: Any) -> None:
        if self.session.busy:
            return
        run_dir = _summary_field(summary, "run_dir", "dir", "path")
        try:
            run = self.session.open_run(Path(str(run_dir)))
        except Exception as exc:
            self._show_error(_user_text(exc), _tr("This run cannot be resumed; start a new one."))
            return
        self.unfinished_box.hide()
        self._show_spec(run.spec)
        self._load_step_previews(run)
        self.resume()

    def _show_spec(self, spec: JobSpec) -> None:
        """Puts a run's job into the form (resume, sd-cli import)."""
        self.diffusion_field.set_path(spec.models.diffusion)
        self.llm_field.set_path(spec.models.llm)
        self.vae_field.set_path(spec.models.vae)
        self.lora_field.set_path(spec.models.lora_dir)
        self.prompt_edit.setPlainText(spec.prompt)
        self.negative_edit.setPlainText(spec.negative_prompt)
        self.steps_spin.setValue(spec.steps)
        self.seed_spin.setValue(min(max(spec.seed, 0), MAX_SEED))
        self.strength_spin.setValue(spec.strength)
        self._set_combo_text(self.sampler_combo, spec.sampler)
        self._set_combo_text(self.scheduler_combo, spec.scheduler)
        self.cfg_spin.setValue(spec.cfg_scale)
        self.preview_combo.setCurrentIndex(max(0, self.preview_combo.findData(spec.preview)))
        if spec.image:
            self.set_input_files(spec.image, spec.mask)
        else:
            self.set_input_files(None)
            self.width_spin.setValue(spec.width)
            self.height_spin.setValue(spec.height)
        self._update_warnings()

    def _load_step_previews(self, run: Any) -> None:
        self.strip.clear_steps()
        folder = Path(run.dir) / "checkpoints"
        for step in range(1, int(getattr(run, "last_completed_step", 0) or 0) + 1):
            path = folder / f"preview_{step:03d}.png"
            image = QImage(str(path))
            if not image.isNull():
                self.strip.add_step(step, str(path), image)

    # ==== results ============================================================================

    def save_result_dialog(self) -> None:
        run = self.session.run
        result = getattr(run, "result", None) if run is not None else None
        if not result:
            return
        target, _ = QFileDialog.getSaveFileName(
            self,
            _tr("Save result"),
            str(Path.home() / "stepwise-result.png"),
            _tr("PNG image (*.png)"),
        )
        if target:
            self.save_result(Path(target))

    def save_result(self, target: Path) -> Path:
        """Saves the result PNG with its parameters inside (PNG text) and beside it (.json)."""
        run = self.session.run
        image = QImage(str(run.result))
        params = spec_to_dict(run.spec)
        text = json.dumps(params, ensure_ascii=False, sort_keys=True)
        image.setText("parameters", _parameters_line(run.spec))
        image.setText("stepwise", text)
        if target.suffix.lower() != ".png":
            target = target.with_suffix(".png")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass  # the save below fails and says so
        if not image.save(str(target), "PNG"):
            self._show_error(
                _tr("The result could not be saved to {path}.").format(path=target),
                _tr("Choose another folder."),
            )
            return target
        target.with_suffix(".json").write_text(
            json.dumps({"spec": params, "run_dir": str(run.dir)}, indent=1, ensure_ascii=False),
            encoding="utf-8",
        )
        self._set_status(_tr("Saved {path}").format(path=target))
        self.result_saved.emit(str(target))
        return target

    # ==== log, errors, dialogs ===============================================================

    def engine_log_text(self) -> tuple[str, str]:
        if self._last_log_path:
            return read_log_tail(self._last_log_path), self._last_log_path
        run = self.session.run
        if run is not None:
            logs = sorted((Path(run.dir) / "logs").glob("*.log"))
            if logs:
                parts = [f"==== {p.name} ====\n{read_log_tail(str(p))}" for p in logs]
                return "\n".join(parts), str(Path(run.dir) / "logs")
        return "\n".join(self._log_lines), ""

    def show_engine_log(self) -> None:
        text, path = self.engine_log_text()
        EngineLogDialog(text, path, self).exec()

    def _show_error(self, message: str, hint: str) -> None:
        self.error_banner.show_error(message, hint)
        self._set_status("")

    def _set_status(self, text: str) -> None:
        self.status_label.setText(text)

    def open_settings(self) -> None:
        from app.ui.settings_dialog import SettingsDialog

        self.store_settings()
        dialog = SettingsDialog(self.settings, self._devices, self)
        if dialog.exec():
            dialog.apply()
            engine = self.settings.engine_path
            self.session.set_engine(Path(engine) if engine else None)
            self.reload_settings()
            self.store_settings()

    def open_sdcli_import(self) -> None:
        from app.ui.settings_sdcli_import import SdCliImportDialog

        dialog = SdCliImportDialog(self)
        if dialog.exec() and dialog.spec is not None:
            self.apply_imported_spec(dialog.spec)

    def apply_imported_spec(self, spec: dict[str, Any]) -> None:
        """Fills the form from an imported sd-cli command (a spec_to_dict-shaped dict)."""
        models = spec.get("models", {})
        for field, key in (
            (self.diffusion_field, "diffusion"),
            (self.llm_field, "llm"),
            (self.vae_field, "vae"),
            (self.lora_field, "lora_dir"),
        ):
            if models.get(key):
                field.set_path(str(models[key]))
        self.prompt_edit.setPlainText(str(spec.get("prompt", "")))
        self.negative_edit.setPlainText(str(spec.get("negative_prompt", "")))
        self.steps_spin.setValue(int(spec.get("steps", self.steps_spin.value())))
        self.seed_spin.setValue(min(max(int(spec.get("seed", 0)), 0), MAX_SEED))
        self.random_seed.setChecked(False)
        self.strength_spin.setValue(float(spec.get("strength", 1.0)))
        self._set_combo_text(self.sampler_combo, str(spec.get("sampler", "euler")))
        self._set_combo_text(self.scheduler_combo, str(spec.get("scheduler", "simple")))
        self.cfg_spin.setValue(float(spec.get("cfg_scale", 1.0)))
        self.preview_combo.setCurrentIndex(
            max(0, self.preview_combo.findData(spec.get("preview", "proj")))
        )
        if spec.get("image"):
            self.set_input_files(str(spec["image"]), spec.get("mask"))
        else:
            self.width_spin.setValue(align_up(int(spec.get("width", 512))))
            self.height_spin.setValue(align_up(int(spec.get("height", 512))))
        devices = spec.get("devices", {})
        for stage, combo in self.device_combos.items():
            name = devices.get(stage)
            if name:
                if combo.findData(name) < 0:
                    combo.addItem(_tr("{name} (not detected)").format(name=name), name)
                combo.setCurrentIndex(combo.findData(name))
        self._update_warnings()
        self.tabs.setCurrentIndex(0)
        self._set_status(_tr("Imported the sd-cli command. Check the settings, then start."))

    def shutdown(self) -> bool:
        """Before the window closes: keep the form, suspend a running diffuse, wait."""
        self.store_settings()
        if self._demo_setup is not None:
            self._demo_setup.wait()
        return self.session.shutdown()


# ==== helpers ================================================================================


def _same_job(a: JobSpec, b: JobSpec) -> bool:
    return spec_to_dict(a) == spec_to_dict(b)


def _spec_changes(old: JobSpec, new: JobSpec) -> dict[str, Any]:
    changes = {}
    for field in dataclasses.fields(JobSpec):
        if getattr(old, field.name) != getattr(new, field.name):
            changes[field.name] = getattr(new, field.name)
    return changes


def _user_text(exc: BaseException) -> str:
    message = getattr(exc, "user_message", None)
    return message() if callable(message) else (str(exc) or type(exc).__name__)


def _summary_field(summary: Any, *names: str) -> Any:
    for name in names:
        if isinstance(summary, dict) and name in summary:
            return summary[name]
        if hasattr(summary, name):
            return getattr(summary, name)
    return None


def _summary_text(summary: Any) -> str:
    prompt = str(_summary_field(summary, "prompt") or "")
    if not prompt:
        spec = _summary_field(summary, "spec")
        prompt = str(getattr(spec, "prompt", "") or "")
    if len(prompt) > 40:
        prompt = prompt[:39] + "…"
    step = _summary_field(summary, "last_completed_step", "step") or 0
    steps = _summary_field(summary, "steps") or "?"
    return _tr("Resume run \u201c{prompt}\u201d at step {step} of {steps}").format(
        prompt=prompt or _tr("(no prompt)"), step=step, steps=steps
    )


def _parameters_line(spec: JobSpec) -> str:
    """The A1111-style parameters text many viewers show."""
    lines = [spec.prompt]
    if spec.negative_prompt:
        lines.append(f"Negative prompt: {spec.negative_prompt}")
    lines.append(
        f"Steps: {spec.steps}, Sampler: {spec.sampler}, Schedule type: "
        f"{spec.scheduler}, CFG scale: {spec.cfg_scale:g}, Seed: {spec.seed}, Size: "
        f"{spec.width}x{spec.height}, Denoising strength: {spec.strength:g}, Model: "
        f"{Path(spec.models.diffusion).name}"
    )
    return "\n".join(lines)
