"""The engine's soft mask (`--mask-mode soft`): how much each pixel of the model's input may change.

The composite takes the generated picture with weight 255 on the prepared binary mask, falling
to 0 over the feather outside it (`composite.feather_weights`). Soft mode hands the engine the
same weights in the model's frame, so the sampler changes a pixel about as much as the composite
will show it: fully in the mask, less and less across the feather, not at all where the
composite keeps the photo. The engine takes each 16-px cell's largest value and lets a cell of
value m change only in the last m of the steps (native/PROTOCOL.md, "Masks").
"""

from __future__ import annotations

import numpy as np

from app.imaging.composite import feather_weights
from app.imaging.prepare_record import PrepareRecord


def soft_engine_mask(binary_mask: np.ndarray, record: PrepareRecord) -> np.ndarray:
    """uint8 HxW weights of the model's input (its size): `binary_mask` is the prepared mask
    (the model's frame, 0/255); the feather is scaled as the region is for the model."""
    factor = record.input_size.width / max(1, record.region.width)
    return feather_weights(binary_mask, round(record.feather_px * factor))
