from __future__ import annotations

import numpy as np
import pytest

from app.imaging.align import (
    ALIGN_PX,
    AlignPlan,
    align_image,
    align_mask,
    plan_alignment,
    unalign_image,
)
from app.imaging.geometry import Rect, Size

from .conftest import make_picture, rect_mask

SIZES = [(437, 301), (16, 16), (1, 1), (1024, 768), (17, 15), (333, 32)]


@pytest.mark.parametrize("mode", ["pad", "crop", "scale"])
@pytest.mark.parametrize("size", SIZES)
def test_every_mode_gives_multiples_of_16(mode: str, size: tuple[int, int]) -> None:
    plan = plan_alignment(size, mode)
    image = make_picture(*size)
    aligned = align_image(plan, image)
    assert aligned.shape[1] % ALIGN_PX == 0 and aligned.shape[0] % ALIGN_PX == 0
    assert Size.of(aligned) == plan.aligned_size
    assert Size.of(align_mask(plan, np.zeros(image.shape[:2], np.uint8))) == plan.aligned_size


@pytest.mark.parametrize("size", SIZES)
def test_pad_replicates_edges_and_crops_back_exactly(size: tuple[int, int]) -> None:
    image = make_picture(*size, seed=3)
    plan = plan_alignment(size, "pad")
    left, top, right, bottom = plan.pad
    assert plan.aligned_size == (size[0] + left + right, size[1] + top + bottom)
    assert max(left + right, top + bottom) < ALIGN_PX
    aligned = align_image(plan, image)
    assert np.array_equal(aligned[top : top + size[1], left : left + size[0]], image)
    if left:
        assert np.array_equal(aligned[top : top + size[1], 0], image[:, 0])
    pixels, at = unalign_image(plan, aligned)
    assert at == Rect(0, 0, *size)
    assert np.array_equal(pixels, image)


def test_pad_is_centred() -> None:
    plan = plan_alignment((437, 301), "pad")
    assert plan.aligned_size == (448, 304)
    assert plan.pad == (5, 1, 6, 2)


def test_crop_is_centred_and_undo_places_it_back() -> None:
    image = make_picture(437, 301)
    plan = plan_alignment((437, 301), "crop")
    assert plan.aligned_size == (432, 288)
    assert plan.crop == Rect(2, 6, 432, 288)
    aligned = align_image(plan, image)
    assert np.array_equal(aligned, image[6:294, 2:434])
    pixels, at = unalign_image(plan, aligned)
    assert at == plan.crop and np.array_equal(pixels, aligned)


def test_crop_pads_a_side_shorter_than_one_cell() -> None:
    plan = plan_alignment((40, 10), "crop")
    assert plan.mode == "pad" and plan.aligned_size == (48, 16)


def test_scale_goes_to_the_nearest_multiple_and_back() -> None:
    plan = plan_alignment((437, 301), "scale")
    assert plan.aligned_size == (432, 304)
    image = np.full((301, 437, 3), 77, np.uint8)
    aligned = align_image(plan, image)
    assert np.all(aligned == 77)
    pixels, at = unalign_image(plan, aligned)
    assert at == Rect(0, 0, 437, 301) and pixels.shape == image.shape and np.all(pixels == 77)


def test_scaled_mask_stays_binary_and_keeps_thin_strokes() -> None:
    plan = plan_alignment((437, 301), "scale")
    mask = rect_mask(437, 301, 100, 0, 1, 301)  # a one-pixel line
    scaled = align_mask(plan, mask)
    assert set(np.unique(scaled)) == {0, 255}
    assert np.count_nonzero(scaled.any(axis=0)) >= 1
    assert scaled[:, 99].all() or scaled[:, 98].all() or scaled[:, 100].all()


def test_plan_round_trips_through_json() -> None:
    for mode in ("pad", "crop", "scale"):
        plan = plan_alignment((437, 301), mode)
        assert AlignPlan.from_json(plan.to_json()) == plan


def test_unalign_refuses_the_wrong_size() -> None:
    plan = plan_alignment((437, 301), "pad")
    with pytest.raises(ValueError, match="448×304"):
        unalign_image(plan, np.zeros((300, 300, 3), np.uint8))
