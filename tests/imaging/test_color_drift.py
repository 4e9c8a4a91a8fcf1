"""Colour match reads the drift only where nothing was meant to change (issue 32): which pixels
change and by how much on synthetic cases. New content that reaches past the mask (the engine
repaints whole 16-px cells) keeps its colour; a drift confined to the repainted cells is taken
out, and only there; the seam blend on top keeps what colour match did; too little trusted ring
fades the correction out."""

from __future__ import annotations

import numpy as np

from app.imaging import prepare as prep
from app.imaging.color_match import BlendOptions, to_lab, to_rgb
from app.imaging.composite import feather_weights, repainted_area
from app.imaging.drift import read_drift
from app.imaging.drift_modes import Texture, band_pass, candidates

from .test_color_match import SIZE, _disc, _photo, _rings

FEATHER = 10
OFF = BlendOptions(color_match="off")
ON = BlendOptions(color_match="on")
BOTH = BlendOptions(color_match="on", seam_blend="poisson")
RED = (205, 35, 40)


def _prepared(photo: np.ndarray, mask: np.ndarray) -> prep.Prepared:
    return prep.prepare(photo, mask, prep.PrepareOptions(feather_px=FEATHER))


def _cells(prepared: prep.Prepared) -> np.ndarray:
    r = prepared.record
    binary = np.where(prepared.original_mask >= 128, np.uint8(255), np.uint8(0))
    return repainted_area(binary, r.align, r.region, r.scale_plan)


def _noisy(photo: np.ndarray, seed: int) -> np.ndarray:
    noise = np.random.default_rng(seed).normal(0.0, 2.0, photo.shape)
    return np.clip(np.rint(photo + noise), 0, 255).astype(np.uint8)


def _with_object(base: np.ndarray, area: np.ndarray, seed: int) -> np.ndarray:
    red = np.asarray(RED, np.float32) + np.random.default_rng(seed).normal(0, 3, base.shape)
    return np.where(area[:, :, None], np.clip(np.rint(red), 0, 255).astype(np.uint8), base)


def _composite(prepared: prep.Prepared, generated: np.ndarray, blend: BlendOptions):
    return prep.composite_prepared(prepared, generated, blend=blend).astype(int)


def test_new_content_reaching_past_the_mask_keeps_its_colour() -> None:
    photo, mask = _photo(10), _disc(22)
    prepared = _prepared(photo, mask)
    cells = _cells(prepared)
    on = mask >= 128
    for k in (0, 4, 8):  # reaching k px past the mask, and the whole repainted cells
        grown = np.asarray(np.hypot(*np.mgrid[0:SIZE, 0:SIZE] - SIZE / 2) <= 22 + k + 0.5, bool)
        for area in (grown, cells):
            generated = _with_object(_noisy(photo, k), area | on, k)
            off = _composite(prepared, generated, OFF)
            for blend in (ON, BOTH):
                out = _composite(prepared, generated, blend)
                # The object inside the mask is what was generated, to within rounding.
                assert np.abs(out[on] - off[on]).mean() < 1.0, (k, blend)
                assert np.abs(out[on] - off[on]).max() <= 4, (k, blend)


def test_a_drift_confined_to_the_cells_is_taken_out_there_only() -> None:
    photo, mask = _photo(11), _disc(20)
    prepared = _prepared(photo, mask)
    cells = _cells(prepared)
    lab = to_lab(_noisy(photo, 1))
    lab[cells] += np.float32([5.0, 9.0, -7.0])
    generated = to_rgb(lab)
    off, on_ = _composite(prepared, generated, OFF), _composite(prepared, generated, ON)
    inner, _ = _rings(mask)
    error_off = np.abs(off[inner] - photo[inner]).mean()
    error_on = np.abs(on_[inner] - photo[inner]).mean()
    assert error_off > 8.0 and error_on < 0.3 * error_off
    # Outside the repainted cells the engine returned the photo: colour match leaves the
    # generated pixels there as they were (the feather blends them in unchanged).
    weights = feather_weights(mask, FEATHER)
    beyond = (weights > 0) & ~cells
    assert beyond.sum() > 50  # the feather does reach past the cells somewhere
    assert np.array_equal(on_[beyond], off[beyond])
    # Unmasked pixels outside the blend stay the photo's, bit for bit.
    assert np.array_equal(on_[weights == 0], photo[weights == 0])
    # The seam blend on top keeps what colour match did (within rounding).
    both = _composite(prepared, generated, BOTH)
    assert np.abs(both[inner] - photo[inner]).mean() <= error_on + 0.5


def test_too_little_witnessed_ring_fades_the_correction_out() -> None:
    """The drift read from a candidate set: a textured, drifted ring gives the offset at full
    confidence; a handful of pixels, or a ring mostly re-synthesised, gives none."""
    rng = np.random.default_rng(3)
    size = 64
    base = np.float32([50.0, 10.0, 20.0])
    photo = (base + rng.normal(0, 6.0, (size, size, 3))).astype(np.float32)
    drift = np.float32([4.0, -6.0, 5.0])
    generated = photo + drift + rng.normal(0, 1.0, photo.shape).astype(np.float32)
    to_mask = np.full((size, size), 10.0, np.float32)

    def read(where: np.ndarray, picture: np.ndarray):
        cands = candidates("inner", where, to_mask)
        assert cands is not None
        texture = Texture(photo, band_pass(photo), picture, band_pass(picture))
        return read_drift(cands, texture, False)

    ring = np.zeros((size, size), bool)
    ring[8:56, 8:56] = True
    full = read(ring, generated)
    assert full.confidence == 1.0 and np.abs(full.offset - drift).max() < 0.5
    few = np.zeros_like(ring)
    few[30:34, 30:35] = True  # 20 pixels
    assert read(few, generated).confidence == 0.0
    # Most of the ring re-synthesised (another texture, same drift): the witnesses left are
    # too few a share, and the new texture is never read as drift.
    other = base + drift + rng.normal(0, 6.0, photo.shape).astype(np.float32)
    mostly_new = other.copy()
    mostly_new[8:12, 8:12] = generated[8:12, 8:12]
    assert read(ring, mostly_new).confidence == 0.0
