"""The picture the model is given, before the fill: klein's reference of the photo.

prepare() crops (only masked), scales and aligns the photo, then pre-fills the area to repaint.
A reference image is there to show klein what the photo looks like, so it must hold the
original pixels, not the grey or smeared hole: it is the same crop, scale and alignment, read
from the prepare record (so it follows whatever region prepare chose), without the fill.
"""

from __future__ import annotations

import numpy as np

from app.imaging.align import AlignPlan, align_image
from app.imaging.prepare_record import PrepareRecord


def unfilled_input(original: np.ndarray, record: PrepareRecord) -> np.ndarray:
    """The prepared input of `original` (HxWx3 uint8, the picture `record` was made from) as
    prepare() makes it, without the fill: region crop, scale, alignment (same size as
    input.png; equal to it outside the repaint area)."""
    part = original[record.region.slices()]
    if record.scaled is not None:
        part = align_image(AlignPlan("scale", record.region.size, record.scaled), part)
    return align_image(record.align, part)
