"""'Only masked' at a target size: the region is scaled to about masked_target² px for the
model and back; the soft compositor maps previews and results into the photo."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from app.core.errors import InputError
from app.imaging import prepare as prep
from app.imaging.composite import feather_weights
from app.imaging.geometry import Rect, Size
from app.imaging.mask_ops import engine_cells
from app.imaging.prepare_record import PrepareRecord
from app.imaging.region import scaled_region_size

from .conftest import make_picture, rect_mask


def test_a_small_region_is_scaled_up_to_about_the_target_area() -> None:
    # A cat's eye: 256×208 px of a big photo becomes about a megapixel for the model.
    scaled = scaled_region_size((256, 208), 1024)
    assert scaled is not None
    assert scaled.width % 16 == 0 and scaled.height % 16 == 0
    assert abs(scaled.width * scaled.height - 1024 * 1024) < 0.05 * 1024 * 1024
    assert abs(scaled.width / scaled.height - 256 / 208) < 0.02
    assert scaled == Size(1136, 928)


def test_a_big_region_is_scaled_down_and_the_job_maximum_caps_a_side() -> None:
    assert scaled_region_size((3000, 2000), 1024) == Size(1248, 832)
    # Never above the job's width × height: 2:1 at 1 MP would be 1456 wide.
    capped = scaled_region_size((400, 200), 1024, max_size=(1024, 768))
    assert capped == Size(1024, 512)
    assert scaled_region_size((400, 200), 1024, max_size=(1000, 1000)) == Size(992, 496)
    # 0 keeps the region's own size; so does a region already at the target.
    assert scaled_region_size((256, 208), 0) is None
    assert scaled_region_size((1024, 1024), 1024) is None


def test_prepare_scales_the_region_and_composites_it_back_exactly_outside_the_mask(
    tmp_path: Path,
) -> None:
    photo = make_picture(1600, 1000, seed=7)
    mask = rect_mask(1600, 1000, 1000, 400, 200, 150)
    mask[399, 1000:1200] = 90  # a soft edge below 50 %: keep, but part of the soft mask
    options = prep.PrepareOptions(only_masked=True, padding_px=28, feather_px=6)
    prepared = prep.prepare(photo, mask, options)
    record = prepared.record
    assert record.region.size == Size(256, 208)  # 200×150 + 2·28, grown to 16
    assert record.scaled == Size(1136, 928)
    # The model input is the scaled size, and the mask the model sees is scaled with it.
    assert prepared.image.shape[:2] == (928, 1136) and record.input_size == Size(1136, 928)
    assert prepared.mask is not None and prepared.mask.shape == (928, 1136)
    share = np.count_nonzero(prepared.mask) / prepared.mask.size
    assert abs(share - (200 * 150) / (256 * 208)) < 0.02
    assert np.all(prepared.image[prepared.mask == 255] == 128)

    prep.export_prepared(tmp_path / "p", prepared)
    data = json.loads((tmp_path / "p" / "prepare.json").read_text())
    assert data["scale"] == {"width": 1136, "height": 928, "factor": round(1136 / 256, 6)}
    loaded = prep.load_prepared(tmp_path / "p")
    assert loaded.record == record

    result = np.full_like(prepared.image, 7)
    for source in (prepared, tmp_path / "p"):
        out = prep.composite_prepared(source, result)
        weights = feather_weights(np.where(mask >= 128, 255, 0).astype(np.uint8), 6)
        assert np.array_equal(out[weights == 0], photo[weights == 0])  # bit-identical
        assert np.all(out[400:550, 1000:1200] == 7)  # the whole mask is the model's picture
        soft = (weights > 0) & (weights < 255)  # the feather outside the mask blends both
        assert np.count_nonzero(soft) > 1000
        assert np.count_nonzero(np.all(out[soft] == photo[soft], axis=1)) < 0.05 * soft.sum()
    # A picture with detail lands where it belongs: scaled back to the region, pixel for pixel.
    detailed = make_picture(1136, 928, seed=9)
    out = prep.composite_prepared(prepared, detailed)
    back = cv2.resize(detailed, (256, 208), interpolation=cv2.INTER_AREA)
    region = record.region
    inside = (slice(400 - region.y, 550 - region.y), slice(1000 - region.x, 1200 - region.x))
    assert np.array_equal(out[400:550, 1000:1200], back[inside])


def test_a_record_without_a_scale_still_reads_and_composites(tmp_path: Path) -> None:
    photo = make_picture(400, 300, seed=2)
    mask = rect_mask(400, 300, 100, 100, 40, 30)
    options = prep.PrepareOptions(only_masked=True, padding_px=16, masked_target=0)
    prepared = prep.prepare(photo, mask, options)
    prep.export_prepared(tmp_path / "old", prepared)
    path = tmp_path / "old" / "prepare.json"
    data = json.loads(path.read_text())
    del data["scale"]  # what every record written before the target size looks like
    path.write_text(json.dumps(data))
    record = PrepareRecord.from_json(data)
    assert record.scaled is None and record.generated_size == record.region.size
    # load_prepared checks the files' hashes, not prepare.json's own: it still opens.
    out = prep.composite_prepared(tmp_path / "old", np.zeros_like(prepared.image))
    assert np.all(out[100:130, 100:140] == 0)


def test_a_record_whose_scale_does_not_fit_is_refused() -> None:
    photo = make_picture(400, 300, seed=2)
    prepared = prep.prepare(
        photo, rect_mask(400, 300, 100, 100, 40, 30), prep.PrepareOptions(only_masked=True)
    )
    data = prepared.record.to_json()
    for scale in ({"width": 1000, "height": 600}, {"width": 512, "height": 512}):
        with pytest.raises(ValueError):
            PrepareRecord.from_json(data | {"scale": scale})


def test_the_soft_compositor_maps_a_small_preview_into_the_photo() -> None:
    photo = make_picture(1600, 1000, seed=3)
    mask = rect_mask(1600, 1000, 300, 200, 120, 100)
    prepared = prep.prepare(photo, mask, prep.PrepareOptions(only_masked=True, feather_px=8))
    compositor = prep.soft_compositor(prepared)
    width, height = prepared.record.input_size
    preview = np.full((height // 8, width // 8, 3), 200, np.uint8)  # a proj preview
    pixels, box = compositor.patch(preview, any_size=True)
    weights = feather_weights(mask, 8)
    assert box == Rect(300 - 8, 200 - 8, 120 + 16, 100 + 16)  # the feather's reach, no more
    assert pixels.shape == (box.height, box.width, 3)
    assert np.all(pixels[8:-8, 8:-8] == 200)
    whole = compositor.composite(preview, any_size=True)
    assert np.array_equal(whole[box.slices()], pixels)
    assert np.array_equal(whole[weights == 0], photo[weights == 0])
    # A full-size picture goes the same way as the final composite.
    result = np.full((height, width, 3), 200, np.uint8)
    assert np.array_equal(compositor.composite(result), prep.composite_prepared(prepared, result))
    with pytest.raises(InputError, match="prepared input is"):
        compositor.patch(preview)  # a preview of the wrong size without any_size


def test_the_soft_compositor_patches_only_the_region_at_a_megapixel() -> None:
    """Its cost per step follows the region, not the photo: each patch covers the region's box
    only (bench/timings.py times it)."""
    photo = make_picture(4000, 3000, seed=4)
    mask = rect_mask(4000, 3000, 2000, 1500, 256, 200)
    prepared = prep.prepare(photo, mask, prep.PrepareOptions(only_masked=True))
    assert prepared.record.input_size.width * prepared.record.input_size.height > 900_000
    compositor = prep.soft_compositor(prepared)
    width, height = prepared.record.input_size
    previews = [np.full((height, width, 3), v, np.uint8) for v in (10, 20, 30)]
    for preview in previews:
        pixels, box = compositor.patch(preview)
    assert np.all(pixels[20:-20, 20:-20] == 30)
    assert pixels.shape[:2] == (box.height, box.width)
    assert pixels.size < photo.size // 4  # the region's pixels, not the 12-megapixel photo's


def test_engine_cells_show_the_mask_the_engine_repaints() -> None:
    mask = np.zeros((40, 50), np.uint8)
    mask[3, 3] = 255  # one pixel repaints the whole 16×16 cell
    mask[20:22, 40:50] = 200
    mask[35, 5] = 100  # below 50 %: not repainted
    cells = engine_cells(mask)
    assert cells.shape == mask.shape and set(np.unique(cells)) == {0, 255}
    assert np.all(cells[0:16, 0:16] == 255) and np.all(cells[0:16, 16:] == 0)
    assert np.all(cells[16:32, 32:50] == 255)  # the partial cell at the right edge too
    assert np.all(cells[32:, :] == 0)
    assert np.array_equal(engine_cells(mask.astype(np.float32) / 255.0), cells)


def test_a_record_whose_feather_is_out_of_range_is_refused() -> None:
    """Issue 29, defect 12: a forged feather_px of 10^7 in prepare.json was used unchecked."""
    photo = make_picture(400, 300, seed=2)
    prepared = prep.prepare(
        photo, rect_mask(400, 300, 100, 100, 40, 30), prep.PrepareOptions(only_masked=True)
    )
    data = prepared.record.to_json()
    for feather in (10**7, -1):
        with pytest.raises(ValueError, match="feather"):
            PrepareRecord.from_json(data | {"feather_px": feather})
    assert PrepareRecord.from_json(data | {"feather_px": 256}).feather_px == 256
