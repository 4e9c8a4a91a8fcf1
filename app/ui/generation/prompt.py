"""The Prompt pane: prompt, negative prompt, and the LoRA tags of the chosen folder."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.jobs.job_form import JobForm
from app.pipeline.job.params import LORA_DIR, NEGATIVE_PROMPT, PROMPT
from app.ui.generation.model_files import list_loras
from app.ui.kit.bind import bind


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationPanel", text)


class PromptPane(QGroupBox):
    def __init__(self, form: JobForm, parent: QWidget | None = None) -> None:
        super().__init__(_tr("Prompt"), parent)
        self.form = form
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
        # The LoRA tags and the negative prompt, in a part of their own (the Setup tab shows
        # them with the other options changed less often).
        self.extras = QWidget(self)
        self.extras.setObjectName("generation_prompt_extras")
        extras = QVBoxLayout(self.extras)
        extras.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        row.addWidget(self.lora_combo, 1)
        row.addWidget(self.lora_insert)
        extras.addLayout(row)
        extras.addWidget(self.negative_edit)
        layout = QVBoxLayout(self)
        layout.addWidget(self.prompt_edit)
        layout.addWidget(self.extras)
        bind(self.prompt_edit, form, PROMPT)
        bind(self.negative_edit, form, NEGATIVE_PROMPT)
        form.signal(LORA_DIR).connect(self._refresh_loras)
        self.lora_insert.clicked.connect(self.insert_lora)
        self._refresh_loras()

    def _refresh_loras(self) -> None:
        folder = self.form.get(LORA_DIR)
        names = list_loras(folder)
        self.lora_combo.clear()
        if names:
            self.lora_combo.addItems(names)
        elif folder:
            self.lora_combo.addItem(_tr("(no LoRAs in the folder)"))
        else:
            self.lora_combo.addItem(_tr("(choose a LoRA folder to list its LoRAs)"))
        self.lora_combo.setEnabled(bool(names))
        self.lora_insert.setEnabled(bool(names))

    def insert_lora(self) -> None:
        name = self.lora_combo.currentText()
        if not name or not self.lora_combo.isEnabled():
            return
        text = self.form.get(PROMPT)
        sep = "" if not text or text.endswith(" ") else " "
        self.form.set(PROMPT, f"{text}{sep}<lora:{name}:1.0>")
