"""The job's inputs from the painter: the document's image and mask, written for a run.

The arrays are copied when the document changes (UI thread, cheap); the PNGs are encoded and
written in a worker thread (InputWriter) through app.core.atomic, named by the sha256 of their
bytes, and an existing file of that name is reused only when its bytes hash the same again.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, QThread, Signal

from app.core.atomic import write_bytes_atomic
from app.imaging.io import encode_png

log = logging.getLogger(__name__)

NAME_HASH_CHARS = 24
INPUT_PNG_LEVEL = 1

Source = Callable[[], tuple[np.ndarray | None, np.ndarray | None]]


@dataclass(frozen=True)
class InputFiles:
    """The written inputs (mask None: nothing painted, the whole image is the job)."""

    image: Path
    mask: Path | None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_input_png(folder: Path, kind: str, array: np.ndarray) -> Path:
    """`folder/<kind>-<hash>.png`; an existing file is verified (re-hashed) before reuse."""
    data = encode_png(array, INPUT_PNG_LEVEL)
    digest = _sha256(data)
    path = folder / f"{kind}-{digest[:NAME_HASH_CHARS]}.png"
    try:
        if path.is_file() and _sha256(path.read_bytes()) == digest:
            return path
    except OSError as exc:
        log.warning("Could not read %s to verify it (%s); writing it again", path, exc)
    write_bytes_atomic(path, data)
    return path


def write_inputs(folder: Path, image: np.ndarray, mask: np.ndarray | None) -> InputFiles:
    """Writes (or verifies and reuses) the image and mask PNGs of a job."""
    folder.mkdir(parents=True, exist_ok=True)
    image_path = write_input_png(folder, "image", np.ascontiguousarray(image))
    mask_path = None
    if mask is not None and mask.any():
        mask_path = write_input_png(folder, "mask", np.ascontiguousarray(mask))
    return InputFiles(image_path, mask_path)


class JobInputs(QObject):
    """The painter's picture and mask as the job's input (None = text-to-image)."""

    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._image: np.ndarray | None = None
        self._mask: np.ndarray | None = None
        self._source: Source | None = None

    def set_document(self, image: np.ndarray | None, mask: np.ndarray | None) -> None:
        """RGB uint8 HxWx3 and a mask (float 0..1 or uint8), copied; image None = no picture."""
        self._source = None
        if image is None or image.size == 0:
            self._image, self._mask = None, None
        else:
            self._image = np.array(image, dtype=np.uint8, copy=True)
            self._mask = None if mask is None else _mask_u8(mask)
        self.changed.emit()

    def set_source(self, source: Source | None) -> None:
        """Follows a live document: `source()` gives its (image, mask) when asked; the caller
        emits `changed` (through `document_changed`) when they change."""
        self._source = source
        self._image = self._mask = None
        self.changed.emit()

    def document_changed(self) -> None:
        self.changed.emit()

    def snapshot(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        """Copies of the image and the uint8 mask as they are now (for a worker to write)."""
        image, mask = self.image, self.mask
        if image is None:
            return None, None
        return np.array(image, dtype=np.uint8, copy=True), (None if mask is None else mask.copy())

    @property
    def image(self) -> np.ndarray | None:
        if self._source is not None:
            image = self._source()[0]
            return None if image is None or image.size == 0 else image
        return self._image

    @property
    def mask(self) -> np.ndarray | None:
        if self._source is not None:
            image, mask = self._source()
            return None if image is None or mask is None or image.size == 0 else _mask_u8(mask)
        return self._mask

    @property
    def size(self) -> tuple[int, int] | None:
        """(width, height) of the picture."""
        image = self.image
        if image is None:
            return None
        return int(image.shape[1]), int(image.shape[0])

    @property
    def has_mask(self) -> bool:
        mask = self.mask
        return mask is not None and bool(mask.any())


def _mask_u8(mask: np.ndarray) -> np.ndarray:
    if mask.dtype == np.uint8:
        return np.array(mask, copy=True)
    return np.clip(mask * 255.0 + 0.5, 0, 255).astype(np.uint8)


class InputWriter(QThread):
    """Writes a job's inputs off the UI thread; exactly one of written / failed."""

    written = Signal(object)  # InputFiles
    failed = Signal(str)

    def __init__(
        self,
        folder: Path,
        image: np.ndarray,
        mask: np.ndarray | None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("InputWriter")
        self._folder, self._image, self._mask = folder, image, mask

    def run(self) -> None:  # noqa: D102 - QThread entry point
        try:
            files = write_inputs(self._folder, self._image, self._mask)
        except Exception as exc:  # noqa: BLE001 - reported to the user with the file named
            message = getattr(exc, "user_message", None)
            self.failed.emit(message() if callable(message) else str(exc))
            return
        self.written.emit(files)
