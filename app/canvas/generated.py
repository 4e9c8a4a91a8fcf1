"""Where a generated frame (a step preview, a decoded step, the result) goes in the photo.

A run's prepared folder (app/imaging) records how the photo became the model's input: the
region, the alignment (and, with "only masked", the scale). `RunPlacement` reads it once per
run and maps any frame of the run through the same code that composites the result (imaging's
`soft_compositor`), so a step preview on the canvas is blended exactly like the result will
be: through the feathered mask, with every other pixel the photo's own. Frames smaller than
the model input (the 1/8-size latent projection) are scaled up to it first.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from app.imaging.composite import SoftCompositor, place_result
from app.imaging.geometry import Rect, Size
from app.imaging.prepare import load_prepared, soft_compositor


@dataclass(frozen=True)
class PlacedFrame:
    """Pixels to draw over the photo at `at` (photo coordinates); whole = the full picture."""

    pixels: np.ndarray  # HxWx3 uint8, at.size
    at: Rect
    photo_size: Size

    def whole(self, photo: np.ndarray) -> np.ndarray:
        """The photo with these pixels in place (what "Use as new image" takes)."""
        out = photo.copy()
        out[self.at.slices()] = self.pixels
        return out


class RunPlacement:
    """A run's compositor (its prepare record, photo, soft mask and feather weights), built once
    and used for every frame of the run."""

    def __init__(self, compositor: SoftCompositor, photo_size: Size, photo_sha256: str) -> None:
        self.compositor = compositor
        self.photo_size = photo_size
        self.photo_sha256 = photo_sha256  # the pixel hash of the photo it was prepared from

    @classmethod
    def of_prepared(cls, folder: Path | str) -> RunPlacement:
        """Reads and verifies a run's prepared folder (the pipeline names it: run_records'
        PREPARED_DIR); StepwiseError when missing or damaged."""
        loaded = load_prepared(Path(folder))
        record = loaded.record
        return cls(soft_compositor(loaded), record.original_size, record.image_sha256)

    @property
    def photo(self) -> np.ndarray:
        return self.compositor.original

    def model_sized(self, frame: np.ndarray) -> np.ndarray:
        size = self.compositor.plan.aligned_size
        if Size.of(frame) == size:
            return frame
        grow = frame.shape[1] < size.width
        method = cv2.INTER_LINEAR if grow else cv2.INTER_AREA
        return cv2.resize(frame, tuple(size), interpolation=method)

    def raw(self, frame: np.ndarray) -> PlacedFrame:
        """The frame as the model made it, over the part of the photo it covers."""
        c = self.compositor
        pixels, at = place_result(self.model_sized(frame), c.plan, c.region, c.scale)
        return PlacedFrame(np.ascontiguousarray(pixels), at, self.photo_size)

    def composited(self, frame: np.ndarray) -> PlacedFrame:
        """The frame blended into the photo through the soft mask, as the result will be: only
        the rectangle that can differ from the photo."""
        pixels, at = self.compositor.patch(self.model_sized(frame))
        return PlacedFrame(np.ascontiguousarray(pixels), at, self.photo_size)


def whole_frame(frame: np.ndarray) -> PlacedFrame:
    """A frame that is a whole picture (a result, or text to image without a photo)."""
    h, w = frame.shape[:2]
    return PlacedFrame(np.ascontiguousarray(frame), Rect(0, 0, w, h), Size(w, h))
