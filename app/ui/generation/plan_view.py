"""The memory plan beside the size (in the Devices pane): per stage what it needs of its device
and the settings fitted to it, the largest size that fits without slow settings, and the
"only masked" suggestion when the picture is larger. Texts in Qt context "MemoryPlan"."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QCheckBox, QFormLayout, QLabel, QSpinBox, QVBoxLayout, QWidget

from app.jobs.generation import GenerationModel
from app.jobs.memory_plan import NO_ENGINE, NO_MODELS, MemoryPlan
from app.pipeline.job.params import FIT_MEMORY, MAX_ALLOC_MB
from app.pipeline.plans import CPU, Fit, JobPlan, StageSettings
from app.ui.kit.bind import bind

GB = 1024**3  # as sd.cpp counts (its "MB" are MiB)


def _tr(text: str) -> str:
    return QCoreApplication.translate("MemoryPlan", text)


def stage_title(stage: str) -> str:
    return {
        "vae-encode": _tr("VAE encode"),
        "llm-encode": _tr("text encoder"),
        "diffuse": _tr("diffuse"),
        "vae-decode": _tr("VAE decode"),
    }.get(stage, stage)


def gb(value: int | None) -> str:
    return _tr("? GB") if value is None else _tr("{n} GB").format(n=f"{value / GB:.1f}")


def device_title(device: str) -> str:
    return _tr("the CPU") if device == CPU else device


def plan_line(f: Fit, width: int, height: int) -> str:
    """ "diffuse at 512×768 on vulkan0: 5.0 GB weights + 1.2 GB compute of 8.0 GB; largest
    allocation 1.1 GB of 2.0 GB" """
    v = f.verdict
    if v is None:
        return _tr("{stage}: no plan").format(stage=stage_title(f.stage))
    head = (
        _tr("{stage} on {device}: {weights} weights + {compute} compute of {available}")
        if f.stage == "llm-encode"  # the prompt's size, not the picture's
        else _tr(
            "{stage} at {w}×{h} on {device}: {weights} weights + {compute} compute of {available}"
        )
    )
    text = head.format(
        stage=stage_title(f.stage),
        w=width,
        h=height,
        device=device_title(v.device),
        weights=gb(v.weights_bytes),
        compute=gb(v.compute_bytes),
        available=gb(v.available_bytes),
    )
    if v.cap_bytes is not None:
        text += _tr("; largest allocation {largest} of {cap}").format(
            largest=gb(v.largest_bytes), cap=gb(v.cap_bytes)
        )
    else:
        text += _tr("; largest allocation {largest}").format(largest=gb(v.largest_bytes))
    if not v.fits:
        text += " — " + (
            _tr("too much for the device")
            if v.reason == "total"
            else _tr("an allocation above the cap")
        )
    return text


def settings_text(user: StageSettings, s: StageSettings) -> str:
    """The fitted settings, as what fitting changed from the job's."""
    parts = []
    if s.device != user.device:
        parts.append(_tr("on the CPU") if s.device == CPU else s.device)
    if s.flash_attention and not user.flash_attention:
        parts.append(_tr("flash attention on"))
    if s.vae_tiling and (not user.vae_tiling or s.vae_tile_size != user.vae_tile_size):
        parts.append(_tr("VAE tiled, {n}-cell tiles").format(n=s.vae_tile_size))
    if s.weights_on_cpu and not user.weights_on_cpu:
        parts.append(_tr("weights partly in RAM (slow)"))
    return ", ".join(parts)


def fitted_line(f: Fit) -> str:
    job = {**f.settings.to_json(), **{c.what: c.old for c in f.changes}}  # before fitting
    user = StageSettings.from_json(job)
    changed = settings_text(user, f.settings)
    if not changed:
        if not f.fits:
            return _tr("{stage}: does not fit, and no other setting is left").format(
                stage=stage_title(f.stage)
            )
        return _tr("{stage}: fits as chosen").format(stage=stage_title(f.stage))
    if not f.fits:
        return _tr("{stage}: nothing fits; will try {settings}").format(
            stage=stage_title(f.stage), settings=changed
        )
    return _tr("{stage}: fitted — {settings}").format(stage=stage_title(f.stage), settings=changed)


def reference_line(plan: JobPlan) -> str:
    """What the reference images cost diffuse: their tokens beside the picture's (their memory
    is in diffuse's compute, which the plan made with them)."""
    text = (
        _tr("Reference images: {n} (the photo first), {ref} tokens beside the picture's {tokens}")
        if plan.source_ref
        else _tr("Reference images: {n}, {ref} tokens beside the picture's {tokens}")
    )
    return text.format(n=plan.references, ref=plan.reference_tokens, tokens=plan.picture_tokens)


def summary(plan: JobPlan) -> list[str]:
    """The lines the view shows for a plan."""
    lines = [plan_line(f, plan.width, plan.height) for f in plan.fits.values()]
    if plan.references:
        lines.append(reference_line(plan))
    lines += [fitted_line(f) for f in plan.fits.values()]
    if plan.largest == (0, 0):
        lines.append(_tr("Not even the smallest size fits this device without slow settings."))
    elif plan.largest is not None:
        w, h = plan.largest
        lines.append(
            _tr("Largest size without slow settings at this aspect ratio: {w}×{h}").format(w=w, h=h)
        )
        if plan.too_large:
            lines.append(
                _tr(
                    "The picture is larger than that: turn on “Only masked” to generate just the "
                    "masked area at a size that fits."
                )
            )
    return lines


class PlanView(QWidget):
    """Shows the MemoryPlan's newest plan (or why there is none)."""

    def __init__(self, memory_plan: MemoryPlan, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory_plan = memory_plan
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel(_tr("Memory plan: appears once the models are chosen."), self)
        self.label.setObjectName("generation_memory_plan")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.label)
        memory_plan.planning.connect(self._planning)
        memory_plan.planned.connect(self.show_plan)
        memory_plan.failed.connect(self._failed)

    def _planning(self) -> None:
        self.label.setText(_tr("Planning memory…"))

    def show_plan(self, plan: JobPlan) -> None:
        self.label.setText("\n".join(summary(plan)))

    def _failed(self, message: str) -> None:
        reason = {
            NO_ENGINE: _tr("the engine is not set up to plan."),
            NO_MODELS: _tr("choose the three model files first."),
        }.get(message, message)
        self.label.setText(_tr("No memory plan: {message}").format(message=reason))


class MemorySettings(QWidget):
    """Fit to memory (fit_memory), the allocation cap (max_alloc_mb) and the plan."""

    def __init__(
        self, model: GenerationModel, memory_plan: MemoryPlan, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        layout = QFormLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.fit_memory = QCheckBox(_tr("Fit settings to the device's memory"), self)
        self.fit_memory.setObjectName("generation_fit_memory")
        self.fit_memory.setToolTip(
            _tr(
                "Plan each stage first and turn on memory savers (flash attention, VAE tiling, "
                "the CPU) where needed; every change is recorded in the run. Off: your "
                "settings run as they are (an out-of-memory is still retried)."
            )
        )
        self.max_alloc = QSpinBox(self)
        self.max_alloc.setObjectName("generation_max_alloc_mb")
        self.max_alloc.setSpecialValueText(_tr("as the driver reports"))
        self.max_alloc.setSuffix(_tr(" MB"))
        self.max_alloc.setToolTip(
            _tr("Lower it for drivers that refuse smaller allocations than they claim.")
        )
        self.plan_view = PlanView(memory_plan, self)
        layout.addRow(self.fit_memory)
        layout.addRow(_tr("Largest GPU allocation"), self.max_alloc)
        layout.addRow(self.plan_view)
        bind(self.fit_memory, model.form, FIT_MEMORY)
        bind(self.max_alloc, model.form, MAX_ALLOC_MB)
