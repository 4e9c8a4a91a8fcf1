"""The Edit pane: the edit preset (add, remove, replace the background, free) and whether the
photo is klein's first reference image. Choosing a preset writes its values into the job form
once (app/pipeline/job/presets.py owns them); every value stays editable afterwards, here, in the
Prompt, Sampling and Prepare panes, which bind to the same fields."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QPlainTextEdit,
    QWidget,
)

from app.jobs.job_form import JobForm
from app.pipeline.job.params import BY_NAME, FILL, SOURCE_REF, STRENGTH
from app.pipeline.job.presets import PRESETS, preset, slot
from app.ui.kit.bind import bind

FREE = "free"
PRESET_FIELDS = (FILL.name, STRENGTH.name)  # set by every preset; the user changing one ends it


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationPanel", text)


def preset_title(name: str) -> str:
    return {
        "add": _tr("Add an object"),
        "remove": _tr("Remove an object"),
        "background": _tr("Replace the background"),
        "free": _tr("Free (your own settings)"),
    }.get(name, name)


def preset_tip(name: str) -> str:
    return {
        "add": _tr("Grey fill, strength 1, the photo as a reference; describe the object."),
        "remove": _tr(
            "Fill from the surroundings, strength 1, the photo as a reference; "
            "a prompt for an empty continuation."
        ),
        "background": _tr(
            "Grey fill, strength 1, the photo as a reference; describe the new background "
            "(mask the background, not the subject)."
        ),
        "free": _tr("The default fill and strength, no photo reference; your prompt stays."),
    }.get(name, name)


class EditPane(QGroupBox):
    """The preset combo and the photo-as-reference switch, over the job form."""

    def __init__(
        self,
        form: JobForm,
        parent: QWidget | None = None,
        prompt_edit: QPlainTextEdit | None = None,
    ) -> None:
        super().__init__(_tr("Edit"), parent)
        self.form = form
        self.prompt_edit = prompt_edit
        self.preset_combo = QComboBox(self)
        self.preset_combo.setObjectName("generation_preset")
        for p in PRESETS:
            self.preset_combo.addItem(preset_title(p.name), p.name)
            self.preset_combo.setItemData(
                self.preset_combo.count() - 1, preset_tip(p.name), Qt.ItemDataRole.ToolTipRole
            )
        self.preset_combo.setCurrentIndex(self.preset_combo.findData("free"))
        self.preset_combo.setToolTip(
            _tr("Sets the fill, the strength, the photo reference and a prompt to start from.")
        )
        self.source_ref_check = QCheckBox(_tr("Show klein the photo as its first reference"), self)
        self.source_ref_check.setObjectName("generation_source_ref")
        self.source_ref_check.setToolTip(
            _tr(
                "klein sees the picture it repaints (before the fill) as a reference image, so "
                "what it paints matches the photo. Each step then attends to twice the picture's "
                "tokens: slower and more memory (see the memory plan)."
            )
        )
        layout = QFormLayout(self)
        layout.addRow(_tr("Preset"), self.preset_combo)
        layout.addRow(self.source_ref_check)
        bind(self.source_ref_check, form, SOURCE_REF)
        self.preset_combo.activated.connect(lambda _i: self.apply(self.preset_combo.currentData()))
        # The tick a preset set (not the user) ends with the preset: when a value the preset
        # set is changed elsewhere, or another photo is taken up (leave_preset).
        self._applying = False
        self._tick_is_the_presets = False
        form.signal(SOURCE_REF).connect(self._source_ref_changed)
        for name in PRESET_FIELDS:
            form.signal(BY_NAME[name]).connect(self._preset_value_changed)

    def _source_ref_changed(self, _value: object) -> None:
        if not self._applying:
            self._tick_is_the_presets = False  # the user's own choice now

    def _preset_value_changed(self, _value: object) -> None:
        if not self._applying and self.preset_combo.currentData() != FREE:
            self.leave_preset()

    def leave_preset(self) -> None:
        """The preset no longer describes the job (another photo, or a value it set changed):
        the combo says Free, and a photo-reference tick only the preset set is taken off."""
        self.preset_combo.setCurrentIndex(self.preset_combo.findData(FREE))
        if self._tick_is_the_presets:
            self._tick_is_the_presets = False
            self._applying = True
            try:
                self.form.set(SOURCE_REF, False)
            finally:
                self._applying = False

    def apply(self, name: str) -> None:
        """Writes the preset's values into the form; a template's [slot] is selected in the
        prompt, ready to be typed over."""
        index = self.preset_combo.findData(name)
        if index >= 0 and index != self.preset_combo.currentIndex():
            self.preset_combo.setCurrentIndex(index)
        was_ticked = bool(self.form.get(SOURCE_REF))
        self._applying = True
        try:
            for field, value in preset(name).values().items():
                self.form.set(BY_NAME[field], value)
        finally:
            self._applying = False
        # A tick that was on before the preset is the user's; one the preset put on is its.
        self._tick_is_the_presets = preset(name).source_ref and not was_ticked
        template = preset(name).prompt
        span = slot(template) if template else None
        if self.prompt_edit is not None and span is not None:
            cursor = self.prompt_edit.textCursor()
            cursor.setPosition(span[0])
            cursor.setPosition(span[1], QTextCursor.MoveMode.KeepAnchor)
            self.prompt_edit.setTextCursor(cursor)
            self.prompt_edit.setFocus()
