"""The seam blend: a smooth (harmonic) correction that makes the generated picture meet the photo.

Gradient-domain (Poisson) blending with the generated picture's own gradients as the guide: the
correction u solves Laplace's equation inside the blended area with u = (photo − generated) × trust
on the pixels just outside it. `trust` (0..1, from the colour match's drift reading) is what makes
it compose with colour match: where the generated picture outside the mask is new content (an
object that reached past the mask) the boundary asks for no correction, so the object keeps its
colour; where it is the photo again (matched or not) the remaining difference is closed.

The solver is a cascade over a pyramid (coarse to fine, each level relaxed from the coarser
level's solution with a few red-black over-relaxed Gauss-Seidel sweeps), so a large mask costs a
few full-resolution sweeps instead of hundreds (bench/inpaint_quality.py --only speed).
"""

from __future__ import annotations

import cv2
import numpy as np

SMOOTH_PX = 7  # with a trust map: the step closed is the trusted difference's local mean
COARSEST_SIDE_PX = 8  # the pyramid stops when a side is this small
SWEEPS_COARSEST = 60
SWEEPS_PER_LEVEL = 6
OMEGA = 1.8


def seam_blend(
    generated: np.ndarray,
    photo: np.ndarray,
    domain: np.ndarray,
    trust: np.ndarray | None = None,
) -> np.ndarray:
    """`generated` (HxWx3 uint8) plus a harmonic correction inside `domain` (bool HxW) that
    makes it meet `photo` at the pixels outside the domain, as far as `trust` (HxW 0..1, None:
    1) says the photo is what belongs there. Pixels outside the domain come back as they were
    generated. Box edges without an outside pixel are free (no flux). With a trust map the
    step closed at each boundary pixel is the mean of the trusted difference over the outside
    pixels of a `SMOOTH_PX` window: a leftover drift is closed, the VAE's pixel noise (which
    would only be spread inward) is not."""
    known = ~domain
    if not known.any() or not domain.any():
        return generated.copy()
    if trust is not None and not trust[known].any():  # nothing to close: no solve
        return generated.copy()
    difference = photo.astype(np.float32) - generated.astype(np.float32)
    if trust is not None:
        difference *= trust[:, :, None].astype(np.float32)
        difference[domain] = 0.0
        window = (SMOOTH_PX, SMOOTH_PX)
        outside = cv2.boxFilter(known.astype(np.float32), -1, window)
        spread = cv2.boxFilter(difference, -1, window)
        difference = (spread / np.maximum(outside, 1e-6)[:, :, None]).astype(np.float32)
    difference[domain] = 0.0
    correction = solve_membrane(difference, known)
    out = generated.astype(np.float32)
    out[domain] += correction[domain]
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def _down(values: np.ndarray, known: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Half the size: a coarse pixel is known when any of its 2×2 is, with their mean."""
    height, width = known.shape
    h2, w2 = -(-height // 2), -(-width // 2)
    v = np.zeros((2 * h2, 2 * w2, values.shape[2]), np.float32)
    k = np.zeros((2 * h2, 2 * w2), np.float32)
    v[:height, :width] = values * known[:, :, None]
    k[:height, :width] = known
    v_sum = v.reshape(h2, 2, w2, 2, -1).sum(axis=(1, 3))
    k_sum = k.reshape(h2, 2, w2, 2).sum(axis=(1, 3))
    coarse_known = k_sum > 0
    coarse = v_sum / np.maximum(k_sum, 1.0)[:, :, None]
    return coarse.astype(np.float32), coarse_known


def _up(coarse: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    fine = np.repeat(np.repeat(coarse, 2, axis=0), 2, axis=1)
    return fine[: shape[0], : shape[1]]


def solve_membrane(values: np.ndarray, known: np.ndarray) -> np.ndarray:
    """float32 HxWxC: `values` on the `known` pixels, harmonic on the others."""
    levels: list[tuple[np.ndarray, np.ndarray]] = [(values.astype(np.float32), known)]
    while min(levels[-1][1].shape) > COARSEST_SIDE_PX:
        levels.append(_down(*levels[-1]))
    v, k = levels[-1]
    start = np.where(k[:, :, None], v, v[k].mean(axis=0) if k.any() else 0.0)
    solution = relax(start.astype(np.float32), ~k, SWEEPS_COARSEST)
    for v, k in reversed(levels[:-1]):
        start = np.where(k[:, :, None], v, _up(solution, k.shape))
        solution = relax(start.astype(np.float32), ~k, SWEEPS_PER_LEVEL)
    return solution


def relax(values: np.ndarray, free: np.ndarray, sweeps: int) -> np.ndarray:
    """Red-black over-relaxed Gauss-Seidel for Laplace's equation on the `free` pixels; the
    others are fixed. Box edges reflect (no flux)."""
    if not free.any():
        return values.copy()
    height, width = free.shape
    rows, cols = np.indices((height, width))
    steps = [
        (free & ((rows + cols) % 2 == parity)).astype(np.float32)[:, :, None] * np.float32(OMEGA)
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
            padded[0, 1:-1], padded[-1, 1:-1] = u[0], u[-1]
            padded[:, 0], padded[:, -1] = padded[:, 1], padded[:, -2]
    return u.copy()
