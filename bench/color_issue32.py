"""Stepwise's colour match of issue 32 (before issue 40), kept as a bench row to compare with.

The drift was one LAB offset: a weighted median and Tukey-trimmed mean of the ring's
differences (unmasked, inside the repainted cells, ≤ 24 px from the mask), each pixel trusted
by how well the generated picture's local gradients match the photo's and by the difference's
size; a confidence from the trusted pixels and their share. Taken out inside the cells only.
"""

from __future__ import annotations

import cv2
import numpy as np

from app.imaging import prepare as prep
from app.imaging.composite import feather_weights, repainted_area
from app.imaging.lab import to_lab, to_rgb

STRUCTURE_SIGMA_PX = 1.0
AGREEMENT_WINDOW_PX = 5
FLAT_GRADIENT = 3.0
TRUST_FROM, TRUST_TO = 0.5, 0.85
DRIFT_SCALE = 30.0
TRIM = 3.0
MIN_SPREAD = 1.5
ROBUST_ROUNDS = 4
TRUSTED_NONE, TRUSTED_FULL = 24.0, 160.0
SHARE_NONE, SHARE_FULL = 0.10, 0.30
REACH_PX = 24


def _gradients(lab: np.ndarray) -> np.ndarray:
    lab = cv2.GaussianBlur(lab, (0, 0), STRUCTURE_SIGMA_PX)
    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3) / np.float32(8.0)
    gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3) / np.float32(8.0)
    return np.concatenate([gx, gy], axis=2)


def structure_trust(generated_lab: np.ndarray, photo_lab: np.ndarray) -> np.ndarray:
    g, p = _gradients(generated_lab), _gradients(photo_lab)
    window = (AGREEMENT_WINDOW_PX, AGREEMENT_WINDOW_PX)
    difference = cv2.boxFilter(((g - p) ** 2).sum(axis=2), -1, window, normalize=True)
    energy = cv2.boxFilter((g * g + p * p).sum(axis=2), -1, window, normalize=True)
    agreement = 1.0 - difference / (energy + np.float32(FLAT_GRADIENT**2))
    return np.clip((agreement - TRUST_FROM) / (TRUST_TO - TRUST_FROM), 0.0, 1.0)


def _size_trust(difference: np.ndarray) -> np.ndarray:
    size = np.sqrt((difference.astype(np.float32) ** 2).sum(axis=-1)) / np.float32(DRIFT_SCALE)
    return 1.0 / (1.0 + size**4)


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, 0.5 * cumulative[-1])])


def estimate_drift(difference: np.ndarray, trust: np.ndarray) -> np.ndarray:
    """The correction (LAB, to add) from the ring's differences and their structure trust."""
    weights = trust.astype(np.float64) * _size_trust(difference)
    if weights.size == 0 or float(weights.sum()) <= 0.0:
        return np.zeros(3)
    diff = difference.astype(np.float64)
    center = np.array([_weighted_median(diff[:, c], weights) for c in range(3)])
    kept = weights
    for _ in range(ROBUST_ROUNDS):
        residual = np.sqrt(((diff - center) ** 2).sum(axis=1))
        spread = max(MIN_SPREAD, 1.4826 * _weighted_median(residual, weights))
        kept = weights * np.clip(1.0 - (residual / (TRIM * spread)) ** 2, 0.0, 1.0) ** 2
        total = float(kept.sum())
        if total <= 0.0:
            return np.zeros(3)
        center = (kept[:, None] * diff).sum(axis=0) / total
    trusted = float(kept.sum())
    by_count = (trusted - TRUSTED_NONE) / (TRUSTED_FULL - TRUSTED_NONE)
    by_share = (trusted / len(diff) - SHARE_NONE) / (SHARE_FULL - SHARE_NONE)
    return -center * float(np.clip(min(by_count, by_share), 0.0, 1.0))


_CELLS: dict[tuple, np.ndarray] = {}


def _cells(photo: np.ndarray, mask: np.ndarray, feather: int) -> np.ndarray:
    key = (photo.shape, feather, hash(mask.tobytes()))
    if key not in _CELLS:
        if len(_CELLS) > 64:
            _CELLS.clear()
        prepared = prep.prepare(photo, mask, prep.PrepareOptions(feather_px=feather))
        r = prepared.record
        _CELLS[key] = repainted_area(mask, r.align, r.region, r.scale_plan)
    return _CELLS[key]


def issue32(photo, mask, generated, feather):
    """The composite with issue 32's colour match (peer signature, bench/color_peers.py)."""
    cells = _cells(photo, mask, feather)
    on = mask >= 128
    to_mask = cv2.distanceTransform(np.where(on, 0, 1).astype(np.uint8), cv2.DIST_L2, 5)
    ring = cells & ~on & (to_mask <= REACH_PX)
    out = generated.copy()
    if ring.sum() >= 16:
        g, p = to_lab(generated), to_lab(photo)
        trust = structure_trust(g, p)
        correction = estimate_drift(g[ring] - p[ring], trust[ring])
        if np.abs(correction).max() > 0:
            g[cells] += correction.astype(np.float32)
            out = to_rgb(g)
    w = feather_weights(mask, feather)[:, :, None].astype(np.uint16)
    blended = (photo.astype(np.uint16) * (255 - w) + out.astype(np.uint16) * w + 127) // 255
    return blended.astype(np.uint8)
