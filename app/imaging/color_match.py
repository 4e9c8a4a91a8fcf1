"""Matching a generated picture's colour to the photo around the mask, at composite time.

klein's inpaints drift in colour and brightness against their surroundings. Around the mask
there is a ring of pixels that the user did not mark: there the photo is the truth, and the
generated picture should agree with it. The ring's statistics in CIE LAB (mean and standard
deviation per channel) measured on both pictures give a per-channel affine map,

    x' = (x - mean_generated) * clip(std_photo / std_generated) + mean_photo,

which is applied (scaled by the strength) to the generated pixels that the soft mask blends in.
Measuring the generated picture in the same ring, instead of its masked area, is what keeps
the content the user asked for: a red object painted into a green field stays red, only the
model's drift is taken out; an undrifted picture maps onto itself.

The optional seam blend is gradient-domain (Poisson): the generated pixels keep their
gradients and get a smooth (harmonic) correction that makes them equal the photo just outside
the blended area, so no step is left for the feather to smear. The membrane is started from a
push-pull interpolation of the boundary difference and relaxed with over-relaxed Gauss-Seidel
sweeps (no solver library needed).

Neither step touches a pixel whose composite weight is 0: those stay the photo's, bit for bit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from app.imaging.fill import push_pull
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
MIN_RING_PIXELS = 16  # fewer: no statistics worth trusting, the colours are left alone
MIN_SPREAD_PIXELS = 64  # fewer: the mean is matched, the spread is not
SPREAD_LIMITS = (0.5, 2.0)  # the spread is never scaled beyond these (a flat ring is noise)
SPREAD_FLOOR = 0.5  # LAB units: a channel flatter than this keeps its spread
SEAM_SWEEPS = 120  # Gauss-Seidel sweeps after the push-pull start
SEAM_OMEGA = 1.8

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


def ring_pixels(binary_mask: np.ndarray, width_px: int, within: Rect) -> tuple[np.ndarray, ...]:
    """(rows, cols) in the mask's frame of the unmasked pixels at most width_px from the mask
    (L2) and inside `within` (where the generated picture has pixels)."""
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
    return rows + window.y, cols + window.x


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
class LabMap:
    """x' = (x - shift_from) * scale + shift_to per LAB channel, at a strength."""

    mean_from: np.ndarray
    mean_to: np.ndarray
    scale: np.ndarray
    strength: float

    def apply(self, lab: np.ndarray) -> np.ndarray:
        target = (lab - self.mean_from) * self.scale + self.mean_to
        if self.strength >= 1.0:
            return target.astype(np.float32)
        return (lab + (target - lab) * np.float32(self.strength)).astype(np.float32)


def lab_map(generated_ring: np.ndarray, photo_ring: np.ndarray, strength: float) -> LabMap:
    """The map that gives the generated ring pixels (Nx3 LAB) the photo's ring statistics."""
    mean_from = generated_ring.mean(axis=0)
    mean_to = photo_ring.mean(axis=0)
    scale = np.ones(3, np.float32)
    if len(generated_ring) >= MIN_SPREAD_PIXELS:
        std_from, std_to = generated_ring.std(axis=0), photo_ring.std(axis=0)
        flat = (std_from < SPREAD_FLOOR) | (std_to < SPREAD_FLOOR)
        ratio = std_to / np.maximum(std_from, SPREAD_FLOOR)
        scale = np.where(flat, 1.0, np.clip(ratio, *SPREAD_LIMITS)).astype(np.float32)
    return LabMap(
        mean_from.astype(np.float32),
        mean_to.astype(np.float32),
        scale,
        float(np.clip(strength, 0.0, 1.0)),
    )


class ColorMatcher:
    """The ring of one compositor: where it lies and the photo's colours there, built once;
    `match` then costs a LAB conversion of the ring and of the blended window per picture."""

    def __init__(
        self, original: np.ndarray, binary_mask: np.ndarray, at: Rect, strength: float
    ) -> None:
        self.strength = strength
        self.width_px = ring_width_px(Size.of(original))
        rows, cols = ring_pixels(binary_mask, self.width_px, at)
        self.count = int(rows.size)
        self.note: str | None = None
        if self.count == 0:
            self.note = NOTE_EMPTY_RING
        elif self.count < MIN_RING_PIXELS:
            self.note = NOTE_TINY_RING.format(n=self.count)
        if self.note is not None:
            log.info("%s", self.note)
            return
        # Ring positions in the generated picture's frame (`at`), and the photo's colours.
        self._rows, self._cols = rows - at.y, cols - at.x
        self._photo_ring = to_lab(original[rows, cols])

    @property
    def active(self) -> bool:
        return self.note is None

    def map_for(self, placed: np.ndarray) -> LabMap | None:
        """The map for a generated picture placed at `at` (None: nothing to match)."""
        if not self.active:
            return None
        generated_ring = to_lab(placed[self._rows, self._cols])
        return lab_map(generated_ring, self._photo_ring, self.strength)

    def match(self, placed: np.ndarray, window: Rect) -> np.ndarray:
        """The generated pixels of `window` (in `at`'s frame), colour-matched (uint8)."""
        pixels = placed[window.slices()]
        found = self.map_for(placed)
        if found is None:
            return pixels.copy()
        return to_rgb(found.apply(to_lab(pixels)))


def seam_blend(generated: np.ndarray, photo: np.ndarray, domain: np.ndarray) -> np.ndarray:
    """`generated` (HxWx3 uint8) with a harmonic correction inside `domain` (bool HxW) that
    makes it meet `photo` at the pixels outside the domain; those pixels and the generated
    gradients inside are the boundary data and the guidance of the Poisson equation. Pixels
    outside the domain come back as the photo's. Box edges without an outside pixel are free
    (Neumann)."""
    known = ~domain
    if not known.any() or not domain.any():
        return generated.copy()
    difference = photo.astype(np.float32) - generated.astype(np.float32)
    correction = push_pull(difference * known[:, :, None], known)
    correction[known] = difference[known]
    correction = _relax(correction, domain, SEAM_SWEEPS)
    out = generated.astype(np.float32) + correction
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def _relax(values: np.ndarray, free: np.ndarray, sweeps: int) -> np.ndarray:
    """Red-black over-relaxed Gauss-Seidel for Laplace's equation on the `free` pixels; the
    others are fixed. Box edges reflect (no flux)."""
    height, width = free.shape
    rows, cols = np.indices((height, width))
    # ω on the free pixels of one colour, 0 elsewhere: whole-array arithmetic, no gathers.
    steps = [
        (free & ((rows + cols) % 2 == parity)).astype(np.float32)[:, :, None]
        * np.float32(SEAM_OMEGA)
        for parity in (0, 1)
    ]
    padded = np.pad(values.astype(np.float32), ((1, 1), (1, 1), (0, 0)), mode="edge")
    u = padded[1:-1, 1:-1]
    quarter = np.float32(0.25)
    for _ in range(sweeps):
        for step in steps:
            neighbours = padded[:-2, 1:-1] + padded[2:, 1:-1]
            neighbours += padded[1:-1, :-2]
            neighbours += padded[1:-1, 2:]
            neighbours *= quarter
            neighbours -= u
            neighbours *= step
            u += neighbours
            # The reflecting border follows the pixels next to it.
            padded[0, 1:-1], padded[-1, 1:-1] = u[0], u[-1]
            padded[:, 0], padded[:, -1] = padded[:, 1], padded[:, -2]
    return u.copy()
