"""Pre-filling the area to repaint, so the original content there does not steer generation."""

from __future__ import annotations

from typing import Literal

import cv2
import numpy as np

from app.imaging.mask_ops import BINARY_THRESHOLD

FillMode = Literal["grey", "blur", "none", "telea", "ns", "border"]
FILL_MODES: tuple[FillMode, ...] = ("grey", "blur", "none", "telea", "ns", "border")
GREY_LEVEL = 128  # 50 % grey, the neutral start the user's notes found works best
INPAINT_RADIUS_PX = 3  # cv2.inpaint's neighbourhood (its documented default)
_PULL_MIN_SIDE_PX = 4
_INPAINT_FLAGS = {"telea": cv2.INPAINT_TELEA, "ns": cv2.INPAINT_NS}


def fill_masked(
    image: np.ndarray, mask: np.ndarray, mode: FillMode, *, in_place: bool = False
) -> np.ndarray:
    """Returns `image` (HxWx3 uint8) with the repaint area filled; a copy unless in_place.

    `mask` is uint8; pixels with mask ≥ 128 are filled, all others are left bit-identical.
    grey: exactly 128 in every channel. blur: the surroundings smeared into the hole (a
    push-pull average, which stays smooth however large the hole is). telea / ns: OpenCV's
    inpainting (Telea's fast marching, Navier-Stokes), which carries the edges' colours and
    lines inward. border: every hole pixel takes the colour of the nearest pixel outside the
    hole (edge extension). none: unchanged.
    """
    if mode not in FILL_MODES:
        raise ValueError(f"unknown fill mode {mode!r}")
    out = image if in_place else image.copy()
    if mode == "none":
        return out
    box = _hole_box(mask)
    if box is None:
        return out
    if mode == "grey":
        # Only the hole's bounding box is visited: a small edit of a big photo stays cheap.
        window = (slice(box[1], box[3]), slice(box[0], box[2]))
        target = out[window]
        grey = np.full(target.shape, GREY_LEVEL, np.uint8)
        hole = np.where(mask[window] >= BINARY_THRESHOLD, np.uint8(255), np.uint8(0))
        # cv2.copyTo writes through the strided view (numpy's masked copy is ~40× slower).
        cv2.copyTo(grey, hole, target)
        return out
    context = _grown(box, mask.shape)
    window = (slice(context[1], context[3]), slice(context[0], context[2]))
    hole = mask[window] >= BINARY_THRESHOLD
    if hole.all():
        # Nothing around the hole to take colours from (the whole picture is masked).
        out[window][hole] = GREY_LEVEL
        return out
    if mode == "blur":
        smeared = _push_pull(image[window], ~hole)
    elif mode == "border":
        smeared = _nearest_outside(image[window], hole)
    else:
        smeared = cv2.inpaint(
            np.ascontiguousarray(image[window]),
            np.where(hole, np.uint8(255), np.uint8(0)),
            INPAINT_RADIUS_PX,
            _INPAINT_FLAGS[mode],
        )
    out[window][hole] = smeared[hole]
    return out


def _nearest_outside(image: np.ndarray, hole: np.ndarray) -> np.ndarray:
    """Each hole pixel gets the colour of the nearest pixel outside the hole (L2)."""
    # distanceTransformWithLabels gives every pixel the label of its nearest zero pixel; the
    # zero pixels' labels count them in row-major order.
    outside = np.where(hole, np.uint8(1), np.uint8(0))
    _, labels = cv2.distanceTransformWithLabels(
        outside, cv2.DIST_L2, cv2.DIST_MASK_PRECISE, labelType=cv2.DIST_LABEL_PIXEL
    )
    sources = image[~hole]  # row-major, label 1 first
    return sources[labels - 1].reshape(image.shape)


def _hole_box(mask: np.ndarray) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1) of the pixels to fill, or None."""
    # Row maxima first (cheap), then only the band of rows that holds the hole.
    rows = np.flatnonzero(mask.max(axis=1) >= BINARY_THRESHOLD)
    if rows.size == 0:
        return None
    band = mask[rows[0] : rows[-1] + 1]
    cols = np.flatnonzero(band.max(axis=0) >= BINARY_THRESHOLD)
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


def _grown(box: tuple[int, int, int, int], shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """The hole's box grown by its own size on each side: enough surroundings to average from,
    without pushing the whole of a big photo through the pyramid."""
    x0, y0, x1, y1 = box
    margin = max(x1 - x0, y1 - y0, 16)
    height, width = shape[:2]
    return (
        max(0, x0 - margin),
        max(0, y0 - margin),
        min(width, x1 + margin),
        min(height, y1 + margin),
    )


def _push_pull(image: np.ndarray, known: np.ndarray) -> np.ndarray:
    """Fills unknown pixels with a weighted average of known ones from ever coarser levels."""
    filled = push_pull(image.astype(np.float32) * known[:, :, None], known)
    return np.clip(np.rint(filled), 0, 255).astype(np.uint8)


def push_pull(values: np.ndarray, known: np.ndarray) -> np.ndarray:
    """float32 HxWx3: `values` (zero where unknown) where `known`, elsewhere a weighted average
    of the known values from ever coarser levels (smooth however large the unknown area)."""
    colour: np.ndarray = values.astype(np.float32)
    weight: np.ndarray = known.astype(np.float32)
    levels: list[tuple[np.ndarray, np.ndarray]] = []
    while min(weight.shape) > _PULL_MIN_SIDE_PX:
        levels.append((colour, weight))
        colour, weight = cv2.pyrDown(colour), cv2.pyrDown(weight)
    # Coarsest level: anything still unknown takes the mean of everything known.
    total = float(weight.sum())
    mean = colour.reshape(-1, 3).sum(axis=0) / total if total > 0 else np.zeros(3)
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
    return filled.astype(np.float32)
