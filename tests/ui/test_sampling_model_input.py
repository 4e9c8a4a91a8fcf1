"""The Generate tab says what the model will really get before a run: the picture's size, and
the model input when prepare changes it (alignment, 'only masked' scaled to its target)."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.paths import app_paths
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.run_session import RunSession
from app.pipeline.job.params import ALIGN, HEIGHT, MASKED_TARGET, ONLY_MASKED, WIDTH
from app.ui.generation.sampling import SamplingPane


@pytest.fixture
def pane(qtbot, tmp_path) -> SamplingPane:
    form = JobForm()
    model = GenerationModel(form, RunSession(app_paths(), engine=tmp_path / "no-sd-stage"))
    widget = SamplingPane(model)
    qtbot.addWidget(widget)
    return widget


def test_an_aligned_picture_is_said_as_it_is(pane: SamplingPane) -> None:
    pane.model.inputs.set_document(np.zeros((320, 512, 3), np.uint8), None)
    assert pane.size_label.text() == "From the image: 512×320."
    assert pane.planned_model_input() == (512, 320)


def test_padding_to_16_is_shown(pane: SamplingPane) -> None:
    pane.model.form.set(ALIGN, "pad")
    pane.model.inputs.set_document(np.zeros((300, 500, 3), np.uint8), None)
    assert pane.planned_model_input() == (512, 304)
    assert pane.size_label.text() == "From the image: 500×300; the model gets 512×304."


def test_only_masked_shows_the_scaled_region(pane: SamplingPane) -> None:
    form = pane.model.form
    form.set(WIDTH, 1024)
    form.set(HEIGHT, 1024)
    form.set(MASKED_TARGET, 512)
    mask = np.zeros((1000, 1600), np.uint8)
    mask[400:440, 700:760] = 255  # a small edit in a large photo
    pane.model.inputs.set_document(np.zeros((1000, 1600, 3), np.uint8), mask)
    form.set(ONLY_MASKED, False)
    whole = pane.planned_model_input()
    form.set(ONLY_MASKED, True)
    scaled = pane.planned_model_input()
    assert whole == (1600, 1008)
    assert scaled is not None and scaled != whole
    assert scaled[0] % 16 == 0 and scaled[1] % 16 == 0
    assert 400 * 400 <= scaled[0] * scaled[1] <= 640 * 640  # about 512² px
    assert f"the model gets {scaled[0]}×{scaled[1]}" in pane.size_label.text()


def test_an_open_picture_with_an_empty_mask_warns_nothing_to_repaint(pane: SamplingPane) -> None:
    image = np.zeros((256, 256, 3), np.uint8)
    pane.model.inputs.set_document(image, np.zeros((256, 256), np.uint8))
    pane.show_notes(pane.model.notes)
    text = pane.warning_label.text()
    assert not pane.warning_label.isHidden()
    assert text.startswith("⚠ The mask is empty: nothing to repaint.")
    assert "replaces the whole image" not in text
    mask = np.zeros((256, 256), np.uint8)
    mask[100:120, 100:120] = 255
    pane.model.inputs.set_document(image, mask)
    assert "The mask is empty" not in pane.warning_label.text()
    pane.model.inputs.set_document(None, None)  # text to image: no mask to be empty
    assert "The mask is empty" not in pane.warning_label.text()
