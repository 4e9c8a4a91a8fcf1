"""What bench/color_cases.py and bench/color_stress.py share: the photos and masks, the rows
(Stepwise's colour match / seam blend settings and the peers), `Case` (one photo and mask,
prepared, composited with every row), ΔE2000, and the made-up generations (noise, a drift of a
known size, a red object reaching past the mask). `set_peers` picks the peer rows for both.
"""

from __future__ import annotations

import time

import cv2
import numpy as np

from app.imaging import prepare as prep
from app.imaging.align import align_image
from app.imaging.color_match import BlendOptions, to_lab, to_rgb
from app.imaging.composite import repainted_area
from bench.color_peers import PEERS

FEATHER_PX = 8
RING_PX = 8
SPILLS: tuple[int | str, ...] = (0, 2, 4, 8, "cell")
RED = np.array([205, 35, 40], np.float32)
TARGET_REMOVED = 0.60
TARGET_OBJECT_DE = 0.5
TARGET_UNSHIFTED_DE = 0.5
DIRECTIONS = ((0.3, 0.7, 0.6), (-0.6, -0.3, 0.5), (0.5, -0.6, -0.4))
OURS: dict[str, BlendOptions] = {
    "off": BlendOptions(color_match="off"),
    "match": BlendOptions(color_match="on"),
    "seam": BlendOptions(color_match="off", seam_blend="poisson"),
    "both": BlendOptions(color_match="on", seam_blend="poisson"),
}
ROWS: tuple[str, ...] = (*OURS, "issue32")  # --peers: every peer (set_peers)
ACTIVE_PEERS = {"issue32": PEERS["issue32"]}


def set_peers(all_peers: bool) -> None:
    """Which peer rows the cases composite: issue 32's match, or every peer."""
    global ROWS
    ACTIVE_PEERS.clear()
    ACTIVE_PEERS.update(PEERS if all_peers else {"issue32": PEERS["issue32"]})
    ROWS = (*OURS, *ACTIVE_PEERS)


def _skimage():
    import skimage.color
    import skimage.data

    return skimage


def load_photo(name: str, max_side: int = 512) -> np.ndarray:
    rng = np.random.default_rng(7)
    if name == "stripes":
        y, x = np.mgrid[0:384, 0:512].astype(np.float32)
        base = np.stack([128 + 80 * np.sin(x / 5.0), 100 + 60 * np.sin((x + y) / 9.0),
                         90 + 40 * np.cos(y / 4.0)], -1)  # fmt: skip
        photo = base + rng.normal(0, 4, base.shape)
    elif name == "noise":
        coarse = rng.uniform(40, 220, (24, 32, 3)).astype(np.float32)
        photo = cv2.resize(coarse, (512, 384), interpolation=cv2.INTER_CUBIC)
        photo = photo + rng.normal(0, 10, photo.shape)
    else:
        photo = getattr(_skimage().data, name)()
        if photo.ndim == 2:
            photo = np.repeat(photo[:, :, None], 3, axis=2)
        photo = photo[:, :, :3]
        scale = max_side / max(photo.shape[:2])
        if scale < 1:
            photo = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(np.clip(np.rint(photo), 0, 255)).astype(np.uint8)


def masks_for(height: int, width: int) -> list[tuple[str, np.ndarray]]:
    """A feathered blob, a thin stroke, a rectangle at the image's right edge (soft uint8)."""
    side = min(height, width)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    angle = np.arctan2(y - 0.5 * height, x - 0.45 * width)
    radius = 0.17 * side * (1 + 0.18 * np.sin(3 * angle) + 0.1 * np.cos(5 * angle))
    blob = (np.hypot(x - 0.45 * width, y - 0.5 * height) <= radius).astype(np.float32) * 255
    blob = cv2.GaussianBlur(blob, (0, 0), 4.0)
    stroke = np.zeros((height, width), np.uint8)
    points = np.array(
        [[0.2 * width, 0.7 * height], [0.4 * width, 0.45 * height],
         [0.6 * width, 0.6 * height], [0.8 * width, 0.3 * height]], np.int32,
    )  # fmt: skip
    cv2.polylines(stroke, [points], False, 255, thickness=max(5, side // 70))
    rect = np.zeros((height, width), np.uint8)
    rect[int(0.15 * height) : int(0.5 * height), int(0.72 * width) :] = 255
    return [("blob", np.clip(blob, 0, 255).astype(np.uint8)), ("stroke", stroke), ("edge", rect)]


def delta_e(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    color = _skimage().color
    return color.deltaE_ciede2000(color.rgb2lab(a[None]), color.rgb2lab(b[None]))[0]


class Case:
    """One photo and mask, prepared; composites any generated picture with every row."""

    def __init__(self, photo: np.ndarray, soft: np.ndarray) -> None:
        self.photo, self.soft = photo, soft
        self.prepared = prep.prepare(photo, soft, prep.PrepareOptions(feather_px=FEATHER_PX))
        self.binary = np.where(soft >= 128, np.uint8(255), np.uint8(0))
        record = self.prepared.record
        self.cells = repainted_area(self.binary, record.align, record.region, record.scale_plan)
        on = self.binary >= 128
        d_out = cv2.distanceTransform(np.where(on, 0, 1).astype(np.uint8), cv2.DIST_L2, 5)
        d_in = cv2.distanceTransform(np.where(on, 1, 0).astype(np.uint8), cv2.DIST_L2, 5)
        self.inner = on & (d_in <= RING_PX)
        self.ring = self.inner | (~on & (d_out <= RING_PX))
        self.d_out, self.on = d_out, on
        self.seconds: dict[str, float] = dict.fromkeys(ROWS, 0.0)
        self.record: dict | None = None  # what "match" did on the last composite

    def composites(self, generated: np.ndarray) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        model_sized = align_image(self.prepared.record.align, generated)
        for name, blend in OURS.items():
            start = time.perf_counter()
            compositor = prep.soft_compositor(self.prepared, blend=blend)
            out[name] = compositor.composite(model_sized)
            self.seconds[name] += time.perf_counter() - start
            if name == "match":
                self.record = compositor.color_match_record()
        for name, peer in ACTIVE_PEERS.items():
            start = time.perf_counter()
            out[name] = peer(self.photo, self.binary, generated, FEATHER_PX)
            self.seconds[name] += time.perf_counter() - start
        return out


def with_noise(photo: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.clip(np.rint(photo + rng.normal(0.0, 2.0, photo.shape)), 0, 255).astype(np.uint8)


def with_drift(
    case: Case,
    base: np.ndarray,
    direction: np.ndarray,
    wanted: float,
    whole: bool = False,
    against: np.ndarray | None = None,
) -> np.ndarray:
    """`base` shifted in LAB along `direction` over the cells (or the whole frame) by the
    amount that makes its mean ΔE2000 over the mask against `against` (the photo) `wanted`."""
    truth = case.photo if against is None else against
    lab = to_lab(base)
    low, high = 0.0, 5.0 * wanted
    where = np.ones(case.cells.shape, bool) if whole else case.cells
    for _ in range(12):
        amount = (low + high) / 2
        shifted = lab.copy()
        shifted[where] += direction * np.float32(amount)
        out = to_rgb(shifted)
        got = float(delta_e(out[case.on], truth[case.on]).mean())
        low, high = (amount, high) if got < wanted else (low, amount)
    return out


def with_object(
    case: Case, base: np.ndarray, spill: int | str, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    area = case.cells if spill == "cell" else case.on | (case.d_out <= float(spill))
    red = RED + rng.normal(0.0, 3.0, base.shape).astype(np.float32)
    out = np.where(area[:, :, None], np.clip(np.rint(red), 0, 255).astype(np.uint8), base)
    return out, area
