"""The colour table of a drift reading (drift.py): what the witnesses' residuals keep beyond the
offset and gain, as a function of the generated colour. It learns the sRGB gamut's clipping of
saturated colours and a colour-dependent drift from the ring itself; colours no witness has get
0 (the plain offset)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

TABLE_STEP = (5.0, 8.0, 8.0)  # LAB units between the colour table's nodes (L, a, b)
TABLE_LOW = (0.0, -96.0, -96.0)
TABLE_NODES = (21, 25, 25)
TABLE_SHRINK = 10.0  # witness weight: a node with this much is trusted half


def _nodes(lab: np.ndarray, per_step: int) -> np.ndarray:
    """Nx3 nearest node (integer per axis) of LAB colours on the table grid refined
    `per_step` times, clipped to the grid."""
    out = np.empty(lab.shape, np.int64)
    for c in range(3):
        last = (TABLE_NODES[c] - 1) * per_step
        i = np.rint((lab[:, c] - TABLE_LOW[c]) * (per_step / TABLE_STEP[c]))
        out[:, c] = np.clip(i, 0, last)
    return out


@dataclass(frozen=True)
class ColourTable:
    """What the witnesses' residuals keep beyond offset and gain, by generated colour: kernel
    regression on a LAB grid (bincounts smoothed by σ = 1 node, shrunk toward 0), refined 2×
    linearly; looked up at the nearest refined node. Only the part of the grid the witnesses
    reach (and the kernel's) is kept: colours beyond it get 0 (the plain offset)."""

    low: np.ndarray  # the kept block's first refined node per axis
    values: np.ndarray  # refined nodes of the block × 3

    @classmethod
    def fit(cls, g: np.ndarray, deviation: np.ndarray, w: np.ndarray) -> ColourTable:
        nodes = _nodes(g, 1)
        pad = 2
        lo = np.maximum(nodes.min(axis=0) - pad, 0)
        hi = np.minimum(nodes.max(axis=0) + pad, np.asarray(TABLE_NODES) - 1)
        shape = tuple(int(v) for v in hi - lo + 1)
        local = nodes - lo
        flat = (local[:, 0] * shape[1] + local[:, 1]) * shape[2] + local[:, 2]
        size = int(np.prod(shape))
        den = np.bincount(flat, w, size).astype(np.float32).reshape(shape)
        num = np.stack([np.bincount(flat, w * deviation[:, c], size) for c in range(3)], -1)
        den_s = _smooth_nodes(den)
        num_s = _smooth_nodes(num.astype(np.float32).reshape(*shape, 3))
        table = num_s / (den_s[..., None] + np.float32(TABLE_SHRINK))
        return cls(2 * lo, _upsample2(table))

    def at(self, lab: np.ndarray) -> np.ndarray:
        shape = self.values.shape[:3]
        lab = np.asarray(lab, np.float32)
        inside = np.ones(len(lab), bool)
        flat = np.zeros(len(lab), np.int32)
        for c in range(3):  # per channel: numpy's Nx3 reductions are slow
            per = 2.0 / TABLE_STEP[c]
            start = TABLE_LOW[c] + int(self.low[c]) / per  # the block's first refined node
            i = np.rint((lab[:, c] - np.float32(start)) * np.float32(per))
            # Beyond the grid a colour takes the grid's edge node (as `_nodes` clips).
            last = (TABLE_NODES[c] - 1) * 2 - int(self.low[c])
            i = np.clip(i, -int(self.low[c]), last).astype(np.int32)
            inside &= (i >= 0) & (i < shape[c])
            flat = flat * np.int32(shape[c]) + i
        out = np.zeros(lab.shape, np.float32)
        out[inside] = self.values.reshape(-1, 3)[flat[inside]]
        return out


def _smooth_nodes(grid: np.ndarray) -> np.ndarray:
    """A Gaussian of σ = 1 node along each of the first three axes (peak 1, zero outside)."""
    taps = {k: math.exp(-0.5 * k * k) for k in range(-2, 3)}
    for axis in range(3):
        out = np.zeros_like(grid)
        n = grid.shape[axis]
        for k, w in taps.items():
            src = [slice(None)] * grid.ndim
            dst = [slice(None)] * grid.ndim
            src[axis] = slice(max(0, -k), n - max(0, k))
            dst[axis] = slice(max(0, k), n - max(0, -k))
            out[tuple(dst)] += np.float32(w) * grid[tuple(src)]
        grid = out
    return grid


def _upsample2(grid: np.ndarray) -> np.ndarray:
    """Linear 2× refinement of the first three axes (n nodes → 2n − 1)."""
    for axis in range(3):
        moved = np.moveaxis(grid, axis, 0)
        out = np.empty((2 * moved.shape[0] - 1, *moved.shape[1:]), np.float32)
        out[0::2] = moved
        out[1::2] = 0.5 * (moved[:-1] + moved[1:])
        grid = np.moveaxis(out, 0, axis)
    return grid


EDGE_BIN = 4  # sRGB levels per channel in a bin of the edge table


def _edge_key(rgb: np.ndarray) -> np.ndarray:
    q = (np.asarray(rgb, np.int64) // EDGE_BIN).reshape(-1, 3)
    side = 256 // EDGE_BIN
    return (q[:, 0] * side + q[:, 1]) * side + q[:, 2]


def at_gamut_edge(rgb: np.ndarray) -> np.ndarray:
    """N bool: sRGB colours with a channel at 0 or 255 (what clipping makes)."""
    return np.any((rgb == 0) | (rgb == 255), axis=-1)


@dataclass(frozen=True)
class EdgeTable:
    """What the witnesses at the sRGB gamut's edge drifted by, per generated colour (bins of
    `EDGE_BIN` levels): a drift that clipped part of the ring leaves there colours whose drift
    only their own witnesses show (black pushed darker stays black; a bright colour pushed
    brighter loses only what did not clip)."""

    keys: np.ndarray  # sorted bin keys
    weight: np.ndarray  # witness px per key
    drift: np.ndarray  # the witnesses' mean residual (LAB) per key
    spread: np.ndarray  # ... and their RMS about it

    @classmethod
    def fit(
        cls, rgb: np.ndarray, residual: np.ndarray, w: np.ndarray, scale: float
    ) -> EdgeTable | None:
        edge = at_gamut_edge(rgb) & (w > 0)
        if not edge.any():
            return None
        keys, inverse = np.unique(_edge_key(rgb[edge]), return_inverse=True)
        we = w[edge].astype(np.float64)
        weight = np.bincount(inverse, we, len(keys))
        sums = np.stack(
            [np.bincount(inverse, we * residual[edge, c], len(keys)) for c in range(3)], -1
        )
        drift = sums / weight[:, None]
        about = residual[edge] - drift[inverse]
        spread = np.sqrt(np.bincount(inverse, we * (about * about).sum(axis=1), len(keys)) / weight)
        return cls(
            keys, (weight * scale).astype(np.float32), drift.astype(np.float32),
            spread.astype(np.float32),
        )  # fmt: skip

    def at(self, rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(N witness px, Nx3 drift, N spread) for N sRGB colours (0 px: none had it)."""
        key = _edge_key(rgb)
        i = np.clip(np.searchsorted(self.keys, key), 0, len(self.keys) - 1)
        hit = self.keys[i] == key
        weight = np.where(hit, self.weight[i], np.float32(0.0))
        return weight.astype(np.float32), self.drift[i] * hit[:, None], self.spread[i]
