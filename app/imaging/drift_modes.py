"""The witness test of a drift reading (drift.py): candidate pixels, their residuals clustered
into modes, and each mode validated as a whole by the fine texture it keeps.

Each mode is one candidate offset (generated − photo, CIE LAB). Where it holds, the generated
picture should be the photo shifted by it, clipped to the sRGB gamut as any picture is (the
offset before clipping is fitted so that the clipped prediction meets the generated colours:
a drift that pushed much of the ring out of the gamut is still one offset); its fine texture
(band-pass `FINE_SIGMA` − `COARSE_SIGMA`) should then follow the prediction's with a slope near
1, where new content gives about 0. The slope, pooled over the mode's pixels, with its standard
error (`CORRELATION_AREA_PX`) and a prior (a drift-sized offset that explains most of the
candidates) gives the mode's probability of being drift (`Mode.valid`). The witnesses are the
candidates a valid mode explains whose local texture agrees with the photo's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

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
PRIOR_SIZE_FULL, PRIOR_SIZE_NONE = 12.0, 20.0  # ΔE94: a drift-sized shift is believed a priori
PRIOR_SHARE_NONE, PRIOR_SHARE_FULL = 0.3, 0.6  # ... when it explains most of the candidates
PRIOR_MAX, PRIOR_FLOOR, PRIOR_DECAY = 0.8, 0.02, 10.0
WITNESS_H = 8.0  # LAB units: how near the prediction a witness must be
AGREE_WINDOW = 7  # px: the local texture correlation's window
AGREE_NONE, AGREE_FULL = 0.3, 0.7
CLIP_FIT_SHARE = 0.2  # a mode's offset before clipping is fitted when this much of it clips
CLIP_FIT_ITERATIONS, CLIP_FIT_STEP, CLIP_FIT_MAX_STEP = 6, 0.5, 15.0  # LAB units


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
        self._sums: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def agreement_at(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """N float32 0..1 at the pixels (rows, cols): the correlation ρ of the two textures in a
        7×7 window, ramped. The window sums are made once, the correlation only where asked."""
        if self._sums is None:
            window = (AGREE_WINDOW, AGREE_WINDOW)
            g, p = self.generated_band, self.photo_band
            ones = np.ones((1, 3), np.float32)  # the channels' sum (cv2: numpy's is slow)

            def summed(x: np.ndarray) -> np.ndarray:
                return cv2.boxFilter(cv2.transform(x, ones), -1, window, normalize=False)

            self._sums = summed(g * p), summed(g * g), summed(p * p)
        cross, gg, pp = (s[rows, cols] for s in self._sums)
        area = np.float32(AGREE_WINDOW * AGREE_WINDOW)
        rho = cross / np.sqrt(pp * gg + area * area)
        return ramp(rho, AGREE_NONE, AGREE_FULL).astype(np.float32)


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

    def _forward(self, lab: np.ndarray) -> np.ndarray:
        """The photo colours `lab` (Nx3, shifted) as a picture holds them: clipped to sRGB."""
        return linear_to_lab(np.clip(lab_to_linear(lab), 0.0, 1.0))

    def before_clipping(self, center: np.ndarray) -> np.ndarray | None:
        """The offset d before the gamut's clipping whose clipped prediction, photo + d, meets
        the generated colours around the mode `center` (robust Gauss-Newton), or None when
        too little of the mode's prediction leaves the gamut for it to matter."""
        u = self.prior * _biweight(np.linalg.norm(self.r - center, axis=1), MODE_H)
        linear = lab_to_linear(self.p + center)
        outside = np.any((linear < 0.0) | (linear > 1.0), axis=1)
        if float((u * outside).sum()) < CLIP_FIT_SHARE * max(float(u.sum()), 1e-9):
            return None
        d = center.astype(np.float32)
        for _ in range(CLIP_FIT_ITERATIONS):
            now = self._forward(self.p + d)
            error = self.g - now
            w = self.prior * _biweight(np.linalg.norm(error, axis=1), MODE_H)
            if float(w.sum()) <= 0.0:
                return None
            jacobian = np.stack(
                [(self._forward(self.p + d + step) - now) / CLIP_FIT_STEP
                 for step in np.eye(3, dtype=np.float32) * np.float32(CLIP_FIT_STEP)], -1,
            )  # fmt: skip
            wj = jacobian * w[:, None, None]
            normal = np.einsum("nik,nil->kl", wj, jacobian) + np.eye(3) * 1e-3 * float(w.sum())
            move = np.linalg.solve(normal, np.einsum("nik,ni->k", wj, error))
            size = float(np.linalg.norm(move))
            if size > CLIP_FIT_MAX_STEP:
                move *= CLIP_FIT_MAX_STEP / size
            d = (d + move).astype(np.float32)
            if size < 0.05:
                break
        return d

    def validate(self, center: np.ndarray) -> Mode:
        u = self.prior * _biweight(np.linalg.norm(self.r - center, axis=1), MODE_H)
        inliers = u > 0
        sum_u = float(u.sum())
        size = float(np.median(_delta_e94(self.p[inliers], center))) if sum_u > 0 else np.inf
        # Only a drift-sized mode is fitted before clipping: a larger shift is new content a
        # priori, and a clipped prediction can be made to meet a saturated new object.
        d = self.before_clipping(center) if size <= PRIOR_SIZE_NONE else None
        predicted, band = self.predict(center if d is None else d)
        if sum_u <= 0.0:
            return Mode(center, 0.0, 0.0, 0.0, np.inf, 0.0, np.inf, predicted)
        if d is not None:  # the texture is tested where the clipped prediction holds
            u = self.prior * _biweight(np.linalg.norm(self.g - predicted, axis=1), MODE_H)
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
        # What the mode explains, for the prior: with the texture for it, what the clipped
        # prediction explains (a flat spill whose clipped colour it matches is no drift).
        explained = max(sum_u, float(u.sum())) if d is not None and llr > 0.0 else sum_u
        share = sum_u / self.total
        by_size = float(ramp(size, PRIOR_SIZE_NONE, PRIOR_SIZE_FULL))
        by_share = float(ramp(explained / self.total, PRIOR_SHARE_NONE, PRIOR_SHARE_FULL))
        p0 = max(PRIOR_FLOOR * math.exp(-max(0.0, size - PRIOR_SIZE_NONE) / PRIOR_DECAY),
                 PRIOR_MAX * by_size * by_share)  # fmt: skip
        odds = math.exp(llr) * p0
        valid = odds / (odds + 1.0 - p0)
        if d is not None:  # the witnesses: what the offset applied (`center`) predicts
            predicted = self.predict(center)[0]
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
        gated = self.prior * self.texture.agreement_at(self.c.rows, self.c.cols)
        if float(gated[mine].sum()) >= REFINE_TEXTURED * float(self.prior[mine].sum()):
            return self._shift(best.center, REFINE_H, REFINE_ITERATIONS, mine, gated)
        return self._shift(best.center, REFINE_H, REFINE_ITERATIONS, mine)

    # --- the colour model from witnesses ----------------------------------------------------

    def witnesses(self, modes: list[Mode]) -> tuple[np.ndarray, np.ndarray]:
        """Per candidate: its witness weight, and the same without the local texture test
        (what the prediction alone vouches for: where the drift clipped the ring to the gamut's
        edge there is no texture left to test)."""
        weight = np.zeros(len(self.r), np.float32)
        for m in modes:
            if m.valid >= 0.5 and m.share >= MIN_SHARE:
                near = _biweight(np.linalg.norm(self.g - m.predicted, axis=1), WITNESS_H)
                weight = np.maximum(weight, np.float32(m.valid) * near)
        agreement = self.texture.agreement_at(self.c.rows, self.c.cols)
        return weight * self.prior * agreement, weight * self.prior
