"""The Models pane: the three model files and the LoRA folder, bound to the job form, and the
"Try with demo models" offer while none is chosen."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QPushButton, QWidget

from app.jobs.job_form import JobForm
from app.pipeline.job.params import DIFFUSION_MODEL, LLM_MODEL, LORA_DIR, VAE_MODEL
from app.ui.generation.model_files import ModelFileField
from app.ui.kit.bind import bind


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationPanel", text)


class ModelsPane(QGroupBox):
    demo_requested = Signal()

    def __init__(self, form: JobForm, parent: QWidget | None = None) -> None:
        super().__init__(_tr("Models"), parent)
        self.form = form
        self.diffusion_field = ModelFileField("diffusion", self)
        self.llm_field = ModelFileField("llm", self)
        self.vae_field = ModelFileField("vae", self)
        self.lora_field = ModelFileField("lora", self)
        layout = QFormLayout(self)
        for title, field, param in (
            (_tr("Diffusion model"), self.diffusion_field, DIFFUSION_MODEL),
            (_tr("Text encoder (LLM)"), self.llm_field, LLM_MODEL),
            (_tr("VAE"), self.vae_field, VAE_MODEL),
            (_tr("LoRA folder"), self.lora_field, LORA_DIR),
        ):
            bind(field, form, param)
            layout.addRow(title, field)
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
        layout.addRow(self.demo_button)
        layout.addRow(self.demo_note)
        self.demo_button.clicked.connect(self.demo_requested)
        for p in (DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL):
            form.signal(p).connect(self._update_demo_button)
        self._update_demo_button()

    def _update_demo_button(self) -> None:
        chosen = any(self.form.get(p) for p in (DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL))
        self.demo_button.setVisible(not chosen)

    def show_demo_note(self, text: str, *, error: bool = False, warning: bool = False) -> None:
        self.demo_note.setText(text)
        color = "#c62828" if error else ("#b26a00" if warning else "")
        self.demo_note.setStyleSheet(f"color: {color};" if color else "")
        self.demo_note.show()
