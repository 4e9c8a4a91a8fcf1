from __future__ import annotations

import errno
import io as stdio
import os
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.core.errors import InputError, OutputError
from app.imaging import io
from app.imaging.geometry import Size

from .conftest import make_picture


def save(path: Path, array: np.ndarray, fmt: str = "PNG", **kwargs: object) -> Path:
    Image.fromarray(array).save(path, fmt, **kwargs)
    return path


def test_png_round_trip_is_exact(tmp_path: Path) -> None:
    image = make_picture(50, 30)
    for level in (0, 1, 6):
        path = tmp_path / f"a{level}.png"
        io.save_png_atomic(path, image, compress_level=level)
        assert np.array_equal(io.load_image(path), image)
    grey = image[:, :, 0].copy()
    io.save_png_atomic(tmp_path / "g.png", grey)
    assert np.array_equal(io.load_mask(tmp_path / "g.png"), grey)


@pytest.mark.parametrize("fmt", ["JPEG", "WEBP", "BMP"])
def test_other_formats_load_as_rgb(tmp_path: Path, fmt: str) -> None:
    image = make_picture(40, 24)
    loaded = io.load_image(save(tmp_path / f"a.{fmt.lower()}", image, fmt))
    assert loaded.shape == (24, 40, 3) and loaded.dtype == np.uint8
    assert np.abs(loaded.astype(int) - image).mean() < 20  # lossy formats: close, not equal


def test_alpha_is_dropped(tmp_path: Path) -> None:
    rgba = np.zeros((10, 12, 4), np.uint8)
    rgba[..., 0] = 200
    rgba[..., 3] = 0
    loaded = io.load_image(save(tmp_path / "a.png", rgba))
    assert loaded.shape == (10, 12, 3) and np.all(loaded[..., 0] == 200)


def test_exif_orientation_is_applied(tmp_path: Path) -> None:
    image = make_picture(40, 20)
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° clockwise when shown
    path = tmp_path / "rot.png"
    Image.fromarray(image).save(path, exif=exif)
    loaded = io.load_image(path)
    assert loaded.shape == (40, 20, 3)
    assert np.array_equal(loaded, np.rot90(image, k=-1))


def test_non_image_file_names_the_file_and_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "notes.png"
    path.write_text("this is not a picture")
    with pytest.raises(InputError) as caught:
        io.load_image(path)
    assert "notes.png" in str(caught.value) and "PNG, JPEG, WebP or BMP" in str(caught.value)
    with pytest.raises(InputError):
        io.load_mask(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        io.load_image(tmp_path / "nope.png")


def test_truncated_png_is_refused(tmp_path: Path) -> None:
    buffer = stdio.BytesIO()
    Image.fromarray(make_picture(200, 200)).save(buffer, "PNG", compress_level=0)
    path = tmp_path / "cut.png"
    path.write_bytes(buffer.getvalue()[: len(buffer.getvalue()) // 2])
    with pytest.raises(InputError) as caught:
        io.load_image(path)
    assert "cut.png" in str(caught.value) and "damaged" in str(caught.value)


def test_too_big_is_refused_before_decoding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = save(tmp_path / "big.png", make_picture(64, 32))
    monkeypatch.setattr(io, "MAX_IMAGE_PIXELS", 1000)
    with pytest.raises(InputError, match="too big"):
        io.load_image(path)
    monkeypatch.setattr(io, "MAX_IMAGE_PIXELS", 10_000)
    monkeypatch.setattr(io, "MAX_IMAGE_SIDE_PX", 50)
    with pytest.raises(InputError, match="too big"):
        io.load_image(path)


def test_8192_square_is_within_the_cap() -> None:
    assert io.MAX_IMAGE_SIDE_PX >= 8192 and io.MAX_IMAGE_PIXELS >= 8192 * 8192


def test_mask_of_another_size_carries_both_sizes(tmp_path: Path) -> None:
    path = save(tmp_path / "m.png", np.zeros((30, 40), np.uint8))
    with pytest.raises(io.MaskSizeError) as caught:
        io.load_mask(path, (80, 60))
    assert caught.value.mask_size == Size(40, 30) and caught.value.image_size == Size(80, 60)
    assert isinstance(caught.value, InputError)
    assert "40×30" in str(caught.value) and "80×60" in str(caught.value)


def test_any_picture_becomes_a_single_channel_mask(tmp_path: Path) -> None:
    rgb = np.zeros((10, 10, 3), np.uint8)
    rgb[2:5, 2:5] = 255
    mask = io.load_mask(save(tmp_path / "rgb.png", rgb), (10, 10))
    assert mask.shape == (10, 10) and mask[3, 3] == 255 and mask[0, 0] == 0
    rgba = np.full((10, 10, 4), 255, np.uint8)
    rgba[:, :5, 3] = 0  # transparent white counts as keep
    mask = io.load_mask(save(tmp_path / "rgba.png", rgba))
    assert np.all(mask[:, :5] == 0) and np.all(mask[:, 5:] == 255)


def test_sixteen_bit_mask_is_scaled_to_8_bit(tmp_path: Path) -> None:
    deep = np.zeros((8, 8), np.uint16)
    deep[:, 4:] = 65535
    path = tmp_path / "deep.png"
    Image.fromarray(deep).save(path)
    mask = io.load_mask(path)
    assert mask.dtype == np.uint8 and np.all(mask[:, 4:] == 255) and np.all(mask[:, :4] == 0)


def test_scale_mask() -> None:
    mask = np.zeros((20, 40), np.uint8)
    mask[:, 20:] = 255
    scaled = io.scale_mask(mask, (80, 40))
    assert scaled.shape == (40, 80) and scaled[0, 79] == 255 and scaled[0, 0] == 0
    assert io.scale_mask(mask, (10, 5)).shape == (5, 10)


def test_save_png_atomic_leaves_nothing_on_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError, match="disk is full"):
        io.save_png_atomic(tmp_path / "x.png", make_picture(8, 8))
    assert [p.name for p in tmp_path.iterdir() if p.name != "stepwise-home"] == []
