"""Pre-fill from the surroundings: telea / ns (OpenCV inpainting) and border (edge extension)
continue a smooth picture into the hole far better than grey, and touch nothing outside it."""

from __future__ import annotations

import numpy as np
import pytest

from app.imaging.fill import GREY_LEVEL, fill_masked

from .conftest import rect_mask

W, H = 72, 56


def _gradient() -> np.ndarray:
    """A smooth gradient whose hole is far from 50 % grey."""
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    picture = np.stack([20 + 1.5 * x, 230 - 1.2 * y, 40 + 0.6 * (x + y)], -1)
    return np.clip(np.rint(picture), 0, 255).astype(np.uint8)


def _hole_error(mode: str) -> float:
    picture, mask = _gradient(), rect_mask(W, H, 26, 18, 20, 16)
    out = fill_masked(picture, mask, mode)  # type: ignore[arg-type]
    hole = mask >= 128
    assert np.array_equal(out[~hole], picture[~hole])  # outside: bit-identical
    return float(np.abs(out[hole].astype(int) - picture[hole].astype(int)).mean())


@pytest.mark.parametrize("mode", ["telea", "ns", "border"])
def test_fills_from_the_surroundings_beat_grey_on_a_smooth_picture(mode: str) -> None:
    grey = _hole_error("grey")
    assert grey > 40
    assert _hole_error(mode) < grey / 5


def test_border_takes_the_nearest_outside_colour() -> None:
    picture = np.zeros((20, 30, 3), np.uint8)
    picture[:, :15] = (200, 10, 10)  # red on the left, blue on the right
    picture[:, 15:] = (10, 10, 200)
    mask = rect_mask(30, 20, 5, 5, 20, 10)
    out = fill_masked(picture, mask, "border")
    assert out[10, 6].tolist() == [200, 10, 10]  # nearer the red side
    assert out[10, 23].tolist() == [10, 10, 200]
    assert out[5, 12].tolist() == [200, 10, 10]  # straight up is the nearest: red


@pytest.mark.parametrize("mode", ["telea", "ns", "border", "blur"])
def test_a_hole_over_the_whole_picture_falls_back_to_grey(mode: str) -> None:
    picture = _gradient()
    out = fill_masked(picture, np.full((H, W), 255, np.uint8), mode)  # type: ignore[arg-type]
    assert np.all(out == GREY_LEVEL)
