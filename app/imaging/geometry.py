"""Sizes and rectangles in pixel coordinates, shared by every imaging module.

Sizes are (width, height), as people say them; numpy arrays are indexed [y, x].
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Size(NamedTuple):
    """A width and height in pixels."""

    width: int
    height: int

    def __str__(self) -> str:
        return f"{self.width}×{self.height}"

    @classmethod
    def of(cls, array: np.ndarray) -> Size:
        return cls(int(array.shape[1]), int(array.shape[0]))


class Rect(NamedTuple):
    """An axis-aligned rectangle: top-left corner plus size, in pixels (right/bottom exclusive)."""

    x: int
    y: int
    width: int
    height: int

    @property
    def right(self) -> int:
        return self.x + self.width

    @property
    def bottom(self) -> int:
        return self.y + self.height

    @property
    def size(self) -> Size:
        return Size(self.width, self.height)

    def is_empty(self) -> bool:
        return self.width <= 0 or self.height <= 0

    def union(self, other: Rect | None) -> Rect:
        if other is None or other.is_empty():
            return self
        if self.is_empty():
            return other
        x0, y0 = min(self.x, other.x), min(self.y, other.y)
        x1, y1 = max(self.right, other.right), max(self.bottom, other.bottom)
        return Rect(x0, y0, x1 - x0, y1 - y0)

    def intersect(self, other: Rect) -> Rect:
        x0, y0 = max(self.x, other.x), max(self.y, other.y)
        x1, y1 = min(self.right, other.right), min(self.bottom, other.bottom)
        return Rect(x0, y0, max(0, x1 - x0), max(0, y1 - y0))

    def slices(self) -> tuple[slice, slice]:
        """Index an HxW(xC) array with `array[rect.slices()]`."""
        return slice(self.y, self.bottom), slice(self.x, self.right)

    def __str__(self) -> str:
        return f"{self.width}×{self.height} at ({self.x}, {self.y})"
