"""Quantized weight blocks and a streaming GGUF writer for the random-weight model files.

The tiny test models (app/engine/tiny_models.py) and the real-shape models of
scripts/make_shape_models.py share these. gguf-py quantizes Q4_0 / Q8_0 / BF16 but not the
K-quants that real Q4_K_M files use, so K-quant blocks are built directly: random quant bytes
with fixed, sane scales chosen so that the dequantized values have the requested standard
deviation and a mean near zero. That is also fast enough for a 9B-parameter file (the bytes
come from one random draw per tensor, no per-block search).

Block layouts (ggml-common.h): Q4_0 = f16 d + 16 bytes of nibbles, x = d·(q − 8);
Q8_0 = f16 d + 32 int8, x = d·q; Q4_K = f16 d, f16 dmin, 12 bytes of 6-bit sub-block scales
and mins, 128 bytes of nibbles, x = d·sc·q − dmin·m; Q6_K = 128 bytes low nibbles, 64 bytes
high 2-bit pairs, 16 int8 scales, f16 d, x = d·sc·(q − 32).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

QK_K = 256
# qtype name -> (values per block, bytes per block)
BLOCKS = {"q4_0": (32, 18), "q8_0": (32, 34), "q4_k": (QK_K, 144), "q6_k": (QK_K, 210)}

_K_SCALE = 8  # every 6-bit (Q4_K) / int8 (Q6_K) sub-block scale; < 16 keeps the packing simple
_Q4_STD = np.sqrt((16**2 - 1) / 12)  # std of a uniform 0..15 nibble
_Q6_STD = np.sqrt((64**2 - 1) / 12)  # std of a uniform 0..63 six-bit value
_Q8_STD = np.sqrt((256**2 - 1) / 12)


def random_blocks(
    rng: np.random.Generator, qtype: str, rows: int, cols: int, std: float
) -> np.ndarray:
    """A (rows, bytes per row) uint8 array of `qtype` blocks whose values have std `std`."""
    per_block, size = BLOCKS[qtype]
    if cols % per_block:
        raise ValueError(f"{qtype} rows need a multiple of {per_block} values, got {cols}")
    n = rows * (cols // per_block)
    blocks = np.frombuffer(rng.bytes(n * size), dtype=np.uint8).reshape(n, size).copy()

    def f16(value: float) -> np.ndarray:
        return np.full(n, value, dtype=np.float16).view(np.uint8).reshape(n, 2)

    if qtype == "q4_0":
        blocks[:, 0:2] = f16(std / _Q4_STD)
    elif qtype == "q8_0":
        blocks[:, 0:2] = f16(std / _Q8_STD)
    elif qtype == "q4_k":
        d = std / (_K_SCALE * _Q4_STD)
        blocks[:, 0:2] = f16(d)
        blocks[:, 2:4] = f16(7.5 * d)  # dmin·m = 7.5·d·sc centres the nibbles on zero
        blocks[:, 4:12] = _K_SCALE  # sc[0..3], m[0..3] (upper two bits: 0)
        blocks[:, 12:16] = _K_SCALE | (_K_SCALE << 4)  # low nibbles of sc[4..7] and m[4..7]
    elif qtype == "q6_k":
        blocks[:, 192:208] = _K_SCALE
        blocks[:, 208:210] = f16(std / (_K_SCALE * _Q6_STD))
    return blocks.reshape(rows, -1)


def bf16_bytes(array: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 (round to nearest even) as a (..., 2·n) uint8 array."""
    u = np.ascontiguousarray(array, dtype=np.float32).view(np.uint32)
    rounded = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return rounded.view(np.uint8).reshape(*array.shape[:-1], array.shape[-1] * 2)


@dataclass(frozen=True)
class Tensor:
    """One tensor of a file: its name, torch-order shape, ggml type and a producer of its
    data (a float32 array for f32, else the raw bytes as uint8 of shape (rows, bytes))."""

    name: str
    shape: tuple[int, ...]
    qtype: str  # f32 | bf16 | q4_0 | q8_0 | q4_k | q6_k
    data: Callable[[], np.ndarray]

    def nbytes(self) -> int:
        count = int(np.prod(self.shape))
        if self.qtype == "f32":
            return 4 * count
        if self.qtype == "bf16":
            return 2 * count
        per_block, size = BLOCKS[self.qtype]
        return count // per_block * size


def write_gguf(path: Path, arch: str, name: str, tensors: Iterable[Tensor]) -> None:
    """Writes a GGUF file tensor by tensor: only one tensor's data is in memory at a time."""
    import gguf  # deferred: only generation needs it

    types = {
        "bf16": gguf.GGMLQuantizationType.BF16,
        "q4_0": gguf.GGMLQuantizationType.Q4_0,
        "q8_0": gguf.GGMLQuantizationType.Q8_0,
        "q4_k": gguf.GGMLQuantizationType.Q4_K,
        "q6_k": gguf.GGMLQuantizationType.Q6_K,
    }
    tensors = list(tensors)
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_name(name)
    for t in tensors:
        if t.qtype == "f32":
            writer.add_tensor_info(t.name, t.shape, np.dtype(np.float32), t.nbytes())
        else:
            per_block, size = (1, 2) if t.qtype == "bf16" else BLOCKS[t.qtype]
            byte_shape = (*t.shape[:-1], t.shape[-1] // per_block * size)
            writer.add_tensor_info(
                t.name, byte_shape, np.dtype(np.uint8), t.nbytes(), raw_dtype=types[t.qtype]
            )
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for t in tensors:
        data = t.data()
        expected = np.float32 if t.qtype == "f32" else np.uint8
        if data.dtype != expected or data.nbytes != t.nbytes():
            raise ValueError(f"{t.name}: producer gave {data.dtype} {data.shape} for {t.qtype}")
        writer.write_tensor_data(np.ascontiguousarray(data))
    writer.close()
