from __future__ import annotations

import numpy as np
import pytest

from app.core.errors import InputError
from app.imaging.align import plan_alignment
from app.imaging.composite import blend, composite_result, feather_weights
from app.imaging.geometry import Rect

from .conftest import make_picture, rect_mask


def test_feather_is_full_on_the_mask_and_zero_beyond_n_pixels() -> None:
    mask = rect_mask(100, 80, 40, 30, 20, 20)
    weights = feather_weights(mask, 8)
    assert np.all(weights[mask == 255] == 255)
    # Exactly 0 from 9 px away; partial within 8 px; decreasing outward.
    row = weights[40, 60:75].astype(int)
    assert row[0] > 200 and np.all(np.diff(row) <= 0)
    assert row[7] > 0 and np.all(row[8:] == 0)  # row[i] is i + 1 px from the mask
    assert np.count_nonzero(weights) < np.count_nonzero(mask) + 4 * 20 * 8 + 4 * 64
    hard = feather_weights(mask, 0)
    assert np.array_equal(hard, mask)


def test_blend_is_integer_exact_at_0_and_255() -> None:
    original = make_picture(20, 10, seed=1)
    generated = make_picture(20, 10, seed=2)
    weights = np.zeros((10, 20), np.uint8)
    weights[:, 10:] = 255
    weights[:, 9] = 128
    out = blend(original, generated, Rect(0, 0, 20, 10), weights)
    assert np.array_equal(out[:, :9], original[:, :9])
    assert np.array_equal(out[:, 10:], generated[:, 10:])
    mid = (original[:, 9].astype(int) * 127 + generated[:, 9].astype(int) * 128 + 127) // 255
    assert np.array_equal(out[:, 9], mid)


def test_composite_of_padded_result_leaves_unmasked_pixels_bit_identical() -> None:
    original = make_picture(437, 301)
    mask = rect_mask(437, 301, 200, 100, 60, 50)
    plan = plan_alignment((437, 301), "pad")
    result = np.full((304, 448, 3), 7, np.uint8)
    out = composite_result(original, mask, result, plan, Rect(0, 0, 437, 301), feather_px=6)
    weights = feather_weights(mask, 6)
    assert np.array_equal(out[weights == 0], original[weights == 0])
    assert np.all(out[mask == 255] == 7)
    assert np.count_nonzero(weights == 0) > 0.9 * weights.size


def test_composite_refuses_a_result_of_the_wrong_size() -> None:
    original = make_picture(437, 301)
    plan = plan_alignment((437, 301), "pad")
    with pytest.raises(InputError) as caught:
        composite_result(
            original, None, np.zeros((512, 512, 3), np.uint8), plan, Rect(0, 0, 437, 301), 0
        )
    assert "512×512" in str(caught.value) and "-W 448 -H 304" in str(caught.value)


def test_crop_margin_keeps_the_original() -> None:
    original = make_picture(437, 301)
    mask = np.full((301, 437), 255, np.uint8)
    plan = plan_alignment((437, 301), "crop")
    result = np.zeros((288, 432, 3), np.uint8)
    out = composite_result(original, mask, result, plan, Rect(0, 0, 437, 301), 4)
    assert np.array_equal(out[:6], original[:6]) and np.array_equal(out[:, :2], original[:, :2])
    assert np.all(out[6:294, 2:434] == 0)
