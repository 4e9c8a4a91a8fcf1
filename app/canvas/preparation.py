"""Preparing the document for inference and mapping a generated picture back (imaging.prepare)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.canvas.document import MaskDocument
from app.imaging.align import plan_alignment
from app.imaging.geometry import Size
from app.imaging.prepare import (
    RECORD_FILE,
    BlendOptions,
    Prepared,
    PrepareOptions,
    composite_prepared,
    export_prepared,
    load_prepared,
    prepare,
)

__all__ = [
    "Prepared",
    "PrepareOptions",
    "aligned_size",
    "composite",
    "export",
    "input_size_of",
    "is_prepared_folder",
    "prepare_document",
]


def prepare_document(doc: MaskDocument, options: PrepareOptions) -> Prepared:
    return prepare(doc.image, doc.mask, options)


def aligned_size(doc: MaskDocument, options: PrepareOptions) -> Size:
    """The whole picture's size after alignment (before any 'only masked' crop)."""
    return plan_alignment((doc.width, doc.height), options.align).aligned_size


def export(folder: Path, prepared: Prepared) -> None:
    """Writes input.png, mask.png, prepare.json (and the originals) into `folder`."""
    export_prepared(folder, prepared)


def is_prepared_folder(folder: Path) -> bool:
    return (folder / RECORD_FILE).is_file()


def input_size_of(source: Prepared | Path) -> Size:
    """The size a generated picture must have to go back through `composite`."""
    if isinstance(source, Path):
        return load_prepared(source).record.input_size
    return source.record.input_size


def composite(
    source: Prepared | Path, generated: np.ndarray, blend: BlendOptions | None = None
) -> np.ndarray:
    """Blends `generated` into the original with the soft mask; unmasked pixels stay exact.
    blend: colour match / seam blend (None: a Prepared's own options, a folder's defaults)."""
    if blend is None:
        blend = source.options.blend if isinstance(source, Prepared) else PrepareOptions().blend
    return composite_prepared(source, generated, blend=blend)
