"""The prepared folder on disk: writing it (atomically, all or nothing), reading and verifying it.

A prepared folder holds:

    input.png       the picture the engine starts from: region-cropped, aligned to 16 px,
                    repaint area pre-filled (RGB)
    mask.png        binary mask of the same size, 255 = repaint, 0 = keep (grey, 8 bit)
    original.png    the untouched original picture
    mask_soft.png   the original mask as given (soft edges kept), original size
    prepare.json    {"format": 1, ...}: sizes, region, alignment, fill, feather, pixel hashes of
                    the original picture and mask, and size + SHA-256 of every file above;
                    "scale": {"width", "height", "factor"} when 'only masked' scaled the region
                    to its target size (null, or absent in records written before it: the
                    region was generated at its own size);
                    "expand": {"left", "top", "right", "bottom", "source_width",
                    "source_height", "source_sha256"} when the canvas was expanded
                    (outpainting: original.png and mask_soft.png are then the expanded
                    picture and mask, source_* the photo as given; null, or absent in older
                    records: not expanded)

prepare.json is written last, so a folder without it is not a prepared folder; a folder whose
files do not match it is damaged (DamagedFileError). Without a mask (img2img over the whole
picture, or a txt2img caller that only wants the alignment) mask.png and mask_soft.png are left
out and the composite takes the result everywhere.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.core.atomic import write_bytes_atomic, write_text_atomic
from app.core.errors import DamagedFileError, InputError, OutputError
from app.core.safe_files import read_bytes
from app.imaging.geometry import Rect, Size
from app.imaging.io import encode_png
from app.imaging.prepare_record import FORMAT, KIND, Prepared, PrepareRecord

MAX_RECORD_BYTES = 1024 * 1024  # prepare.json is a few KiB

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
_FIX_REPREPARE = "Run `prepare` again to recreate the folder."


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
        raise OutputError(
            "{path} is a file, not a folder.", path=folder, fix="Choose another output folder."
        )
    created = not folder.exists()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # The old record goes first, so a half-replaced folder never looks prepared; so do the
        # old masks, which this export may not rewrite (a maskless prepare).
        for name in (RECORD_FILE, MASK_FILE, SOFT_MASK_FILE):
            (folder / name).unlink(missing_ok=True)
    except OSError as exc:
        raise OutputError(
            "Cannot write to {path}: {reason}.",
            path=folder,
            fix="Choose a folder you can write to.",
            values={"reason": exc.strerror or exc},
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
    if not os.path.lexists(record_path):  # a FIFO or folder there: refused by the read
        raise InputError(
            "{path} is not a prepared folder (no {record}).",
            path=folder,
            fix="Run `prepare` first and pass its --out folder.",
            values={"record": RECORD_FILE},
        )
    try:
        data = json.loads(read_bytes(record_path, limit=MAX_RECORD_BYTES).decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DamagedFileError(
            "{path} cannot be read ({reason}).",
            path=record_path,
            fix=_FIX_REPREPARE,
            values={"reason": exc},
        ) from exc
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise DamagedFileError(
            "{path} is not a Stepwise prepare record.", path=record_path, fix=_FIX_REPREPARE
        )
    if data.get("format") != FORMAT:
        raise DamagedFileError(
            "{path} has format {found}; this version reads {format}.",
            path=record_path,
            fix=_FIX_REPREPARE,
            values={"found": repr(data.get("format")), "format": FORMAT},
        )
    try:
        record = PrepareRecord.from_json(data)
        files = {str(k): (int(v["bytes"]), str(v["sha256"])) for k, v in data["files"].items()}
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise DamagedFileError(
            "{path} is damaged ({reason}).",
            path=record_path,
            fix=_FIX_REPREPARE,
            values={"reason": exc},
        ) from exc
    needed = {INPUT_FILE, ORIGINAL_FILE} | (
        {MASK_FILE, SOFT_MASK_FILE} if record.mask_sha256 is not None else set()
    )
    if not needed <= files.keys():
        raise DamagedFileError(
            "{path} does not list {files}.",
            path=record_path,
            fix=_FIX_REPREPARE,
            values={"files": ", ".join(sorted(needed - files.keys()))},
        )
    for name in sorted(needed):
        _verify_file(folder / name, *files[name])
    return PreparedFolder(folder, record)


def _verify_file(path: Path, size: int, sha256: str) -> None:
    try:
        data = read_bytes(path)  # a FIFO is refused by name (SafeFileError), never waited on
    except OSError as exc:
        raise DamagedFileError(
            "{path} is missing or unreadable.", path=path, fix=_FIX_REPREPARE
        ) from exc
    if len(data) != size or hashlib.sha256(data).hexdigest() != sha256:
        raise DamagedFileError(
            "{path} has changed or is damaged since it was prepared.",
            path=path,
            fix=_FIX_REPREPARE,
        )
