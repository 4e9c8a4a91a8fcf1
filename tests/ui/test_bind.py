"""bind(): a widget and a job-form field stay equal both ways; two widgets bound to one field
(the Prepare panel and the Generate setup) show the same value."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QPlainTextEdit, QSpinBox

from app.jobs.job_form import JobForm
from app.pipeline.job.params import ALIGN, ONLY_MASKED, PADDING, PROMPT, STEPS
from app.ui.kit.bind import bind


def test_widget_to_form_and_back(qtbot) -> None:
    form = JobForm()
    spin = QSpinBox()
    qtbot.addWidget(spin)
    bind(spin, form, STEPS)
    assert spin.value() == 4 and spin.minimum() == 1
    spin.setValue(9)
    assert form.get(STEPS) == 9
    form.set(STEPS, 3)
    assert spin.value() == 3


def test_two_widgets_on_one_field_agree(qtbot) -> None:
    form = JobForm()
    a, b = QCheckBox(), QCheckBox()
    combo_a, combo_b = QComboBox(), QComboBox()
    for combo in (combo_a, combo_b):
        for value in ("pad", "crop", "scale"):
            combo.addItem(value.title(), value)
        qtbot.addWidget(combo)
    for box in (a, b):
        qtbot.addWidget(box)
        bind(box, form, ONLY_MASKED)
    bind(combo_a, form, ALIGN)
    bind(combo_b, form, ALIGN)
    a.setChecked(True)
    assert b.isChecked() and form.get(ONLY_MASKED) is True
    combo_b.setCurrentIndex(combo_b.findData("crop"))
    assert combo_a.currentData() == "crop" and form.get(ALIGN) == "crop"


def test_text_widgets_and_a_refused_value(qtbot) -> None:
    form = JobForm()
    edit, line, pad = QPlainTextEdit(), QLineEdit(), QSpinBox()
    for w in (edit, line, pad):
        qtbot.addWidget(w)
    bind(edit, form, PROMPT)
    edit.setPlainText("a red door")
    assert form.get(PROMPT) == "a red door"
    form.set(PROMPT, "a blue door")
    assert edit.toPlainText() == "a blue door"
    pad.setRange(-10, 5000)
    bind(pad, form, PADDING)
    assert (pad.minimum(), pad.maximum()) == (PADDING.minimum, PADDING.maximum)  # the table
