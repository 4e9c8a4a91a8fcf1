"""What the job form and the painter's inputs say before a start: the notes (advice) and
whether the mask repaints anything. The mask's emptiness comes from the document, never from a
file: no file is written before a start (a mask.png in the working folder is not the mask)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.jobs.job_inputs import JobInputs
from app.pipeline.api import EngineCatalog
from app.pipeline.failures import Note
from app.pipeline.job.advice import job_notes
from app.pipeline.job.frame_checks import expands
from app.pipeline.job.params import SAMPLER
from app.pipeline.job.spec import spec_from_values

# Stand-in names for the job the notes judge: they name no file and none is read.
PICTURE = "image.png"
MASK = "mask.png"


def mask_empty(inputs: JobInputs) -> bool:
    """A picture is open and its mask repaints nothing (the painter writes no mask file then,
    so the job alone cannot tell an empty mask from "no mask")."""
    if inputs.image is None:
        return False
    return inputs.mask_box() is None  # cached per mask revision


def repaints_everything(inputs: JobInputs, values: Mapping[str, Any]) -> bool:
    """A start would repaint the whole picture only because its mask is empty (an outpainting's
    new area is masked by itself): the UI asks first."""
    return mask_empty(inputs) and not expands(spec_from_values(dict(values), image=PICTURE))


def notes_of(
    inputs: JobInputs, values: Mapping[str, Any], catalog: EngineCatalog | None
) -> list[Note]:
    empty = mask_empty(inputs)
    image = PICTURE if inputs.image is not None else None
    mask = MASK if image is not None and not empty else None
    spec = spec_from_values(dict(values), image=image, mask=mask)
    if catalog is not None:
        resumable = catalog.resumable
    else:  # the engine has not said yet: no sampler warning rather than a wrong one
        resumable = frozenset({values[SAMPLER.name]})
    return job_notes(spec, resumable, mask_empty=empty)
