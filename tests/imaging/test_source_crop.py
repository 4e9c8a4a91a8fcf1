"""unfilled_input: the prepared input without the fill (klein's reference of the photo) is
exactly what prepare makes with fill "none", for every crop, scale and alignment."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from app.imaging import prepare as prep
from app.imaging.source_crop import unfilled_input

from .conftest import make_picture, rect_mask


@pytest.mark.parametrize(
    "options",
    [
        prep.PrepareOptions(),
        prep.PrepareOptions(fill="blur", align="crop"),
        prep.PrepareOptions(align="scale"),
        prep.PrepareOptions(only_masked=True, padding_px=24, masked_target=0),
        prep.PrepareOptions(only_masked=True, padding_px=16, masked_target=256, align="crop"),
    ],
    ids=["pad", "blur-crop", "scale", "only-masked", "only-masked-scaled"],
)
def test_it_is_prepare_without_the_fill(options: prep.PrepareOptions) -> None:
    picture = make_picture(437, 301)
    mask = rect_mask(437, 301, 200, 100, 60, 50)
    prepared = prep.prepare(picture, mask, options)
    unfilled = prep.prepare(picture, mask, dataclasses.replace(options, fill="none"))
    source = unfilled_input(prepared.original_image, prepared.record)
    assert source.shape == prepared.image.shape
    assert np.array_equal(source, unfilled.image)
    hole = prepared.mask == 255
    assert np.array_equal(source[~hole], prepared.image[~hole])  # the fill is all it lacks
    assert not np.array_equal(source[hole], prepared.image[hole])


def test_without_a_mask_it_is_the_aligned_picture() -> None:
    picture = make_picture(100, 70)
    prepared = prep.prepare(picture, None, prep.PrepareOptions())
    assert np.array_equal(unfilled_input(prepared.original_image, prepared.record), prepared.image)
