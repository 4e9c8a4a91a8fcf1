"""Options that prepare the image for inference, shown before anything runs."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.jobs.job_form import JobForm
from app.pipeline.job.params import (
    ALIGN,
    COLOR_MATCH,
    COLOR_MATCH_STRENGTH,
    FEATHER,
    FILL,
    MASK_MODE,
    MASKED_TARGET,
    ONLY_MASKED,
    PADDING,
    SEAM_BLEND,
)
from app.ui.kit.action_button import action_button
from app.ui.kit.bind import bind


class PreparePanel(QWidget):
    """Align to 16 px, fill, only-masked region with padding, feather, colour match and seam
    blend; preview, export, apply.

    The options are fields of the job form: a GUI run gets exactly what this panel shows."""

    options_changed = Signal()

    def __init__(
        self, actions: dict[str, QAction], job_form: JobForm, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        box = QGroupBox(self.tr("Prepare for inference"))
        form = QFormLayout(box)
        self.align_combo = QComboBox()
        for value, text in (
            ("pad", self.tr("Pad to 16 px")),
            ("crop", self.tr("Crop to 16 px")),
            ("scale", self.tr("Scale to 16 px")),
        ):
            self.align_combo.addItem(text, value)
        self.align_combo.setToolTip(
            self.tr(
                "The model needs sides that are multiples of 16 px. Padding is undone "
                "exactly when the result is put back."
            )
        )
        self.fill_combo = QComboBox()
        for value, text in (
            ("grey", self.tr("Grey (50 %)")),
            ("blur", self.tr("Blurred")),
            ("none", self.tr("None (keep pixels)")),
            ("telea", self.tr("Inpaint from the edges (Telea)")),
            ("ns", self.tr("Inpaint from the edges (Navier–Stokes)")),
            ("border", self.tr("Extend the border colours")),
        ):
            self.fill_combo.addItem(text, value)
        self.fill_combo.setToolTip(
            self.tr(
                "What the masked area holds before generation; grey hides the old content, "
                "the inpainting and border fills continue the surroundings into it (good for "
                "removing an object). Preview shows it."
            )
        )
        self.only_masked_check = QCheckBox(self.tr("Only the masked area"))
        self.only_masked_check.setToolTip(
            self.tr("Generate just the mask's bounding box plus padding, at full detail")
        )
        self.padding_spin = QSpinBox()
        self.padding_spin.setSuffix(" px")
        self.target_spin = QSpinBox()
        self.target_spin.setSuffix(" px")
        self.target_spin.setSingleStep(64)
        self.target_spin.setSpecialValueText(self.tr("Its own size"))
        self.target_spin.setToolTip(
            self.tr(
                "The masked area is scaled to about this many pixels squared for the model "
                "(1024: about a megapixel, klein's native size) and back for the composite, so "
                "a small edit gets full detail. 0 keeps the area's own size."
            )
        )
        self.feather_spin = QSpinBox()
        self.feather_spin.setSuffix(" px")
        self.feather_spin.setToolTip(
            self.tr("Soft edge used when the result is blended back into the original")
        )
        form.addRow(self.tr("Align"), self.align_combo)
        form.addRow(self.tr("Fill"), self.fill_combo)
        form.addRow(self.only_masked_check)
        form.addRow(self.tr("Padding"), self.padding_spin)
        form.addRow(self.tr("Target size"), self.target_spin)
        # Beside the choice: only masked at a target size can make the model input larger
        # than the photo itself (issue 41: 2.7× without a word).
        self.size_note = QLabel()
        self.size_note.setObjectName("prepare_size_note")
        self.size_note.setWordWrap(True)
        self.size_note.hide()
        form.addRow(self.size_note)
        form.addRow(self.tr("Feather"), self.feather_spin)
        self.mask_mode_combo = QComboBox()
        for value, text in (
            ("soft", self.tr("Soft (follows the feather)")),
            ("hard", self.tr("Hard (whole 16-px cells)")),
        ):
            self.mask_mode_combo.addItem(text, value)
        self.mask_mode_combo.setToolTip(
            self.tr(
                "How the mask limits the change while the picture is generated. Soft: the "
                "feather's half-way pixels change only in the last half of the steps, so the "
                "edge blends gradually. Hard: every masked 16-px cell is repainted fully."
            )
        )
        form.addRow(self.tr("Mask while sampling"), self.mask_mode_combo)
        self.color_match_combo = QComboBox()
        for value, text in (("on", self.tr("On")), ("off", self.tr("Off"))):
            self.color_match_combo.addItem(text, value)
        self.color_match_combo.setToolTip(
            self.tr(
                "Take the model's colour drift out of the generated area, read where nothing "
                "was meant to change (the unmasked pixels the model repainted) and only from "
                "pixels that kept the photo's texture; new content keeps its colour, and "
                "where no pixel witnesses a drift nothing is changed"
            )
        )
        self.color_strength_spin = QDoubleSpinBox()
        self.color_strength_spin.setDecimals(2)
        self.color_strength_spin.setSingleStep(0.1)
        self.color_strength_spin.setToolTip(
            self.tr("How much of the colour correction is applied: 0 none, 1 all")
        )
        self.seam_combo = QComboBox()
        for value, text in (("off", self.tr("Off")), ("poisson", self.tr("Poisson"))):
            self.seam_combo.addItem(text, value)
        self.seam_combo.setToolTip(
            self.tr(
                "Poisson: a smooth correction makes the generated area meet the photo at the "
                "seam while keeping its detail (slower for big masks)"
            )
        )
        form.addRow(self.tr("Colour match"), self.color_match_combo)
        form.addRow(self.tr("Match strength"), self.color_strength_spin)
        form.addRow(self.tr("Seam blend"), self.seam_combo)
        self.summary_label = QLabel()
        self.summary_label.setObjectName("hintLabel")
        self.summary_label.setWordWrap(True)
        form.addRow(self.summary_label)
        buttons = QHBoxLayout()
        buttons.addWidget(action_button(actions["preview_prepared"]))
        buttons.addWidget(action_button(actions["export_prepared"]))
        form.addRow(buttons)
        form.addRow(action_button(actions["apply_result"]))

        # Long choices ("Soft (follows the feather)", "从边缘修复 (Telea)") would set the whole
        # paint dock's minimum width; the combos shrink to a few characters and elide instead.
        for combo in (self.align_combo, self.fill_combo, self.mask_mode_combo,
                      self.color_match_combo, self.seam_combo):  # fmt: skip
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(10)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(box)

        self.form = job_form
        for widget, param in (
            (self.align_combo, ALIGN),
            (self.fill_combo, FILL),
            (self.only_masked_check, ONLY_MASKED),
            (self.padding_spin, PADDING),
            (self.target_spin, MASKED_TARGET),
            (self.feather_spin, FEATHER),
            (self.color_match_combo, COLOR_MATCH),
            (self.color_strength_spin, COLOR_MATCH_STRENGTH),
            (self.seam_combo, SEAM_BLEND),
        ):
            bind(widget, job_form, param)
            job_form.signal(param).connect(self.options_changed)
        bind(self.mask_mode_combo, job_form, MASK_MODE)  # a sampling option: prepares nothing
        for spin in (self.padding_spin, self.target_spin):
            job_form.only_masked_changed.connect(spin.setEnabled)
            spin.setEnabled(job_form.get(ONLY_MASKED))
        job_form.signal(COLOR_MATCH).connect(
            lambda value: self.color_strength_spin.setEnabled(value == "on")
        )
        self.color_strength_spin.setEnabled(job_form.get(COLOR_MATCH) == "on")

    def set_summary(self, text: str) -> None:
        self.summary_label.setText(text)

    def set_size_note(self, text: str) -> None:
        """A word beside Only masked / Target size; "" hides it."""
        self.size_note.setText(text)
        self.size_note.setVisible(bool(text))
