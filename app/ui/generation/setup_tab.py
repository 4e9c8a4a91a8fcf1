"""The Generate panel's Setup tab: the panes in collapsible sections (app/ui/kit/collapsible.py) so
that the tab fits a 1280×720 window. What a user changes every run (the preset and prompt, the
size, steps, seed, strength) is open; the model files, the reference images, the negative
prompt with the LoRA tags and the sampler options, and the devices start closed. A section
whose content has a problem (a model file missing or damaged, a chosen device the engine did
not list, a note about the sampling values) opens itself and marks its header. Each section's
open/closed choice is remembered (`Settings.setup_sections`, saved with the settings file,
atomically)."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QGroupBox, QVBoxLayout, QWidget

from app.jobs.generation import GenerationModel
from app.pipeline.job.params import (
    DIFFUSION_DEVICE,
    DIFFUSION_MODEL,
    LLM_DEVICE,
    LLM_MODEL,
    LORA_DIR,
    VAE_DEVICE,
    VAE_MODEL,
)
from app.pipeline.job.params import PROMPT as PROMPT_PARAM
from app.ui.generation.devices import DevicesPane
from app.ui.generation.edit_preset import EditPane
from app.ui.generation.models import ModelsPane
from app.ui.generation.prompt import PromptPane
from app.ui.generation.references import ReferencesPane
from app.ui.generation.sampling import SamplingPane
from app.ui.kit.collapsible import CollapsibleSection

MODELS, PROMPT, REFERENCES, SAMPLING, OPTIONS, DEVICES = (
    "models",
    "prompt",
    "references",
    "sampling",
    "sampling_options",
    "devices",
)
MODEL_FIELDS = {p.name for p in (DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL, LORA_DIR)}
# Open at the first start: what a user changes every run.
DEFAULT_OPEN = {
    MODELS: False,
    PROMPT: True,
    REFERENCES: False,
    SAMPLING: True,
    OPTIONS: False,
    DEVICES: False,
}


def _tr(text: str) -> str:
    return QCoreApplication.translate("SetupSections", text)


def section_title(key: str) -> str:
    return {
        MODELS: _tr("Model files"),
        PROMPT: _tr("Edit and prompt"),
        REFERENCES: _tr("Reference images"),
        SAMPLING: _tr("Image and sampling"),
        OPTIONS: _tr("Negative prompt, LoRA and sampler"),
        DEVICES: _tr("Devices and memory"),
    }.get(key, key)


def _untitled(*panes: QGroupBox) -> QWidget:
    """The panes without their own group titles (the section's header names them)."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(4)
    for pane in panes:
        pane.setTitle("")
        pane.setProperty("inSection", True)  # the style sheet's tighter frame
        inner = pane.layout()
        if inner is not None:
            inner.setContentsMargins(6, 4, 6, 4)
            inner.setSpacing(4)
        layout.addWidget(pane)
    return box


class SetupTab(QWidget):
    """The Setup tab's content: one CollapsibleSection per part, and what each one's problem is."""

    section_toggled = Signal(str, bool)  # key, open: the user's own click

    def __init__(
        self,
        model: GenerationModel,
        models: ModelsPane,
        edit: EditPane,
        prompt: PromptPane,
        references: ReferencesPane,
        sampling: SamplingPane,
        devices: DevicesPane,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("generation_setup")
        self.model = model
        self.models_pane, self.sampling_pane = models, sampling
        self._devices_known = False
        options = QGroupBox()
        options_layout = QVBoxLayout(options)
        options_layout.addWidget(prompt.extras)
        options_layout.addWidget(sampling.options)
        parts = {
            MODELS: _untitled(models),
            PROMPT: _untitled(edit, prompt),
            REFERENCES: _untitled(references),
            SAMPLING: _untitled(sampling),
            OPTIONS: _untitled(options),
            DEVICES: _untitled(devices),
        }
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(6)
        self.sections: dict[str, CollapsibleSection] = {}
        for key, content in parts.items():
            section = CollapsibleSection(
                section_title(key), content, self, opened=DEFAULT_OPEN[key], name=key
            )
            section.user_toggled.connect(
                lambda opened, key=key: self.section_toggled.emit(key, opened)
            )
            self.sections[key] = section
            layout.addWidget(section)
        layout.addStretch(1)

        for field in self._model_fields():
            field.path_changed.connect(self._check_models)
        model.form.changed.connect(lambda *_: self._check_all())
        model.inputs.changed.connect(self._check_all)
        model.notes_changed.connect(lambda *_: self._check_sampling())
        model.devices_changed.connect(self._devices_found)
        self._check_all()

    # --- remembered state -------------------------------------------------------------------

    def restore(self, saved: Mapping[str, object]) -> None:
        """Opens and closes the sections as saved (a problem keeps its section open)."""
        for key, section in self.sections.items():
            value = saved.get(key)
            if isinstance(value, bool):
                section.set_open(value or bool(section.problem))

    # --- problems ---------------------------------------------------------------------------

    def reveal(self, names: list[str]) -> None:
        """A start was refused for these fields (Param.name): their sections open, the model
        files checked again (one may have gone since it was chosen)."""
        if any(name in MODEL_FIELDS for name in names):
            for field in self._model_fields():
                field.set_path(field.path())
            self._check_models()
            self.sections[MODELS].set_open(True)
        if PROMPT_PARAM.name in names:
            self.sections[PROMPT].set_open(True)

    def _model_fields(self) -> tuple:
        pane = self.models_pane
        return (pane.diffusion_field, pane.llm_field, pane.vae_field, pane.lora_field)

    def _check_all(self) -> None:
        self._check_models()
        self._check_sampling()
        self._check_devices()
        self.sections[REFERENCES].set_summary(
            str(len(self.model.inputs.refs)) if self.model.inputs.refs else ""
        )

    def _check_models(self, *_: object) -> None:
        bad = [f.check.message for f in self._model_fields() if not f.is_valid()]
        self.sections[MODELS].set_problem(bad[0] if bad else "")

    def _check_sampling(self) -> None:
        label = self.sampling_pane.warning_label
        self.sections[SAMPLING].set_problem("" if label.isHidden() else label.text())

    def _devices_found(self, *_: object) -> None:
        self._devices_known = True
        self._check_devices()

    def _check_devices(self) -> None:
        if not self._devices_known:  # nothing to compare with before the engine answered
            return
        listed = {d.name for d in self.model.devices}
        chosen = [str(self.model.form.get(p)) for p in (LLM_DEVICE, DIFFUSION_DEVICE, VAE_DEVICE)]
        missing = [name for name in chosen if name not in listed]
        self.sections[DEVICES].set_problem(
            _tr("The engine did not find the chosen device {name}; choose another.").format(
                name=missing[0]
            )
            if missing
            else ""
        )
