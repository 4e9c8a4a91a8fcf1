from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from app.engine.errors import TensorFileError
from app.engine.tensorfile import (
    GGML_TYPE_F32,
    file_sha256,
    read_tensors,
    write_tensors,
)


def _header(n_dims: int, name: bytes, ggml_type: int, ne: list[int]) -> bytes:
    return (
        struct.pack("<iii", n_dims, len(name), ggml_type) + struct.pack(f"<{len(ne)}i", *ne) + name
    )


def test_round_trip_keeps_names_order_dtypes_and_values(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    tensors = {
        "latent": rng.standard_normal((1, 128, 8, 6)).astype(np.float32),
        "c_crossattn": rng.standard_normal((512, 96)).astype(np.float16),
        "ids": np.arange(7, dtype=np.int32),
    }
    path = tmp_path / "t.bin"
    write_tensors(path, tensors)
    back = read_tensors(path)
    assert list(back) == list(tensors)
    for name, array in tensors.items():
        assert back[name].dtype == array.dtype
        assert back[name].shape == array.shape
        np.testing.assert_array_equal(back[name], array)


def test_shape_is_ggml_ne_reversed(tmp_path: Path) -> None:
    # ggml ne = (W=3, H=2, C=4, N=1) is numpy (N, C, H, W); ne[0] varies fastest.
    data = np.arange(24, dtype=np.float32)
    path = tmp_path / "latent.bin"
    path.write_bytes(_header(4, b"latent", GGML_TYPE_F32, [3, 2, 4, 1]) + data.tobytes())
    latent = read_tensors(path)["latent"]
    assert latent.shape == (1, 4, 2, 3)
    assert latent[0, 1, 0, 2] == 1 * 6 + 0 * 3 + 2


def test_written_bytes_match_the_format(tmp_path: Path) -> None:
    path = tmp_path / "t.bin"
    write_tensors(path, {"x": np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)})
    expected = _header(2, b"x", 0, [3, 2]) + np.arange(1, 7, dtype="<f4").tobytes()
    assert path.read_bytes() == expected


def test_write_is_atomic_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "t.bin"
    write_tensors(path, {"a": np.zeros(4, np.float32)})
    with pytest.raises(ValueError):
        write_tensors(path, {"a": np.zeros(4, np.float64)})
    assert read_tensors(path)["a"].shape == (4,)
    assert [p.name for p in tmp_path.iterdir()] == ["t.bin"]


@pytest.mark.parametrize("cut", [1, 5, 12, 20, 30, 60])
def test_truncated_file_is_rejected_with_file_name(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "t.bin"
    write_tensors(path, {"latent": np.ones((2, 4), np.float32)})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - cut] if cut < len(data) else data[:1])
    with pytest.raises(TensorFileError) as info:
        read_tensors(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("raw", "what"),
    [
        (_header(0, b"x", 0, []), "n_dims"),
        (_header(9, b"x", 0, [1] * 9), "n_dims"),
        (struct.pack("<iii", 1, 1 << 30, 0) + struct.pack("<i", 1), "name length"),
        (struct.pack("<iii", 1, -1, 0) + struct.pack("<i", 1), "name length"),
        (_header(1, b"x", 8, [4]) + bytes(16), "unsupported ggml type"),
        (_header(1, b"x", 0, [-4]) + bytes(16), "below 1"),
        (_header(4, b"x", 0, [2**31 - 1] * 4) + bytes(16), "needs"),  # absurd, not allocated
        (_header(1, b"\xff\xfe", 0, [1]) + bytes(4), "UTF-8"),
        (_header(1, b"x", 0, [1]) + bytes(4) + _header(1, b"x", 0, [1]) + bytes(4), "second"),
        (b"", "empty"),
    ],
)
def test_malformed_file_is_rejected_before_allocating(
    tmp_path: Path, raw: bytes, what: str
) -> None:
    path = tmp_path / "bad.bin"
    path.write_bytes(raw)
    with pytest.raises(TensorFileError, match=what):
        read_tensors(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TensorFileError, match="does not exist"):
        read_tensors(tmp_path / "nope.bin")


def test_writer_refuses_what_the_format_cannot_hold(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        write_tensors(tmp_path / "a.bin", {})
    with pytest.raises(ValueError):
        write_tensors(tmp_path / "a.bin", {"x": np.zeros((1, 1, 1, 1, 1), np.float32)})
    with pytest.raises(ValueError):
        write_tensors(tmp_path / "a.bin", {"x": np.zeros((0,), np.float32)})
    assert not (tmp_path / "a.bin").exists()


def test_file_sha256(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"abc")
    assert file_sha256(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
