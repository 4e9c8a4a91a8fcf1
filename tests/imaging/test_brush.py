from __future__ import annotations

import math

import numpy as np

from app.imaging import brush
from app.imaging.geometry import Rect


def test_hard_dab_is_a_disc_of_exact_radius() -> None:
    for diameter in (1, 2, 7, 20, 33):
        kernel = brush.dab_kernel(diameter, 1.0)
        assert kernel.shape == (diameter, diameter)
        r = diameter / 2
        c = np.arange(diameter) + 0.5 - r
        inside = c[None, :] ** 2 + c[:, None] ** 2 <= r * r
        assert np.array_equal(kernel == 1.0, inside)
        assert np.array_equal(kernel == 0.0, ~inside)


def test_hard_disc_area_approaches_pi_r_squared() -> None:
    kernel = brush.dab_kernel(200, 1.0)
    assert abs(kernel.sum() - math.pi * 100**2) / (math.pi * 100**2) < 0.005


def test_soft_dab_falls_off_monotonically_from_the_centre() -> None:
    for hardness in (0.0, 0.3, 0.8):
        kernel = brush.dab_kernel(41, hardness)
        row = kernel[20]  # through the centre pixel (odd diameter)
        assert row[20] == 1.0
        assert np.all(np.diff(row[20:]) <= 0)
        assert np.all(np.diff(row[:21]) >= 0)
        assert row[0] < 0.05 and row[-1] < 0.05
        # Partial values exist: it is really soft.
        assert np.count_nonzero((kernel > 0.05) & (kernel < 0.95)) > 20
    # Harder keeps more of the core solid.
    assert brush.dab_kernel(41, 0.8).sum() > brush.dab_kernel(41, 0.3).sum()


def test_kernels_are_cached_and_read_only() -> None:
    a = brush.dab_kernel(30, 0.5)
    assert brush.dab_kernel(30, 0.5) is a
    assert not a.flags.writeable


def test_stamp_touches_only_the_dab_box_and_reports_it() -> None:
    mask = np.zeros((100, 120), np.float32)
    kernel = brush.dab_kernel(10, 1.0)
    box = brush.stamp_dab(mask, 50.0, 40.0, kernel)
    assert box == Rect(45, 35, 10, 10)
    ys, xs = np.nonzero(mask)
    assert ys.min() >= 35 and ys.max() < 45 and xs.min() >= 45 and xs.max() < 55
    assert mask[40, 50] == 1.0


def test_stamp_clips_at_the_edge_and_misses_outside() -> None:
    mask = np.zeros((50, 50), np.float32)
    kernel = brush.dab_kernel(20, 1.0)
    assert brush.stamp_dab(mask, 0.0, 0.0, kernel) == Rect(0, 0, 10, 10)
    assert mask[0, 0] == 1.0
    before = mask.copy()
    assert brush.stamp_dab(mask, -100.0, 10.0, kernel) is None
    assert np.array_equal(mask, before)


def test_paint_takes_the_max_and_does_not_build_up() -> None:
    mask = np.zeros((40, 40), np.float32)
    kernel = brush.dab_kernel(11, 1.0)
    for _ in range(5):
        brush.stamp_dab(mask, 20.5, 20.5, kernel, opacity=0.4)
    assert np.isclose(mask[20, 20], 0.4)
    brush.stamp_dab(mask, 20.5, 20.5, kernel, opacity=0.9)
    assert np.isclose(mask[20, 20], 0.9)
    brush.stamp_dab(mask, 20.5, 20.5, kernel, opacity=0.5)
    assert np.isclose(mask[20, 20], 0.9)


def test_erase_lowers_to_one_minus_opacity() -> None:
    mask = np.ones((40, 40), np.float32)
    kernel = brush.dab_kernel(11, 1.0)
    brush.stamp_dab(mask, 20.5, 20.5, kernel, opacity=1.0, erase=True)
    assert mask[20, 20] == 0.0
    assert mask[0, 0] == 1.0
    mask[:] = 1.0
    brush.stamp_dab(mask, 20.5, 20.5, kernel, opacity=0.25, erase=True)
    assert np.isclose(mask[20, 20], 0.75)


def test_stroke_points_never_leave_gaps() -> None:
    points = brush.stroke_points((0.0, 0.0), (100.0, 37.0), spacing=3.0)
    assert points[0] == (0.0, 0.0) and points[-1] == (100.0, 37.0)
    gaps = [math.dist(a, b) for a, b in zip(points, points[1:], strict=False)]
    assert max(gaps) <= 3.0 + 1e-9
    assert min(gaps) > 2.5  # evenly spaced, not padded with duplicates


def test_stroke_points_without_start_skip_the_joint() -> None:
    points = brush.stroke_points((10.0, 10.0), (20.0, 10.0), spacing=5.0, include_start=False)
    assert points == [(15.0, 10.0), (20.0, 10.0)]
    assert brush.stroke_points((1.0, 1.0), (1.0, 1.0), 2.0, include_start=False) == []


def test_fast_stroke_paints_a_continuous_line() -> None:
    mask = np.zeros((200, 400), np.float32)
    diameter = 12
    kernel = brush.dab_kernel(diameter, 1.0)
    points = brush.stroke_points((10.0, 100.5), (390.0, 100.5), brush.dab_spacing_px(diameter))
    dirty = brush.stamp_stroke(mask, points, kernel)
    assert dirty == Rect(4, 95, 392, 12)
    # Every column along the stroke is painted through its centre row: no gaps.
    assert np.all(mask[100, 10:391] == 1.0)
    assert np.all(mask[97:104, 10:391] == 1.0)
    # Only a stroke's width is painted.
    assert np.count_nonzero(mask[:94]) == 0 and np.count_nonzero(mask[107:]) == 0


def test_dab_spacing_is_a_fraction_of_the_diameter() -> None:
    assert brush.dab_spacing_px(100) == 100 * brush.DAB_SPACING_FRACTION
    assert 0.10 <= brush.DAB_SPACING_FRACTION <= 0.25
    assert brush.dab_spacing_px(2) == 1.0
