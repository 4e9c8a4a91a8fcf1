"""How far a generated picture drifted in colour: read only where nothing was meant to change.

The engine repaints whole 16-px cells around the mask. Between the mask and the cells' edge the
generated picture should be the photo again; what differs there is either the model's drift (a
smooth shift of the colours, the photo's texture kept) or new content that reached past the
mask edge (a red object a few pixels wider than the stroke). Only the first may be taken out.

Each ring pixel is trusted by how well the generated picture's local structure still matches
the photo's (`structure_trust`: the LAB gradients of both, compared in a small window; a pure
shift matches exactly, a new object's own edges and flat colour do not) and by the size of its
difference (a drift is a few units, new content tens: `DRIFT_SCALE`). The drift is then a
robust mean of the differences (a weighted median to start, then Tukey-weighted means that trim
what lies more than `TRIM` spreads away), and its confidence grows with the trusted pixels
left: a thin stroke, a mask at the image edge or a big new object leave too few, and the
correction fades out instead of guessing (`TRUSTED_NONE` … `TRUSTED_FULL`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

STRUCTURE_SIGMA_PX = 1.0  # both pictures are smoothed this much before their gradients
AGREEMENT_WINDOW_PX = 5  # the window the gradients are compared in
FLAT_GRADIENT = 3.0  # LAB units per px: gradients below this compare as flat (noise, VAE)
TRUST_FROM, TRUST_TO = 0.5, 0.85  # agreement below the first is not trusted, above the second fully
DRIFT_SCALE = 30.0  # LAB units: a difference this large is trusted half (new content, not drift)
SEAM_SCALE = 60.0  # the same for the seam blend's boundary (a step left at the seam is closed)
TRIM = 3.0  # residuals beyond TRIM robust spreads get no weight
MIN_SPREAD = 1.5  # LAB units: the robust spread is never taken smaller (noise of a VAE round trip)
ROBUST_ROUNDS = 4
TRUSTED_NONE = 24.0  # trusted pixels (weights summed) at which the correction is 0 ...
TRUSTED_FULL = 160.0  # ... and full
SHARE_NONE, SHARE_FULL = 0.10, 0.30  # the same for the trusted share of the ring


@dataclass(frozen=True)
class Drift:
    """The generated picture's colour shift against the photo (LAB, generated − photo), how much
    of it to take out (0..1), and the trusted pixels it rests on (weights summed)."""

    offset: np.ndarray
    confidence: float
    trusted: float

    @property
    def correction(self) -> np.ndarray:
        """What to add to the generated pixels (LAB)."""
        return (-self.offset * np.float32(self.confidence)).astype(np.float32)


NO_DRIFT = Drift(np.zeros(3, np.float32), 0.0, 0.0)


def _gradients(lab: np.ndarray) -> np.ndarray:
    gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3) / np.float32(8.0)
    gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3) / np.float32(8.0)
    return np.concatenate([gx, gy], axis=2)


def _smooth(lab: np.ndarray) -> np.ndarray:
    """The structure compared is a little coarser than the pixels: a regenerated cell keeps the
    photo's shapes, rarely its finest grain."""
    return cv2.GaussianBlur(lab, (0, 0), STRUCTURE_SIGMA_PX)


def structure_trust(generated_lab: np.ndarray, photo_lab: np.ndarray) -> np.ndarray:
    """float32 HxW in 0..1: 1 where the generated picture's local gradients are the photo's
    (a colour shift keeps them), 0 where they differ (new content, an edge the photo lacks).

    agreement = 1 − Σ|∇g − ∇p|² / (Σ|∇g|² + Σ|∇p|² + flat²) over the window: 1 for equal
    gradients, about 0 for a flat object over texture, negative for unrelated texture."""
    g, p = _gradients(_smooth(generated_lab)), _gradients(_smooth(photo_lab))
    window = (AGREEMENT_WINDOW_PX, AGREEMENT_WINDOW_PX)
    difference = cv2.boxFilter(((g - p) ** 2).sum(axis=2), -1, window, normalize=True)
    energy = cv2.boxFilter((g * g + p * p).sum(axis=2), -1, window, normalize=True)
    agreement = 1.0 - difference / (energy + np.float32(FLAT_GRADIENT**2))
    trust = (agreement - TRUST_FROM) / (TRUST_TO - TRUST_FROM)
    return np.clip(trust, 0.0, 1.0).astype(np.float32)


def size_trust(difference: np.ndarray, scale: float = DRIFT_SCALE) -> np.ndarray:
    """Per pixel (...x3 LAB differences): 1 for a small difference, ½ at `scale`, → 0 beyond."""
    size = np.sqrt((difference.astype(np.float32) ** 2).sum(axis=-1)) / np.float32(scale)
    return (1.0 / (1.0 + size**4)).astype(np.float32)


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, 0.5 * cumulative[-1])])


def estimate_drift(difference: np.ndarray, trust: np.ndarray) -> Drift:
    """The drift from the ring's differences (Nx3 LAB, generated − photo) and their structure
    trust (N): weighted, trimmed, with a confidence from the trusted pixels left."""
    weights = trust.astype(np.float64) * size_trust(difference)
    if weights.size == 0 or float(weights.sum()) <= 0.0:
        return NO_DRIFT
    diff = difference.astype(np.float64)
    center = np.array([_weighted_median(diff[:, c], weights) for c in range(3)])
    kept = weights
    for _ in range(ROBUST_ROUNDS):
        residual = np.sqrt(((diff - center) ** 2).sum(axis=1))
        spread = max(MIN_SPREAD, 1.4826 * _weighted_median(residual, weights))
        tukey = np.clip(1.0 - (residual / (TRIM * spread)) ** 2, 0.0, 1.0) ** 2
        kept = weights * tukey
        total = float(kept.sum())
        if total <= 0.0:
            return NO_DRIFT
        center = (kept[:, None] * diff).sum(axis=0) / total
    trusted = float(kept.sum())
    by_count = (trusted - TRUSTED_NONE) / (TRUSTED_FULL - TRUSTED_NONE)
    by_share = (trusted / len(diff) - SHARE_NONE) / (SHARE_FULL - SHARE_NONE)
    confidence = float(np.clip(min(by_count, by_share), 0.0, 1.0))
    return Drift(center.astype(np.float32), confidence, trusted)
