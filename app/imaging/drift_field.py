"""The colour model of a drift reading (drift.py), learnt from the witnesses alone: a gain per
LAB channel, a colour table (colour_table.py: the gamut's clipping of saturated colours,
colour-dependent drift) and, inside the cells, a per-cell field (a drift that varies across the
picture), on top of the mode's offset."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from app.imaging.colour_table import ColourTable, EdgeTable
from app.imaging.drift_modes import Reading
from app.imaging.fill import push_pull
from app.imaging.lab import to_rgb

GAIN_PRIOR = 16.0  # LAB units²: the gain is shrunk toward 1 by this much photo variance
GAIN_MIN, GAIN_MAX = 0.75, 1.33
GAIN_KEPT = 1.0  # LAB units: a gain is used only if it moves the witnesses' colours this much
MIN_OFFSET = 1.0  # LAB units: below it the table and the field are not used
CELL_PX = 16  # the spatial field's cells
CELL_SHRINK = 48.0  # witness px: a cell with this much is trusted half
PLANE_PRIOR_CELLS = 1.0  # the plane's slopes count as if the witnesses spread this little more


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
    edge: EdgeTable | None = None  # the drift of colours at the gamut's edge, by witnesses

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


def fit_model(
    reading: Reading,
    offset: np.ndarray,
    confidence: float,
    w: np.ndarray,
    shape: tuple[int, int] | None,
    vouched: np.ndarray | None = None,
) -> Model:
    """The gain, colour table and (given the span's `shape`) field from the witnesses `w`;
    the edge table from the candidates the prediction alone `vouched` for."""
    model = _fit_model(reading, offset, confidence, w, shape)
    if vouched is None or model.table is None:
        return model
    edge = EdgeTable.fit(to_rgb(reading.g), reading.r, vouched, reading.c.scale)
    return replace(model, edge=edge)


def _fit_model(
    reading: Reading,
    offset: np.ndarray,
    confidence: float,
    w: np.ndarray,
    shape: tuple[int, int] | None,
) -> Model:
    total = float(w.sum())
    if total <= 0.0:
        return Model(offset, confidence)
    g, p = reading.g, reading.p
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
    deviation = reading.r - base.drift_at(g)
    table = ColourTable.fit(g[seen], deviation[seen], w[seen])
    with_table = Model(offset, confidence, gain, base.gain_center, low, high, table)
    if shape is None:
        return with_table
    left = reading.r - with_table.drift_at(g)
    height, width = shape
    gh, gw = -(-height // CELL_PX), -(-width // CELL_PX)
    cell = (reading.c.rows // CELL_PX) * gw + reading.c.cols // CELL_PX
    weight = w * np.float32(reading.c.scale)
    cw = np.bincount(cell, weight, gh * gw)
    sums = np.stack([np.bincount(cell, weight * left[:, c], gh * gw) for c in range(3)], -1)
    known = cw > 0
    mean = np.where(known[:, None], sums / np.maximum(cw, 1e-9)[:, None], 0.0)
    plane = _plane(mean.reshape(gh, gw, 3), cw.reshape(gh, gw))
    flat_plane = plane.reshape(-1, 3)
    shrunk = (mean - flat_plane) * (cw / (cw + CELL_SHRINK))[:, None]
    filled = push_pull(shrunk.reshape(gh, gw, 3).astype(np.float32), known.reshape(gh, gw))
    filled = filled + plane
    field_map = cv2.resize(filled, (gw * CELL_PX, gh * CELL_PX), interpolation=cv2.INTER_LINEAR)
    field_map = np.ascontiguousarray(field_map[:height, :width])
    return Model(offset, confidence, gain, base.gain_center, low, high, table, field_map)


def _plane(mean: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """gh×gw×3 float32: the plane a + b·x + c·y through the witnessed cells' means (weighted,
    the slopes shrunk by `PLANE_PRIOR_CELLS`), held within what those cells show: a drift
    that turns across the picture is followed across the mask, where no witness is."""
    gh, gw = weight.shape
    ys, xs = np.mgrid[0:gh, 0:gw].astype(np.float64)
    w = weight.astype(np.float64)
    total = float(w.sum())
    known = w > 0
    if total <= 0.0 or int(known.sum()) < 3:
        return np.zeros((gh, gw, 3), np.float32)
    x0, y0 = float((w * xs).sum()) / total, float((w * ys).sum()) / total
    design = np.stack([np.ones(gh * gw), (xs - x0).ravel(), (ys - y0).ravel()], -1)
    wd = design * w.ravel()[:, None]
    normal = design.T @ wd + np.diag([0.0, 1.0, 1.0]) * PLANE_PRIOR_CELLS**2 * total
    coefficients = np.linalg.solve(normal + np.eye(3) * 1e-9, wd.T @ mean.reshape(-1, 3))
    plane = (design @ coefficients).reshape(gh, gw, 3)
    low, high = plane[known].min(axis=0), plane[known].max(axis=0)
    return np.clip(plane, low, high).astype(np.float32)
