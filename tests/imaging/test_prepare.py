from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from app.core.errors import DamagedFileError, InputError, OutputError
from app.imaging import prepare as prep
from app.imaging.composite import feather_weights
from app.imaging.geometry import Rect
from app.imaging.io import MaskSizeError, load_image, load_mask
from app.imaging.prepare_record import mask_as_uint8

from .conftest import make_picture, rect_mask


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_prepare_aligns_binarises_and_fills(picture: np.ndarray, mask: np.ndarray) -> None:
    soft = mask.copy()
    soft[99, 200:260] = 100  # a soft edge below 50 %: keep
    prepared = prep.prepare(picture, soft, prep.PrepareOptions())
    assert prepared.image.shape == (304, 448, 3) and prepared.mask.shape == (304, 448)
    assert set(np.unique(prepared.mask)) == {0, 255}
    left, top = prepared.record.align.pad[:2]
    hole = prepared.mask == 255
    assert np.all(prepared.image[hole] == 128)
    inner = prepared.image[top : top + 301, left : left + 437]
    keep = mask < 128
    assert np.array_equal(inner[keep], picture[keep])
    assert prepared.record.image_sha256 == prep.pixel_sha256(picture)
    assert np.array_equal(prepared.original_mask, soft)


def test_float_masks_are_accepted(picture: np.ndarray, mask: np.ndarray) -> None:
    prepared = prep.prepare(picture, mask.astype(np.float32) / 255.0, prep.PrepareOptions())
    assert np.count_nonzero(prepared.mask) == np.count_nonzero(mask)
    soft = np.array([[-0.5, 0.0, 0.2, 0.499, 0.5, 1.0, 1.5]], np.float32)
    assert mask_as_uint8(soft).tolist() == [[0, 0, 51, 127, 128, 255, 255]]


def test_empty_mask_is_refused_with_the_fix(picture: np.ndarray) -> None:
    almost = np.zeros(picture.shape[:2], np.uint8)
    almost[5, 5] = 100  # below 50 %: still nothing to repaint
    with pytest.raises(InputError, match="(?i)the mask is empty: paint the area to repaint"):
        prep.prepare(picture, almost, prep.PrepareOptions())


def test_mask_of_another_size(picture: np.ndarray) -> None:
    with pytest.raises(MaskSizeError) as caught:
        prep.prepare(picture, np.zeros((10, 10), np.uint8), prep.PrepareOptions())
    assert caught.value.image_size == (437, 301)


def test_bad_options_are_refused(picture: np.ndarray, mask: np.ndarray) -> None:
    for options in (prep.PrepareOptions(feather_px=-1), prep.PrepareOptions(align="wobble")):
        with pytest.raises(InputError):
            prep.prepare(picture, mask, options)


def test_without_a_mask_only_alignment_happens(picture: np.ndarray, tmp_path: Path) -> None:
    prepared = prep.prepare(picture, None, prep.PrepareOptions())
    assert prepared.mask is None and prepared.image.shape == (304, 448, 3)
    prep.export_prepared(tmp_path / "p", prepared)
    assert files_in(tmp_path / "p") == ["input.png", "original.png", "prepare.json"]
    result = np.full((304, 448, 3), 9, np.uint8)
    assert np.all(prep.composite_prepared(tmp_path / "p", result) == 9)
    with pytest.raises(InputError):
        prep.prepare(picture, None, prep.PrepareOptions(only_masked=True))


def test_re_export_without_a_mask_removes_the_old_masks(
    picture: np.ndarray, mask: np.ndarray, tmp_path: Path
) -> None:
    prep.export_prepared(tmp_path / "p", prep.prepare(picture, mask, prep.PrepareOptions()))
    assert "mask.png" in files_in(tmp_path / "p")
    prep.export_prepared(tmp_path / "p", prep.prepare(picture, None, prep.PrepareOptions()))
    assert files_in(tmp_path / "p") == ["input.png", "original.png", "prepare.json"]
    assert prep.load_prepared(tmp_path / "p").record.mask_sha256 is None


def test_export_load_composite_round_trip(
    picture: np.ndarray, mask: np.ndarray, tmp_path: Path
) -> None:
    prepared = prep.prepare(picture, mask, prep.PrepareOptions(feather_px=5))
    written = prep.export_prepared(tmp_path / "out", prepared)
    assert files_in(tmp_path / "out") == sorted(written)
    assert np.array_equal(load_image(tmp_path / "out" / "input.png"), prepared.image)
    assert np.array_equal(load_mask(tmp_path / "out" / "mask.png"), prepared.mask)
    data = json.loads((tmp_path / "out" / "prepare.json").read_text())
    assert data["format"] == 1 and data["input"] == {"width": 448, "height": 304}
    loaded = prep.load_prepared(tmp_path / "out")
    assert loaded.record == prepared.record
    result = 255 - prepared.image
    weights = feather_weights(mask, 5)
    for source in (loaded, tmp_path / "out", prepared):
        out = prep.composite_prepared(source, result)
        assert np.array_equal(out[weights == 0], picture[weights == 0])
        assert np.array_equal(out[mask == 255], (255 - prepared.image)[1:302, 5:442][mask == 255])
    out4 = prep.composite_prepared(prepared.record, picture, mask, result)
    assert np.array_equal(out4, out)


def test_composite_refuses_a_different_original(picture: np.ndarray, mask: np.ndarray) -> None:
    prepared = prep.prepare(picture, mask, prep.PrepareOptions())
    other = picture.copy()
    other[0, 0] ^= 1
    with pytest.raises(InputError, match="not the picture"):
        prep.composite_prepared(prepared.record, other, mask, prepared.image)


def test_only_masked_region_is_aligned_and_composites_into_the_big_picture(
    tmp_path: Path,
) -> None:
    big = make_picture(2000, 1500, seed=5)
    mask = rect_mask(2000, 1500, 1203, 700, 41, 33)
    # masked_target 0: the region at its own size (the behaviour before the target size).
    options = prep.PrepareOptions(only_masked=True, padding_px=32, feather_px=4, masked_target=0)
    prepared = prep.prepare(big, mask, options)
    assert prepared.record.scaled is None
    region = prepared.record.region
    assert prepared.image.shape[0] % 16 == 0 and prepared.image.shape[1] % 16 == 0
    assert prepared.image.shape[:2] == (region.height, region.width)  # no padding needed
    assert region.x <= 1203 - 32 and region.right >= 1244 + 32
    assert region.width < 41 + 64 + 16 and region.height < 33 + 64 + 16
    # Full detail: the context pixels are the original's, 1:1.
    keep = prepared.mask == 0
    assert np.array_equal(prepared.image[keep], big[region.slices()][keep])
    prep.export_prepared(tmp_path / "r", prepared)
    result = np.zeros_like(prepared.image)
    out = prep.composite_prepared(tmp_path / "r", result)
    assert out.shape == big.shape
    assert np.all(out[700:733, 1203:1244] == 0)
    outside = np.ones(big.shape[:2], bool)
    outside[region.slices()] = False
    assert np.array_equal(out[outside], big[outside])
    weights = feather_weights(mask, 4)
    assert np.array_equal(out[weights == 0], big[weights == 0])


def test_load_prepared_detects_damage(
    picture: np.ndarray, mask: np.ndarray, tmp_path: Path
) -> None:
    folder = tmp_path / "d"
    prep.export_prepared(folder, prep.prepare(picture, mask, prep.PrepareOptions()))
    data = (folder / "input.png").read_bytes()
    (folder / "input.png").write_bytes(data[:-10])
    with pytest.raises(DamagedFileError, match="input.png"):
        prep.load_prepared(folder)
    (folder / "input.png").write_bytes(data)
    prep.load_prepared(folder)
    record = json.loads((folder / "prepare.json").read_text())
    (folder / "prepare.json").write_text(json.dumps(record | {"format": 99}))
    with pytest.raises(DamagedFileError, match="format"):
        prep.load_prepared(folder)
    (folder / "prepare.json").write_text(json.dumps(record | {"region": [0, 0, 9999, 10]}))
    with pytest.raises(DamagedFileError):
        prep.load_prepared(folder)
    (folder / "prepare.json").write_text('{"format": 1, "kind": "stepwise-prep')
    with pytest.raises(DamagedFileError):
        prep.load_prepared(folder)
    (folder / "prepare.json").unlink()
    with pytest.raises(InputError, match="not a prepared folder"):
        prep.load_prepared(folder)


def test_export_into_a_file_is_refused_and_writes_nothing(
    picture: np.ndarray, mask: np.ndarray, tmp_path: Path
) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("a file where the folder should be")
    prepared = prep.prepare(picture, mask, prep.PrepareOptions())
    with pytest.raises(OutputError, match="not a folder"):
        prep.export_prepared(blocker, prepared)
    with pytest.raises(OutputError):
        prep.export_prepared(blocker / "inside", prepared)
    assert blocker.read_text() == "a file where the folder should be"
    assert files_in(tmp_path) == ["taken"]


def test_unwritable_folder_gives_output_error(
    picture: np.ndarray, mask: np.ndarray, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.core import atomic

    def denied(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    # Tests run as root here, which can write anywhere: refuse the temporary file instead.
    monkeypatch.setattr(atomic, "_create_temp", denied)
    folder = tmp_path / "ro"
    with pytest.raises(OutputError, match="Cannot write"):
        prep.export_prepared(folder, prep.prepare(picture, mask, prep.PrepareOptions()))
    assert not folder.exists()


@pytest.mark.parametrize("fail_at", [1, 2, 3, 4, 5])  # 5: prepare.json itself
def test_disk_full_leaves_no_file_behind(
    picture: np.ndarray,
    mask: np.ndarray,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fail_at: int,
) -> None:
    folder = tmp_path / "full"
    prepared = prep.prepare(picture, mask, prep.PrepareOptions())
    real_fsync, calls = os.fsync, []

    def fsync(fd: int) -> None:
        # Count file writes only (directory fsyncs are best effort and never fail a write).
        if stat.S_ISREG(os.fstat(fd).st_mode):
            calls.append(fd)
            if len(calls) == fail_at:
                raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OutputError, match="disk is full"):
        prep.export_prepared(folder, prepared)
    assert not folder.exists()


def test_disk_full_in_an_existing_prepared_folder_does_not_leave_it_looking_valid(
    picture: np.ndarray, mask: np.ndarray, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "again"
    prepared = prep.prepare(picture, mask, prep.PrepareOptions())
    prep.export_prepared(folder, prepared)
    (folder / "keep-me.txt").write_text("not ours")

    def fsync(_fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OutputError):
        prep.export_prepared(folder, prepared)
    assert "prepare.json" not in files_in(folder)
    assert not [name for name in files_in(folder) if name.endswith(".tmp")]
    assert (folder / "keep-me.txt").read_text() == "not ours"
    with pytest.raises(InputError):
        prep.load_prepared(folder)


def test_crop_mode_notes_lost_mask_pixels(picture: np.ndarray) -> None:
    edge = rect_mask(437, 301, 0, 0, 10, 301)
    prepared = prep.prepare(picture, edge, prep.PrepareOptions(align="crop"))
    assert prepared.notes and "cut off" in prepared.notes[0]
    assert prepared.region == Rect(0, 0, 437, 301)


@pytest.mark.parametrize("align", ["pad", "crop", "scale"])
@pytest.mark.parametrize("only_masked", [False, True])
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("target", [0, 320])
def test_round_trip_invariants_for_every_mode(
    align: str, only_masked: bool, seed: int, target: int
) -> None:
    rng = np.random.default_rng(seed)
    width, height = (int(v) for v in rng.integers(40, 300, size=2))
    picture = make_picture(width, height, seed=seed)
    x, y = int(rng.integers(0, width - 10)), int(rng.integers(0, height - 10))
    mask = rect_mask(width, height, x, y, int(rng.integers(3, 40)), int(rng.integers(3, 40)))
    feather = int(rng.integers(0, 12))
    options = prep.PrepareOptions(
        align=align,
        only_masked=only_masked,
        padding_px=16,
        feather_px=feather,
        masked_target=target,
    )
    prepared = prep.prepare(picture, mask, options)
    h, w = prepared.image.shape[:2]
    assert h % 16 == 0 and w % 16 == 0 and prepared.mask.shape == (h, w)
    assert np.all(prepared.image[prepared.mask == 255] == 128)
    result = np.full_like(prepared.image, 3)
    out = prep.composite_prepared(prepared, result)
    weights = feather_weights(mask, feather)
    assert np.array_equal(out[weights == 0], picture[weights == 0])
    if align != "crop":  # crop may cut masked pixels at the border; they keep the original
        assert np.all(out[mask == 255] == 3)
    changed = np.any(out != picture, axis=2)
    assert not np.any(changed & (weights == 0))
