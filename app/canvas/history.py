"""Undo history of the document: each mask entry is a rectangle plus the values that are not in
the mask; a picture entry ("Use as new image") holds the whole other picture, mask and path.

A mask entry holds only the pixels of its dirty rectangle. Undo swaps those pixels with the
mask's current ones, so the same buffer then serves for redo; the history never copies the whole
mask unless an operation really changed all of it. A picture entry swaps the document's image,
mask and path the same way (undo brings the old photo and its mask back, redo the new one).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

HISTORY_LIMIT_BYTES = 512 * 1024 * 1024
STROKE_TILE_PX = 64


@dataclass
class MaskEdit:
    """One undoable step: `values` are what the mask held (undo) or will hold (redo) at x, y."""

    label: str
    x: int
    y: int
    values: np.ndarray

    @property
    def rect(self) -> tuple[int, int, int, int]:
        h, w = self.values.shape[:2]
        return self.x, self.y, w, h

    @property
    def nbytes(self) -> int:
        return int(self.values.nbytes)

    def swap_into(self, mask: np.ndarray) -> None:
        h, w = self.values.shape[:2]
        region = mask[self.y : self.y + h, self.x : self.x + w]
        current = region.copy()
        region[...] = self.values
        self.values = current


class Layers(Protocol):
    """What a picture entry swaps: the document's arrays and the picture's file."""

    image: np.ndarray
    mask: np.ndarray
    image_path: Path | None


@dataclass
class PictureEdit:
    """The whole picture replaced: `image`, `mask` and `path` are the other state's (undo:
    the old photo, redo: the new picture)."""

    label: str
    image: np.ndarray
    mask: np.ndarray
    path: Path | None

    @property
    def rect(self) -> tuple[int, int, int, int]:
        h, w = self.mask.shape[:2]
        return 0, 0, w, h

    @property
    def nbytes(self) -> int:
        return int(self.image.nbytes + self.mask.nbytes)

    def swap_layers(self, layers: Layers) -> None:
        image, mask, path = layers.image, layers.mask, layers.image_path
        layers.image, layers.mask, layers.image_path = self.image, self.mask, self.path
        self.image, self.mask, self.path = image, mask, path


Edit = MaskEdit | PictureEdit


class MaskHistory:
    """Bounded undo / redo stacks of edits; the oldest steps go first when over the limit."""

    def __init__(self, limit_bytes: int = HISTORY_LIMIT_BYTES) -> None:
        self.limit_bytes = limit_bytes
        self._undo: deque[Edit] = deque()
        self._redo: list[Edit] = []

    @property
    def used_bytes(self) -> int:
        return sum(e.nbytes for e in self._undo) + sum(e.nbytes for e in self._redo)

    def can_undo(self) -> bool:
        return bool(self._undo)

    def can_redo(self) -> bool:
        return bool(self._redo)

    def undo_label(self) -> str:
        return self._undo[-1].label if self._undo else ""

    def redo_label(self) -> str:
        return self._redo[-1].label if self._redo else ""

    def __len__(self) -> int:
        return len(self._undo)

    def clear(self) -> None:
        self._undo.clear()
        self._redo.clear()

    def push(self, edit: Edit) -> None:
        self._redo.clear()
        self._undo.append(edit)
        # The newest step is kept even when it alone exceeds the limit: losing the step the
        # user just made would surprise more than using the memory.
        total = self.used_bytes
        while total > self.limit_bytes and len(self._undo) > 1:
            total -= self._undo.popleft().nbytes

    def undo(self, mask: np.ndarray, layers: Layers | None = None) -> Edit | None:
        """Undoes the newest step in `mask` (a picture step needs the document as `layers`)."""
        if not self._undo:
            return None
        _swap(self._undo[-1], mask, layers)
        edit = self._undo.pop()
        self._redo.append(edit)
        return edit

    def redo(self, mask: np.ndarray, layers: Layers | None = None) -> Edit | None:
        if not self._redo:
            return None
        _swap(self._redo[-1], mask, layers)
        edit = self._redo.pop()
        self._undo.append(edit)
        return edit


def _swap(edit: Edit, mask: np.ndarray, layers: Layers | None) -> None:
    if isinstance(edit, MaskEdit):
        edit.swap_into(mask)
    elif layers is None:
        raise ValueError("undoing a picture step needs the document")
    else:
        edit.swap_layers(layers)


class StrokeBackup:
    """Saves mask tiles before a stroke first touches them, so the stroke's undo entry can be
    built from its final bounding box without copying the whole mask up front."""

    def __init__(self, mask: np.ndarray, tile_px: int = STROKE_TILE_PX) -> None:
        self._mask = mask
        self._tile = tile_px
        self._tiles: dict[tuple[int, int], np.ndarray] = {}
        self._bounds: list[int] | None = None  # x0, y0, x1, y1 (exclusive)

    def protect(self, x0: int, y0: int, x1: int, y1: int) -> None:
        """Call before writing mask[y0:y1, x0:x1]."""
        h, w = self._mask.shape
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x0 >= x1 or y0 >= y1:
            return
        t = self._tile
        for ty in range(y0 // t, (y1 - 1) // t + 1):
            for tx in range(x0 // t, (x1 - 1) // t + 1):
                if (tx, ty) not in self._tiles:
                    self._tiles[(tx, ty)] = self._mask[
                        ty * t : (ty + 1) * t, tx * t : (tx + 1) * t
                    ].copy()
        if self._bounds is None:
            self._bounds = [x0, y0, x1, y1]
        else:
            b = self._bounds
            b[0], b[1], b[2], b[3] = min(b[0], x0), min(b[1], y0), max(b[2], x1), max(b[3], y1)

    def finish(self, label: str) -> MaskEdit | None:
        """The edit that undoes everything written since the backup began (None if nothing)."""
        if self._bounds is None:
            return None
        x0, y0, x1, y1 = self._bounds
        old = self._mask[y0:y1, x0:x1].copy()
        t = self._tile
        for (tx, ty), tile in self._tiles.items():
            # Place the saved tile into `old` where they overlap.
            gx0, gy0 = tx * t, ty * t
            gx1, gy1 = gx0 + tile.shape[1], gy0 + tile.shape[0]
            ix0, iy0, ix1, iy1 = max(gx0, x0), max(gy0, y0), min(gx1, x1), min(gy1, y1)
            if ix0 >= ix1 or iy0 >= iy1:
                continue
            old[iy0 - y0 : iy1 - y0, ix0 - x0 : ix1 - x0] = tile[
                iy0 - gy0 : iy1 - gy0, ix0 - gx0 : ix1 - gx0
            ]
        self._tiles.clear()
        return MaskEdit(label, x0, y0, old)
