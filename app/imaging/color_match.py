"""Matching a generated picture's colour to the photo around the mask, at composite time.

klein's inpaints drift in colour and brightness against their surroundings, over the whole
16-px cells the engine repaints. Between the mask and the cells' edge the generated picture was
meant to be the photo again, so there the photo is the truth: the drift is read from those
pixels only (the "ring": unmasked, inside the repainted cells, within RING_REACH_PX of the mask),
and only where the generated picture still has the photo's local structure, with robust
statistics and a confidence that fades the correction out when too little trustworthy ring is
left (drift.py). New content that reached past the mask (the engine repaints whole cells, so a
new object often does) reads as content there, not as drift, and keeps its colour. The drift is
a shift in CIE LAB, taken out (scaled by the strength and the confidence) of the generated
pixels inside the repainted cells; outside them the engine returned the photo, undrifted.

The optional seam blend (seam.py) then closes what difference is left at the edge of the
blended area, with the matched picture's gradients as the guide and the photo as the boundary,
trusted as the drift reading trusts it, so both together keep what colour match alone keeps.

Neither step touches a pixel whose composite weight is 0: those stay the photo's, bit for bit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from app.imaging.drift import (
    NO_DRIFT,
    SEAM_SCALE,
    Drift,
    estimate_drift,
    size_trust,
    structure_trust,
)
from app.imaging.geometry import Rect, Size
from app.imaging.mask_ops import BINARY_THRESHOLD, bounding_box

log = logging.getLogger(__name__)

ColorMatchMode = Literal["off", "on"]
SeamBlend = Literal["off", "poisson"]
COLOR_MATCH_MODES: tuple[ColorMatchMode, ...] = ("off", "on")
SEAM_BLENDS: tuple[SeamBlend, ...] = ("off", "poisson")
RING_MIN_PX = 8  # the ring's width on a small picture (≤ 512 px on its long side)
RING_MAX_PX = 16  # ... and from 1024 px up
RING_SCALE = 64  # long side / RING_SCALE between the two
RING_REACH_PX = 24  # with the repainted cells known: the ring is the cells' part this near
MIN_RING_PIXELS = 16  # fewer: no statistics worth trusting, the colours are left alone

NOTE_EMPTY_RING = "colour match skipped: no unmasked pixels around the mask to match"
NOTE_TINY_RING = "colour match skipped: only {n} unmasked pixels around the mask"


@dataclass(frozen=True)
class BlendOptions:
    """How the generated picture is fitted to the photo before the soft blend."""

    color_match: ColorMatchMode = "on"
    strength: float = 1.0  # 0: as generated, 1: fully matched
    seam_blend: SeamBlend = "off"

    @property
    def matches(self) -> bool:
        return self.color_match == "on" and self.strength > 0.0


PLAIN = BlendOptions(color_match="off", seam_blend="off")


def ring_width_px(size: Size) -> int:
    """The ring's width for a photo of this size: 8 px up to 512 px, 16 px from 1024 px."""
    return int(np.clip(round(max(size) / RING_SCALE), RING_MIN_PX, RING_MAX_PX))


def ring_pixels(
    binary_mask: np.ndarray, width_px: int, within: Rect, repainted: np.ndarray | None = None
) -> tuple[np.ndarray, ...]:
    """(rows, cols) in the mask's frame of the unmasked pixels at most width_px from the mask
    (L2), inside `within` (where the generated picture has pixels) and, given `repainted`
    (bool, the mask's frame), where the engine repainted."""
    box = bounding_box(binary_mask >= BINARY_THRESHOLD)
    if box is None or width_px <= 0:
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    height, width = binary_mask.shape
    reach = width_px + 1
    window = Rect(box.x - reach, box.y - reach, box.width + 2 * reach, box.height + 2 * reach)
    window = window.intersect(Rect(0, 0, width, height)).intersect(within)
    if window.is_empty():
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    # The distance is to mask pixels of the window only; one outside it but nearer than
    # width_px lies outside `within`, where the ring has no generated pixels anyway. A
    # pixel beside such a one may be counted a little farther than it is: harmless.
    on = binary_mask[window.slices()] >= BINARY_THRESHOLD
    distance = cv2.distanceTransform(
        np.where(on, np.uint8(0), np.uint8(1)), cv2.DIST_L2, cv2.DIST_MASK_PRECISE
    )
    if not on.any():
        return np.zeros(0, np.intp), np.zeros(0, np.intp)
    rows, cols = np.nonzero((~on) & (distance <= width_px))
    rows, cols = rows + window.y, cols + window.x
    if repainted is not None:
        inside = repainted[rows, cols]
        rows, cols = rows[inside], cols[inside]
    return rows, cols


# CIE LAB of sRGB (D65), computed here: OpenCV's float LAB builds its tables on first use
# (0.13 s of CPU, over a second of wall time on a loaded machine; the composite of every run
# paid it once per process) and interpolates (up to 0.4 units off). These are the exact
# formulas, cheap on the few pixels a ring and a mask have; a uint8 colour round-trips.
_LAB_T = 0.008856  # (6/29)^3: below it f(t) and L are linear
_RGB_TO_XYZ = np.array(
    [[0.412453, 0.357580, 0.180423], [0.212671, 0.715160, 0.072169],
     [0.019334, 0.119193, 0.950227]]
)  # fmt: skip
_WHITE = np.array([0.950456, 1.0, 1.088754])  # D65
_XYZ_TO_RGB = np.linalg.inv(_RGB_TO_XYZ)
_LEVELS = np.arange(256) / 255.0
_SRGB_LINEAR = (
    np.where(_LEVELS <= 0.04045, _LEVELS / 12.92, ((_LEVELS + 0.055) / 1.055) ** 2.4)[:, None, None]
    * (_RGB_TO_XYZ.T / _WHITE)[None]
)  # [level, channel]: that channel's share of X/Xn, Y/Yn, Z/Zn


def _lab_f(t: np.ndarray) -> np.ndarray:
    return np.where(t > _LAB_T, np.cbrt(t), 7.787 * t + 16.0 / 116.0)


def _lab_f_inverse(f: np.ndarray) -> np.ndarray:
    return np.where(f > 0.206893, f**3, (f - 16.0 / 116.0) / 7.787)


def to_lab(rgb: np.ndarray) -> np.ndarray:
    """float32 CIE LAB (L 0..100) of uint8 sRGB pixels (any leading shape, 3 channels last)."""
    flat = np.asarray(rgb, np.uint8).reshape(-1, 3)
    xyz = _SRGB_LINEAR[flat[:, 0], 0] + _SRGB_LINEAR[flat[:, 1], 1] + _SRGB_LINEAR[flat[:, 2], 2]
    f = _lab_f(xyz)
    y = xyz[:, 1]
    lab = np.empty_like(xyz)
    lab[:, 0] = np.where(y > _LAB_T, 116.0 * f[:, 1] - 16.0, 903.3 * y)
    lab[:, 1] = 500.0 * (f[:, 0] - f[:, 1])
    lab[:, 2] = 200.0 * (f[:, 1] - f[:, 2])
    return lab.astype(np.float32).reshape(rgb.shape)


def to_rgb(lab: np.ndarray) -> np.ndarray:
    """uint8 sRGB of float32 LAB pixels (clipped to the gamut's box)."""
    flat = lab.reshape(-1, 3).astype(np.float64)
    light = flat[:, 0]
    dark = light <= 8.0
    y = np.where(dark, light / 903.3, ((light + 16.0) / 116.0) ** 3)
    fy = np.where(dark, 7.787 * y + 16.0 / 116.0, (light + 16.0) / 116.0)
    xyz = np.stack(
        [_lab_f_inverse(flat[:, 1] / 500.0 + fy), y, _lab_f_inverse(fy - flat[:, 2] / 200.0)], -1
    )
    linear = (xyz * _WHITE) @ _XYZ_TO_RGB.T
    rgb = np.where(linear <= 0.0031308, 12.92 * linear, 1.055 * np.abs(linear) ** (1 / 2.4) - 0.055)
    return np.clip(np.rint(rgb * 255.0), 0, 255).astype(np.uint8).reshape(lab.shape)


@dataclass(frozen=True)
class Fitted:
    """A generated window after colour match: the pixels, the drift taken out, and how far the
    photo is trusted as the truth at each pixel (for the seam blend's boundary)."""

    pixels: np.ndarray
    drift: Drift
    trust: np.ndarray


class ColorMatcher:
    """The ring of one compositor and the photo around it, built once; `fit` then reads the
    drift of one generated picture and takes it out of the `window` the composite blends.

    `at` is where the generated picture sits in the photo, `window` the rectangle of it that
    is blended (both in the photo's frame); `repainted` (bool, the photo's frame; None: not
    known) is where the engine repainted: the ring lies inside it and so does the correction.
    strength 0 reads the trust (for the seam blend) and corrects nothing."""

    def __init__(
        self,
        original: np.ndarray,
        binary_mask: np.ndarray,
        at: Rect,
        window: Rect,
        strength: float,
        repainted: np.ndarray | None = None,
    ) -> None:
        self.strength = float(np.clip(strength, 0.0, 1.0))
        if repainted is None:
            self.width_px = ring_width_px(Size.of(original))
        else:
            self.width_px = RING_REACH_PX
        rows, cols = ring_pixels(binary_mask, self.width_px, at, repainted)
        self.count = int(rows.size)
        self.note: str | None = None
        if self.count == 0:
            self.note = NOTE_EMPTY_RING
        elif self.count < MIN_RING_PIXELS:
            self.note = NOTE_TINY_RING.format(n=self.count)
        if self.note is not None:
            log.info("%s", self.note)
        # One window holds the ring and the blended pixels (the photo's frame).
        span = window
        if self.count:
            ring_box = Rect(
                int(cols.min()), int(rows.min()),
                int(cols.max() - cols.min() + 1), int(rows.max() - rows.min() + 1),
            )  # fmt: skip
            span = window.union(ring_box)
        self.span = span.intersect(at)
        self.window, self.at = window, at
        self._photo_lab = to_lab(original[self.span.slices()])
        self._ring = (rows - self.span.y, cols - self.span.x)
        self._fix_where: np.ndarray | None = None
        if repainted is not None:
            self._fix_where = repainted[window.slices()]
        self.last: Drift = NO_DRIFT

    @property
    def active(self) -> bool:
        return self.note is None

    def fit(self, placed: np.ndarray) -> Fitted:
        """The generated pixels of `window` (`placed` is the picture at `at`), matched."""
        span = self.span
        in_placed = Rect(span.x - self.at.x, span.y - self.at.y, span.width, span.height)
        generated_lab = to_lab(placed[in_placed.slices()])
        trust = structure_trust(generated_lab, self._photo_lab)
        drift = NO_DRIFT
        if self.active and self.strength > 0.0:
            rows, cols = self._ring
            difference = generated_lab[rows, cols] - self._photo_lab[rows, cols]
            drift = estimate_drift(difference, trust[rows, cols])
        self.last = drift
        w = self.window
        inside = Rect(w.x - span.x, w.y - span.y, w.width, w.height)
        lab = generated_lab[inside.slices()]
        correction = drift.correction * np.float32(self.strength)
        if np.abs(correction).max() > 0.0:
            shift = np.broadcast_to(correction, lab.shape)
            if self._fix_where is not None:
                shift = shift * self._fix_where[:, :, None]
            lab = lab + shift
            pixels = to_rgb(lab)
        else:
            pixels = placed[Rect(w.x - self.at.x, w.y - self.at.y, w.width, w.height).slices()]
            pixels = pixels.copy()
        # How far the photo is the truth beside each pixel: the structure agrees and what is
        # left of the difference is drift-sized, not new content.
        left = lab - self._photo_lab[inside.slices()]
        boundary = trust[inside.slices()] * size_trust(left, SEAM_SCALE)
        return Fitted(pixels, drift, boundary.astype(np.float32))
