"""Witness-validated colour match (issue 40), by mechanism on synthetic pictures: a drift
confined to the repainted cells is read from the ring pixels that keep the photo's texture and
taken out; new content that spilled past the mask keeps its colour; an unshifted picture is left
alone; a ring with no witness (re-synthesised: another texture) is declined, with the reason
as data, and the composite is exactly the plain one. ΔE here is CIE76 in LAB (the bench,
bench/color_cases.py, measures CIEDE2000)."""

from __future__ import annotations

import numpy as np

from app.imaging import prepare as prep
from app.imaging.color_match import BlendOptions, to_lab, to_rgb
from app.imaging.composite import feather_weights, repainted_area
from app.imaging.drift import NO_WITNESS

from .test_color_match import SIZE, _disc, _photo

FEATHER = 8
OFF = BlendOptions(color_match="off")
ON = BlendOptions(color_match="on")
BOTH = BlendOptions(color_match="on", seam_blend="poisson")
RED = (205, 35, 40)


def _plain(seed: int) -> np.ndarray:
    """A nearly flat photo (grass-green, a gentle slope) with fine texture."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    base = np.stack([100 + 0.2 * x, 140 + 0.1 * y, 90 + 0.0 * x], -1)
    return np.clip(np.rint(base + rng.normal(0.0, 6.0, base.shape)), 0, 255).astype(np.uint8)


def _setup(
    seed: int, plain: bool = False
) -> tuple[np.ndarray, np.ndarray, prep.Prepared, np.ndarray]:
    photo, mask = (_plain(seed) if plain else _photo(seed)), _disc(20)
    prepared = prep.prepare(photo, mask, prep.PrepareOptions(feather_px=FEATHER))
    r = prepared.record
    cells = repainted_area(mask, r.align, r.region, r.scale_plan)
    return photo, mask, prepared, cells


def _noisy(photo: np.ndarray, seed: int) -> np.ndarray:
    noise = np.random.default_rng(seed).normal(0.0, 2.0, photo.shape)
    return np.clip(np.rint(photo + noise), 0, 255).astype(np.uint8)


def _drifted(base: np.ndarray, where: np.ndarray, shift: tuple[float, float, float]) -> np.ndarray:
    lab = to_lab(base)
    lab[where] += np.float32(shift)
    return to_rgb(lab)


def _delta_e(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(((to_lab(a) - to_lab(b)) ** 2).sum(axis=-1)).mean())


def _composite(prepared: prep.Prepared, generated: np.ndarray, blend: BlendOptions):
    compositor = prep.soft_compositor(prepared, blend=blend)
    return compositor.composite(generated), compositor.color_match_record()


def test_a_cell_confined_drift_is_read_from_witnesses_and_taken_out() -> None:
    for seed in (20, 21):
        photo, mask, prepared, cells = _setup(seed)
        on = mask >= 128
        generated = _drifted(_noisy(photo, seed), cells, (4.0, 7.0, -6.0))  # ΔE ≈ 10
        off, _ = _composite(prepared, generated, OFF)
        matched, record = _composite(prepared, generated, ON)
        before, after = _delta_e(off[on], photo[on]), _delta_e(matched[on], photo[on])
        assert before > 8.0
        assert after <= 0.4 * before, (seed, before, after)  # ≥ 60 % of it is gone
        assert record is not None and record["applied"] and record["slope"] > 0.8
        assert np.allclose(record["offset_lab"], (4.0, 7.0, -6.0), atol=1.5)


def test_a_spilled_object_keeps_its_colour() -> None:
    photo, mask, prepared, cells = _setup(22, plain=True)  # the object's residual: one mode
    on = mask >= 128
    rng = np.random.default_rng(3)
    d = np.hypot(*(np.mgrid[0:SIZE, 0:SIZE] - SIZE / 2))
    for area in (d <= 24.5, d <= 28.5, cells):  # 4 px, 8 px past the mask, the whole cells
        red = np.clip(np.rint(np.float32(RED) + rng.normal(0, 3, photo.shape)), 0, 255)
        generated = np.where((area | on)[:, :, None], red.astype(np.uint8), _noisy(photo, 4))
        off, _ = _composite(prepared, generated, OFF)
        for blend in (ON, BOTH):
            out, _ = _composite(prepared, generated, blend)
            shift = _delta_e(out[on], generated[on]) - _delta_e(off[on], generated[on])
            assert shift <= 0.5, (int(area.sum()), blend, shift)


def test_an_unshifted_picture_is_left_alone() -> None:
    for seed in (23, 24):
        photo, mask, prepared, _ = _setup(seed)
        generated = _noisy(photo, seed)
        off, _ = _composite(prepared, generated, OFF)
        matched, _ = _composite(prepared, generated, ON)
        blended = feather_weights(mask, FEATHER) > 0  # where the composite takes anything
        ring = blended & (mask < 128)
        assert _delta_e(matched[ring], photo[ring]) <= _delta_e(off[ring], photo[ring]) + 0.5
        assert _delta_e(matched[blended], off[blended]) <= 0.5


def test_no_witness_declines_with_the_reason_and_composites_plainly() -> None:
    photo, _, prepared, cells = _setup(25)
    # The cells re-synthesised: another texture (none of the photo's), then drifted.
    other = _photo(99)
    generated = np.where(cells[:, :, None], other, _noisy(photo, 5))
    generated = _drifted(generated, cells, (5.0, 8.0, -6.0))
    off, _ = _composite(prepared, generated, OFF)
    matched, record = _composite(prepared, generated, ON)
    assert record is not None and record["applied"] is False
    assert record["reason"] == NO_WITNESS and record["values"]["source"] == "inner"
    assert np.array_equal(matched, off)


def test_a_drift_the_gamut_clipped_away_is_not_put_back() -> None:
    """Black pushed darker stays black: the generated black pixel is what the photo's black
    drifts to, so correcting it "back" would lift it. The textured ring is corrected."""
    photo, mask, prepared, cells = _setup(26)
    on = mask >= 128
    photo = photo.copy()
    black = on & (np.arange(SIZE)[None, :] >= SIZE // 2)  # the right half of the masked disc
    photo[black] = 0
    prepared = prep.prepare(photo, mask, prep.PrepareOptions(feather_px=FEATHER))
    generated = _drifted(_noisy(photo, 6), cells, (-8.0, 5.0, 6.0))
    generated[black] = 0  # darker than black is black
    off, _ = _composite(prepared, generated, OFF)
    matched, record = _composite(prepared, generated, ON)
    assert record is not None and record["applied"]
    assert np.abs(matched[black].astype(int)).max() <= 2  # still black
    rest = on & ~black
    assert _delta_e(matched[rest], photo[rest]) <= 0.4 * _delta_e(off[rest], photo[rest])


def test_a_drift_that_clipped_the_ring_is_read_from_the_witnesses_at_the_gamut_edge() -> None:
    """A dark photo drifted so far that one sRGB channel clips to 0 over most of it: the
    clipped colours keep no texture to test, but the ring's pixels of the same colour show
    what it drifted by, so they are corrected as the ring says, not left as generated."""
    rng = np.random.default_rng(27)
    _, mask, _, _ = _setup(27)
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    base = np.stack([35 + 0.05 * x, 35 + 0.05 * y, 35 + 0.0 * x], -1)
    photo = np.clip(np.rint(base + rng.normal(0.0, 4.0, base.shape)), 0, 255).astype(np.uint8)
    prepared = prep.prepare(photo, mask, prep.PrepareOptions(feather_px=FEATHER))
    r = prepared.record
    cells = repainted_area(mask, r.align, r.region, r.scale_plan)
    generated = _drifted(_noisy(photo, 7), cells, (-10.0, -45.0, -18.0))
    assert (generated[cells] == 0).any(axis=1).mean() > 0.5  # the drift clipped most of them
    off, _ = _composite(prepared, generated, OFF)
    matched, record = _composite(prepared, generated, ON)
    assert record is not None and record["applied"]
    on = mask >= 128
    assert _delta_e(matched[on], photo[on]) <= 0.3 * _delta_e(off[on], photo[on])


def test_a_drift_turning_across_the_picture_is_followed_inside_the_mask() -> None:
    """A drift whose a and b turn linearly from one side of the mask to the other: inside the
    mask, where no witness is, the per-cell field follows the plane the ring shows rather
    than flattening toward its mean."""
    side, radius = 192, 50
    rng = np.random.default_rng(28)
    y, x = np.mgrid[0:side, 0:side].astype(np.float32)
    base = np.stack([110 + 0.1 * x, 130 + 0.05 * y, 90 + 0.0 * x], -1)
    photo = np.clip(np.rint(base + rng.normal(0.0, 6.0, base.shape)), 0, 255).astype(np.uint8)
    disc = (x - side / 2) ** 2 + (y - side / 2) ** 2 <= radius**2
    mask = np.where(disc, np.uint8(255), np.uint8(0))
    prepared = prep.prepare(photo, mask, prep.PrepareOptions(feather_px=FEATHER))
    r = prepared.record
    cells = repainted_area(mask, r.align, r.region, r.scale_plan)
    lab = to_lab(_noisy(photo, 8))
    t = np.clip((np.arange(side, dtype=np.float32) - (side / 2 - radius)) / (2 * radius), 0, 1)
    turning = np.stack([6 * np.ones_like(t), 14 * (1 - t) - 7, 14 * t - 7], -1)[None]
    lab[cells] += np.broadcast_to(turning, lab.shape)[cells]
    generated = to_rgb(lab)
    off, _ = _composite(prepared, generated, OFF)
    matched, record = _composite(prepared, generated, ON)
    assert record is not None and record["applied"]
    assert _delta_e(matched[disc], photo[disc]) <= 0.33 * _delta_e(off[disc], photo[disc])


def test_the_seam_after_a_witnessed_match_is_no_worse_than_the_match_alone() -> None:
    """A colour-dependent drift of the whole frame: colour match reads it from witnesses and
    leaves only its model's small error, which the seam blend must not spread inward (it
    closes only a leftover beyond that error)."""
    photo, mask, prepared, _ = _setup(32)
    lab = to_lab(_noisy(photo, 32))
    lab[..., 0] = (lab[..., 0] - 50) * 1.12 + 53
    lab[..., 1] = lab[..., 1] * 1.15 + 2
    lab[..., 2] = lab[..., 2] * 1.15 - 3
    generated = to_rgb(lab)
    matched, record = _composite(prepared, generated, ON)
    both, _ = _composite(prepared, generated, BOTH)
    assert record is not None and record["applied"]
    on = mask >= 128
    assert _delta_e(both[on], photo[on]) <= _delta_e(matched[on], photo[on]) + 1e-3


def test_a_drift_that_clipped_away_part_of_the_ring_s_texture_is_still_read() -> None:
    """The drift pushes a dark grey photo so far that a channel clips over the whole ring:
    the texture it kept is the photo's shifted by one offset before the clipping, which the
    witness test fits, so the ring witnesses the drift instead of being declined."""
    rng = np.random.default_rng(29)
    _, mask, _, _ = _setup(29)
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    base = np.stack([35 + 0.05 * x, 35 + 0.05 * y, 35 + 0.0 * x], -1)
    photo = np.clip(np.rint(base + rng.normal(0.0, 8.0, base.shape)), 0, 255).astype(np.uint8)
    prepared = prep.prepare(photo, mask, prep.PrepareOptions(feather_px=FEATHER))
    r = prepared.record
    cells = repainted_area(mask, r.align, r.region, r.scale_plan)
    generated = _drifted(_noisy(photo, 7), cells, (-25.0, -37.0, 13.0))
    off, _ = _composite(prepared, generated, OFF)
    matched, record = _composite(prepared, generated, ON)
    assert record is not None and record["applied"]
    on = mask >= 128
    assert _delta_e(matched[on], photo[on]) <= 0.6 * _delta_e(off[on], photo[on])
