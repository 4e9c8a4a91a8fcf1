"""Pictures and masks for the imaging tests, made deterministically in memory."""

from __future__ import annotations

import numpy as np
import pytest


def make_picture(width: int, height: int, seed: int = 0) -> np.ndarray:
    """A noisy gradient: every pixel differs from its neighbours, so misplacement shows."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width]
    base = np.stack(
        [x * 255 // max(1, width - 1), y * 255 // max(1, height - 1), (x + y) % 256], -1
    )
    noise = rng.integers(-20, 21, size=base.shape)
    return np.clip(base + noise, 0, 255).astype(np.uint8)


def rect_mask(width: int, height: int, x: int, y: int, w: int, h: int) -> np.ndarray:
    mask = np.zeros((height, width), np.uint8)
    mask[y : y + h, x : x + w] = 255
    return mask


@pytest.fixture
def picture() -> np.ndarray:
    return make_picture(437, 301)


@pytest.fixture
def mask() -> np.ndarray:
    return rect_mask(437, 301, 200, 100, 60, 50)
