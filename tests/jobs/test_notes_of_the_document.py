"""The notes read the painter's mask, never a file named like the stand-in in the working
folder (issue 16: a black mask.png where the app was started said "the mask is empty")."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.core.paths import app_paths
from app.imaging.io import save_png_atomic
from app.jobs.generation import GenerationModel
from app.jobs.job_form import JobForm
from app.jobs.run_session import RunSession
from app.pipeline.failures import NoteCode


@pytest.fixture
def model(qtbot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    cwd = tmp_path / "started_here"
    cwd.mkdir()
    for name in ("mask.png", "image.png"):  # black: "nothing to repaint" if it were read
        save_png_atomic(cwd / name, np.zeros((64, 64), np.uint8))
    monkeypatch.chdir(cwd)
    made = GenerationModel(JobForm(), RunSession(app_paths()))
    yield made
    made.shutdown()


def _codes(model: GenerationModel) -> list[NoteCode]:
    return [note.code for note in model.notes]


def test_a_painted_mask_is_not_empty_whatever_mask_png_the_folder_holds(model) -> None:
    image = np.full((64, 64, 3), 90, np.uint8)
    mask = np.zeros((64, 64), np.uint8)
    mask[16:48, 16:48] = 255
    model.inputs.set_document(image, mask)
    assert NoteCode.EMPTY_MASK not in _codes(model)
    assert not model.mask_empty()


def test_an_unpainted_mask_is_empty_in_the_notes(model) -> None:
    image = np.full((64, 64, 3), 90, np.uint8)
    model.inputs.set_document(image, np.full((64, 64), 100, np.uint8))  # grey: below 128
    assert model.mask_empty()
    assert _codes(model)[:1] == [NoteCode.EMPTY_MASK]
    model.inputs.set_document(None, None)  # text to image: no mask to be empty
    assert NoteCode.EMPTY_MASK not in _codes(model)
