"""Pre-filling the area to repaint, so the original content there does not steer generation."""

from __future__ import annotations

from typing import Literal

import cv2
import numpy as np

FillMode = Literal["grey", "blur", "none"]
FILL_MODES: tuple[FillMode, ...] = ("grey", "blur", "none")
GREY_LEVEL = 128  # 50 % grey, the neutral start the user's notes found works best
_PULL_MIN_SIDE_PX = 4


def fill_masked(image: np.ndarray, mask: np.ndarray, mode: FillMode) -> np.ndarray:
    """Returns a copy of `image` (HxWx3 uint8) with the repaint area filled.

    `mask` is uint8; pixels with mask ≥ 128 are filled, all others are left bit-identical.
    grey: exactly 128 in every channel. blur: the surroundings smeared into the hole (a
    push-pull average, which stays smooth however large the hole is). none: unchanged.
    """
    out = image.copy()
    if mode == "none":
        return out
    hole = mask >= 128
    if mode == "grey":
        out[hole] = GREY_LEVEL
        return out
    if mode == "blur":
        box = _context_box(hole)
        if box is None:
            return out
        window = (slice(box[1], box[3]), slice(box[0], box[2]))
        smeared = _push_pull(image[window], ~hole[window])
        out[window][hole[window]] = smeared[hole[window]]
        return out
    raise ValueError(f"unknown fill mode {mode!r}")


def _context_box(hole: np.ndarray) -> tuple[int, int, int, int] | None:
    """The hole's bounding box grown by its own size on each side: enough surroundings to
    average from, without pushing the whole of a big photo through the pyramid."""
    rows, cols = np.flatnonzero(hole.any(axis=1)), np.flatnonzero(hole.any(axis=0))
    if rows.size == 0:
        return None
    x0, x1, y0, y1 = int(cols[0]), int(cols[-1]) + 1, int(rows[0]), int(rows[-1]) + 1
    margin = max(x1 - x0, y1 - y0, 16)
    height, width = hole.shape
    return (
        max(0, x0 - margin),
        max(0, y0 - margin),
        min(width, x1 + margin),
        min(height, y1 + margin),
    )


def _push_pull(image: np.ndarray, known: np.ndarray) -> np.ndarray:
    """Fills unknown pixels with a weighted average of known ones from ever coarser levels."""
    colour = image.astype(np.float32) * known[:, :, None]
    weight = known.astype(np.float32)
    levels: list[tuple[np.ndarray, np.ndarray]] = []
    while min(weight.shape) > _PULL_MIN_SIDE_PX:
        levels.append((colour, weight))
        colour, weight = cv2.pyrDown(colour), cv2.pyrDown(weight)
    # Coarsest level: anything still unknown takes the mean of everything known.
    total = float(weight.sum())
    mean = colour.reshape(-1, 3).sum(axis=0) / total if total > 0 else np.full(3, GREY_LEVEL)
    filled = np.where(
        weight[:, :, None] > 1e-6,
        colour / np.maximum(weight, 1e-6)[:, :, None],
        mean.astype(np.float32),
    )
    for colour, weight in reversed(levels):
        up = cv2.pyrUp(filled, dstsize=(weight.shape[1], weight.shape[0]))
        alpha = np.clip(weight, 0.0, 1.0)[:, :, None]
        own = colour / np.maximum(weight, 1e-6)[:, :, None]
        filled = own * alpha + up * (1.0 - alpha)
    return np.clip(np.rint(filled), 0, 255).astype(np.uint8)
