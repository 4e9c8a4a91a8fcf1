"""The Generate dock's Setup tab in collapsible sections (app/ui/generation/setup_tab.py): at
1280×720 (the real window, default dock layout, the app's own style) it needs at most 1.5
viewports of scrolling; a closed section opens itself when its content has a problem (a model
file gone, a chosen device the engine does not list) and the problem stays in sight while the
user keeps it closed; each section's open/closed choice is saved in the settings file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QApplication, QDockWidget

from app.core.paths import app_paths
from app.core.settings import Settings, load_settings
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.job_inputs import Reference
from app.jobs.run_session import RunSession
from app.pipeline.job.params import DIFFUSION_DEVICE, DIFFUSION_MODEL
from app.ui.generation import GenerationPanel
from app.ui.generation.setup_tab import DEVICES, MODELS, PROMPT, REFERENCES, SAMPLING
from app.ui.kit.collapsible import PROBLEM_MARK
from app.ui.shell.application import apply_style
from app.ui.shell.features import remember_sections
from app.ui.shell.job_settings import settings_saver
from app.ui.words.i18n import TsTranslator
from tests.ui.runs_fixtures import main_window

MAX_SCREENS = 1.5


@pytest.fixture
def app_style(qapp, language: str):
    """The app's own look (Fusion, its style sheet and the font of `language`), as the user
    sees it; undone."""
    font, style, sheet = qapp.font(), qapp.style().name(), qapp.styleSheet()
    apply_style(qapp, language)
    yield
    qapp.setStyleSheet(sheet)
    qapp.setStyle(style)
    qapp.setFont(font)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_setup_tab_needs_at_most_one_and_a_half_screens_at_1280x720(
    qtbot, app_style, language, sd_stage, tiny_models
) -> None:
    translator = TsTranslator(language) if language != "en" else None
    if translator is not None:
        QCoreApplication.installTranslator(translator)
    try:
        window = main_window(qtbot, sd_stage, tiny_models, show=False)
        window.resize(1280, 720)
        window.show()
        dock = next(
            d for d in window.findChildren(QDockWidget) if d.objectName() == "GenerationDock"
        )
        dock.show()
        dock.raise_()
        panel = window.generation_panel
        panel.tabs.setCurrentIndex(0)
        qtbot.waitUntil(lambda: panel.tabs.widget(0).viewport().height() > 200)
        QApplication.processEvents()
        scroll = panel.tabs.widget(0)
        content = scroll.widget().sizeHint().height()
        viewport = scroll.viewport().height()
        assert (window.width(), window.height()) == (1280, 720)
        assert content / viewport <= MAX_SCREENS, (content, viewport, content / viewport)
        # What a user changes every run is in sight without a click.
        tab = panel.setup_tab
        assert tab.sections[PROMPT].is_open() and tab.sections[SAMPLING].is_open()
        assert not tab.sections[MODELS].is_open()  # the tiny models are all valid
        assert panel.sampling_pane.steps_spin.isVisibleTo(window)
        assert panel.prompt_pane.prompt_edit.isVisibleTo(window)
        panel.shutdown()
    finally:
        if translator is not None:
            QCoreApplication.removeTranslator(translator)


def _panel(qtbot, form: JobForm, engine: Path) -> GenerationPanel:
    panel = GenerationPanel(GenerationModel(form, RunSession(app_paths(), engine=engine)))
    panel._first_show = False  # no engine probe: the test hands the devices over itself
    qtbot.addWidget(panel)
    panel.resize(460, 600)
    panel.show()
    return panel


def test_a_closed_section_opens_when_its_content_has_a_problem(
    qtbot, tiny_form, sd_stage, tmp_path
) -> None:
    panel = _panel(qtbot, tiny_form(), sd_stage)
    models = panel.setup_tab.sections[MODELS]
    assert not models.is_open() and models.problem == ""
    assert not panel.models_pane.isVisibleTo(panel)
    gone = tmp_path / "moved-away" / "klein.gguf"
    panel.model.form.set(DIFFUSION_MODEL, str(gone))
    assert models.is_open()
    assert panel.models_pane.diffusion_field.status.isVisibleTo(panel)
    assert str(gone) in models.problem and "does not exist" in models.problem
    assert models.header.text().startswith(PROBLEM_MARK)
    # Closed by the user again: the problem stays under the header.
    qtbot.mouseClick(models.header, Qt.MouseButton.LeftButton)
    assert not models.is_open()
    assert models.problem_label.isVisibleTo(panel)
    assert str(gone) in models.problem_label.text()
    # Fixed: no mark, no line; the section stays as the user left it.
    panel.model.form.set(DIFFUSION_MODEL, str(tiny_form().get(DIFFUSION_MODEL)))
    assert models.problem == "" and not models.problem_label.isVisibleTo(panel)
    assert not models.header.text().startswith(PROBLEM_MARK)
    assert not models.is_open()


def test_a_model_file_gone_since_it_was_chosen_opens_the_section_at_run_all(
    qtbot, tiny_form, tiny_models, sd_stage, tmp_path
) -> None:
    """The file is checked when chosen; deleted afterwards, Run all is refused and the
    closed Model files section opens, naming the file."""
    copy = tmp_path / "mine" / Path(tiny_models.diffusion).name
    copy.parent.mkdir()
    shutil.copy2(tiny_models.diffusion, copy)
    panel = _panel(qtbot, tiny_form(**{DIFFUSION_MODEL.name: str(copy)}), sd_stage)
    models = panel.setup_tab.sections[MODELS]
    assert not models.is_open() and models.problem == ""
    copy.unlink()
    with qtbot.waitSignal(panel.model.refused, timeout=10_000):
        qtbot.mouseClick(panel.all_button, Qt.MouseButton.LeftButton)
    assert panel.tabs.currentIndex() == 0
    assert models.is_open() and str(copy) in models.problem
    assert str(copy) in panel.models_pane.diffusion_field.status.text()
    panel.shutdown()


def test_a_chosen_device_the_engine_does_not_list_opens_the_devices_section(
    qtbot, tiny_form, sd_stage
) -> None:
    panel = _panel(qtbot, tiny_form(**{DIFFUSION_DEVICE.name: "vulkan1"}), sd_stage)
    devices = panel.setup_tab.sections[DEVICES]
    assert not devices.is_open()  # before the engine answered nothing is compared
    with qtbot.waitSignal(panel.model.devices_changed, timeout=120_000):
        panel.model.probe_engine()  # the real engine's list: the CPU build has no vulkan1
    assert "vulkan1" not in {d.name for d in panel.model.devices}
    assert devices.is_open() and "vulkan1" in devices.problem
    panel.model.form.set(DIFFUSION_DEVICE, "cpu")
    assert devices.problem == ""
    panel.shutdown()


def test_the_closed_reference_section_says_how_many_pictures_it_holds(
    qtbot, tiny_form, sd_stage
) -> None:
    panel = _panel(qtbot, tiny_form(), sd_stage)
    refs = panel.setup_tab.sections[REFERENCES]
    assert not refs.is_open() and refs.header.text() == "Reference images"
    for value, name in ((90, "a"), (160, "b")):
        assert panel.model.inputs.add_ref(Reference.of(np.full((32, 48, 3), value, np.uint8), name))
    assert refs.header.text() == "Reference images (2)"
    panel.model.inputs.remove_ref(0)
    assert refs.header.text() == "Reference images (1)"
    panel.shutdown()


def test_each_sections_choice_is_saved_and_restored(qtbot, tiny_models, sd_stage, tmp_path):
    from tests.models.forms import tiny_job_form

    path = tmp_path / "settings.json"
    settings = Settings()
    values = tiny_job_form(tiny_models).persisted()
    form = JobForm(dict(values), saver=settings_saver(settings, path))
    panel = _panel(qtbot, form, sd_stage)
    remember_sections(panel, settings)
    sections = panel.setup_tab.sections
    qtbot.mouseClick(sections[DEVICES].header, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(sections[PROMPT].header, Qt.MouseButton.LeftButton)
    assert sections[DEVICES].is_open() and not sections[PROMPT].is_open()
    saved = json.loads(path.read_text(encoding="utf-8"))["setup_sections"]
    assert saved == {DEVICES: True, PROMPT: False}
    panel.shutdown()

    # The next start: as saved; a problem keeps its section open whatever was saved.
    again = load_settings(path)
    again.setup_sections[MODELS] = False
    broken = JobForm({**values, DIFFUSION_MODEL.name: str(tmp_path / "nowhere.gguf")})
    panel = _panel(qtbot, broken, sd_stage)
    remember_sections(panel, again)
    sections = panel.setup_tab.sections
    assert sections[DEVICES].is_open() and not sections[PROMPT].is_open()
    assert sections[MODELS].is_open()
    panel.shutdown()
