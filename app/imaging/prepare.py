"""Preparing a picture and mask for the engine, exporting them, and mapping the result back.

A prepared folder holds:

    input.png       the picture the engine starts from: region-cropped, aligned to 16 px,
                    repaint area pre-filled (RGB)
    mask.png        binary mask of the same size, 255 = repaint, 0 = keep (grey, 8 bit)
    original.png    the untouched original picture
    mask_soft.png   the original mask as given (soft edges kept), original size
    prepare.json    {"format": 1, ...}: sizes, region, alignment, fill, feather, pixel hashes of
                    the original picture and mask, and size + SHA-256 of every file above

prepare.json is written last, so a folder without it is not a prepared folder; a folder whose
files do not match it is damaged (DamagedFileError). Without a mask (img2img over the whole
picture, or a txt2img caller that only wants the alignment) mask.png and mask_soft.png are left
out and the composite takes the result everywhere.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from app.core.atomic import write_bytes_atomic, write_text_atomic
from app.core.errors import DamagedFileError, InputError, OutputError
from app.imaging.align import (
    ALIGN_MODES,
    AlignMode,
    AlignPlan,
    align_image,
    align_mask,
    plan_alignment,
)
from app.imaging.composite import composite_result
from app.imaging.fill import FILL_MODES, FillMode, fill_masked
from app.imaging.geometry import Rect, Size
from app.imaging.io import MaskSizeError, encode_png, load_image, load_mask
from app.imaging.mask_ops import binarise, bounding_box
from app.imaging.region import masked_region

FORMAT = 1
KIND = "stepwise-prepare"
INPUT_FILE = "input.png"
MASK_FILE = "mask.png"
ORIGINAL_FILE = "original.png"
SOFT_MASK_FILE = "mask_soft.png"
RECORD_FILE = "prepare.json"
# Level 0 = stored PNG: a 4096×4096 export takes a fraction of the time of level 1, and the
# engine reads it once; the files are 3 bytes a pixel. Masks compress to almost nothing at
# level 1 at no cost. bench/painter.py measures both.
EXPORT_PNG_LEVEL = 0
MASK_PNG_LEVEL = 1
MAX_PADDING_PX = 4096
MAX_FEATHER_PX = 256
_FIX_REPREPARE = "Run `prepare` again to recreate the folder."


@dataclass(frozen=True)
class PrepareOptions:
    """How to prepare: alignment, fill, 'only masked' region with padding, composite feather."""

    align: AlignMode = "pad"
    fill: FillMode = "grey"
    only_masked: bool = False
    padding_px: int = 64
    feather_px: int = 8

    def check(self) -> None:
        """Raises InputError for a value a user could have typed wrong."""
        if self.align not in ALIGN_MODES:
            raise InputError(f"Unknown alignment {self.align!r}.", fix="Use pad, crop or scale.")
        if self.fill not in FILL_MODES:
            raise InputError(f"Unknown fill {self.fill!r}.", fix="Use grey, blur or none.")
        if not 0 <= self.padding_px <= MAX_PADDING_PX:
            raise InputError(
                f"Padding {self.padding_px} px is out of range.",
                fix=f"Use 0 to {MAX_PADDING_PX} px.",
            )
        if not 0 <= self.feather_px <= MAX_FEATHER_PX:
            raise InputError(
                f"Feather {self.feather_px} px is out of range.",
                fix=f"Use 0 to {MAX_FEATHER_PX} px.",
            )


@dataclass(frozen=True)
class PrepareRecord:
    """Everything needed to map a generated picture back onto the original (prepare.json)."""

    original_size: Size
    region: Rect  # in the original picture; all of it unless only_masked
    align: AlignPlan  # applied to the region
    fill: FillMode
    feather_px: int
    only_masked: bool
    padding_px: int
    image_sha256: str
    mask_sha256: str | None  # None: no mask, the whole picture is repainted

    @property
    def input_size(self) -> Size:
        return self.align.aligned_size

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "kind": KIND,
            "original": {
                "width": self.original_size.width,
                "height": self.original_size.height,
                "image_sha256": self.image_sha256,
                "mask_sha256": self.mask_sha256,
            },
            "region": list(self.region),
            "align": self.align.to_json(),
            "input": {"width": self.input_size.width, "height": self.input_size.height},
            "fill": self.fill,
            "feather_px": self.feather_px,
            "only_masked": self.only_masked,
            "padding_px": self.padding_px,
        }

    @classmethod
    def from_json(cls, data: dict) -> PrepareRecord:
        """Parses and cross-checks; raises ValueError/KeyError/TypeError when inconsistent."""
        original = data["original"]
        record = cls(
            original_size=Size(int(original["width"]), int(original["height"])),
            region=Rect(*(int(v) for v in data["region"])),
            align=AlignPlan.from_json(data["align"]),
            fill=data["fill"],
            feather_px=int(data["feather_px"]),
            only_masked=bool(data["only_masked"]),
            padding_px=int(data["padding_px"]),
            image_sha256=str(original["image_sha256"]),
            mask_sha256=None if original["mask_sha256"] is None else str(original["mask_sha256"]),
        )
        whole = Rect(0, 0, *record.original_size)
        if record.region.is_empty() or record.region.intersect(whole) != record.region:
            raise ValueError("the region lies outside the picture")
        if record.align.source_size != record.region.size:
            raise ValueError("the alignment does not match the region")
        if record.fill not in FILL_MODES:
            raise ValueError(f"unknown fill {record.fill!r}")
        if (
            record.align.aligned_size
            != plan_alignment(record.region.size, record.align.mode).aligned_size
        ):
            raise ValueError("the aligned size does not follow from the region")
        return record


@dataclass
class Prepared:
    """The engine's input picture and binary mask, plus the originals and the record."""

    image: np.ndarray  # HxWx3 uint8, sides multiples of 16: what input.png holds
    mask: np.ndarray | None  # HxW uint8 0/255, same size (mask.png); None without a mask
    record: PrepareRecord
    options: PrepareOptions
    original_image: np.ndarray
    original_mask: np.ndarray | None  # as given (soft), uint8
    notes: list[str] = field(default_factory=list)  # things the user should know

    @property
    def region(self) -> Rect:
        return self.record.region


@dataclass(frozen=True)
class PreparedFolder:
    """A verified prepared folder on disk (what `load_prepared` returns)."""

    folder: Path
    record: PrepareRecord

    @property
    def region(self) -> Rect:
        return self.record.region

    @property
    def input_size(self) -> Size:
        return self.record.input_size


def pixel_sha256(array: np.ndarray) -> str:
    """SHA-256 of an array's shape, type and pixels (not of any file encoding)."""
    digest = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    digest.update(np.ascontiguousarray(array).data)
    return digest.hexdigest()


def _as_uint8_mask(mask: np.ndarray) -> np.ndarray:
    if mask.dtype == np.uint8:
        return mask
    mask = mask.astype(np.float32, copy=False)
    # cv2 rounds and saturates ~10× faster than numpy on a 4096² canvas, but mirrors negative
    # values (it takes |x|): clip only in the rare case there are any.
    if cv2.minMaxLoc(mask)[0] < 0.0:
        mask = np.clip(mask, 0.0, 1.0)
    return cv2.convertScaleAbs(mask, alpha=255.0)


def prepare(image: np.ndarray, mask: np.ndarray | None, options: PrepareOptions) -> Prepared:
    """Aligns, crops to the masked region if asked, and pre-fills the repaint area.

    image: HxWx3 uint8 RGB. mask: HxW uint8 (0..255) or float32 (0..1), ≥ 50 % = repaint; a
    different size raises MaskSizeError, an empty one InputError. mask=None is for callers
    without a mask (txt2img, whole-picture img2img): only alignment happens. The arrays are
    not copied; the record's pixel hashes catch a caller that changes them afterwards.
    """
    options.check()
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"prepare wants HxWx3 uint8, got {image.dtype} {image.shape}")
    size = Size.of(image)
    if mask is not None and (mask.ndim != 2 or Size.of(mask) != size):
        raise MaskSizeError(Size(mask.shape[1], mask.shape[0]), size)
    if mask is None and options.only_masked:
        raise InputError("'Only masked' needs a mask.", fix="Paint the area to repaint.")
    soft = None if mask is None else _as_uint8_mask(mask)
    # Hashing a big picture takes as long as the rest of prepare; sha256 releases the GIL, so
    # it runs beside the pixel work.
    with ThreadPoolExecutor(max_workers=1) as pool:
        image_hash = pool.submit(pixel_sha256, image)
        mask_hash = pool.submit(pixel_sha256, soft) if soft is not None else None
        image_out, mask_out, region, plan, notes = _prepare_pixels(image, soft, options)
        record = PrepareRecord(
            original_size=size,
            region=region,
            align=plan,
            fill=options.fill if soft is not None else "none",
            feather_px=options.feather_px,
            only_masked=options.only_masked,
            padding_px=options.padding_px,
            image_sha256=image_hash.result(),
            mask_sha256=mask_hash.result() if mask_hash is not None else None,
        )
    return Prepared(image_out, mask_out, record, options, image, soft, notes)


def _prepare_pixels(
    image: np.ndarray, soft: np.ndarray | None, options: PrepareOptions
) -> tuple[np.ndarray, np.ndarray | None, Rect, AlignPlan, list[str]]:
    size = Size.of(image)
    notes: list[str] = []
    region = Rect(0, 0, *size)
    if soft is None:
        plan = plan_alignment(region.size, options.align)
        return align_image(plan, image), None, region, plan, notes
    binary = binarise(soft)
    box = bounding_box(binary)
    if box is None:
        raise InputError(
            "The mask is empty: paint the area to repaint.",
            fix="White (or at least 50 % grey) marks what to regenerate.",
        )
    if options.only_masked:
        # The feather must fit inside the region, or it would be cut off with a seam.
        region = masked_region(box, size, max(options.padding_px, options.feather_px + 1))
    plan = plan_alignment(region.size, options.align)
    aligned = align_image(plan, image[region.slices()])
    binary_region = binary[region.slices()]
    aligned_mask = align_mask(plan, binary_region)
    if plan.mode == "crop":
        lost = int(np.count_nonzero(binary_region)) - int(np.count_nonzero(aligned_mask))
        if lost > 0:
            notes.append(
                f"cropping to {plan.aligned_size} cut off {lost} masked pixels; "
                "they keep the original (use --align pad to keep them)"
            )
    # align_image always returns a new array, so filling it in place is safe.
    filled = fill_masked(aligned, aligned_mask, options.fill, in_place=True)
    return filled, aligned_mask, region, plan, notes


def export_prepared(
    folder: Path | str, prepared: Prepared, compress_level: int = EXPORT_PNG_LEVEL
) -> dict[str, Path]:
    """Writes the prepared folder (see the module docstring); returns {file name: path}.

    Each file is written atomically and prepare.json last. On any failure (unwritable folder,
    disk full) the files this call wrote are removed again, an old prepare.json is gone too,
    and OutputError explains what to do: a folder is never left looking prepared when it is not.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"{folder} is a file, not a folder.", fix="Choose another output folder.")
    created = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / RECORD_FILE).unlink(missing_ok=True)
    except OSError as exc:
        raise OutputError(
            f"Cannot write to {folder}: {exc.strerror or exc}.",
            fix="Choose a folder you can write to.",
        ) from exc
    jobs: dict[str, tuple[np.ndarray, int]] = {
        INPUT_FILE: (prepared.image, compress_level),
        ORIGINAL_FILE: (prepared.original_image, compress_level),
    }
    if prepared.mask is not None and prepared.original_mask is not None:
        jobs[MASK_FILE] = (prepared.mask, MASK_PNG_LEVEL)
        jobs[SOFT_MASK_FILE] = (prepared.original_mask, MASK_PNG_LEVEL)
    written: list[Path] = []

    def write(name: str, array: np.ndarray, level: int) -> dict[str, int | str]:
        data = encode_png(array, level)
        digest = hashlib.sha256(data).hexdigest()
        write_bytes_atomic(folder / name, data)
        written.append(folder / name)
        return {"bytes": len(data), "sha256": digest}

    try:
        # Encoding, hashing, writing and fsync all release the GIL: the two big pictures go
        # side by side, which nearly halves a 4096² export on two cores.
        with ThreadPoolExecutor(max_workers=2) as pool:
            futures = {name: pool.submit(write, name, *job) for name, job in jobs.items()}
        manifest = {name: future.result() for name, future in futures.items()}
        record = prepared.record.to_json() | {"files": manifest}
        write_text_atomic(folder / RECORD_FILE, json.dumps(record, indent=2) + "\n")
    except BaseException:
        for path in written:
            with contextlib.suppress(OSError):
                path.unlink()
        if created:
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    return {name: folder / name for name in [*jobs, RECORD_FILE]}


def load_prepared(folder: Path | str) -> PreparedFolder:
    """Reads and verifies a prepared folder: prepare.json parses and every file it lists has
    the recorded size and SHA-256. A missing prepare.json is an InputError (not prepared);
    anything inconsistent is a DamagedFileError naming the file."""
    folder = Path(folder)
    record_path = folder / RECORD_FILE
    if not record_path.is_file():
        raise InputError(
            f"{folder} is not a prepared folder (no {RECORD_FILE}).",
            fix="Run `prepare` first and pass its --out folder.",
        )
    try:
        data = json.loads(record_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DamagedFileError(
            f"{record_path} cannot be read ({exc}).", fix=_FIX_REPREPARE
        ) from exc
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise DamagedFileError(
            f"{record_path} is not a Stepwise prepare record.", fix=_FIX_REPREPARE
        )
    if data.get("format") != FORMAT:
        raise DamagedFileError(
            f"{record_path} has format {data.get('format')!r}; this version reads {FORMAT}.",
            fix=_FIX_REPREPARE,
        )
    try:
        record = PrepareRecord.from_json(data)
        files = {str(k): (int(v["bytes"]), str(v["sha256"])) for k, v in data["files"].items()}
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise DamagedFileError(f"{record_path} is damaged ({exc}).", fix=_FIX_REPREPARE) from exc
    needed = {INPUT_FILE, ORIGINAL_FILE} | (
        {MASK_FILE, SOFT_MASK_FILE} if record.mask_sha256 is not None else set()
    )
    if not needed <= files.keys():
        raise DamagedFileError(
            f"{record_path} does not list {sorted(needed - files.keys())}.", fix=_FIX_REPREPARE
        )
    for name in sorted(needed):
        _verify_file(folder / name, *files[name])
    return PreparedFolder(folder, record)


def _verify_file(path: Path, size: int, sha256: str) -> None:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DamagedFileError(f"{path} is missing or unreadable.", fix=_FIX_REPREPARE) from exc
    if len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
        raise DamagedFileError(
            f"{path} has changed or is damaged since it was prepared.", fix=_FIX_REPREPARE
        )


PreparedSource = Prepared | PreparedFolder | PrepareRecord | Path | str


def composite_prepared(source: PreparedSource, *arrays: np.ndarray | None) -> np.ndarray:
    """Blends a generated picture (the prepared input's size) back into the original picture.

    Two call forms:
        composite_prepared(source, result)
        composite_prepared(source, original_image, original_mask, result)
    `source` is what `prepare` returned, what `load_prepared` returned, a prepared folder's
    path, or a bare PrepareRecord (which needs the originals passed in). Originals not passed
    come from the Prepared object or the folder (original.png, mask_soft.png); originals
    passed in must be the ones that were prepared (their pixel hashes are checked). Unmasked
    pixels come back bit-identical; a result of the wrong size raises InputError.
    """
    if len(arrays) == 1:
        original_image, original_mask, result = None, None, arrays[0]
    elif len(arrays) == 3:
        original_image, original_mask, result = arrays
    else:
        raise TypeError("composite_prepared(source, result) or (source, image, mask, result)")
    if result is None:
        raise TypeError("composite_prepared needs the generated picture")
    folder: Path | None = None
    if isinstance(source, Prepared):
        record = source.record
        if original_image is None:
            original_image, original_mask = source.original_image, source.original_mask
    elif isinstance(source, PrepareRecord):
        record = source
    else:
        loaded = source if isinstance(source, PreparedFolder) else load_prepared(source)
        record, folder = loaded.record, loaded.folder
    if original_image is None:
        if folder is None:
            raise TypeError("composite_prepared needs the original picture with a bare record")
        original_image = load_image(folder / ORIGINAL_FILE)
    if original_mask is None and record.mask_sha256 is not None:
        if folder is None:
            raise TypeError("composite_prepared needs the original mask with a bare record")
        original_mask = load_mask(folder / SOFT_MASK_FILE, record.original_size)
    if pixel_sha256(original_image) != record.image_sha256:
        raise InputError(
            "This is not the picture that was prepared.",
            fix="Use the original picture, or prepare this one again.",
        )
    binary = None
    if record.mask_sha256 is not None and original_mask is not None:
        soft = _as_uint8_mask(original_mask)
        if pixel_sha256(soft) != record.mask_sha256:
            raise InputError(
                "This is not the mask that was prepared.",
                fix="Use the original mask, or prepare again with this one.",
            )
        binary = binarise(soft)
    return composite_result(
        original_image, binary, result, record.align, record.region, record.feather_px
    )
