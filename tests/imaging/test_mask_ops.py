from __future__ import annotations

import numpy as np

from app.imaging import mask_ops
from app.imaging.geometry import Rect

from .conftest import rect_mask


def dot(size: int = 41) -> np.ndarray:
    mask = np.zeros((size, size), np.uint8)
    mask[size // 2, size // 2] = 255
    return mask


def test_clear_fill_invert() -> None:
    mask = rect_mask(10, 8, 2, 2, 3, 3)
    assert not mask_ops.clear(mask).any()
    assert np.all(mask_ops.fill(mask) == 255)
    inverted = mask_ops.invert(mask)
    assert inverted[3, 3] == 0 and inverted[0, 0] == 255
    soft = np.array([[0.0, 0.25, 1.0]], np.float32)
    assert np.allclose(mask_ops.invert(soft), [[1.0, 0.75, 0.0]])
    assert np.all(mask_ops.fill(soft) == 1.0)
    assert mask[3, 3] == 255  # inputs are left alone


def test_grow_is_a_round_dilation_by_n_pixels() -> None:
    grown = mask_ops.grow(dot(), 5)
    ys, xs = np.nonzero(grown)
    assert ys.min() == 15 and ys.max() == 25 and xs.min() == 15 and xs.max() == 25
    # Round, not square: the corners of the 11×11 box stay empty.
    assert grown[15, 15] == 0 and grown[20, 15] == 255
    assert np.count_nonzero(grown) < 11 * 11


def test_shrink_undoes_grow_on_a_rectangle_and_removes_thin_parts() -> None:
    mask = rect_mask(60, 60, 10, 10, 30, 20)
    shrunk = mask_ops.shrink(mask, 3)
    assert mask_ops.bounding_box(shrunk) == Rect(13, 13, 24, 14)
    line = rect_mask(60, 60, 5, 30, 50, 2)
    assert not mask_ops.shrink(line, 2).any()


def test_shrink_does_not_eat_from_the_picture_border() -> None:
    mask = rect_mask(40, 40, 0, 0, 20, 40)
    assert mask_ops.bounding_box(mask_ops.shrink(mask, 4)) == Rect(0, 0, 16, 40)


def test_blur_spreads_exactly_n_pixels_and_keeps_the_total() -> None:
    blurred = mask_ops.blur(dot(), 6)
    ys, xs = np.nonzero(blurred)
    assert ys.min() >= 14 and ys.max() <= 26 and xs.min() >= 14 and xs.max() <= 26
    assert blurred[20, 20] < 255 and blurred[20, 23] > 0
    soft = mask_ops.blur(rect_mask(40, 40, 10, 10, 20, 20).astype(np.float32) / 255, 4)
    assert abs(float(soft.sum()) - 400.0) < 1.0
    assert soft[20, 20] > 0.9999 and 0.2 < soft[20, 10] < 0.8 and soft[20, 4] == 0.0


def test_lasso_fills_the_polygon() -> None:
    mask = np.zeros((50, 50), np.uint8)
    # Corners on pixel centres: pixels 10..29 × 10..19, outline included.
    corners = [(10.5, 10.5), (29.5, 10.5), (29.5, 19.5), (10.5, 19.5)]
    filled = mask_ops.fill_polygon(mask, corners)
    assert mask_ops.bounding_box(filled) == Rect(10, 10, 20, 10)
    assert np.count_nonzero(filled) == 200
    assert not mask.any()
    triangle = mask_ops.fill_polygon(mask, [(0, 0), (40, 0), (0, 40)])
    assert triangle[5, 5] == 255 and triangle[35, 35] == 0


def test_lasso_with_value_and_antialias() -> None:
    full = np.ones((40, 40), np.float32)
    erased = mask_ops.fill_polygon(full, [(10, 10), (30, 10), (30, 30), (10, 30)], value=0.0)
    assert erased[20, 20] == 0.0 and erased[5, 5] == 1.0
    mask = np.zeros((40, 40), np.uint8)
    soft = mask_ops.fill_polygon(mask, [(5.0, 5.0), (35.0, 8.0), (20.0, 35.0)], antialias=True)
    hard = mask_ops.fill_polygon(mask, [(5.0, 5.0), (35.0, 8.0), (20.0, 35.0)])
    partial = (soft > 0) & (soft < 255)
    assert np.count_nonzero(partial) > 20
    assert np.count_nonzero(hard[(hard > 0) & (hard < 255)]) == 0
    assert soft[15, 20] == 255


def test_binarise_threshold() -> None:
    mask = np.array([[0, 127, 128, 255]], np.uint8)
    assert mask_ops.binarise(mask).tolist() == [[0, 0, 255, 255]]
    assert mask_ops.binarise(mask, 200).tolist() == [[0, 0, 0, 255]]
    soft = np.array([[0.49, 0.5, 1.0]], np.float32)
    assert mask_ops.binarise(soft).tolist() == [[0, 255, 255]]


def test_bounding_box_and_emptiness() -> None:
    mask = np.zeros((30, 40), np.uint8)
    assert mask_ops.is_empty(mask) and mask_ops.bounding_box(mask) is None
    mask[5, 7] = 1
    mask[20, 33] = 200
    assert not mask_ops.is_empty(mask)
    assert mask_ops.bounding_box(mask) == Rect(7, 5, 27, 16)


def test_large_grow_and_shrink_of_a_binary_mask_are_exact_discs() -> None:
    grown = mask_ops.grow(dot(201), 60)
    yy, xx = np.mgrid[0:201, 0:201]
    disc = (yy - 100) ** 2 + (xx - 100) ** 2 <= 60**2
    assert np.array_equal(grown == 255, disc)
    shrunk = mask_ops.shrink(np.where(disc, np.uint8(255), np.uint8(0)), 50)
    # Brute force: a pixel survives when no keep-pixel lies within 50 px of it.
    keep = np.argwhere(~disc)
    expected = np.zeros_like(disc)
    for y, x in np.argwhere(disc[85:116, 85:116]) + 85:
        expected[y, x] = np.min((keep[:, 0] - y) ** 2 + (keep[:, 1] - x) ** 2) > 50**2
    assert np.array_equal(shrunk > 0, expected)
    assert 250 < np.count_nonzero(expected) < 400  # about a disc of radius 10


def test_large_grow_of_a_soft_mask_is_close_to_exact() -> None:
    soft = np.zeros((300, 300), np.float32)
    soft[130:170, 130:170] = 0.4
    soft[140:160, 140:160] = 1.0
    grown = mask_ops.grow(soft, 40)
    yy, xx = np.mgrid[0:300, 0:300]
    dx = np.maximum(np.maximum(140 - xx, xx - 159), 0)
    dy = np.maximum(np.maximum(140 - yy, yy - 159), 0)
    to_core = np.hypot(dx, dy)  # distance to the solid core
    # The edges move by at most a few pixels (the soft path pools 3-px blocks).
    assert np.all(grown[to_core <= 35] >= 0.99)
    assert np.all(grown[(to_core >= 45) & (to_core <= 46)] >= 0.39)  # the 0.4 fringe, grown
    assert np.all(grown[to_core > 40 + 15 + 4] == 0.0)  # the fringe reaches ≤ 10√2 px further
    assert np.all(grown >= soft - 1e-6)
    shrunk = mask_ops.shrink(soft, 12)
    # The 20-px core vanishes; the 40-px 0.4 fringe becomes 16 px (edges within ~3 px).
    assert abs(shrunk[150, 150] - 0.4) < 1e-3 and abs(shrunk[150, 146] - 0.4) < 1e-3
    assert shrunk[150, 136] == 0.0 and shrunk.max() < 0.41 and shrunk[0, 0] == 0.0


def test_wide_blur_reaches_about_n_pixels() -> None:
    mask = rect_mask(500, 500, 150, 150, 200, 200)
    blurred = mask_ops.blur(mask, 64)
    assert blurred[250, 250] == 255 and blurred[250, 150] in range(110, 146)
    assert blurred[250, 150 - 70] == 0 and blurred[250, 150 - 40] > 0
