"""What kind of model a file holds, from its header alone (no weights read): the FLUX.2 DiT
("diffusion"), the Qwen3 text encoder ("llm") or the VAE ("vae"); None when it cannot tell.

The preflight uses it to refuse a VAE given as the diffusion model (and the like) before any
stage runs, instead of the engine refusing it minutes later. GGUF: the tensor names after the
key-value section; safetensors: the JSON header's keys. Bounded reads; any damage is None (the
engine's own check then speaks)."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import BinaryIO

MAX_COUNT = 10_000_000  # tensors, keys, array items: far past any real file
MAX_STRING = 1 << 24
MAX_SAFETENSORS_HEADER = 100 * 1024 * 1024
SAMPLE = 4096  # tensor names looked at
# Prefixes other converters put before a model's own names.
PREFIXES = ("model.diffusion_model.", "diffusion_model.", "first_stage_model.", "vae.", "model.")
_SCALAR = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9


class _Bad(Exception):
    pass


def _read(f: BinaryIO, n: int) -> bytes:
    data = f.read(n)
    if len(data) != n:
        raise _Bad
    return data


def _u32(f: BinaryIO) -> int:
    return int(struct.unpack("<I", _read(f, 4))[0])


def _u64(f: BinaryIO) -> int:
    value = int(struct.unpack("<Q", _read(f, 8))[0])
    if value > MAX_COUNT and value > MAX_STRING:
        raise _Bad
    return value


def _string(f: BinaryIO) -> str:
    n = _u64(f)
    if n > MAX_STRING:
        raise _Bad
    return _read(f, n).decode("utf-8", "replace")


def _skip_value(f: BinaryIO, vtype: int) -> None:
    if vtype in _SCALAR:
        _read(f, _SCALAR[vtype])
    elif vtype == _STRING:
        n = _u64(f)
        if n > MAX_STRING:
            raise _Bad
        f.seek(n, 1)
    elif vtype == _ARRAY:
        item, count = _u32(f), _u64(f)
        if count > MAX_COUNT:
            raise _Bad
        if item in _SCALAR:
            f.seek(_SCALAR[item] * count, 1)
        else:
            for _ in range(count):
                _skip_value(f, item)
    else:
        raise _Bad


def gguf_tensor_names(path: Path) -> list[str]:
    """The first SAMPLE tensor names of a GGUF file (raises _Bad / OSError when damaged)."""
    with open(path, "rb") as f:
        if _read(f, 4) != b"GGUF":
            raise _Bad
        _u32(f)  # version
        tensors, kvs = _u64(f), _u64(f)
        if tensors > MAX_COUNT or kvs > MAX_COUNT:
            raise _Bad
        for _ in range(kvs):
            _string(f)
            _skip_value(f, _u32(f))
        names = []
        for _ in range(min(tensors, SAMPLE)):
            names.append(_string(f))
            dims = _u32(f)
            if dims > 8:
                raise _Bad
            _read(f, 8 * dims + 4 + 8)
        return names


def safetensors_names(path: Path) -> list[str]:
    with open(path, "rb") as f:
        (size,) = struct.unpack("<Q", _read(f, 8))
        if size > MAX_SAFETENSORS_HEADER:
            raise _Bad
        header = json.loads(_read(f, size))
    if not isinstance(header, dict):
        raise _Bad
    return [k for k in header if k != "__metadata__"][:SAMPLE]


def kind_of_names(names: list[str]) -> str | None:
    """ "diffusion", "llm", "vae" or None, by the tensor names a file holds."""
    stripped = []
    for name in names:
        for prefix in PREFIXES:
            if name.startswith(prefix):
                name = name[len(prefix) :]
                break
        stripped.append(name)
    found = set()
    for name in stripped:
        if name.startswith(("double_blocks.", "single_blocks.", "img_in.", "double_stream_")):
            found.add("diffusion")
        elif name.startswith(("blk.", "token_embd.", "layers.", "embed_tokens.")):
            found.add("llm")
        elif name.startswith(("decoder.", "encoder.", "post_quant_conv.", "quant_conv.")):
            found.add("vae")
    return found.pop() if len(found) == 1 else None


def model_kind(path: Path | str) -> str | None:
    """The kind of model in `path` by its header, or None (unknown layout, damaged, unread)."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
        names = gguf_tensor_names(path) if magic == b"GGUF" else safetensors_names(path)
    except (OSError, ValueError, UnicodeDecodeError, RecursionError, struct.error, _Bad):
        return None
    return kind_of_names(names)
