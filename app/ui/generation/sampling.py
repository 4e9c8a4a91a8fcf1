"""The Image and sampling pane: size, steps, seed, strength, sampler, scheduler, CFG, preview,
and the engine's advice about them (notes from the generation model, words from ui/texts)."""

from __future__ import annotations

import random

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import (
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QStyle,
    QToolButton,
    QWidget,
)

from app.jobs.generation import GenerationModel
from app.pipeline.api import EngineCatalog, RunSnapshot
from app.pipeline.failures import Note, NoteCode
from app.pipeline.job.params import (
    ALIGN_PX,
    CFG_SCALE,
    ETA,
    HEIGHT,
    MAX_SEED,
    PREVIEW,
    SAMPLER,
    SCHEDULER,
    SEED,
    STEPS,
    STRENGTH,
    WIDTH,
)
from app.ui.kit.bind import bind
from app.ui.words.texts import note_text


def with_empty_mask(notes: list[Note], mask_empty: bool) -> list[Note]:
    """The notes with "nothing to repaint" first when the painter's mask is empty (instead of
    "strength 1 without a mask replaces the whole image"); as they are otherwise."""
    if not mask_empty:
        return notes
    rest = [n for n in notes if n.code not in (NoteCode.EMPTY_MASK, NoteCode.STRENGTH_NO_MASK)]
    return [Note(NoteCode.EMPTY_MASK), *rest]


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationPanel", text)


def preview_title(mode: str) -> str:
    return {
        "proj": _tr("Fast (latent projection)"),
        "vae": _tr("Accurate (VAE, slower)"),
        "none": _tr("Off"),
    }.get(mode, mode)


class SamplingPane(QGroupBox):
    def __init__(self, model: GenerationModel, parent: QWidget | None = None) -> None:
        super().__init__(_tr("Image and sampling"), parent)
        self.model = model
        form = model.form
        self.width_spin = self._size_spin("generation_width")
        self.height_spin = self._size_spin("generation_height")
        size_row = QHBoxLayout()
        size_row.setContentsMargins(0, 0, 0, 0)
        size_row.addWidget(self.width_spin)
        size_row.addWidget(QLabel("×", self))
        size_row.addWidget(self.height_spin)
        size_row.addStretch(1)
        self.size_widget = QWidget(self)
        self.size_widget.setLayout(size_row)
        self.size_label = QLabel(self)
        self.size_label.setObjectName("generation_size_label")
        self.size_label.setWordWrap(True)
        self.steps_spin = QSpinBox(self)
        self.steps_spin.setObjectName("generation_steps")
        self.seed_spin = QSpinBox(self)
        self.seed_spin.setObjectName("generation_seed")
        self.seed_spin.setRange(0, MAX_SEED)
        self.dice = QToolButton(self)
        self.dice.setObjectName("generation_dice")
        self.dice.setIcon(self.style().standardIcon(QStyle.StandardPixmap.SP_BrowserReload))
        self.dice.setToolTip(_tr("New random seed now"))
        seed_row = QHBoxLayout()
        seed_row.setContentsMargins(0, 0, 0, 0)
        seed_row.addWidget(self.seed_spin, 1)
        seed_row.addWidget(self.dice)
        self.strength_spin = QDoubleSpinBox(self)
        self.strength_spin.setObjectName("generation_strength")
        self.strength_spin.setDecimals(2)
        self.strength_spin.setSingleStep(0.05)
        self.sampler_combo = QComboBox(self)
        self.sampler_combo.setObjectName("generation_sampler")
        self.scheduler_combo = QComboBox(self)
        self.scheduler_combo.setObjectName("generation_scheduler")
        self.cfg_spin = QDoubleSpinBox(self)
        self.cfg_spin.setObjectName("generation_cfg")
        self.cfg_spin.setDecimals(1)
        self.cfg_spin.setSingleStep(0.5)
        self.eta_spin = QDoubleSpinBox(self)
        self.eta_spin.setObjectName("generation_eta")
        self.eta_spin.setDecimals(2)
        self.eta_spin.setSingleStep(0.05)
        self.eta_spin.setSpecialValueText(_tr("Sampler's own"))  # at the minimum, -1
        self.eta_spin.setToolTip(
            _tr(
                "Noise added back per step by ancestral and SDE samplers (euler_a, dpm++2s_a, "
                "er_sde, ddim_trailing, tcd, res_*): 0 none, 1 full. Other samplers ignore it."
            )
        )
        self.preview_combo = QComboBox(self)
        self.preview_combo.setObjectName("generation_preview_mode")
        for mode in PREVIEW.choices or ():
            self.preview_combo.addItem(preview_title(mode), mode)
        self.warning_label = QLabel(self)
        self.warning_label.setObjectName("generation_klein_warning")
        self.warning_label.setWordWrap(True)
        self.warning_label.setStyleSheet("color: #b26a00;")
        self.warning_label.hide()

        layout = QFormLayout(self)
        layout.addRow(_tr("Size"), self.size_widget)
        layout.addRow("", self.size_label)
        layout.addRow(_tr("Steps"), self.steps_spin)
        layout.addRow(_tr("Seed"), seed_row)
        layout.addRow(_tr("Strength"), self.strength_spin)
        layout.addRow(self.warning_label)
        # What is changed less often, in a part of its own (the Setup tab gives it a section).
        self.options = QWidget(self)
        self.options.setObjectName("generation_sampling_options")
        options = QFormLayout(self.options)
        options.setContentsMargins(0, 0, 0, 0)
        options.addRow(_tr("Sampler"), self.sampler_combo)
        options.addRow(_tr("Scheduler"), self.scheduler_combo)
        options.addRow(_tr("CFG scale"), self.cfg_spin)
        options.addRow(_tr("Eta (noise)"), self.eta_spin)
        options.addRow(_tr("Preview"), self.preview_combo)
        layout.addRow(self.options)

        for widget, param in (
            (self.width_spin, WIDTH),
            (self.height_spin, HEIGHT),
            (self.steps_spin, STEPS),
            (self.seed_spin, SEED),
            (self.strength_spin, STRENGTH),
            (self.sampler_combo, SAMPLER),
            (self.scheduler_combo, SCHEDULER),
            (self.cfg_spin, CFG_SCALE),
            (self.eta_spin, ETA),
            (self.preview_combo, PREVIEW),
        ):
            bind(widget, form, param)
        self.dice.clicked.connect(lambda: form.set(SEED, random.randint(0, MAX_SEED)))
        self.width_spin.editingFinished.connect(lambda: self._align(self.width_spin))
        self.height_spin.editingFinished.connect(lambda: self._align(self.height_spin))
        model.catalog_changed.connect(self.set_catalog)
        model.notes_changed.connect(self.show_notes)
        self._notes: list[Note] = []
        model.inputs.changed.connect(self._update_size_row)
        model.inputs.changed.connect(lambda: self.show_notes(self._notes))
        form.changed.connect(lambda *_: self._update_size_row())
        model.model_input.changed.connect(lambda _size: self._update_size_row())
        model.run_changed.connect(self._show_model_input)
        if model.catalog is not None:
            self.set_catalog(model.catalog)
        self.show_notes(model.notes)
        self._update_size_row()

    def _size_spin(self, name: str) -> QSpinBox:
        spin = QSpinBox(self)
        spin.setObjectName(name)
        spin.setSingleStep(ALIGN_PX)
        spin.setSuffix(" px")
        return spin

    def _align(self, spin: QSpinBox) -> None:
        value = spin.value()
        aligned = max(spin.minimum(), round(value / ALIGN_PX) * ALIGN_PX)
        if aligned != value:
            spin.setValue(aligned)

    def set_catalog(self, catalog: EngineCatalog) -> None:
        """The samplers and schedulers the engine offers (the form's value stays chosen)."""
        for combo, names, param in (
            (self.sampler_combo, [s.name for s in catalog.samplers], SAMPLER),
            (self.scheduler_combo, list(catalog.schedulers), SCHEDULER),
        ):
            combo.blockSignals(True)
            combo.clear()
            for name in names:
                combo.addItem(name, name)
            current = self.model.form.get(param)
            if combo.findData(current) < 0:
                combo.addItem(current, current)
            combo.setCurrentIndex(combo.findData(current))
            combo.blockSignals(False)

    def show_notes(self, notes: list[Note]) -> None:
        self._notes = list(notes)
        shown = with_empty_mask(self._notes, self._mask_empty())
        self.warning_label.setText("\n".join("⚠ " + note_text(n) for n in shown))
        self.warning_label.setVisible(bool(shown))

    def _mask_empty(self) -> bool:
        """A picture is open and its mask repaints nothing (the painter writes no mask file
        then, so the job alone cannot tell an empty mask from "no mask"); an outpaint's new
        area is masked by itself, so its mask is never "empty" here."""
        return self.model.repaints_everything()

    def _update_size_row(self) -> None:
        size = self.model.inputs.size
        has_image = size is not None
        self.size_widget.setEnabled(not has_image)
        self.strength_spin.setEnabled(has_image)
        if size is None:
            self.size_label.setText(_tr("Text to image: choose the size (multiples of 16)."))
            return
        w, h = size
        planned = self.planned_model_input()
        if planned is None or tuple(planned) == (w, h):
            self.size_label.setText(_tr("From the image: {w}×{h}.").format(w=w, h=h))
            return
        self.size_label.setText(
            _tr("From the image: {w}×{h}; the model gets {mw}×{mh}.").format(
                w=w, h=h, mw=planned[0], mh=planned[1]
            )
        )

    def planned_model_input(self) -> tuple[int, int] | None:
        """The size the model will get for the picture and mask as they are now (the model's
        one owner of it: jobs/model_input.py)."""
        size = self.model.model_input.size
        return None if size is None else (size.width, size.height)

    def _show_model_input(self, run: RunSnapshot | None) -> None:
        if run is None or run.model_input is None or run.spec.image is None:
            return
        mi = run.model_input
        # What the engine really gets (aligned, maybe cropped to the mask's region).
        self.size_label.setText(_tr("Prepared image: {w}×{h}.").format(w=mi.width, h=mi.height))
