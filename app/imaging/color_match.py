"""Matching a generated picture's colour to the photo around the mask, at composite time.

klein's inpaints drift in colour and brightness against their surroundings, over the whole
16-px cells the engine repaints. Between the mask and the cells' edge the generated picture was
meant to be the photo again, and just beyond the cells it is the photo's VAE round trip: there
the photo is the truth. drift.py reads the drift from those pixels, but only from the ones that
witness it (a colour shift that kept the photo's fine texture; new content that reached past the
mask does not, and keeps its colour), and declines with a reason when none do. The drift (an
offset in CIE LAB, a gain, a colour table and, inside the cells, a per-cell field) is taken out
of the generated pixels inside the repainted cells, scaled by the strength and the confidence;
beyond the cells only a drift of the whole frame is.

The optional seam blend (seam.py) then closes what difference is left at the edge of the
blended area, with the matched picture's gradients as the guide and the photo as the boundary,
trusted only where the matched picture keeps the photo's texture and differs by a drift-sized
amount (`seam_trust`), so both together keep what colour match alone keeps: after a drift
read from witnesses, what is left is the model's small error, and only a larger leftover (its
local mean, not the pixels' noise) is closed. The trust is computed only when the seam blend is
on.

Neither step touches a pixel whose composite weight is 0: those stay the photo's, bit for bit.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from app.imaging.drift import (
    NO_RING,
    STRENGTH_ZERO,
    TINY_RING,
    Drift,
    declined,
    read_drift,
)
from app.imaging.drift_field import Model
from app.imaging.drift_modes import (
    IN_REACH_PX,
    OUT_REACH_PX,
    SPAN_MARGIN_PX,
    Candidates,
    Texture,
    band_pass,
    candidates,
    ramp,
)
from app.imaging.geometry import Rect, Size
from app.imaging.lab import to_lab, to_rgb
from app.imaging.mask_ops import BINARY_THRESHOLD, bounding_box

log = logging.getLogger(__name__)
__all__ = ["BlendOptions", "ColorMatcher", "Fitted", "ring_width_px", "to_lab", "to_rgb"]

ColorMatchMode = Literal["off", "on"]
SeamBlend = Literal["off", "poisson"]
COLOR_MATCH_MODES: tuple[ColorMatchMode, ...] = ("off", "on")
SEAM_BLENDS: tuple[SeamBlend, ...] = ("off", "poisson")
RING_MIN_PX = 8  # the ring's width on a small picture (≤ 512 px on its long side)
RING_MAX_PX = 16  # ... and from 1024 px up
RING_SCALE = 64  # long side / RING_SCALE between the two
MIN_RING_PIXELS = 16  # fewer: no statistics worth trusting, the colours are left alone

NOTE_EMPTY_RING = "colour match skipped: no unmasked pixels around the mask to match"
NOTE_TINY_RING = "colour match skipped: only {n} unmasked pixels around the mask"
USE_OUTER_BELOW = 0.05  # inner confidence below this and ...
OUTER_TRUSTED = 0.5  # ... the outer one at least this: the whole frame drifted, fix inside too
SEAM_AGREE_NONE, SEAM_AGREE_FULL = 0.5, 0.85  # the seam trusts the photo where textures agree
SEAM_WINDOW = 5
SEAM_SMOOTH_PX = 7  # px: the leftover difference is judged by its mean over this window
SEAM_FLAT = 1.5  # LAB units of band-pass: below it texture compares as flat
SEAM_SCALE = 10.0  # LAB units: a difference this large is trusted half (new content beyond)
CLIP_STEPS = (1.0, 0.75, 0.5, 0.25)  # shares of the drift a clipped pixel may have absorbed
EDGE_SHRINK_PX = 8.0  # witness px of a colour at the gamut's edge: trusted half
EDGE_SPREAD_FULL, EDGE_SPREAD_NONE = 0.5, 1.0  # ... if their residuals scatter this little
SEAM_NOISE_NONE, SEAM_NOISE_FULL = 1.5, 4.0  # LAB units: smaller differences are noise
SEAM_READ_NONE, SEAM_READ_FULL = 4.0, 8.0  # ... and after a drift read from witnesses
SEAM_SCALE_UNMATCHED = 60.0  # ... without colour match, where a whole drift is left to close


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


def seam_trust(
    matched: np.ndarray,
    photo: np.ndarray,
    photo_band: np.ndarray,
    scale: float = SEAM_SCALE,
    read: float = 0.0,
) -> np.ndarray:
    """float32 HxW 0..1: how far the photo is the truth beside each pixel of the matched
    picture (LAB, both HxWx3): its fine texture agrees with the photo's and what is left of the
    difference is drift-sized (`scale`: trusted half). New content at the boundary gets no
    pull, a leftover drift does. `read` (0..1): how far colour match read the drift from its
    witnesses and took it out; what it leaves is the model's small error, closed only where
    it is larger than `SEAM_READ_NONE`."""
    band = band_pass(matched)
    window = (SEAM_WINDOW, SEAM_WINDOW)
    difference = cv2.boxFilter(((band - photo_band) ** 2).sum(axis=2), -1, window)
    energy = cv2.boxFilter((band * band + photo_band * photo_band).sum(axis=2), -1, window)
    agreement = 1.0 - difference / (energy + np.float32(SEAM_FLAT**2))
    # The leftover's local mean: the VAE's pixel noise is no step to close.
    leftover = cv2.boxFilter(matched - photo, -1, (SEAM_SMOOTH_PX, SEAM_SMOOTH_PX))
    distance = np.sqrt((leftover**2).sum(axis=2))
    size = distance / np.float32(scale)
    trust = ramp(agreement, SEAM_AGREE_NONE, SEAM_AGREE_FULL) / (1.0 + size**4)
    # A difference of the VAE's noise is no step to close: pulling toward it only adds noise.
    none = SEAM_NOISE_NONE + read * (SEAM_READ_NONE - SEAM_NOISE_NONE)
    full = SEAM_NOISE_FULL + read * (SEAM_READ_FULL - SEAM_NOISE_FULL)
    trust = trust * ramp(distance, none, full)
    return trust.astype(np.float32)


def _at_gamut_edge(pixels: np.ndarray) -> np.ndarray:
    """HxW bool: pixels with a channel at 0 or 255 (what clipping makes)."""
    return cv2.inRange(pixels, (1, 1, 1), (254, 254, 254)) == 0


def _clip_consistent(
    pixels: np.ndarray, lab: np.ndarray, shift: np.ndarray, edge: np.ndarray
) -> None:
    """Where the drift may have been clipped away, the least correction that explains the
    generated pixel (in place on `shift`). A pixel at the gamut's edge (a channel at 0 or 255)
    is what any photo colour beyond that edge drifts to: black pushed darker stays black. Of
    the corrections −(1 − s)·d, the one with the largest s for which the photo so corrected,
    drifted again and clipped, is the generated pixel (within a level) is kept. `edge`: the
    moved pixels at the gamut's edge."""
    if not edge.any():
        return
    generated = pixels[edge].astype(np.int16)
    g = lab[edge]
    drift = -shift[edge]  # what the correction takes out, as a drift
    factor = np.zeros(len(g), np.float32)  # s: 0 keeps the whole correction
    open_ = np.ones(len(g), bool)
    for s in CLIP_STEPS:
        again = to_rgb(g[open_] + np.float32(s) * drift[open_]).astype(np.int16)
        fits = np.abs(again - generated[open_]).max(axis=1) <= 1
        index = np.flatnonzero(open_)[fits]
        factor[index] = s
        open_[index] = False
        if not open_.any():
            break
    shift[edge] = shift[edge] * (1.0 - factor)[:, None]


def _edge_witnessed(
    pixels: np.ndarray, shift: np.ndarray, edge: np.ndarray, model: Model, scale: float
) -> None:
    """Where witnesses of the same colour at the gamut's edge (`edge`: the pixels there)
    showed what it drifted by, their drift (in place on `shift`, shrunk toward the
    clip-consistent correction by `EDGE_SHRINK_PX`): the ring saw what the clipping did to
    that colour."""
    if model.edge is None or not edge.any():
        return
    weight, drift, spread = model.edge.at(pixels[edge])
    known = weight > 0
    if not known.any():
        return
    # A colour the witnesses' photo colours scatter behind (black from black and from dark
    # greys) says little about which it was: only a consistent one is taken.
    size = np.linalg.norm(drift, axis=1)
    consistent = ramp(spread / np.maximum(size, 1e-3), EDGE_SPREAD_NONE, EDGE_SPREAD_FULL)
    t = (weight / (weight + np.float32(EDGE_SHRINK_PX)) * consistent)[:, None]
    mine = -np.float32(scale) * drift
    shift[edge] = np.where(known[:, None], t * mine + (1 - t) * shift[edge], shift[edge])


def _put(pixels: np.ndarray, where: np.ndarray, values: np.ndarray) -> np.ndarray:
    pixels[where] = values
    return pixels


@dataclass(frozen=True)
class Fitted:
    """A generated window after colour match: the pixels, the drift read (inside the cells),
    and (with the seam blend) how far the photo is trusted as the truth at each pixel."""

    pixels: np.ndarray
    drift: Drift
    trust: np.ndarray | None


class ColorMatcher:
    """The candidate pixels of one compositor and the photo around them, built once; `fit`
    then reads the drift of one generated picture and takes it out of the `window` the
    composite blends.

    `at` is where the generated picture sits in the photo, `window` the rectangle of it that
    is blended (both in the photo's frame); `repainted` (bool, the photo's frame; None: the
    mask grown by the ring's width) is where the engine repainted. strength 0 corrects
    nothing; `seam` computes the seam blend's trust map (Fitted.trust, else None)."""

    def __init__(
        self,
        original: np.ndarray,
        binary_mask: np.ndarray,
        at: Rect,
        window: Rect,
        strength: float,
        repainted: np.ndarray | None = None,
        seam: bool = False,
    ) -> None:
        self.strength = float(np.clip(strength, 0.0, 1.0))
        self.seam = seam
        on = binary_mask >= BINARY_THRESHOLD
        if repainted is None:
            width = ring_width_px(Size.of(original))
            kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * width + 1, 2 * width + 1))
            repainted = cv2.dilate(on.astype(np.uint8), kernel) > 0
        cells_box = bounding_box(repainted)
        span = window
        if cells_box is not None:
            m = SPAN_MARGIN_PX
            grown = Rect(cells_box.x - m, cells_box.y - m, cells_box.width + 2 * m,
                         cells_box.height + 2 * m)  # fmt: skip
            span = window.union(grown)
        self.span = span = span.intersect(at)
        self.window, self.at = window, at
        mask = on[span.slices()]
        cells = repainted[span.slices()]
        to_mask = cv2.distanceTransform(
            np.where(mask, np.uint8(0), np.uint8(1)), cv2.DIST_L2, cv2.DIST_MASK_PRECISE
        )
        to_cells = cv2.distanceTransform(
            np.where(cells, np.uint8(0), np.uint8(1)), cv2.DIST_L2, cv2.DIST_MASK_PRECISE
        )
        inner = cells & ~mask & (to_mask <= IN_REACH_PX)
        outer = ~cells & ~mask & (to_cells <= OUT_REACH_PX) if cells.any() else np.zeros_like(mask)
        if not mask.any():
            inner = outer = np.zeros_like(mask)
        self.count = int(np.count_nonzero(inner) + np.count_nonzero(outer))
        self.note: str | None = None
        self.declined: Drift | None = None
        if self.count == 0:
            self.note, self.declined = NOTE_EMPTY_RING, declined(NO_RING)
        elif self.count < MIN_RING_PIXELS:
            self.note = NOTE_TINY_RING.format(n=self.count)
            self.declined = declined(TINY_RING, n=self.count)
        elif self.strength <= 0.0:
            self.declined = declined(STRENGTH_ZERO)
        if self.note is not None:
            log.info("%s", self.note)
        self._inner: Candidates | None = None
        self._outer: Candidates | None = None
        if self.declined is None:
            self._inner = candidates("inner", inner, to_mask)
            self._outer = candidates("outer", outer, to_mask)
        self._photo_lab = to_lab(original[span.slices()])
        self._photo_band = band_pass(self._photo_lab) if (seam or self.declined is None) else None
        inside = Rect(window.x - span.x, window.y - span.y, window.width, window.height)
        self._inside = inside
        self._cells = cells[inside.slices()]
        self.last: Drift = self.declined or declined(NO_RING)
        self.last_outer: Drift | None = None

    def _read(self, generated_lab: np.ndarray) -> tuple[Drift, Drift | None]:
        """The drift inside the cells and the one beyond them (None: none read)."""
        if self.declined is not None:
            return self.declined, None
        assert self._photo_band is not None
        texture = Texture(
            self._photo_lab, self._photo_band, generated_lab, band_pass(generated_lab)
        )
        inner = outer = None
        if self._inner is not None:
            inner = read_drift(self._inner, texture, True)
        if self._outer is not None:
            outer = read_drift(self._outer, texture, False)
        whole = outer is not None and outer.confidence >= OUTER_TRUSTED and outer.applies
        if inner is None or (inner.confidence < USE_OUTER_BELOW and whole):
            assert outer is not None
            return outer, outer
        return inner, outer

    def fit(self, placed: np.ndarray) -> Fitted:
        """The generated pixels of `window` (`placed` is the picture at `at`), matched."""
        span, w = self.span, self.window
        in_placed = Rect(span.x - self.at.x, span.y - self.at.y, span.width, span.height)
        generated_lab = to_lab(placed[in_placed.slices()])
        drift, beyond = self._read(generated_lab)
        self.last, self.last_outer = drift, beyond
        inside = self._inside
        lab = generated_lab[inside.slices()]
        shift = np.zeros_like(lab)
        cells = self._cells
        moved = np.zeros(cells.shape, bool)
        scale = np.float32(self.strength)
        if drift.applies:
            model = drift.model
            d = model.drift_at(lab[cells])
            if model.field_map is not None:
                d = d + model.field_map[inside.slices()][cells]
            shift[cells] = -np.float32(model.confidence) * scale * d
            moved |= cells
        if beyond is not None and beyond.applies:
            out = ~cells
            d = beyond.model.drift_at(lab[out])
            shift[out] = -np.float32(beyond.model.confidence) * scale * d
            moved |= out
        pixels = placed[Rect(w.x - self.at.x, w.y - self.at.y, w.width, w.height).slices()]
        pixels = pixels.copy()
        if moved.any():
            edge = moved & _at_gamut_edge(pixels)
            _clip_consistent(pixels, lab, shift, edge)
            if drift.applies:
                c = float(model.confidence * scale)
                _edge_witnessed(pixels, shift, edge & cells, model, c)
            if beyond is not None and beyond.applies:
                b = beyond.model
                _edge_witnessed(pixels, shift, edge & ~cells, b, float(b.confidence * scale))
            lab = lab + shift
            # (an unmoved pixel round-trips: to_lab of a uint8 colour is exact)
            pixels = to_rgb(lab) if moved.all() else _put(pixels, moved, to_rgb(lab[moved]))
        trust = None
        if self.seam:
            assert self._photo_band is not None
            matched = generated_lab.copy()
            matched[inside.slices()] = lab
            # Colour match took the drift out: what is left beyond a few units is new content.
            # Without it (strength 0) a whole drift is left for the seam to close.
            size_scale = SEAM_SCALE if self.strength > 0.0 else SEAM_SCALE_UNMATCHED
            read = drift.confidence * self.strength if drift.applies else 0.0
            full = seam_trust(matched, self._photo_lab, self._photo_band, size_scale, read)
            trust = np.ascontiguousarray(full[inside.slices()])
        return Fitted(pixels, drift, trust)

    def record(self) -> dict:
        """What the last `fit` did, as plain JSON (the run's record)."""
        out = self.last.as_record()
        if self.last_outer is not None and self.last_outer is not self.last:
            beyond = self.last_outer
            if beyond.applies:
                out["beyond_cells"] = beyond.as_record()
        return out
