"""imaging/frame.py and its use in prepare: the context area and the canvas expansion as values,
the outpaint mask and pre-fill, and the plan (no pixels) agreeing with what prepare does."""

from __future__ import annotations

import numpy as np
import pytest

from app.core.errors import InputError
from app.imaging.composite import feather_weights
from app.imaging.frame import (
    RAMP_PX,
    SEAM_PX,
    Expansion,
    check_frame,
    expand_picture,
    expansion_box,
    expansion_for_aspect,
    expansion_mask,
    parse_context,
    parse_expand,
    seam_band_px,
)
from app.imaging.geometry import Rect
from app.imaging.mask_ops import binarise, bounding_box
from app.imaging.prepare import PrepareOptions, composite_prepared, plan_model_input, prepare
from app.imaging.prepare_record import PrepareRecord


def _picture(width: int, height: int, seed: int = 3) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)


def test_values_parse_and_bad_ones_are_refused() -> None:
    assert parse_context("") is None and parse_expand(" ") is None
    assert parse_context(" 1, 2,3 ,4") == Rect(1, 2, 3, 4)
    assert parse_expand("0,16,0,8") == Expansion(0, 16, 0, 8)
    assert parse_expand("0,0,0,0") is None  # nothing to expand
    for bad in ("1,2,3", "a,b,c,d", "1.5,0,2,2", "1,2,3,4,5"):
        with pytest.raises(InputError, match="not four whole numbers"):
            parse_context(bad)
        with pytest.raises(InputError, match="not four whole numbers"):
            parse_expand(bad)
    for bad in ("-1,0,4,4", "0,0,0,4", "0,0,4,-2"):
        with pytest.raises(InputError, match="has no size"):
            parse_context(bad)
    with pytest.raises(InputError, match="negative side"):
        parse_expand("0,-1,0,0")
    check_frame("0,0,128,96", "0,0,0,0", (128, 96))
    with pytest.raises(InputError, match="reaches outside the 128×96 px picture"):
        check_frame("1,0,128,96", "", (128, 96))
    with pytest.raises(InputError, match="makes the 128×96 px picture 4097×96 px"):
        check_frame("", "3969,0,0,0", (128, 96))
    with pytest.raises(InputError):
        PrepareOptions(expand="x").check()


@pytest.mark.parametrize(
    ("size", "ratio", "anchor", "expected"),
    [
        ((320, 240), (16, 9), "centre", Expansion(53, 0, 54, 0)),
        ((320, 240), (16, 9), "right", Expansion(0, 0, 107, 0)),
        ((320, 240), (1, 1), "centre", Expansion(0, 40, 0, 40)),
        ((320, 240), (1, 1), "bottom", Expansion(0, 0, 0, 80)),
        ((320, 240), (4, 3), "centre", Expansion(0, 0, 0, 0)),
        ((100, 300), (2, 3), "left", Expansion(100, 0, 0, 0)),
    ],
)
def test_an_aspect_ratio_gives_the_least_expansion(size, ratio, anchor, expected) -> None:
    expansion = expansion_for_aspect(size, *ratio, anchor)
    assert expansion == expected
    grown = expansion.grown(size)
    assert abs(grown.width / grown.height - ratio[0] / ratio[1]) < 1 / min(grown)


def test_the_mask_covers_the_new_area_and_a_seam_into_the_old() -> None:
    # klein's outpaint mask: hard over the new area, a ~32-px ramp into the old picture
    # (flux-2-swift-mlx's inpainting guide), not a gradient across the new canvas.
    assert RAMP_PX == 32 and SEAM_PX == RAMP_PX // 2
    e = Expansion(5, 0, 0, 7)
    mask = expansion_mask((100, 80), e)
    assert mask.shape == (87, 105)
    assert (mask[:, :5] == 255).all() and (mask[80:, :] == 255).all()
    binary = binarise(mask)
    # SEAM_PX old pixels at each expanded edge repaint; the ramp is gone at RAMP_PX.
    assert binary[40, 5 : 5 + SEAM_PX].all() and not binary[40, 5 + SEAM_PX :].any()
    assert binary[80 - SEAM_PX : 80, 60].all() and not binary[: 80 - SEAM_PX, 60].any()
    assert (mask[: 80 - RAMP_PX, 5 + RAMP_PX :] == 0).all()
    assert 0 < mask[40, 5 + RAMP_PX - 1] < mask[40, 5 + SEAM_PX] < 255  # a ramp, not a step


@pytest.mark.parametrize(
    "expansion",
    [(5, 0, 0, 0), (0, 9, 0, 0), (0, 0, 3, 0), (0, 0, 0, 4), (4, 0, 6, 0), (0, 2, 0, 2),
     (1, 2, 3, 4), (0, 3, 5, 0)],
)  # fmt: skip
def test_the_planned_box_is_the_masks_box(expansion) -> None:
    for size in ((40, 30), (6, 5)):
        e = Expansion(*expansion)
        assert expansion_box(size, e) == bounding_box(binarise(expansion_mask(size, e)))


def test_expand_picture_keeps_the_old_pixels_and_joins_the_mask() -> None:
    image = _picture(40, 30)
    user = np.zeros((30, 40), np.uint8)
    user[10:20, 20:30] = 200
    canvas, mask = expand_picture(image, user, Expansion(8, 4, 0, 0))
    assert canvas.shape == (34, 48, 3) and np.array_equal(canvas[4:, 8:], image)
    assert (mask[14:24, 28:38] == 200).all()
    # The pre-fill continues the old picture (not black, not one flat grey).
    assert canvas[:4].std() > 0 and canvas[:, :8].mean() > 20


def test_prepare_plans_and_composites_the_expanded_picture() -> None:
    image = _picture(100, 70)
    mask = np.zeros((70, 100), np.uint8)
    mask[30:40, 60:70] = 255
    for options in (
        PrepareOptions(expand="24,0,8,16", feather_px=4),
        PrepareOptions(expand="24,0,8,16", feather_px=4, only_masked=True, masked_target=0),
        PrepareOptions(expand="0,0,40,0", only_masked=True, padding_px=8, masked_target=0,
                       context="0,0,20,20"),
    ):  # fmt: skip
        for m in (None, mask):
            prepared = prepare(image, m, options)
            record = prepared.record
            box = None if m is None else bounding_box(binarise(m))
            region, _scaled, plan = plan_model_input((100, 70), box, options)
            assert (record.region, record.align) == (region, plan)
            assert record.source_size == (100, 70) and record.expansion is not None
            again = PrepareRecord.from_json(record.to_json())
            assert again == record
            result = composite_prepared(prepared, np.zeros_like(prepared.image))
            e = record.expansion
            assert result.shape[:2] == (70 + e.top + e.bottom, 100 + e.left + e.right)
            old = result[e.top : e.top + 70, e.left : e.left + 100]
            # Bit-identical away from the seam band and the painted mask's feather.
            band = seam_band_px(options.feather_px)
            keep = np.ones((70, 100), bool)
            if e.left:
                keep[:, :band] = False
            if e.right:
                keep[:, 100 - band :] = False
            if e.bottom:
                keep[70 - band :, :] = False
            if m is not None:
                keep &= feather_weights(m, options.feather_px) == 0
            assert np.array_equal(old[keep], image[keep])
            assert not np.array_equal(old, image)  # the seam changed


def test_the_context_joins_the_region_and_moves_with_the_expansion() -> None:
    image = _picture(128, 96)
    mask = np.zeros((96, 128), np.uint8)
    mask[40:52, 80:96] = 255
    base = PrepareOptions(only_masked=True, padding_px=8, feather_px=4, masked_target=0)
    plain = prepare(image, mask, base).record.region
    wide = prepare(image, mask, PrepareOptions(**{**vars(base), "context": "0,0,48,32"}))
    assert plain == Rect(72, 30, 32, 32)
    assert wide.record.region == Rect(0, 0, 112, 64)
    shifted = PrepareOptions(**{**vars(base), "context": "0,0,48,32", "expand": "16,16,0,0"})
    # In the expanded picture the context sits 16 px right and down; the new area on the left
    # and top is masked, so the region starts at the origin again.
    region = prepare(image, mask, shifted).record.region
    assert region.x == 0 and region.y == 0 and region.right >= 16 + 48
    # Without only-masked the context changes nothing: the whole picture is seen.
    whole = PrepareOptions(context="0,0,48,32")
    assert prepare(image, mask, whole).record.region == Rect(0, 0, 128, 96)
