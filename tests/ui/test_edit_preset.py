"""The Edit pane: choosing a preset writes its values into the job form once (every value stays
editable), a template's [slot] is selected in the prompt, the photo-as-reference check is bound
to source_ref, and the Devices pane's plan of a picture counts the photo as a reference."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication

from app.core.paths import app_paths
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.memory_plan import MemoryPlan, plan_spec
from app.jobs.run_session import RunSession
from app.pipeline.api import DeviceInfo
from app.pipeline.execute.job_plan import plan_job
from app.pipeline.job.params import (
    DIFFUSION_DEVICE,
    DIFFUSION_MODEL,
    FILL,
    HEIGHT,
    LLM_MODEL,
    PROMPT,
    SOURCE_REF,
    STRENGTH,
    VAE_DEVICE,
    VAE_MODEL,
    WIDTH,
)
from app.pipeline.job.presets import preset
from app.pipeline.job.spec import JobSpec
from app.pipeline.plans import JobPlan
from app.ui.generation.devices import DevicesPane
from app.ui.generation.edit_preset import EditPane
from app.ui.generation.prompt import PromptPane
from tests.ui.test_plan_pane import CARD, CPU, SHOTS, scaled_planner


class SpecRecorder:
    """The planner: plan_job over the klein-9B figures, remembering the specs it was given."""

    def __init__(self) -> None:
        self.specs: list[JobSpec] = []
        self.lock = threading.Lock()

    def __call__(
        self, spec: JobSpec, width: int, height: int, infos: Mapping[str, DeviceInfo]
    ) -> JobPlan:
        with self.lock:
            self.specs.append(spec)
        return plan_job(spec, width, height, scaled_planner, infos)


@pytest.fixture
def model(tmp_path: Path) -> GenerationModel:
    form = JobForm()
    for p in (DIFFUSION_MODEL, LLM_MODEL, VAE_MODEL):
        form.set(p, str(tmp_path / f"{p.name}.gguf"))
    form.set(DIFFUSION_DEVICE, "vulkan0")
    form.set(VAE_DEVICE, "vulkan0")
    form.set(WIDTH, 1024)
    form.set(HEIGHT, 1024)
    m = GenerationModel(form, RunSession(app_paths(), engine=tmp_path / "no-sd-stage"))
    m.devices = [CPU, CARD]
    yield m
    m.shutdown()


def panes(qtbot, form: JobForm) -> tuple[EditPane, PromptPane]:
    prompt = PromptPane(form)
    edit = EditPane(form, prompt_edit=prompt.prompt_edit)
    qtbot.addWidget(prompt)
    qtbot.addWidget(edit)
    return edit, prompt


def choose(edit: EditPane, name: str) -> None:
    """What a click in the combo does: the item becomes current and `activated` fires."""
    index = edit.preset_combo.findData(name)
    edit.preset_combo.setCurrentIndex(index)
    edit.preset_combo.activated.emit(index)


def test_a_preset_sets_the_form_and_every_value_stays_editable(qtbot) -> None:
    form = JobForm()
    edit, prompt = panes(qtbot, form)
    form.set(STRENGTH, 0.4)
    assert edit.preset_combo.currentData() == "free" and not edit.source_ref_check.isChecked()
    choose(edit, "remove")
    assert form.get(FILL) == preset("remove").fill()
    # No photo reference for "remove": klein leaks the old subject from it (presets.py).
    assert form.get(STRENGTH) == 1.0 and form.get(SOURCE_REF) is False
    assert form.get(PROMPT) == "empty background, seamless continuation of the surroundings"
    assert prompt.prompt_edit.toPlainText() == form.get(PROMPT)
    assert not edit.source_ref_check.isChecked()  # the check shows the form's value
    # Editing after choosing: the values are the user's, the preset does not come back.
    edit.source_ref_check.click()
    form.set(STRENGTH, 0.7)
    prompt.prompt_edit.setPlainText("a plain wall")
    assert (form.get(SOURCE_REF), form.get(STRENGTH)) == (True, 0.7)
    assert form.get(PROMPT) == "a plain wall"
    # Free: the table's defaults for the three, the prompt left alone.
    choose(edit, "free")
    assert (form.get(FILL), form.get(STRENGTH), form.get(SOURCE_REF)) == ("grey", 1.0, False)
    assert form.get(PROMPT) == "a plain wall"


def test_the_templates_slot_is_selected_to_be_typed_over(qtbot) -> None:
    form = JobForm()
    edit, prompt = panes(qtbot, form)
    choose(edit, "add")
    assert prompt.prompt_edit.textCursor().selectedText() == "[describe the object]"
    prompt.prompt_edit.insertPlainText("red bicycle")  # typing replaces the selection
    assert form.get(PROMPT).startswith("a red bicycle, in the same light")


def test_the_plan_counts_the_photo_as_a_reference(qtbot, model) -> None:
    recorder = SpecRecorder()
    memory_plan = MemoryPlan(model, recorder)
    pane = DevicesPane(model, memory_plan=memory_plan)
    memory_plan.setParent(pane)
    qtbot.addWidget(pane)
    pane.set_devices(model.devices)
    picture = np.zeros((1024, 1024, 3), np.uint8)
    mask = np.zeros((1024, 1024), np.uint8)
    mask[200:400, 200:400] = 255
    model.inputs.set_source(lambda: (picture, mask))
    with qtbot.waitSignal(memory_plan.planned, timeout=10_000) as first:
        memory_plan.refresh()
    assert first.args[0].references == 0
    assert "Reference images" not in pane.plan_view.label.text()
    with qtbot.waitSignal(memory_plan.planned, timeout=10_000) as planned:
        model.form.set(SOURCE_REF, True)  # watched: plans again by itself
    plan = planned.args[0]
    assert recorder.specs[-1].uses_source_ref and recorder.specs[-1].reference_count == 1
    assert "vae-encode" in plan.fits  # the picture is planned as img2img now
    assert (plan.references, plan.reference_tokens) == (1, 4096)
    assert (
        "Reference images: 1 (the photo first), 4096 tokens beside the picture's 4096"
        in pane.plan_view.label.text()
    )
    # Without a picture the option cannot act: the plan has no reference.
    model.inputs.set_source(lambda: (None, None))
    assert not plan_spec(model).uses_source_ref and plan_spec(model).reference_count == 0
    memory_plan.wait()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_screenshot_of_the_edit_pane(qtbot, model, language: str) -> None:
    from PySide6.QtWidgets import QMainWindow, QScrollArea, QVBoxLayout, QWidget

    from app.ui.words.i18n import TsTranslator

    translator = TsTranslator("zh_CN") if language == "zh_CN" else None
    if translator is not None:
        QCoreApplication.installTranslator(translator)
    try:
        window = QMainWindow()
        qtbot.addWidget(window)
        memory_plan = MemoryPlan(model, SpecRecorder(), window)
        body = QWidget()
        layout = QVBoxLayout(body)
        prompt = PromptPane(model.form)
        edit = EditPane(model.form, prompt_edit=prompt.prompt_edit)
        devices = DevicesPane(model, memory_plan=memory_plan)
        devices.set_devices(model.devices)
        for widget in (edit, prompt, devices):
            layout.addWidget(widget)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        window.setCentralWidget(scroll)
        window.resize(1280, 720)
        picture = np.zeros((832, 1216, 3), np.uint8)
        model.inputs.set_source(lambda: (picture, None))
        window.show()
        with qtbot.waitSignal(memory_plan.planned, timeout=10_000):
            choose(edit, "add")  # the preset that shows klein the photo as its reference
        qtbot.wait(50)
        if language == "zh_CN":
            assert edit.title() == "编辑" and edit.preset_combo.currentText() == "添加物体"
            assert "参考图" in devices.plan_view.label.text()
        else:
            assert edit.preset_combo.currentText() == "Add an object"
        SHOTS.mkdir(parents=True, exist_ok=True)
        assert window.grab().save(str(SHOTS / f"edit_pane_{language}.png"))
        memory_plan.wait()
    finally:
        if translator is not None:
            QCoreApplication.removeTranslator(translator)


def test_the_presets_photo_reference_ends_with_the_preset(qtbot) -> None:
    """Issue 41.11: "Add an object" ticks the photo reference; once a value the preset set is
    changed, the preset no longer applies: the combo says Free and its tick goes (a tick the
    user set stays)."""
    form = JobForm()
    edit, _prompt = panes(qtbot, form)
    choose(edit, "add")
    assert form.get(SOURCE_REF) is True
    form.set(FILL, "blur")  # the user's own fill: no longer the preset
    assert edit.preset_combo.currentData() == "free"
    assert form.get(SOURCE_REF) is False and not edit.source_ref_check.isChecked()
    choose(edit, "add")
    edit.source_ref_check.click()  # off by the user, on again by the user: the user's tick
    edit.source_ref_check.click()
    form.set(STRENGTH, 0.8)
    assert edit.preset_combo.currentData() == "free" and form.get(SOURCE_REF) is True
