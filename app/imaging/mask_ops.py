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


# A round structuring element costs more the larger it is (cv2 visits every kernel point:
# 8 s for 64 px on 4096², minutes for the UI's 512). Above this radius binary masks use an
# exact Euclidean distance transform, whose cost does not depend on the radius, and soft masks
# are dilated on a grid of blocks (max-pooled, so the disc there is at most 16 px) and
# interpolated back: the edge lands within about one block (px / 16) of the exact position.
_DIRECT_MAX_PX = 8
_POOLED_RADIUS_PX = 16
_BLUR_COARSE_PX = 16


def _ellipse(radius_px: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius_px + 1, 2 * radius_px + 1))


def _around(mask: np.ndarray, margin: int) -> Rect | None:
    """The non-zero box grown by `margin`, clamped: outside it an operation has nothing to do."""
    box = bounding_box(mask)
    if box is None:
        return None
    height, width = mask.shape[:2]
    grown = Rect(box.x - margin, box.y - margin, box.width + 2 * margin, box.height + 2 * margin)
    return grown.intersect(Rect(0, 0, width, height))


def _is_binary(mask: np.ndarray) -> bool:
    return not np.any((mask != 0) & (mask != _full(mask)))


def _dilate_soft(part: np.ndarray, px: int) -> np.ndarray:
    """Grey dilation by a disc of radius px; exact up to _DIRECT_MAX_PX, pooled beyond."""
    if px <= _DIRECT_MAX_PX:
        return cv2.dilate(part, _ellipse(px))
    block = max(2, -(-px // _POOLED_RADIUS_PX))
    height, width = part.shape
    padded = np.zeros((-(-height // block) * block, -(-width // block) * block), part.dtype)
    padded[:height, :width] = part
    pooled = padded.reshape(padded.shape[0] // block, block, -1, block).max(axis=(1, 3))
    coarse = cv2.dilate(pooled, _ellipse(max(1, round(px / block))))
    fine = cv2.resize(coarse, (padded.shape[1], padded.shape[0]), interpolation=cv2.INTER_LINEAR)
    return np.maximum(part, fine[:height, :width])


def grow(mask: np.ndarray, px: int) -> np.ndarray:
    """Dilates by `px` pixels with a round kernel (the edge moves outward by px).

    Exact for binary masks and for px ≤ 8; soft masks grown further are approximate (see
    _DIRECT_MAX_PX) so that even 512 px takes well under a second.
    """
    px = int(px)
    window = _around(mask, px + 1) if px > 0 else None
    out = mask.copy()
    if window is None:
        return out
    part = mask[window.slices()]
    if px > _DIRECT_MAX_PX and _is_binary(part):
        empty = np.where(part == 0, np.uint8(1), np.uint8(0))
        reach = cv2.distanceTransform(empty, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
        out[window.slices()] = np.where(reach <= px, _full(mask), 0).astype(mask.dtype)
    else:
        out[window.slices()] = _dilate_soft(part, px)
    return out


def shrink(mask: np.ndarray, px: int) -> np.ndarray:
    """Erodes by `px` pixels with a round kernel; the picture's border does not eat the mask.

    Exact for binary masks and for px ≤ 8; approximate beyond for soft masks, like `grow`.
    """
    px = int(px)
    # One pixel of margin keeps the ring of keep-pixels around the mask inside the window.
    window = _around(mask, 1) if px > 0 else None
    out = mask.copy()
    if window is None:
        return out
    part = mask[window.slices()]
    if px > _DIRECT_MAX_PX and _is_binary(part):
        inside = np.where(part != 0, np.uint8(1), np.uint8(0))
        depth = cv2.distanceTransform(inside, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
        out[window.slices()] = np.where(depth > px, _full(mask), 0).astype(mask.dtype)
    elif px <= _DIRECT_MAX_PX:
        out[window.slices()] = cv2.erode(part, _ellipse(px))
    else:
        # Erosion is the dilation of the complement; the image border stays "inside".
        out[window.slices()] = invert(_dilate_soft(invert(part), px))
    return out


def blur(mask: np.ndarray, px: int) -> np.ndarray:
    """Gaussian blur whose kernel reaches `px` pixels each side (σ = px / 3).

    Pixels farther than px from any repaint pixel stay exactly 0. Blurs wider than 32 px
    (cost grows with the width) run on a picture shrunk so the kernel is 16 px, then scaled
    back: indistinguishable for a blur that wide, and its reach may exceed px by ~px / 16.
    """
    px = int(px)
    window = _around(mask, px) if px > 0 else None
    out = mask.copy()
    if window is None:
        return out
    part = mask[window.slices()]
    height, width = part.shape
    factor = 1 if px <= 2 * _BLUR_COARSE_PX else px / _BLUR_COARSE_PX
    if factor == 1:
        size = 2 * px + 1
        out[window.slices()] = cv2.GaussianBlur(
            part, (size, size), sigmaX=px / 3.0, borderType=cv2.BORDER_REPLICATE
        )
        return out
    small_size = (max(1, round(width / factor)), max(1, round(height / factor)))
    small = cv2.resize(part, small_size, interpolation=cv2.INTER_AREA)
    size = 2 * _BLUR_COARSE_PX + 1
    small = cv2.GaussianBlur(
        small, (size, size), sigmaX=_BLUR_COARSE_PX / 3.0, borderType=cv2.BORDER_REPLICATE
    )
    out[window.slices()] = cv2.resize(small, (width, height), interpolation=cv2.INTER_LINEAR)
    return out


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


def engine_cells(mask: np.ndarray, cell_px: int = 16) -> np.ndarray:
    """What the engine repaints: uint8 0/255 of the same size, 255 on every `cell_px` cell
    that holds any repaint pixel (≥ 50 %). The engine rounds the mask to 0/1 and shrinks it to
    one value per 16-px latent cell by maximum (sdcpp-facts.md, "Mask"), so the soft edge is
    lost there and comes back only in the composite. A partial cell at the right or bottom
    edge counts like a whole one."""
    height, width = mask.shape
    rows, cols = -(-height // cell_px), -(-width // cell_px)
    padded = np.zeros((rows * cell_px, cols * cell_px), np.uint8)
    padded[:height, :width] = binarise(mask)
    cells = padded.reshape(rows, cell_px, cols, cell_px).max(axis=(1, 3))
    full = np.repeat(np.repeat(cells, cell_px, axis=0), cell_px, axis=1)[:height, :width]
    return np.where(full > 0, np.uint8(255), np.uint8(0))
