"""Where a generated frame (a step preview, a decoded step, the result) goes in the photo.

The one placement rule for everything drawn on the canvas. A run's prepared folder
(app/imaging) records how the photo became the model's input: the canvas expansion, the
region, the alignment (and, with "only masked", the scale). `RunPlacement` reads it once per
run and maps any frame of the run through the same code that composites the result (imaging's
`soft_compositor`), so a step preview on the canvas is blended exactly like the result will
be: through the feathered mask, with every other pixel the photo's own. Frames smaller than
the model input (the 1/8-size latent projection) are scaled up to it first.

Coordinates are the photo's (the open document's): with an expansion the run's frame starts
left of and above the photo (`frame` is at (-left, -top)), and so may a placed frame; a result
(the whole composite, the run's frame size) is placed at `frame`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from app.imaging.composite import SoftCompositor, place_result
from app.imaging.frame import Expansion
from app.imaging.geometry import Rect, Size
from app.imaging.prepare import load_prepared, soft_compositor


@dataclass(frozen=True)
class PlacedFrame:
    """Pixels to draw over the photo at `at` (photo coordinates, negative left of or above
    the photo); `frame`: the run's whole picture in the same coordinates (the photo's rect, or
    the expanded canvas)."""

    pixels: np.ndarray  # HxWx3 uint8, at.size
    at: Rect
    photo_size: Size
    frame: Rect | None = None  # None: the photo's own rect

    @property
    def canvas(self) -> Rect:
        """The run's frame: the photo's rect, or the expanded canvas around it."""
        return self.frame or Rect(0, 0, *self.photo_size)

    def whole(self, base: np.ndarray) -> np.ndarray:
        """`base` (a picture of the run's frame: the photo, or the expanded one) with these
        pixels in place (what "Use as new image" takes)."""
        out = base.copy()
        canvas = self.canvas
        shifted = Rect(self.at.x - canvas.x, self.at.y - canvas.y, self.at.width, self.at.height)
        out[shifted.slices()] = self.pixels
        return out


class RunPlacement:
    """A run's compositor (its prepare record, photo, soft mask and feather weights), built once
    and used for every frame of the run."""

    def __init__(
        self,
        compositor: SoftCompositor,
        photo_size: Size,
        photo_sha256: str,
        expansion: Expansion | None = None,
    ) -> None:
        self.compositor = compositor
        self.photo_size = photo_size  # the photo as the user opened it (before any expansion)
        self.photo_sha256 = photo_sha256  # the pixel hash of the photo it was prepared from
        e = expansion or Expansion(0, 0, 0, 0)
        full = Size.of(compositor.original)  # the run's frame: the expanded picture
        self.frame = Rect(-e.left, -e.top, full.width, full.height)

    @classmethod
    def of_prepared(cls, folder: Path | str) -> RunPlacement:
        """Reads and verifies a run's prepared folder (the pipeline names it: run_records'
        PREPARED_DIR); StepwiseError when missing or damaged."""
        loaded = load_prepared(Path(folder))
        record = loaded.record
        photo_size = record.source_size or record.original_size
        return cls(soft_compositor(loaded), photo_size, record.photo_sha256, record.expansion)

    @property
    def photo(self) -> np.ndarray:
        """The run's frame as prepared: the photo, or the expanded picture."""
        return self.compositor.original

    def _placed(self, pixels: np.ndarray, at: Rect) -> PlacedFrame:
        """`at` in the run's frame → photo coordinates."""
        shifted = Rect(at.x + self.frame.x, at.y + self.frame.y, at.width, at.height)
        return PlacedFrame(np.ascontiguousarray(pixels), shifted, self.photo_size, self.frame)

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
        return self._placed(pixels, at)

    def composited(self, frame: np.ndarray) -> PlacedFrame:
        """The frame blended into the photo through the soft mask, as the result will be: only
        the rectangle that can differ from the photo."""
        pixels, at = self.compositor.patch(self.model_sized(frame))
        return self._placed(pixels, at)

    def result(self, picture: np.ndarray) -> PlacedFrame:
        """A picture of the run's whole frame (result.png: the composite, expanded with the
        canvas) over that frame; ValueError when it is not that size."""
        if Size.of(picture) != self.frame.size:
            raise ValueError(f"a result of {Size.of(picture)} for a frame of {self.frame.size}")
        return PlacedFrame(np.ascontiguousarray(picture), self.frame, self.photo_size, self.frame)

    def whole(self, placed: PlacedFrame) -> np.ndarray:
        """The run's frame as prepared with `placed` in it (Use as new image, Save as…)."""
        return placed.whole(self.photo)


def whole_frame(frame: np.ndarray) -> PlacedFrame:
    """A frame that is a whole picture (a result, or text to image without a photo)."""
    h, w = frame.shape[:2]
    return PlacedFrame(np.ascontiguousarray(frame), Rect(0, 0, w, h), Size(w, h))
