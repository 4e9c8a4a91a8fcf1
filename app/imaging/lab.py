"""CIE LAB of sRGB (D65): the one place of the formulas colour match and its benches use.

Computed here rather than with OpenCV: its float LAB builds its tables on first use (0.13 s of
CPU, over a second of wall time on a loaded machine; the composite of every run paid it once
per process) and interpolates (up to 0.4 units off). `to_lab` / `to_rgb` are the exact formulas
(a uint8 colour round-trips); `lab_to_linear` / `linear_to_lab` are float32 versions without the
sRGB gamma, for the colour match's forward predictions (clipping to the gamut is clipping of
linear RGB to 0..1: the gamma is monotone and keeps 0 and 1).
"""

from __future__ import annotations

import cv2
import numpy as np

_LAB_T = 0.008856  # (6/29)^3: below it f(t) and L are linear
_RGB_TO_XYZ = np.array(
    [[0.412453, 0.357580, 0.180423], [0.212671, 0.715160, 0.072169],
     [0.019334, 0.119193, 0.950227]]
)  # fmt: skip
_WHITE = np.array([0.950456, 1.0, 1.088754])  # D65
_XYZ_TO_RGB = np.linalg.inv(_RGB_TO_XYZ)
_LEVELS = np.arange(256) / 255.0
# float32 linear RGB <-> white-normalised XYZ, for the fast paths.
_LINEAR_TO_XYZN = (_RGB_TO_XYZ / _WHITE[:, None]).astype(np.float32)
_XYZN_TO_LINEAR = (_XYZ_TO_RGB * _WHITE[None, :]).astype(np.float32)
# LAB <-> f(X/Xn), f(Y/Yn), f(Z/Zn): linear maps (L's offset of 16 apart).
_F_TO_LAB = np.array([[0, 116, 0], [500, -500, 0], [0, 200, -200]], np.float32)
_LAB_TO_F = np.linalg.inv(_F_TO_LAB.astype(np.float64)).astype(np.float32)
_F_OFFSET = (np.linalg.inv(_F_TO_LAB.astype(np.float64)) @ [16.0, 0.0, 0.0]).astype(np.float32)


# float32 fast paths (within 0.01 LAB units of the float64 formulas; a uint8 colour
# round-trips exactly): the sRGB decoding per level, and the encoding as a table of 2^16
# linear values (each entry the sRGB level of its bin's centre).
_DECODE = np.where(_LEVELS <= 0.04045, _LEVELS / 12.92, ((_LEVELS + 0.055) / 1.055) ** 2.4).astype(
    np.float32
)
_ENCODE_BINS = 1 << 16
_CENTRES = (np.arange(_ENCODE_BINS) + 0.5) / _ENCODE_BINS
_ENCODE = np.clip(
    np.rint(
        255.0 * np.where(_CENTRES <= 0.0031308, 12.92 * _CENTRES,
                         1.055 * _CENTRES ** (1 / 2.4) - 0.055)
    ), 0, 255,
).astype(np.uint8)  # fmt: skip


def to_lab(rgb: np.ndarray) -> np.ndarray:
    """float32 CIE LAB (L 0..100) of uint8 sRGB pixels (any leading shape, 3 channels last)."""
    flat = np.asarray(rgb, np.uint8).reshape(-1, 3)
    return linear_to_lab(_DECODE[flat]).reshape(np.shape(rgb))


def to_rgb(lab: np.ndarray) -> np.ndarray:
    """uint8 sRGB of float32 LAB pixels (clipped to the gamut's box)."""
    linear = lab_to_linear(np.asarray(lab, np.float32).reshape(-1, 3))
    index = np.clip(linear * np.float32(_ENCODE_BINS), 0, _ENCODE_BINS - 1).astype(np.int32)
    return _ENCODE[index].reshape(np.shape(lab))


def _apply(matrix: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Nx3 float32 values times a 3×3 matrix (OpenCV: numpy's matmul of Nx3 is slow)."""
    return cv2.transform(values.reshape(-1, 1, 3), matrix).reshape(-1, 3)


def lab_to_linear(lab: np.ndarray) -> np.ndarray:
    """float32 Nx3 linear RGB (not clipped) of float32 Nx3 LAB."""
    lab = np.ascontiguousarray(lab, np.float32)
    f = _apply(_LAB_TO_F, lab)
    f += _F_OFFSET
    cube = f * f * f
    linear_part = (f - np.float32(16.0 / 116.0)) * np.float32(1 / 7.787)
    xyz = np.where(f > np.float32(0.206893), cube, linear_part)
    return _apply(_XYZN_TO_LINEAR, xyz)


def linear_to_lab(linear: np.ndarray) -> np.ndarray:
    """float32 Nx3 LAB of float32 Nx3 linear RGB (in 0..1)."""
    xyz = _apply(_LINEAR_TO_XYZN, np.ascontiguousarray(linear, np.float32))
    small = xyz <= np.float32(_LAB_T)
    f = np.cbrt(xyz)
    if small.any():
        f[small] = np.float32(7.787) * xyz[small] + np.float32(16.0 / 116.0)
    lab = _apply(_F_TO_LAB, f)
    lab[:, 0] -= np.float32(16.0)
    dark = small[:, 1]
    if dark.any():
        lab[dark, 0] = np.float32(903.3) * xyz[dark, 1]
    return lab
