"""Reader and writer for sd-stage's tensor files (latents, conditionings).

Format (native/PROTOCOL.md, "Tensor files"): several named tensors back to back, each

    int32 n_dims | int32 name_len | int32 ggml_type | int32 ne[n_dims] | name (utf-8) | data

little endian, types 0 = f32, 1 = f16, 26 = i32, data densely packed with ne[0] fastest.

Shape mapping: ggml's ne[] lists dimensions fastest-varying first, numpy's C order lists them
slowest first, so the numpy shape is ne reversed. A latent that ggml sees as
ne = (W, H, C, N) is a numpy array of shape (N, C, H, W), the torch layout.

The reader treats files as untrusted: every header field is bounded and the data size is
checked against what is left in the file before anything is allocated.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import BinaryIO

import numpy as np

from app.core.atomic import atomic_open
from app.core.safe_files import open_read
from app.engine.errors import TensorFileError

GGML_TYPE_F32 = 0
GGML_TYPE_F16 = 1
GGML_TYPE_I32 = 26

_DTYPE_FOR_TYPE: dict[int, np.dtype] = {
    GGML_TYPE_F32: np.dtype("<f4"),
    GGML_TYPE_F16: np.dtype("<f2"),
    GGML_TYPE_I32: np.dtype("<i4"),
}
_TYPE_FOR_KIND: dict[tuple[str, int], int] = {("f", 4): 0, ("f", 2): 1, ("i", 4): 26}

MAX_DIMS = 4  # GGML_MAX_DIMS
MAX_NAME_BYTES = 256  # ggml names are at most 63 bytes; leave room, refuse nonsense
MAX_TENSORS = 4096
_HEADER = struct.Struct("<iii")
_CHUNK_BYTES = 1 << 20


def read_tensors(path: Path | str) -> dict[str, np.ndarray]:
    """All tensors of a tensor file by name, in file order; raises TensorFileError."""
    path = Path(path)
    try:
        with open_read(path) as f:  # a FIFO is refused by name, never waited on
            size = os.fstat(f.fileno()).st_size
            return _read_all(f, size, path)
    except FileNotFoundError as exc:
        raise TensorFileError("The tensor file {path} does not exist.", path=path) from exc
    except OSError as exc:
        raise TensorFileError(
            "The tensor file {path} cannot be read: {reason}.",
            path=path,
            values={"reason": exc.strerror or str(exc)},
        ) from exc


def _read_all(f: BinaryIO, size: int, path: Path) -> dict[str, np.ndarray]:  # noqa: C901
    def bad(what: str, offset: int) -> TensorFileError:
        return TensorFileError(
            "The tensor file {path} is damaged: {what} at byte {offset}.",
            path=path,
            fix="Run the stage that writes it again.",
            values={"what": what, "offset": offset},
        )

    tensors: dict[str, np.ndarray] = {}
    offset = 0
    if size == 0:
        raise bad("it is empty", 0)
    while offset < size:
        if len(tensors) >= MAX_TENSORS:
            raise bad(f"more than {MAX_TENSORS} tensors", offset)
        header = _read_exact(f, _HEADER.size)
        if header is None:
            raise bad("a truncated tensor header", offset)
        n_dims, name_len, ggml_type = _HEADER.unpack(header)
        if not 1 <= n_dims <= MAX_DIMS:
            raise bad(f"n_dims {n_dims} is not 1..{MAX_DIMS}", offset)
        if not 0 <= name_len <= MAX_NAME_BYTES:
            raise bad(f"name length {name_len} is not 0..{MAX_NAME_BYTES}", offset)
        dtype = _DTYPE_FOR_TYPE.get(ggml_type)
        if dtype is None:
            raise bad(f"unsupported ggml type {ggml_type}", offset)
        ne_bytes = _read_exact(f, 4 * n_dims)
        if ne_bytes is None:
            raise bad("a truncated shape", offset)
        ne = struct.unpack(f"<{n_dims}i", ne_bytes)
        if any(d < 1 for d in ne):
            raise bad(f"shape {list(ne)} has a dimension below 1", offset)
        name_bytes = _read_exact(f, name_len)
        if name_bytes is None:
            raise bad("a truncated name", offset)
        try:
            name = name_bytes.decode("utf-8")
        except UnicodeDecodeError:
            raise bad("a name that is not UTF-8", offset) from None
        if name in tensors:
            raise bad(f"a second tensor named {name!r}", offset)
        header_end = offset + _HEADER.size + 4 * n_dims + name_len
        count = 1
        for d in ne:
            count *= d
        nbytes = count * dtype.itemsize
        # Checked before allocating: a forged shape must not make us allocate terabytes.
        if nbytes > size - header_end:
            raise bad(
                f"tensor {name!r} needs {nbytes} bytes of data but {size - header_end} remain",
                header_end,
            )
        data = bytearray(nbytes)
        if f.readinto(data) != nbytes:  # type: ignore[attr-defined]
            raise bad(f"truncated data of tensor {name!r}", header_end)
        tensors[name] = np.frombuffer(data, dtype=dtype).reshape(tuple(reversed(ne)))
        offset = header_end + nbytes
    return tensors


def _read_exact(f: BinaryIO, n: int) -> bytes | None:
    data = f.read(n)
    return data if len(data) == n else None


def write_tensors(path: Path | str, tensors: Mapping[str, np.ndarray]) -> None:
    """Write named f32/f16/i32 arrays (1..4 dims) atomically in the tensor-file format."""
    path = Path(path)
    if not tensors:
        raise ValueError("a tensor file holds at least one tensor")
    prepared: list[tuple[bytes, int, np.ndarray]] = []
    for name, array in tensors.items():
        name_bytes = name.encode("utf-8")
        if len(name_bytes) > MAX_NAME_BYTES:
            raise ValueError(f"tensor name {name!r} is longer than {MAX_NAME_BYTES} bytes")
        array = np.asarray(array)
        ggml_type = _TYPE_FOR_KIND.get((array.dtype.kind, array.dtype.itemsize))
        if ggml_type is None:
            raise ValueError(f"tensor {name!r} has dtype {array.dtype}; use f32, f16 or i32")
        if not 1 <= array.ndim <= MAX_DIMS or 0 in array.shape:
            raise ValueError(f"tensor {name!r} has shape {array.shape}; need 1..4 non-empty dims")
        if any(d > np.iinfo(np.int32).max for d in array.shape):
            raise ValueError(f"tensor {name!r} has a dimension beyond int32")
        little = np.ascontiguousarray(array, dtype=_DTYPE_FOR_TYPE[ggml_type])
        prepared.append((name_bytes, ggml_type, little))

    with atomic_open(path) as f:
        for name_bytes, ggml_type, array in prepared:
            ne = tuple(reversed(array.shape))
            f.write(_HEADER.pack(array.ndim, len(name_bytes), ggml_type))
            f.write(struct.pack(f"<{len(ne)}i", *ne))
            f.write(name_bytes)
            f.write(memoryview(array).cast("B"))


def file_sha256(path: Path | str) -> str:
    """Hex SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with open_read(path) as f:  # a FIFO or device is refused by name, never waited on
        while chunk := f.read(_CHUNK_BYTES):
            digest.update(chunk)
    return digest.hexdigest()
