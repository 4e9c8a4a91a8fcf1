from __future__ import annotations

import numpy as np
import pytest

from app.imaging.fill import GREY_LEVEL, fill_masked
from app.imaging.geometry import Rect
from app.imaging.region import masked_region

from .conftest import make_picture, rect_mask


def test_grey_fill_is_exactly_128_inside_the_binarised_mask_only() -> None:
    image = make_picture(64, 48)
    mask = rect_mask(64, 48, 10, 10, 20, 15)
    mask[30, 40] = 127  # below the threshold: kept
    mask[31, 41] = 128  # at the threshold: filled
    before = image.copy()
    out = fill_masked(image, mask, "grey")
    hole = mask >= 128
    assert np.all(out[hole] == GREY_LEVEL) and GREY_LEVEL == 128
    assert np.array_equal(out[~hole], image[~hole])
    assert out[30, 40].tolist() == image[30, 40].tolist()
    assert np.array_equal(image, before)  # the caller's picture is left alone


def test_fill_none_changes_nothing() -> None:
    image = make_picture(64, 48)
    assert np.array_equal(fill_masked(image, rect_mask(64, 48, 0, 0, 30, 30), "none"), image)


def test_blur_fill_smears_the_surroundings_into_the_hole() -> None:
    image = np.zeros((64, 96, 3), np.uint8)
    image[:, :48] = (200, 0, 0)
    image[:, 48:] = (0, 0, 200)
    mask = rect_mask(96, 64, 30, 20, 36, 24)
    out = fill_masked(image, mask, "blur")
    hole = mask >= 128
    assert np.array_equal(out[~hole], image[~hole])
    # Near each side the hole takes that side's colour; red fades into blue across it.
    assert out[32, 31, 0] > 150 and out[32, 31, 2] < 50
    assert out[32, 64, 2] > 150 and out[32, 64, 0] < 50
    reds = out[32, 30:66, 0].astype(int)
    assert np.all(np.diff(reds) <= 2)


def test_unknown_fill_mode_is_refused() -> None:
    with pytest.raises(ValueError):
        fill_masked(make_picture(8, 8), np.zeros((8, 8), np.uint8), "sparkle")  # type: ignore[arg-type]


def test_region_is_mask_box_plus_padding_grown_to_16() -> None:
    region = masked_region(Rect(1000, 500, 30, 20), (4000, 3000), padding_px=64)
    assert region.width % 16 == 0 and region.height % 16 == 0
    assert region.x <= 1000 - 64 and region.right >= 1030 + 64
    assert region.y <= 500 - 64 and region.bottom >= 520 + 64
    assert region.width - (30 + 128) < 16 and region.height - (20 + 128) < 16


def test_region_is_clamped_and_grows_inward_at_the_border() -> None:
    region = masked_region(Rect(0, 0, 10, 10), (500, 400), padding_px=20)
    assert region == Rect(0, 0, 32, 32)
    region = masked_region(Rect(490, 390, 10, 10), (500, 400), padding_px=3)
    assert region.right == 500 and region.bottom == 400
    assert region.width == 16 and region.height == 16


def test_region_takes_the_whole_axis_when_the_picture_is_too_small() -> None:
    region = masked_region(Rect(5, 5, 20, 20), (30, 300), padding_px=10)
    assert region.x == 0 and region.width == 30  # alignment pads this later
    assert region.height % 16 == 0
