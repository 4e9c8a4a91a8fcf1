"""How far a generated picture drifted in colour, read only from pixels that witness it.

The engine repaints whole 16-px cells around the mask. Between the mask and the cells' edge
(the "inner" candidates) the generated picture was meant to be the photo again; just outside
the cells (the "outer" candidates) it is the photo's VAE round trip, which differs only when the
whole frame drifted. What differs there is either the model's drift (the photo's colours
shifted, its fine texture kept) or new content that reached past the mask (an object a few
pixels wider than the stroke: its own colour and texture). Only the first may be taken out.

The reading (witness-validated colour match, issue 40; the method and its figures:
the project's shared note colour-match-wvm):

1. The residuals r = generated − photo (CIE LAB) of the candidates are clustered (Tukey
   mean-shift, `MODE_H`): each cluster ("mode") is one candidate offset.
2. Each mode is validated as a whole: where it holds, the generated picture should be the
   photo shifted by that offset (clipped to the sRGB gamut as any picture is), so its fine
   texture (band-pass `FINE_SIGMA` − `COARSE_SIGMA`) should follow the prediction's with a slope
   near 1; new content (flat, or another object's texture) gives about 0. The slope, pooled over
   the mode's pixels, with its standard error (`CORRELATION_AREA_PX`) gives a likelihood ratio of
   "drift" against "new content"; with a prior (a drift-sized offset that explains most of the
   candidates) it is the mode's probability of being drift (`valid`).
3. The most supported valid mode is the drift; its confidence fades with little support, doubt
   or a small share (a decision: a mode believed at 5 % applies nothing).
4. From the witnesses alone (the candidates a valid mode explains, whose local texture
   agrees with the photo's) come a gain per LAB channel, a colour table (what is left, by the
   generated colour: the gamut's clipping of saturated colours, colour-dependent drift) and,
   inside the cells, a per-cell field (a drift that varies across the picture).

With no witness (no mode keeps the photo's texture, or no candidate at all) nothing is read and
the colour match declines, saying why (`Drift.reason`); the composite is then exactly the plain
one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from app.imaging.colour_table import ColourTable
from app.imaging.fill import push_pull
from app.imaging.lab import lab_to_linear, linear_to_lab

IN_REACH_PX = 24  # inner candidates: in the repainted cells, unmasked, this near the mask
OUT_REACH_PX = 16  # outer candidates: outside the cells, this near them
SPAN_MARGIN_PX = 18  # the matcher's window: the cells' box grown by this (≥ OUT_REACH + blur)
MAX_CANDIDATES = 4000  # more: a regular grid of them (each then stands for stride² pixels)
EDGE_PX = 1.5  # candidates this near the mask (spill, the mixed edge) ...
EDGE_PRIOR = 0.25  # ... weigh this much
FINE_SIGMA, COARSE_SIGMA = 1.0, 3.0  # the band-pass (difference of Gaussians) texture is read in
MODE_H = 7.0  # LAB units: the mean-shift's Tukey cut-off
MODE_ITERATIONS = 12
MODE_PEELS = 3  # further seeds from candidates no mode explains ...
PEEL_SHARE, PEEL_MIN_PX = 0.05, 30  # ... when at least this many are left
MODE_MERGE = 1.5  # LAB units: closer centres are one mode
CORRELATION_AREA_PX = 16.0  # band-passed pixels are correlated over about this area
NOISE_FLOOR = 1.0  # LAB units²: the least residual variance the slope's error assumes
LLR_LIMIT = 30.0
MIN_SHARE = 0.03  # a mode explaining less of the candidates is never the drift
REFINE_H, REFINE_ITERATIONS = 14.0, 3
REFINE_TEXTURED = 0.3  # refined from witnesses alone when they weigh this share of the mode
SUPPORT_NONE, SUPPORT_FULL = 24.0, 160.0  # px: confidence by the mode's support
VALID_NONE, VALID_FULL = 0.5, 0.9  # confidence by the mode's probability of being drift
SHARE_NONE, SHARE_FULL = 0.03, 0.08  # confidence by the mode's share of the candidates
PRIOR_SIZE_FULL, PRIOR_SIZE_NONE = 12.0, 20.0  # ΔE94: a drift-sized shift is believed a priori
PRIOR_SHARE_NONE, PRIOR_SHARE_FULL = 0.3, 0.6  # ... when it explains most of the candidates
PRIOR_MAX, PRIOR_FLOOR, PRIOR_DECAY = 0.8, 0.02, 10.0
WITNESS_H = 8.0  # LAB units: how near the prediction a witness must be
AGREE_WINDOW = 7  # px: the local texture correlation's window
AGREE_NONE, AGREE_FULL = 0.3, 0.7
GAIN_PRIOR = 16.0  # LAB units²: the gain is shrunk toward 1 by this much photo variance
GAIN_MIN, GAIN_MAX = 0.75, 1.33
GAIN_KEPT = 1.0  # LAB units: a gain is used only if it moves the witnesses' colours this much
MIN_OFFSET = 1.0  # LAB units: below it the table and the field are not used
CELL_PX = 16  # the spatial field's cells
CELL_SHRINK = 48.0  # witness px: a cell with this much is trusted half


def ramp(x: float | np.ndarray, zero: float, one: float) -> Any:
    """0 at `zero`, 1 at `one` (either order), linear between, clipped."""
    return np.clip((np.asarray(x, np.float64) - zero) / (one - zero), 0.0, 1.0)


def band_pass(lab: np.ndarray) -> np.ndarray:
    """The fine texture a colour shift keeps: Gσ1 − Gσ3 per channel (float32)."""
    fine = cv2.GaussianBlur(lab, (0, 0), FINE_SIGMA)
    return fine - cv2.GaussianBlur(lab, (0, 0), COARSE_SIGMA)


def _biweight(distance: np.ndarray, h: float) -> np.ndarray:
    t = np.clip(1.0 - (distance / np.float32(h)) ** 2, 0.0, 1.0)
    return (t * t).astype(np.float32)


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, 0.5 * cumulative[-1])])


def _median3(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return np.array([_weighted_median(values[:, c], weights) for c in range(3)], np.float32)


@dataclass(frozen=True)
class Candidates:
    """One candidate set of a matcher, in its span's frame (built once)."""

    name: str  # "inner" (in the cells) or "outer" (beyond them)
    rows: np.ndarray
    cols: np.ndarray
    prior: np.ndarray  # float32: EDGE_PRIOR near the mask, else 1
    far: np.ndarray  # bool: the half farthest from the mask
    stride: int  # 1, or the grid step they were thinned to
    count: int  # before thinning
    support: np.ndarray  # flat span indices within 3σ of a candidate (forward predictions)
    at: np.ndarray  # each candidate's index in `support`

    @property
    def scale(self) -> float:
        """Full-resolution pixels per candidate."""
        return float(self.stride * self.stride)

    @property
    def area(self) -> float:
        """The correlation area in candidates."""
        return max(1.0, CORRELATION_AREA_PX / self.scale)


def candidates(name: str, where: np.ndarray, to_mask: np.ndarray) -> Candidates | None:
    """The candidate set `where` (bool, span) with its distances to the mask (px)."""
    count = int(np.count_nonzero(where))
    if count == 0:
        return None
    stride = max(1, math.ceil(math.sqrt(count / MAX_CANDIDATES) - 0.2))
    kept = where
    if stride > 1:
        kept = np.zeros_like(where)
        kept[::stride, ::stride] = where[::stride, ::stride]
        if not kept.any():
            kept = where
            stride = 1
    rows, cols = np.nonzero(kept)
    distance = to_mask[rows, cols]
    prior = np.where(distance <= EDGE_PX, np.float32(EDGE_PRIOR), np.float32(1.0))
    far = distance >= np.median(distance)
    reach = int(math.ceil(3 * COARSE_SIGMA))
    grown = cv2.dilate(where.astype(np.uint8), np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
    support = np.flatnonzero(grown)
    index = np.full(where.size, -1, np.int64)
    index[support] = np.arange(support.size)
    at = index[rows * where.shape[1] + cols]
    return Candidates(name, rows, cols, prior.astype(np.float32), far, stride, count, support, at)


@dataclass(frozen=True)
class Mode:
    """One cluster of residuals and what its validation found."""

    center: np.ndarray
    support: float  # px (prior × biweight, full resolution)
    share: float
    slope: float
    slope_se: float
    valid: float
    size: float  # median ΔE94 of the shift over its pixels
    predicted: np.ndarray  # LAB at the candidates: the photo shifted by `center`, clipped


@dataclass(frozen=True)
class Model:
    """What a drift reading takes out (LAB, generated − photo) as a function of the generated
    colour and the place; `confidence` scales all of it."""

    offset: np.ndarray
    confidence: float
    gain: np.ndarray = field(default_factory=lambda: np.ones(3, np.float32))
    gain_center: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float32))
    gain_low: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float32))
    gain_high: np.ndarray = field(default_factory=lambda: np.zeros(3, np.float32))
    table: ColourTable | None = None
    field_map: np.ndarray | None = None  # the span's per-pixel field (HxWx3)

    def drift_at(self, generated: np.ndarray, rows: slice | None = None) -> np.ndarray:
        """Nx3 drift for Nx3 generated LAB colours (without the field)."""
        drift = np.broadcast_to(self.offset, generated.shape).astype(np.float32)
        if np.any(self.gain != 1.0):
            clamped = np.clip(generated, self.gain_low, self.gain_high)
            drift = drift + (clamped - self.gain_center) * (1.0 - 1.0 / self.gain)
        if self.table is not None:
            drift = drift + self.table.at(generated)
        return drift.astype(np.float32)


NO_MODEL = Model(np.zeros(3, np.float32), 0.0)


def _delta_e94(lab: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """ΔE94 between Nx3 colours and the same shifted (chroma-weighted: saturated colours may
    shift more)."""
    chroma = np.hypot(lab[:, 1], lab[:, 2])
    moved = lab + shift
    d_chroma = np.hypot(moved[:, 1], moved[:, 2]) - chroma
    d_hue2 = np.maximum(float(shift[1] ** 2 + shift[2] ** 2) - d_chroma**2, 0.0)
    return np.sqrt(
        float(shift[0]) ** 2 + (d_chroma / (1 + 0.045 * chroma)) ** 2
        + d_hue2 / (1 + 0.015 * chroma) ** 2
    )  # fmt: skip


@dataclass(frozen=True)
class Drift:
    """What one reading found: the drift (generated − photo, LAB) and how far it is believed,
    or why nothing was read (`reason`: a code, `values` its figures). Kept in the run's record
    (`as_record`), so a real run shows whether its ring kept the photo's texture."""

    offset: np.ndarray
    confidence: float
    reason: str | None = None  # None: read (applied when confidence > 0)
    values: dict[str, Any] = field(default_factory=dict)
    source: str = ""  # "inner" or "outer": the candidate set it was read from
    slope: float = 0.0  # the chosen mode's texture slope (1: the photo's texture) ...
    slope_se: float = 0.0  # ... its standard error
    valid: float = 0.0  # the chosen mode's probability of being drift
    support: float = 0.0  # px the chosen mode explains
    share: float = 0.0  # ... as a share of the candidates
    gain: np.ndarray = field(default_factory=lambda: np.ones(3, np.float32))
    witnesses: float = 0.0  # px that taught the colour model
    model: Model = NO_MODEL

    @property
    def applies(self) -> bool:
        """Something to take out: read, believed, and more than a unit (or a gain): a smaller
        offset is within the VAE's noise and would only move new content."""
        if self.reason is not None or self.confidence <= 0.0:
            return False
        return bool(
            float(np.linalg.norm(self.offset)) >= MIN_OFFSET or np.any(self.model.gain != 1.0)
        )

    def as_record(self) -> dict[str, Any]:
        """Plain JSON: what colour match did, for the run's record."""
        if self.reason is not None:
            return {"applied": False, "reason": self.reason, "values": dict(self.values)}
        return {
            "applied": self.applies,
            "offset_lab": [round(float(v), 2) for v in self.offset],
            "gain": [round(float(v), 3) for v in self.gain],
            "confidence": round(self.confidence, 3),
            "source": self.source,
            "slope": round(self.slope, 3),
            "slope_se": round(self.slope_se, 3),
            "valid": round(self.valid, 3),
            "support_px": round(self.support),
            "share": round(self.share, 3),
            "witness_px": round(self.witnesses),
        }


def declined(reason: str, **values: Any) -> Drift:
    return Drift(np.zeros(3, np.float32), 0.0, reason, values)


# Why a reading declined (codes; the texts are the UI's and the CLI's).
NO_RING = "no_ring"  # no unmasked pixel around the mask
TINY_RING = "tiny_ring"  # {n}: too few
NO_WITNESS = "no_witness"  # {slope}: the ring does not keep the photo's texture
STRENGTH_ZERO = "strength_zero"


class Texture:
    """The photo and one generated picture over the matcher's span (LAB), their band-passed
    texture, and (computed once, when first asked) where the two textures agree locally."""

    def __init__(
        self,
        photo: np.ndarray,
        photo_band: np.ndarray,
        generated: np.ndarray,
        generated_band: np.ndarray,
    ) -> None:
        self.photo, self.photo_band = photo, photo_band
        self.generated, self.generated_band = generated, generated_band
        self._agreement: np.ndarray | None = None

    @property
    def agreement(self) -> np.ndarray:
        """HxW 0..1: the correlation ρ of the two textures in a 7×7 window, ramped."""
        if self._agreement is None:
            window = (AGREE_WINDOW, AGREE_WINDOW)
            g, p = self.generated_band, self.photo_band
            cross = cv2.boxFilter((g * p).sum(axis=2), -1, window, normalize=False)
            gg = cv2.boxFilter((g * g).sum(axis=2), -1, window, normalize=False)
            pp = cv2.boxFilter((p * p).sum(axis=2), -1, window, normalize=False)
            area = float(AGREE_WINDOW * AGREE_WINDOW)
            rho = cross / np.sqrt(pp * gg + area * area)
            self._agreement = ramp(rho, AGREE_NONE, AGREE_FULL).astype(np.float32)
        return self._agreement


class Reading:
    """The drift reading of one candidate set against one generated picture."""

    def __init__(self, cands: Candidates, texture: Texture) -> None:
        photo, photo_band = texture.photo, texture.photo_band
        generated, generated_band = texture.generated, texture.generated_band
        self.texture = texture
        self.c = cands
        rows, cols = cands.rows, cands.cols
        self.p = photo[rows, cols]
        self.g = generated[rows, cols]
        self.r = self.g - self.p
        self.bp = photo_band[rows, cols]
        self.bg = generated_band[rows, cols]
        self.photo, self.photo_band = photo, photo_band
        self.generated_band = generated_band
        self.prior = cands.prior
        self.total = float(self.prior.sum())

    # --- modes ------------------------------------------------------------------------------

    def _shift(
        self, center: np.ndarray, h: float, iterations: int, where=None, prior=None
    ) -> np.ndarray:
        r = self.r
        prior = self.prior if prior is None else prior
        if where is not None:
            r, prior = r[where], prior[where]
        for _ in range(iterations):
            w = prior * _biweight(np.linalg.norm(r - center, axis=1), h)
            total = float(w.sum())
            if total <= 0.0:
                break
            new = (w[:, None] * r).sum(axis=0) / np.float32(total)
            done = float(np.abs(new - center).max()) < 0.01
            center = new.astype(np.float32)
            if done:
                break
        return center

    def centers(self) -> list[np.ndarray]:
        seeds = [np.zeros(3, np.float32), _median3(self.r, self.prior)]
        if self.c.far.any():
            seeds.append(_median3(self.r[self.c.far], self.prior[self.c.far]))
        found: list[np.ndarray] = []

        def add(seed: np.ndarray) -> None:
            center = self._shift(seed, MODE_H, MODE_ITERATIONS)
            if all(float(np.linalg.norm(center - f)) >= MODE_MERGE for f in found):
                found.append(center)

        for seed in seeds:
            add(seed)
        for _ in range(MODE_PEELS):
            nearest = np.min([np.linalg.norm(self.r - f, axis=1) for f in found], axis=0)
            left = nearest > MODE_H
            n = int(left.sum())
            if n * self.c.scale < PEEL_MIN_PX or n < PEEL_SHARE * len(self.r):
                break
            add(_median3(self.r[left], self.prior[left]))
        return found

    def predict(self, center: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(LAB, band-pass) at the candidates of the photo shifted by `center`, clipped to the
        sRGB gamut where the shift leaves it."""
        c = self.c
        width = self.photo.shape[1]
        shifted = self.photo.reshape(-1, 3)[c.support] + center
        linear = lab_to_linear(shifted)
        out = np.flatnonzero(np.any((linear < 0.0) | (linear > 1.0), axis=1))
        predicted = self.p + center
        band = self.bp
        if out.size:
            where = c.support[out]
            clipped = linear_to_lab(np.clip(linear[out], 0.0, 1.0)) - shifted[out]
            ys, xs = where // width, where % width
            reach = int(math.ceil(3 * COARSE_SIGMA))
            y0, x0 = int(ys.min()) - reach, int(xs.min()) - reach
            y1, x1 = int(ys.max()) + reach + 1, int(xs.max()) + reach + 1
            extra = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
            extra[ys - y0, xs - x0] = clipped
            extra_band = band_pass(extra)
            rows, cols = c.rows - y0, c.cols - x0
            inside = (rows >= 0) & (rows < y1 - y0) & (cols >= 0) & (cols < x1 - x0)
            band = band.copy()
            predicted = predicted.copy()
            band[inside] += extra_band[rows[inside], cols[inside]]
            predicted[inside] += extra[rows[inside], cols[inside]]
        return predicted.astype(np.float32), band

    def validate(self, center: np.ndarray) -> Mode:
        u = self.prior * _biweight(np.linalg.norm(self.r - center, axis=1), MODE_H)
        inliers = u > 0
        sum_u = float(u.sum())
        predicted, band = self.predict(center)
        if sum_u <= 0.0:
            return Mode(center, 0.0, 0.0, 0.0, np.inf, 0.0, np.inf, predicted)
        energy = (band * band).sum(axis=1)
        sxx = float((u * energy).sum())
        sxy = float((u * (self.bg * band).sum(axis=1)).sum())
        if sxx > 1e-6:
            slope = sxy / sxx
            residual = ((self.bg - slope * band) ** 2).sum(axis=1)
            spread = max(float((u * residual * energy).sum()), NOISE_FLOOR * sxx)
            se = math.sqrt(self.c.area * spread) / sxx
        else:
            slope, se = 0.0, math.inf
        llr = 0.0 if not math.isfinite(se) else (2 * slope - 1) / (2 * se * se)
        llr = float(np.clip(llr, -LLR_LIMIT, LLR_LIMIT))
        size = float(np.median(_delta_e94(self.p[inliers], center)))
        share = sum_u / self.total
        by_size = float(ramp(size, PRIOR_SIZE_NONE, PRIOR_SIZE_FULL))
        by_share = float(ramp(share, PRIOR_SHARE_NONE, PRIOR_SHARE_FULL))
        p0 = max(PRIOR_FLOOR * math.exp(-max(0.0, size - PRIOR_SIZE_NONE) / PRIOR_DECAY),
                 PRIOR_MAX * by_size * by_share)  # fmt: skip
        odds = math.exp(llr) * p0
        valid = odds / (odds + 1.0 - p0)
        return Mode(center, sum_u * self.c.scale, share, slope, se, valid, size, predicted)

    def best(self) -> tuple[Mode | None, list[Mode]]:
        modes = [self.validate(c) for c in self.centers()]
        eligible = [m for m in modes if m.share >= MIN_SHARE]
        if not eligible:
            return None, modes
        return max(eligible, key=lambda m: m.support * m.valid), modes

    def refine(self, best: Mode, modes: list[Mode]) -> np.ndarray:
        centers = np.stack([m.center for m in modes])
        nearest = np.argmin(np.linalg.norm(self.r[:, None, :] - centers[None], axis=2), axis=1)
        mine = nearest == next(i for i, m in enumerate(modes) if m is best)
        # The wider window reaches pixels of other content near the drift's colour (a new
        # object a drift's size from the photo): where the texture says so, only witnesses.
        gated = self.prior * self.texture.agreement[self.c.rows, self.c.cols]
        if float(gated[mine].sum()) >= REFINE_TEXTURED * float(self.prior[mine].sum()):
            return self._shift(best.center, REFINE_H, REFINE_ITERATIONS, mine, gated)
        return self._shift(best.center, REFINE_H, REFINE_ITERATIONS, mine)

    # --- the colour model from witnesses ----------------------------------------------------

    def witnesses(self, modes: list[Mode]) -> np.ndarray:
        weight = np.zeros(len(self.r), np.float32)
        for m in modes:
            if m.valid >= 0.5 and m.share >= MIN_SHARE:
                near = _biweight(np.linalg.norm(self.g - m.predicted, axis=1), WITNESS_H)
                weight = np.maximum(weight, np.float32(m.valid) * near)
        agreement = self.texture.agreement[self.c.rows, self.c.cols]
        return weight * self.prior * agreement

    def model(
        self, offset: np.ndarray, confidence: float, w: np.ndarray, shape: tuple[int, int] | None
    ) -> Model:
        """The gain, colour table and (given the span's `shape`) field from the witnesses."""
        total = float(w.sum())
        if total <= 0.0:
            return Model(offset, confidence)
        g, p = self.g, self.p
        g_mean = (w[:, None] * g).sum(axis=0) / total
        p_mean = (w[:, None] * p).sum(axis=0) / total
        dg, dp = g - g_mean, p - p_mean
        prior = GAIN_PRIOR * total
        covariance = (w[:, None] * dg * dp).sum(axis=0)
        gain = (covariance + prior) / ((w[:, None] * dp * dp).sum(axis=0) + prior)
        gain = np.clip(gain, GAIN_MIN, GAIN_MAX).astype(np.float32)
        seen = w > 0
        low = np.percentile(g[seen], 2, axis=0).astype(np.float32)
        high = np.percentile(g[seen], 98, axis=0).astype(np.float32)
        moves = np.maximum(np.abs(low - g_mean), np.abs(high - g_mean)) * np.abs(1 - 1 / gain)
        gain = np.where(moves > GAIN_KEPT, gain, np.float32(1.0)).astype(np.float32)
        base = Model(offset, confidence, gain, g_mean.astype(np.float32), low, high)
        if float(np.linalg.norm(offset)) < MIN_OFFSET and not np.any(gain != 1.0):
            return base
        deviation = self.r - base.drift_at(g)
        table = ColourTable.fit(g[seen], deviation[seen], w[seen])
        with_table = Model(offset, confidence, gain, base.gain_center, low, high, table)
        if shape is None:
            return with_table
        left = self.r - with_table.drift_at(g)
        height, width = shape
        gh, gw = -(-height // CELL_PX), -(-width // CELL_PX)
        cell = (self.c.rows // CELL_PX) * gw + self.c.cols // CELL_PX
        weight = w * np.float32(self.c.scale)
        cw = np.bincount(cell, weight, gh * gw)
        sums = np.stack([np.bincount(cell, weight * left[:, c], gh * gw) for c in range(3)], -1)
        known = cw > 0
        mean = np.where(known[:, None], sums / np.maximum(cw, 1e-9)[:, None], 0.0)
        shrunk = mean * (cw / (cw + CELL_SHRINK))[:, None]
        filled = push_pull(shrunk.reshape(gh, gw, 3).astype(np.float32), known.reshape(gh, gw))
        field_map = cv2.resize(filled, (gw * CELL_PX, gh * CELL_PX), interpolation=cv2.INTER_LINEAR)
        field_map = np.ascontiguousarray(field_map[:height, :width])
        return Model(offset, confidence, gain, base.gain_center, low, high, table, field_map)


def read_drift(cands: Candidates, texture: Texture, with_field: bool) -> Drift:
    """The drift of the generated picture (`texture`) read from one candidate set; the
    per-cell field only `with_field`."""
    reading = Reading(cands, texture)
    photo = texture.photo
    best, modes = reading.best()
    if best is None:
        return declined(NO_WITNESS, slope=0.0, source=cands.name)
    confidence = float(
        ramp(best.support, SUPPORT_NONE, SUPPORT_FULL)
        * ramp(best.valid, VALID_NONE, VALID_FULL)
        * ramp(best.share, SHARE_NONE, SHARE_FULL)
    )
    figures = dict(
        source=cands.name, slope=best.slope, slope_se=min(best.slope_se, 1e6), valid=best.valid,
        support=best.support, share=best.share,
    )  # fmt: skip
    if confidence <= 0.0:
        values = {k: round(float(v), 3) if isinstance(v, float) else v for k, v in figures.items()}
        return declined(NO_WITNESS, **values)
    offset = reading.refine(best, modes)
    model = Model(offset, confidence)
    witness_px = 0.0
    if cands.name == "inner" or float(np.linalg.norm(offset)) >= MIN_OFFSET:
        w = reading.witnesses(modes)
        witness_px = float(w.sum()) * cands.scale
        model = reading.model(offset, confidence, w, photo.shape[:2] if with_field else None)
    return Drift(
        offset, confidence, None, {}, cands.name, best.slope, min(best.slope_se, 1e6), best.valid,
        best.support, best.share, model.gain, witness_px, model,
    )  # fmt: skip
