"""Colour match and Poisson seam blend at composite: a known tint is taken out, an untinted
generation is left alone, unmasked pixels stay the photo's bit for bit, and the edge cases
(no ring, a tiny ring, a grey picture) are no-ops or stay finite."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from app.imaging import prepare as prep
from app.imaging.color_match import (
    NOTE_EMPTY_RING,
    BlendOptions,
    ring_width_px,
    to_lab,
    to_rgb,
)
from app.imaging.composite import feather_weights
from app.imaging.geometry import Size

SIZE = 96
FEATHER = 6
RING = 8
OFF = BlendOptions(color_match="off")
ON = BlendOptions(color_match="on")
POISSON = BlendOptions(color_match="off", seam_blend="poisson")


def _photo(seed: int = 0) -> np.ndarray:
    """A colourful, smooth photo with a little texture (not one flat colour)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    base = np.stack(
        [90 + 60 * np.sin(x / 17.0), 120 + 50 * np.cos(y / 13.0), 70 + 0.8 * (x + y)], -1
    )
    texture = rng.normal(0.0, 6.0, base.shape)
    return np.clip(np.rint(base + texture), 0, 255).astype(np.uint8)


def _disc(radius: int = 20) -> np.ndarray:
    y, x = np.mgrid[0:SIZE, 0:SIZE]
    inside = (x - SIZE / 2) ** 2 + (y - SIZE / 2) ** 2 <= radius**2
    return np.where(inside, np.uint8(255), np.uint8(0))


def _tinted(photo: np.ndarray, mask: np.ndarray, shift: tuple[float, float, float]) -> np.ndarray:
    """The photo shifted in LAB over the area the engine repaints (the mask plus its 16-px
    cells' reach), as a drifting model would return it."""
    repainted = cv2.dilate(mask, np.ones((33, 33), np.uint8)) >= 128
    lab = to_lab(photo)
    lab[repainted] += np.asarray(shift, np.float32)
    return to_rgb(lab)


def _rings(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 8-px bands inside and outside the seam."""
    on = mask >= 128
    outside = cv2.distanceTransform(np.where(on, 0, 1).astype(np.uint8), cv2.DIST_L2, 5)
    inside = cv2.distanceTransform(np.where(on, 1, 0).astype(np.uint8), cv2.DIST_L2, 5)
    return on & (inside <= RING), (~on) & (outside <= RING)


def _ring_delta_e(result: np.ndarray, truth: np.ndarray, mask: np.ndarray) -> float:
    """Mean CIE76 ΔE against the truth over both rings (the bench uses CIEDE2000)."""
    inner, outer = _rings(mask)
    band = inner | outer
    diff = to_lab(result)[band] - to_lab(truth)[band]
    return float(np.sqrt((diff**2).sum(axis=1)).mean())


def _composite(photo, mask, generated, blend: BlendOptions, feather: int = FEATHER):
    options = prep.PrepareOptions(feather_px=feather)
    prepared = prep.prepare(photo, mask, options)
    return prep.composite_prepared(prepared, generated, blend=blend)


def test_a_known_tint_is_taken_out_at_the_seam() -> None:
    photo, mask = _photo(), _disc()
    generated = _tinted(photo, mask, (6.0, 7.0, -6.0))
    before = _ring_delta_e(_composite(photo, mask, generated, OFF), photo, mask)
    after = _ring_delta_e(_composite(photo, mask, generated, ON), photo, mask)
    assert before > 5.0  # the tint is there to begin with
    assert after <= 0.4 * before  # ≥ 60 % of it is gone
    # Half the strength takes out about half.
    half = BlendOptions(color_match="on", strength=0.5)
    middle = _ring_delta_e(_composite(photo, mask, generated, half), photo, mask)
    assert after < middle < before


def test_an_untinted_generation_is_left_within_half_a_delta_e() -> None:
    photo, mask = _photo(1), _disc()
    rng = np.random.default_rng(5)
    # What the VAE round trip does to pixels: a little noise, no drift.
    noise = rng.normal(0.0, 2.0, photo.shape)
    generated = np.clip(np.rint(photo + noise), 0, 255).astype(np.uint8)
    plain = _ring_delta_e(_composite(photo, mask, generated, OFF), photo, mask)
    matched = _ring_delta_e(_composite(photo, mask, generated, ON), photo, mask)
    assert matched <= plain + 0.5
    # The masked area's own content survives: matching keeps a red object red.
    red = generated.copy()
    red[mask >= 128] = (220, 30, 30)
    out = _composite(photo, mask, red, ON)
    assert np.abs(out[mask >= 128].astype(int) - (220, 30, 30)).max() <= 6


@pytest.mark.parametrize("blend", [ON, POISSON, BlendOptions(seam_blend="poisson")])
def test_pixels_outside_the_blend_stay_the_photos_bit_for_bit(blend: BlendOptions) -> None:
    photo, mask = _photo(2), _disc()
    generated = _tinted(photo, mask, (10.0, -8.0, 8.0))
    out = _composite(photo, mask, generated, blend)
    weights = feather_weights(mask, FEATHER)
    assert np.array_equal(out[weights == 0], photo[weights == 0])
    assert np.any(out[weights == 255] != generated[weights == 255])  # it did something


def test_the_poisson_seam_blend_closes_a_step_at_the_seam() -> None:
    photo, mask = _photo(3), _disc()
    step = np.clip(photo.astype(int) + (30, -25, 20), 0, 255).astype(np.uint8)
    repainted = cv2.dilate(mask, np.ones((33, 33), np.uint8)) >= 128
    generated = np.where(repainted[:, :, None], step, photo)
    before = _ring_delta_e(_composite(photo, mask, generated, OFF), photo, mask)
    after = _ring_delta_e(_composite(photo, mask, generated, POISSON), photo, mask)
    assert after <= 0.4 * before
    # Gradients inside come from the generated picture: its texture is kept.
    inner = (cv2.erode(mask, np.ones((21, 21), np.uint8)) >= 128)[1:, :]
    out = _composite(photo, mask, generated, POISSON).astype(np.float32)
    gen = generated.astype(np.float32)
    assert np.abs(np.diff(out, axis=0)[inner] - np.diff(gen, axis=0)[inner]).mean() < 2.0


def test_a_mask_over_the_whole_picture_has_no_ring_and_is_left_alone() -> None:
    photo = _photo(4)
    mask = np.full((SIZE, SIZE), 255, np.uint8)
    generated = _tinted(photo, mask, (10.0, 0.0, 0.0))
    prepared = prep.prepare(photo, mask, prep.PrepareOptions(feather_px=FEATHER))
    compositor = prep.soft_compositor(prepared, blend=ON)
    assert compositor.notes == [NOTE_EMPTY_RING]
    assert np.array_equal(compositor.composite(generated), generated)


def test_a_tiny_ring_is_left_alone_with_a_note() -> None:
    photo = _photo(5)
    mask = np.full((SIZE, SIZE), 255, np.uint8)
    mask[:2, :3] = 0  # 6 unmasked pixels
    generated = _tinted(photo, mask, (10.0, 0.0, 0.0))
    prepared = prep.prepare(photo, mask, prep.PrepareOptions(feather_px=FEATHER))
    compositor = prep.soft_compositor(prepared, blend=ON)
    assert len(compositor.notes) == 1 and "only 6 unmasked pixels" in compositor.notes[0]
    plain = prep.composite_prepared(prepared, generated)
    assert np.array_equal(compositor.composite(generated), plain)


def test_a_grey_picture_stays_grey_and_finite() -> None:
    grey = _photo(6)[:, :, :1].repeat(3, axis=2)
    flat = np.full_like(grey, 90)  # and a flat one: no spread, no texture to divide by
    mask = _disc()
    for photo in (grey, flat):
        generated = np.clip(photo.astype(int) + 25, 0, 255).astype(np.uint8)
        out = _composite(photo, mask, generated, ON).astype(int)
        assert np.abs(out[:, :, 0] - out[:, :, 1]).max() <= 1
        assert np.abs(out[:, :, 1] - out[:, :, 2]).max() <= 1
        left = np.abs(out[mask >= 128] - photo[mask >= 128]).mean()
        if photo is grey:  # textured: the brightening is taken out (to within rounding)
            assert left < 2.0
        else:  # no texture to witness it: a drift-sized shift of all the ring is believed at
            # most 0.8 (drift.py's prior), so most of it, never all, is taken out
            assert 2.0 < left < 0.5 * 25


def test_the_ring_width_without_known_cells_scales_with_the_picture() -> None:
    assert [ring_width_px(Size(s, s)) for s in (256, 512, 768, 1024, 4096)] == [8, 8, 12, 16, 16]


def test_lab_is_cie_lab_and_colours_round_trip() -> None:
    known = np.array([[255, 255, 255], [0, 0, 0], [255, 0, 0], [0, 0, 255]], np.uint8)
    lab = to_lab(known)
    assert lab.dtype == np.float32 and lab.shape == known.shape
    expected = [[100.0, 0.0, 0.0], [0.0, 0.0, 0.0], [53.24, 80.09, 67.20], [32.30, 79.19, -107.86]]
    np.testing.assert_allclose(lab, expected, atol=0.02)  # the CIE figures of sRGB (D65)
    levels = np.r_[np.arange(0, 256, 5), 1, 2, 254].astype(np.uint8)  # 55³ colours
    every = np.stack(np.meshgrid(levels, levels, levels, indexing="ij"), -1).reshape(-1, 3)
    assert np.array_equal(to_rgb(to_lab(every)), every)
    near = cv2.cvtColor(every.reshape(-1, 1, 3).astype(np.float32) / 255, cv2.COLOR_RGB2LAB)
    assert np.abs(near.reshape(-1, 3) - to_lab(every)).max() < 0.5  # OpenCV interpolates
