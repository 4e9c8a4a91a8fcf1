"""Colour match methods to compare with Stepwise's, re-implemented from their descriptions.

Each takes (photo, binary mask, generated picture at the photo's size, feather) and returns the
composite. None is a copy of the peer's code; they are written from what each is documented to
do, so read them as "the method", not "the product".

- a1111: A1111 / Forge "colour correction": the generated picture's LAB histograms matched to
  the whole photo's (skimage.exposure.match_histograms), then the plain soft composite.
- krita: Krita AI Diffusion's colour match as we read it: the mean and spread of RGB per
  channel of the generated picture matched to the photo's, both measured outside the mask.
- reinhard: the klein edit-composite node: Reinhard transfer (LAB mean and spread) with the
  statistics from a background ring (8 to 32 px outside the mask) in both pictures.
- reinhard+clone: the same, then OpenCV's seamlessClone of the matched generation into the
  photo over the mask grown by the feather.
- issue32: Stepwise's colour match of issue 32, before issue 40's witnesses
  (bench/color_issue32.py; its timing includes a prepare).
- old: Stepwise's colour match before issue 32 (LAB mean/spread on the unmasked ring of
  8–16 px next to the mask, read from the generation's ring as it is).
"""

from __future__ import annotations

import cv2
import numpy as np

from app.imaging.color_match import ring_width_px, to_lab, to_rgb
from app.imaging.composite import feather_weights
from app.imaging.geometry import Size


def _soft(photo: np.ndarray, mask: np.ndarray, generated: np.ndarray, feather: int) -> np.ndarray:
    w = feather_weights(mask, feather)[:, :, None].astype(np.float32) / 255.0
    out = photo.astype(np.float32) * (1 - w) + generated.astype(np.float32) * w
    return np.clip(np.rint(out), 0, 255).astype(np.uint8)


def _reinhard(values: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """values mapped so that src's mean/std per channel become dst's."""
    scale = np.clip(dst.std(axis=0) / np.maximum(src.std(axis=0), 0.5), 0.5, 2.0)
    return (values - src.mean(axis=0)) * scale + dst.mean(axis=0)


def _distance_outside(mask: np.ndarray) -> np.ndarray:
    on = mask >= 128
    return cv2.distanceTransform(np.where(on, 0, 1).astype(np.uint8), cv2.DIST_L2, 5)


def a1111(photo, mask, generated, feather):
    from skimage.exposure import match_histograms

    lab = match_histograms(to_lab(generated), to_lab(photo), channel_axis=-1)
    return _soft(photo, mask, to_rgb(lab.astype(np.float32)), feather)


def krita(photo, mask, generated, feather):
    outside = mask < 128
    g = generated.astype(np.float32)
    mapped = _reinhard(g.reshape(-1, 3), g[outside], photo.astype(np.float32)[outside])
    out = np.clip(np.rint(mapped.reshape(g.shape)), 0, 255).astype(np.uint8)
    return _soft(photo, mask, out, feather)


def _reinhard_ring(photo, mask, generated):
    d = _distance_outside(mask)
    ring = (d > 8) & (d <= 32)
    if ring.sum() < 16:
        return generated.copy()
    lab = to_lab(generated)
    mapped = _reinhard(lab.reshape(-1, 3), lab[ring], to_lab(photo)[ring])
    return to_rgb(mapped.reshape(lab.shape).astype(np.float32))


def reinhard(photo, mask, generated, feather):
    return _soft(photo, mask, _reinhard_ring(photo, mask, generated), feather)


def reinhard_clone(photo, mask, generated, feather):
    matched = _reinhard_ring(photo, mask, generated)
    grown = cv2.dilate(mask, np.ones((2 * feather + 1,) * 2, np.uint8))
    # seamlessClone needs the area off the picture's border: keep a 1-px frame out.
    grown[0, :] = grown[-1, :] = 0
    grown[:, 0] = grown[:, -1] = 0
    ys, xs = np.nonzero(grown)
    if ys.size == 0:
        return photo.copy()
    x0, x1, y0, y1 = xs.min(), xs.max(), ys.min(), ys.max()
    center = (int((x0 + x1 + 1) // 2), int((y0 + y1 + 1) // 2))
    cloned = cv2.seamlessClone(matched, photo, grown, center, cv2.NORMAL_CLONE)
    return _soft(photo, mask, cloned, feather)


def old(photo, mask, generated, feather):
    width = ring_width_px(Size.of(photo))
    d = _distance_outside(mask)
    ring = (mask < 128) & (d <= width)
    lab = to_lab(generated)
    src, dst = lab[ring], to_lab(photo)[ring]
    std_s, std_d = src.std(axis=0), dst.std(axis=0)
    flat = (std_s < 0.5) | (std_d < 0.5)
    scale = np.where(flat, 1.0, np.clip(std_d / np.maximum(std_s, 0.5), 0.5, 2.0))
    mapped = (lab - src.mean(axis=0)) * scale + dst.mean(axis=0)
    return _soft(photo, mask, to_rgb(mapped.astype(np.float32)), feather)


def _issue32(photo, mask, generated, feather):
    from bench.color_issue32 import issue32

    return issue32(photo, mask, generated, feather)


PEERS = {
    "issue32": _issue32,
    "old": old,
    "a1111": a1111,
    "krita": krita,
    "reinhard": reinhard,
    "reinh+clone": reinhard_clone,
}
