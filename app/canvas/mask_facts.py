"""What the UI asks of the document's mask on every keystroke and settled stroke, cached per mask
revision and brought up to date only where the mask changed since: the uint8 mask (what a job's
mask.png holds: round(mask × 255)) and the bounding box of its pixels at or above a threshold.

The document logs the rectangle of every mask change with a revision number
(`MaskDocument.mask_changes_since`); reading a fact converts only the logged rectangles and
re-measures only the 64-px tiles they touch. The bounding box is kept per tile, so the whole
box is a min/max over the tile grid (16 K tiles at 8192²), whatever the photo's size. A whole
conversion happens only for a new mask array (a new picture, a picture undone) or a log that has
been outrun; `conversions` counts them (tests spy on it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from app.imaging.geometry import Rect
from app.imaging.mask_ops import BINARY_THRESHOLD

TILE_PX = 64
ANY_THRESHOLD = 1  # a uint8 pixel above 0: the mask file is written at all
Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive)


class MaskSource(Protocol):
    """The document as the facts read it."""

    mask: np.ndarray
    mask_revision: int

    def mask_changes_since(self, revision: int) -> Sequence[Box] | None: ...


def to_u8(mask: np.ndarray) -> np.ndarray:
    """A float mask in [0, 1] as uint8, rounded (the one conversion of the job's mask)."""
    return np.clip(mask * 255.0 + 0.5, 0, 255).astype(np.uint8)


class _TileBoxes:
    """Per 64-px tile, the bounding box of the pixels ≥ threshold (x0 = TILE_PX + 1: none)."""

    def __init__(self, threshold: int, u8: np.ndarray) -> None:
        self.threshold = threshold
        th, tw = u8.shape[0] // TILE_PX, u8.shape[1] // TILE_PX
        self.x0 = np.full((th, tw), TILE_PX + 1, np.int32)
        self.y0 = np.zeros((th, tw), np.int32)
        self.x1 = np.zeros((th, tw), np.int32)
        self.y1 = np.zeros((th, tw), np.int32)
        self.update(u8, 0, 0, tw, th)

    def update(self, u8: np.ndarray, tx0: int, ty0: int, tx1: int, ty1: int) -> None:
        """Re-measures tiles [tx0, tx1) × [ty0, ty1) of the padded uint8 mask."""
        t = TILE_PX
        block = u8[ty0 * t : ty1 * t, tx0 * t : tx1 * t] >= self.threshold
        tiles = block.reshape(ty1 - ty0, t, tx1 - tx0, t)
        rows = tiles.any(axis=3)  # (ny, t, nx)
        cols = tiles.any(axis=1)  # (ny, nx, t)
        has = rows.any(axis=1)  # (ny, nx)
        y0 = rows.argmax(axis=1)
        y1 = t - rows[:, ::-1, :].argmax(axis=1)
        x0 = cols.argmax(axis=2)
        x1 = t - cols[:, :, ::-1].argmax(axis=2)
        self.x0[ty0:ty1, tx0:tx1] = np.where(has, x0, t + 1)
        self.y0[ty0:ty1, tx0:tx1] = y0
        self.x1[ty0:ty1, tx0:tx1] = x1
        self.y1[ty0:ty1, tx0:tx1] = y1

    def box(self, width: int, height: int) -> Rect | None:
        occupied = self.x0 <= TILE_PX
        if not occupied.any():
            return None
        ty, tx = np.nonzero(occupied)
        gx0 = tx * TILE_PX + self.x0[ty, tx]
        gy0 = ty * TILE_PX + self.y0[ty, tx]
        gx1 = tx * TILE_PX + self.x1[ty, tx]
        gy1 = ty * TILE_PX + self.y1[ty, tx]
        x0, y0 = int(gx0.min()), int(gy0.min())
        x1, y1 = min(int(gx1.max()), width), min(int(gy1.max()), height)
        return Rect(x0, y0, x1 - x0, y1 - y0)


class MaskFacts:
    """The cached facts of one document's mask (UI thread only)."""

    def __init__(self, source: MaskSource) -> None:
        self._source = source
        self._array: np.ndarray | None = None  # the mask array the cache was built from
        self._revision = -1
        self._padded = np.zeros((0, 0), np.uint8)  # the uint8 mask, padded to whole tiles
        self._tiles: dict[int, _TileBoxes] = {}
        self._boxes: dict[int, tuple[int, Rect | None]] = {}  # threshold → (revision, box)
        self.conversions = 0  # whole-mask conversions so far

    def u8(self) -> np.ndarray:
        """The mask as uint8 HxW (a read-only view: copy it to keep or change it)."""
        self._refresh()
        h, w = self._source.mask.shape[:2]
        view = self._padded[:h, :w]
        view.flags.writeable = False
        return view

    def box(self, threshold: int = BINARY_THRESHOLD) -> Rect | None:
        """The bounding box of the uint8 mask's pixels ≥ threshold (None: there are none)."""
        self._refresh()
        cached = self._boxes.get(threshold)
        if cached is not None and cached[0] == self._revision:
            return cached[1]
        tiles = self._tiles.get(threshold)
        if tiles is None:
            tiles = self._tiles[threshold] = _TileBoxes(threshold, self._padded)
        h, w = self._source.mask.shape[:2]
        box = tiles.box(w, h)
        self._boxes[threshold] = (self._revision, box)
        return box

    def any(self, threshold: int = ANY_THRESHOLD) -> bool:
        """Whether any pixel of the uint8 mask is ≥ threshold."""
        return self.box(threshold) is not None

    # --- keeping up ---------------------------------------------------------------------------

    def _refresh(self) -> None:
        source = self._source
        mask = source.mask
        if mask is not self._array:
            self._rebuild(mask)
            return
        if source.mask_revision == self._revision:
            return
        changes = source.mask_changes_since(self._revision)
        if changes is None:
            self._rebuild(mask)
            return
        h, w = mask.shape[:2]
        for x0, y0, x1, y1 in changes:
            x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
            if x0 >= x1 or y0 >= y1:
                continue
            self._padded[y0:y1, x0:x1] = to_u8(mask[y0:y1, x0:x1])
            t = TILE_PX
            for tiles in self._tiles.values():
                tiles.update(self._padded, x0 // t, y0 // t, (x1 - 1) // t + 1, (y1 - 1) // t + 1)
        self._revision = source.mask_revision

    def _rebuild(self, mask: np.ndarray) -> None:
        self.conversions += 1
        h, w = mask.shape[:2]
        t = TILE_PX
        padded = np.zeros((-(-h // t) * t, -(-w // t) * t), np.uint8)
        padded[:h, :w] = to_u8(mask)
        self._padded, self._array = padded, mask
        self._revision = self._source.mask_revision
        self._tiles = {thr: _TileBoxes(thr, padded) for thr in self._tiles}
        self._boxes.clear()
