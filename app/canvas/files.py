"""Pictures and masks on disk for the document (imaging.io reads, checks and writes them).

On disk a mask is an 8-bit grey PNG, 255 = repaint; in the document it is float32 in [0, 1].
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from app.imaging import io

MaskSizeError = io.MaskSizeError


def mask_to_float(mask: np.ndarray) -> np.ndarray:
    if mask.dtype == np.uint8:
        return mask.astype(np.float32) / np.float32(255.0)
    return np.clip(mask.astype(np.float32), 0.0, 1.0)


def mask_to_uint8(mask: np.ndarray) -> np.ndarray:
    return np.round(np.clip(mask, 0.0, 1.0) * 255.0).astype(np.uint8)


def read_picture(path: Path) -> np.ndarray:
    """HxWx3 uint8 RGB; InputError names the file and the fix for anything unreadable."""
    return io.load_image(path)


def read_mask(path: Path, size: tuple[int, int]) -> np.ndarray:
    """The mask at `path` as float32; MaskSizeError (with both sizes) when it is not `size`."""
    return mask_to_float(io.load_mask(path, size))


def read_mask_scaled(path: Path, size: tuple[int, int]) -> np.ndarray:
    """The mask at `path` resized to `size` (width, height), as float32."""
    return mask_to_float(io.scale_mask(io.load_mask(path, None), size))


def write_mask(path: Path, mask: np.ndarray) -> None:
    """Writes the mask as a PNG atomically: the whole file or, on failure, the old one."""
    io.save_png_atomic(path, mask_to_uint8(mask))


def write_picture(path: Path, image: np.ndarray) -> None:
    io.save_png_atomic(path, image)
