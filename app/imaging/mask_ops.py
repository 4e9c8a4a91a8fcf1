"""Whole-mask operations: clear, fill, invert, grow, shrink, blur, polygon fill, binarise, bounds.

Masks are HxW, either uint8 (0..255) or float32 (0..1); 'full' is 255 or 1.0 accordingly.
Every function returns a new array and leaves its input alone, so callers can keep the old one
for undo.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from app.imaging.geometry import Rect

BINARY_THRESHOLD = 128  # uint8 masks: ≥ 128 repaints (the engine rounds to 0/1 the same way)


def _full(mask: np.ndarray) -> float | int:
    return 255 if mask.dtype == np.uint8 else 1.0


def clear(mask: np.ndarray) -> np.ndarray:
    """An all-keep mask of the same shape and type."""
    return np.zeros_like(mask)


def fill(mask: np.ndarray, value: float | None = None) -> np.ndarray:
    """A mask of the same shape and type set to `value` everywhere (default: full, repaint all)."""
    return np.full_like(mask, _full(mask) if value is None else value)


def invert(mask: np.ndarray) -> np.ndarray:
    """Repaint becomes keep and keep becomes repaint (soft values mirror)."""
    return (255 - mask) if mask.dtype == np.uint8 else (np.float32(1.0) - mask)


def _ellipse(radius_px: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius_px + 1, 2 * radius_px + 1))


def grow(mask: np.ndarray, px: int) -> np.ndarray:
    """Dilates by `px` pixels with a round kernel (the edge moves outward by px)."""
    if px <= 0:
        return mask.copy()
    return cv2.dilate(mask, _ellipse(int(px)))


def shrink(mask: np.ndarray, px: int) -> np.ndarray:
    """Erodes by `px` pixels with a round kernel; the picture's border does not eat the mask."""
    if px <= 0:
        return mask.copy()
    return cv2.erode(mask, _ellipse(int(px)))


def blur(mask: np.ndarray, px: int) -> np.ndarray:
    """Gaussian blur whose kernel reaches `px` pixels each side (σ = px / 3).

    Pixels farther than px from any repaint pixel stay exactly 0.
    """
    if px <= 0:
        return mask.copy()
    size = 2 * int(px) + 1
    return cv2.GaussianBlur(mask, (size, size), sigmaX=px / 3.0, borderType=cv2.BORDER_REPLICATE)


def fill_polygon(
    mask: np.ndarray,
    points: Sequence[tuple[float, float]],
    value: float | None = None,
    antialias: bool = False,
) -> np.ndarray:
    """Fills a closed polygon (a lasso) with `value` (default: full); returns the new mask.

    Points are (x, y) pixel coordinates (pixel i covers [i, i+1), its centre is i + 0.5).
    Pixels inside the outline and the pixels the outline passes through are filled. With
    antialias the edge pixels get partial coverage (blended towards `value`) instead.
    """
    out = mask.copy()
    if len(points) < 3:
        return out
    value = _full(mask) if value is None else value
    # cv2 works on pixel centres and integer coordinates; 4 fractional bits keep sub-pixel
    # precision of the lasso.
    shift = 4
    scaled = np.round((np.asarray(points, dtype=np.float64) - 0.5) * (1 << shift)).astype(np.int32)
    if not antialias:
        cv2.fillPoly(out, [scaled], value, lineType=cv2.LINE_8, shift=shift)
        return out
    coverage = np.zeros(mask.shape[:2], dtype=np.uint8)
    cv2.fillPoly(coverage, [scaled], 255, lineType=cv2.LINE_AA, shift=shift)
    alpha = coverage.astype(np.float32) / 255.0
    blended = out.astype(np.float32) * (1.0 - alpha) + np.float32(value) * alpha
    if mask.dtype == np.uint8:
        return np.clip(np.rint(blended), 0, 255).astype(np.uint8)
    return blended.astype(mask.dtype)


def binarise(mask: np.ndarray, threshold: float | None = None) -> np.ndarray:
    """uint8 0/255: 255 where mask ≥ threshold (default 128 for uint8, 0.5 for float)."""
    if threshold is None:
        threshold = BINARY_THRESHOLD if mask.dtype == np.uint8 else 0.5
    if mask.dtype == np.uint8 and 1 <= threshold <= 255:
        # cv2 is several times faster than numpy here; "> t - 1" is "≥ t" for integers.
        return cv2.threshold(mask, int(threshold) - 1, 255, cv2.THRESH_BINARY)[1]
    return np.where(mask >= threshold, np.uint8(255), np.uint8(0))


def bounding_box(mask: np.ndarray) -> Rect | None:
    """The smallest rectangle holding every non-zero pixel, or None for an empty mask."""
    rows = np.flatnonzero(mask.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(mask.any(axis=0))
    return Rect(
        int(cols[0]), int(rows[0]), int(cols[-1] - cols[0] + 1), int(rows[-1] - rows[0] + 1)
    )


def is_empty(mask: np.ndarray) -> bool:
    """True when no pixel asks for repainting."""
    return not mask.any()
