"""Brush dabs for painting masks: precomputed kernels, stamping, and stroke interpolation.

The painting mask is float32 HxW in 0..1 (1 = repaint). A stroke is drawn as

    kernel = dab_kernel(diameter_px, hardness)
    for x, y in stroke_points(previous, current, dab_spacing_px(diameter_px), include_start=False):
        dirty = dirty.union(stamp_dab(mask, x, y, kernel, opacity, erase) or dirty)

and only `dirty` needs repainting (and saving for undo).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from app.imaging.geometry import Rect

MAX_DIAMETER_PX = 2048
# Spacing between dabs as a fraction of the diameter: small enough that a soft brush's
# overlapping dabs read as a smooth line, large enough that a 500-px brush stays cheap.
DAB_SPACING_FRACTION = 0.15
_HARDNESS_STEPS = 100  # kernels are cached per 1 % of hardness


def dab_kernel(diameter_px: int, hardness: float) -> np.ndarray:
    """A read-only float32 diameter×diameter dab, 1 at the centre, 0 outside the circle.

    hardness 1: a hard disc, exactly the pixels whose centres lie within diameter/2 of the dab
    centre. Lower hardness keeps a solid core of radius hardness×r and falls off smoothly
    (smoothstep) to 0 at r, never increasing away from the centre. Cached (LRU).
    """
    diameter = int(min(max(1, round(diameter_px)), MAX_DIAMETER_PX))
    steps = int(round(min(max(float(hardness), 0.0), 1.0) * _HARDNESS_STEPS))
    return _kernel(diameter, steps)


@lru_cache(maxsize=64)
def _kernel(diameter: int, hardness_steps: int) -> np.ndarray:
    radius = diameter / 2.0
    # Pixel i covers [i, i+1); the dab centre sits at diameter/2 in both axes.
    offsets = np.arange(diameter, dtype=np.float64) + 0.5 - radius
    distance = np.sqrt(offsets[None, :] ** 2 + offsets[:, None] ** 2)
    if hardness_steps >= _HARDNESS_STEPS:
        kernel = (distance <= radius).astype(np.float32)
    else:
        core = radius * hardness_steps / _HARDNESS_STEPS
        t = np.clip((distance - core) / (radius - core), 0.0, 1.0)
        kernel = (1.0 - t * t * (3.0 - 2.0 * t)).astype(np.float32)
        kernel[distance > radius] = 0.0
    kernel.setflags(write=False)
    return kernel


def dab_spacing_px(diameter_px: float, fraction: float = DAB_SPACING_FRACTION) -> float:
    """The distance between dab centres along a stroke for a brush of this diameter."""
    return max(1.0, float(diameter_px) * fraction)


def dab_box(cx: float, cy: float, kernel: np.ndarray) -> Rect:
    """The box a dab centred on (cx, cy) covers, before clipping to the mask."""
    size = kernel.shape[0]
    # The kernel's centre sits at size/2; snap it to the nearest pixel corner or centre.
    return Rect(
        int(math.floor(cx - size / 2.0 + 0.5)), int(math.floor(cy - size / 2.0 + 0.5)), size, size
    )


def stamp_dab(
    mask: np.ndarray,
    cx: float,
    cy: float,
    kernel: np.ndarray,
    opacity: float = 1.0,
    erase: bool = False,
) -> Rect | None:
    """Stamps one dab centred on (cx, cy) into `mask` (float32 HxW, 0..1) in place.

    Painting raises each pixel to at least kernel×opacity (max), erasing lowers it to at most
    1 − kernel×opacity (min); either way overlapping dabs of one stroke do not build up beyond
    the opacity. Only the dab's box is touched. Kernels are treated as immutable (those from
    dab_kernel are read-only): the scaled dab of the last call is reused. Returns the box
    clipped to the mask, or None when the dab lies entirely outside.
    """
    full = dab_box(cx, cy, kernel)
    x0, y0 = full.x, full.y
    height, width = mask.shape[:2]
    box = full.intersect(Rect(0, 0, width, height))
    if box.is_empty() or opacity <= 0.0:
        return None
    dab = _effective_dab(kernel, float(opacity), erase)
    dab = dab[box.y - y0 : box.bottom - y0, box.x - x0 : box.right - x0]
    target = mask[box.slices()]
    if erase:
        np.minimum(target, dab, out=target)
    else:
        np.maximum(target, dab, out=target)
    return box


# The last (kernel, opacity, erase) → ready-to-apply dab. A stroke stamps the same dab hundreds
# of times; scaling it per stamp would allocate a fresh buffer (up to 16 MB, page faults and
# all) every time, which is most of the cost of a large dab.
_last_dab: tuple[np.ndarray, float, bool, np.ndarray] | None = None


def _effective_dab(kernel: np.ndarray, opacity: float, erase: bool) -> np.ndarray:
    global _last_dab
    cached = _last_dab
    if cached is not None and cached[0] is kernel and cached[1] == opacity and cached[2] == erase:
        return cached[3]
    dab = kernel * np.float32(min(opacity, 1.0)) if opacity < 1.0 else kernel
    if erase:
        dab = np.float32(1.0) - dab
    dab = np.ascontiguousarray(dab, dtype=np.float32)
    _last_dab = (kernel, opacity, erase, dab)
    return dab


def stroke_points(
    p0: tuple[float, float],
    p1: tuple[float, float],
    spacing: float,
    include_start: bool = True,
) -> list[tuple[float, float]]:
    """Evenly spaced dab centres from p0 to p1, ending exactly on p1.

    The step is the largest that fits the segment in whole steps without exceeding `spacing`,
    so however fast the pointer moves the gaps never exceed `spacing`. Pass include_start=False
    for every segment after the first of a stroke, so the joint is not stamped twice.
    """
    spacing = max(float(spacing), 0.25)
    dx, dy = p1[0] - p0[0], p1[1] - p0[1]
    steps = max(1, math.ceil(math.hypot(dx, dy) / spacing))
    first = 0 if include_start else 1
    if math.hypot(dx, dy) == 0.0:
        return [(float(p0[0]), float(p0[1]))] if include_start else []
    return [(p0[0] + dx * i / steps, p0[1] + dy * i / steps) for i in range(first, steps + 1)]


def stamp_stroke(
    mask: np.ndarray,
    points: list[tuple[float, float]],
    kernel: np.ndarray,
    opacity: float = 1.0,
    erase: bool = False,
) -> Rect | None:
    """Stamps a dab at every point; returns the union of the dirty boxes (None if none)."""
    dirty: Rect | None = None
    for x, y in points:
        box = stamp_dab(mask, x, y, kernel, opacity, erase)
        if box is not None:
            dirty = box if dirty is None else dirty.union(box)
    return dirty
