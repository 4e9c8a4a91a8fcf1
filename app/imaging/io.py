"""Reading pictures and masks from disk and writing PNGs atomically.

Images come back as HxWx3 uint8 RGB: EXIF orientation is applied and any alpha channel is
dropped (the engine has no use for transparency; the colour under transparent pixels is kept as
stored). Masks come back as HxW uint8, 255 = repaint, 0 = keep.
"""

from __future__ import annotations

import logging
import warnings
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from app.core.atomic import write_bytes_atomic
from app.core.errors import InputError, OutputError
from app.core.safe_files import open_read
from app.imaging.geometry import Size

log = logging.getLogger(__name__)

SUPPORTED_FORMATS = ("PNG", "JPEG", "WEBP", "BMP")
# One side may be long (panoramas), but the pixel count is capped: prepare holds about five
# full-size copies (original, aligned, filled, soft mask, weights), so 100 MP is ~1.5 GB of RAM.
MAX_IMAGE_SIDE_PX = 16384
MAX_IMAGE_PIXELS = 100_000_000
# zlib level for PNGs we write. Level 0 (stored) is the fastest by far and the engine does not
# care about file size; see bench/painter.py for the trade-off at 4096×4096.
PNG_COMPRESS_LEVEL = 1

_FIX_FORMAT = "Use a PNG, JPEG, WebP or BMP file."
_FIX_DAMAGED = "The file may be truncated or damaged: export it again from your image editor."
_FIX_SCALE_DOWN = "Scale it down in an image editor first."
_TOO_BIG = (
    "{path} is too big: Stepwise reads pictures up to {side} px a side and {megapixels} megapixels."
)
_TOO_BIG_SIZE = (
    "{path} is too big ({size} px): Stepwise reads pictures up to {side} px a side and "
    "{megapixels} megapixels."
)


class MaskSizeError(InputError):
    """The mask's size differs from the picture's; the UI may offer to scale it (`scale_mask`)."""

    def __init__(self, mask_size: Size, image_size: Size, path: Path | str | None = None):
        self.mask_size = Size(*mask_size)
        self.image_size = Size(*image_size)
        super().__init__(
            "The mask is {mask_size} px but the picture is {image_size} px.",
            path=path,
            fix="Scale the mask to the picture's size or paint a new one.",
            values={"mask_size": self.mask_size, "image_size": self.image_size},
        )


def _open(path: Path) -> Image.Image:
    if not path.exists():
        raise InputError("{path} does not exist.", path=path, fix="Check the file name.")
    if path.is_dir():
        raise InputError("{path} is a folder, not a picture.", path=path, fix=_FIX_FORMAT)
    try:
        with open_read(path):  # a FIFO or device is refused by name before Pillow waits on it
            pass
        with warnings.catch_warnings():
            # We enforce our own, documented size cap below instead of Pillow's bomb warning.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            image = Image.open(path, formats=SUPPORTED_FORMATS)
    except UnidentifiedImageError as exc:
        raise InputError(
            "{path} is not a picture Stepwise can read.", path=path, fix=_FIX_FORMAT
        ) from exc
    except Image.DecompressionBombError as exc:
        raise _too_big(path, None) from exc
    except OSError as exc:
        raise InputError(
            "Cannot read {path}: {reason}.",
            path=path,
            fix=_FIX_DAMAGED,
            values={"reason": exc.strerror or exc},
        ) from exc
    width, height = image.size
    if max(width, height) > MAX_IMAGE_SIDE_PX or width * height > MAX_IMAGE_PIXELS:
        image.close()
        raise _too_big(path, Size(width, height))
    return image


def _too_big(path: Path, size: Size | None) -> InputError:
    limits = {"side": MAX_IMAGE_SIDE_PX, "megapixels": MAX_IMAGE_PIXELS // 1_000_000}
    if size is None:
        return InputError(_TOO_BIG, path=path, fix=_FIX_SCALE_DOWN, values=limits)
    return InputError(
        _TOO_BIG_SIZE, path=path, fix=_FIX_SCALE_DOWN, values={"size": size, **limits}
    )


def _decoded(path: Path, image: Image.Image) -> Image.Image:
    """Decodes fully (so truncation shows up here) and applies the EXIF orientation."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # palette-transparency notes, bomb warnings
            image.load()
            # In place: a copy of a 100-MP picture just to read its orientation is 300 MB.
            ImageOps.exif_transpose(image, in_place=True)
            return image
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        if "truncated" in str(exc):  # the common case gets its own sentence, no library text
            raise InputError(
                "{path} is cut short: the file ends before the picture does.",
                path=path,
                fix=_FIX_DAMAGED,
            ) from exc
        raise InputError(  # the library's words only as a quoted value
            "{path} could not be decoded; the image library reports: “{reason}”.",
            path=path,
            fix=_FIX_DAMAGED,
            values={"reason": exc},
        ) from exc


def _to_8bit(array: np.ndarray) -> np.ndarray:
    # 16-bit greyscale PNGs ("I;16", "I") hold 0..65535.
    if array.dtype == np.uint8:
        return array
    if array.dtype.kind == "f":
        return np.clip(np.rint(array * 255.0), 0, 255).astype(np.uint8)
    scale = 257.0 if array.max(initial=0) > 255 else 1.0
    return np.clip(np.rint(array / scale), 0, 255).astype(np.uint8)


def load_image(path: Path | str) -> np.ndarray:
    """Reads a PNG, JPEG, WebP or BMP as HxWx3 uint8 RGB (EXIF orientation applied, alpha dropped).

    Raises InputError naming the file and the fix for a missing, foreign, damaged, truncated or
    oversized file.
    """
    path = Path(path)
    with _open(path) as raw:
        image = _decoded(path, raw)
        if image.mode in ("I;16", "I;16L", "I;16B", "I", "F"):
            grey = _to_8bit(np.asarray(image))
            return np.ascontiguousarray(np.repeat(grey[:, :, None], 3, axis=2))
        if "A" in image.mode or "transparency" in image.info:
            log.info(
                "%s: alpha channel dropped (transparent pixels keep their stored colour)", path
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rgb = image if image.mode == "RGB" else image.convert("RGB")
        return np.array(rgb, dtype=np.uint8)


def load_mask(path: Path | str, expected_size: Size | tuple[int, int] | None = None) -> np.ndarray:
    """Reads any picture as an HxW uint8 mask (255 = repaint, 0 = keep).

    Colour is reduced to luminance; where the file has an alpha channel, transparent pixels
    count as keep (luminance × alpha), so a mask painted on a transparent layer works too.
    `expected_size` is (width, height); a different size raises MaskSizeError.
    """
    path = Path(path)
    with _open(path) as raw:
        image = _decoded(path, raw)
        if image.mode in ("I;16", "I;16L", "I;16B", "I", "F"):
            mask = _to_8bit(np.asarray(image))
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                has_alpha = "A" in image.mode or "transparency" in image.info
                if has_alpha:
                    la = np.asarray(image.convert("LA"), dtype=np.uint16)
                    mask = ((la[:, :, 0] * la[:, :, 1] + 127) // 255).astype(np.uint8)
                else:
                    mask = np.array(image.convert("L"), dtype=np.uint8)
    if expected_size is not None and Size.of(mask) != tuple(expected_size):
        raise MaskSizeError(Size.of(mask), Size(*expected_size), path)
    return np.ascontiguousarray(mask)


def scale_mask(mask: np.ndarray, size: Size | tuple[int, int]) -> np.ndarray:
    """Resizes a mask (uint8 or float32) to (width, height); edges become soft, binarise after."""
    width, height = size
    if Size.of(mask) == (width, height):
        return mask.copy()
    shrinking = width <= mask.shape[1] and height <= mask.shape[0]
    interpolation = cv2.INTER_AREA if shrinking else cv2.INTER_LINEAR
    return cv2.resize(mask, (int(width), int(height)), interpolation=interpolation)


def encode_png(array: np.ndarray, compress_level: int = PNG_COMPRESS_LEVEL) -> bytes:
    """Encodes HxW (grey) or HxWx3 (RGB) uint8 as PNG bytes.

    Level 0 stores rows unfiltered and uncompressed (3 bytes a pixel, fastest); higher levels
    use the SUB filter with run-length zlib, which compresses photos about 2× at ~3× the time.
    """
    if array.dtype != np.uint8 or array.ndim not in (2, 3):
        raise ValueError(f"encode_png wants HxW or HxWx3 uint8, got {array.dtype} {array.shape}")
    pixels = cv2.cvtColor(array, cv2.COLOR_RGB2BGR) if array.ndim == 3 else array
    if compress_level <= 0:
        params = [
            cv2.IMWRITE_PNG_COMPRESSION,
            0,
            cv2.IMWRITE_PNG_FILTER,
            cv2.IMWRITE_PNG_FILTER_NONE,
        ]
    else:
        params = [
            cv2.IMWRITE_PNG_COMPRESSION,
            min(int(compress_level), 9),
            cv2.IMWRITE_PNG_FILTER,
            cv2.IMWRITE_PNG_FILTER_SUB,
            cv2.IMWRITE_PNG_STRATEGY,
            cv2.IMWRITE_PNG_STRATEGY_RLE,
        ]
    ok, encoded = cv2.imencode(".png", pixels, params)
    if not ok:
        raise OutputError("Could not encode a PNG.", fix="Report this as a bug.")
    return encoded.tobytes()


def save_png_atomic(
    path: Path | str, array: np.ndarray, compress_level: int = PNG_COMPRESS_LEVEL
) -> bytes:
    """Writes `array` as a PNG atomically (whole file or nothing); returns the bytes written."""
    data = encode_png(array, compress_level)
    write_bytes_atomic(path, data)
    return data
