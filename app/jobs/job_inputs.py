"""The job's inputs: the painter's image and mask, and the reference images, written for a run.

A live document is followed through its cached mask facts (app/canvas/mask_facts.py): reading
the mask, whether it has any pixel, or its bounding box costs nothing per keystroke and only
the changed rectangle per stroke; a run copies the arrays once. The PNGs are encoded and
written in a worker thread (InputWriter) through app.core.atomic, named by the sha256 of their
bytes, and an existing file of that name is reused only when its bytes hash the same again.
Reference images are read when added (a bad file is refused then, with a message naming it)
and kept as pixels, in order; they are written the same way (`ref-<hash>.png`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, Signal

from app.canvas.mask_facts import ANY_THRESHOLD, MaskFacts, to_u8
from app.core.atomic import write_bytes_atomic
from app.core.errors import InputError
from app.imaging.geometry import Rect, Size
from app.imaging.io import encode_png, load_image
from app.imaging.mask_ops import BINARY_THRESHOLD, bounding_box
from app.jobs.run_state import log_error, user_text
from app.jobs.workers import AppThread

log = logging.getLogger(__name__)

NAME_HASH_CHARS = 24
INPUT_PNG_LEVEL = 1
# The engine VAE-encodes a reference at its own size: beyond the largest job side it would
# cost more memory than the generation itself.
MAX_REF_SIDE_PX = 4096
MAX_REFS = 8
_REF_TOO_BIG = "The reference image {path} is {size} px; references may be up to {max} px a side."
_REF_TOO_BIG_FIX = "Scale it down in an image editor, or choose a smaller picture."
_REF_NOT_PICTURE = "The reference image {name} is not a picture."
_TOO_MANY_REFS = "A job takes at most {max} reference images."
_TOO_MANY_REFS_FIX = "Remove one before adding another."

Source = Callable[[], tuple[np.ndarray | None, np.ndarray | None]]
Name = Callable[[], str | None]


@dataclass(frozen=True)
class InputFiles:
    """The written inputs (image None: text to image; mask None: nothing painted, the whole
    image is the job; refs in the order the job uses them)."""

    image: Path | None
    mask: Path | None
    refs: tuple[Path, ...] = ()
    photo_name: str | None = None  # the document's file name: what the run is titled by


@dataclass(frozen=True, eq=False)
class Reference:
    """A reference image of the job: its pixels (HxWx3 uint8 RGB) and where it came from."""

    pixels: np.ndarray
    name: str  # what the pane shows: the file's name, "Pasted picture", "Result"
    source: Path | None = None
    key: str = field(default="")  # sha256 of the pixels: the same picture twice is one ref

    @classmethod
    def of(cls, pixels: np.ndarray, name: str, source: Path | None = None) -> Reference:
        if pixels.dtype != np.uint8 or pixels.ndim != 3 or pixels.shape[2] != 3:
            raise InputError(_REF_NOT_PICTURE, values={"name": name})
        size = Size.of(pixels)
        if max(size) > MAX_REF_SIDE_PX:
            raise InputError(
                _REF_TOO_BIG,
                path=source or name,
                fix=_REF_TOO_BIG_FIX,
                values={"size": size, "max": MAX_REF_SIDE_PX},
            )
        pixels = np.ascontiguousarray(pixels)
        return cls(pixels, name, source, hashlib.sha256(pixels.data).hexdigest())

    @classmethod
    def load(cls, path: Path | str) -> Reference:
        """Reads a picture file as a reference; InputError naming the file for a missing,
        foreign, damaged or oversized one (imaging.io's messages, and the size cap here)."""
        path = Path(path)
        return cls.of(load_image(path), path.name, path)

    @property
    def size(self) -> Size:
        return Size.of(self.pixels)


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


def write_inputs(
    folder: Path,
    image: np.ndarray | None,
    mask: np.ndarray | None,
    refs: tuple[np.ndarray, ...] = (),
) -> InputFiles:
    """Writes (or verifies and reuses) the image, mask and reference PNGs of a job."""
    folder.mkdir(parents=True, exist_ok=True)
    image_path = mask_path = None
    if image is not None:
        image_path = write_input_png(folder, "image", np.ascontiguousarray(image))
        if mask is not None and mask.any():
            mask_path = write_input_png(folder, "mask", np.ascontiguousarray(mask))
    ref_paths = tuple(write_input_png(folder, "ref", np.ascontiguousarray(r)) for r in refs)
    return InputFiles(image_path, mask_path, ref_paths)


class JobInputs(QObject):
    """The painter's picture and mask as the job's input (None = text-to-image), and the
    job's reference images in order."""

    changed = Signal()
    refs_changed = Signal()  # the references were added, removed or reordered (then changed)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._image: np.ndarray | None = None
        self._mask: np.ndarray | None = None
        self._source: Source | None = None
        self._name: Name | None = None
        self._facts: MaskFacts | None = None
        self._refs: list[Reference] = []

    # --- reference images ---------------------------------------------------------------------

    @property
    def refs(self) -> tuple[Reference, ...]:
        return tuple(self._refs)

    def add_ref(self, ref: Reference) -> bool:
        """Appends a reference; False (nothing changes) when the same picture is already one.
        More than MAX_REFS raises InputError."""
        if any(r.key == ref.key for r in self._refs):
            return False
        if len(self._refs) >= MAX_REFS:
            raise InputError(_TOO_MANY_REFS, fix=_TOO_MANY_REFS_FIX, values={"max": MAX_REFS})
        self._refs.append(ref)
        self._refs_changed()
        return True

    def remove_ref(self, index: int) -> None:
        if 0 <= index < len(self._refs):
            del self._refs[index]
            self._refs_changed()

    def move_ref(self, index: int, to: int) -> None:
        """Moves the reference at `index` to position `to` (clamped)."""
        if not 0 <= index < len(self._refs):
            return
        to = min(max(to, 0), len(self._refs) - 1)
        if to != index:
            self._refs.insert(to, self._refs.pop(index))
            self._refs_changed()

    def set_refs(self, refs: list[Reference]) -> None:
        self._refs = list(refs)
        self._refs_changed()

    def ref_pixels(self) -> tuple[np.ndarray, ...]:
        """The references' pixels in order, for a worker to write (they are never changed in
        place, so no copy is needed)."""
        return tuple(r.pixels for r in self._refs)

    def writer(self, folder: Path, parent: QObject | None = None) -> InputWriter:
        """An InputWriter for everything the job needs: picture, mask and references."""
        image, mask = self.snapshot()
        writer = InputWriter(folder, image, mask, parent, refs=self.ref_pixels())
        writer.photo_name = self.photo_name if image is not None else None
        return writer

    def _refs_changed(self) -> None:
        self.refs_changed.emit()
        self.changed.emit()

    # --- the painter's picture ----------------------------------------------------------------

    def set_document(self, image: np.ndarray | None, mask: np.ndarray | None) -> None:
        """RGB uint8 HxWx3 and a mask (float 0..1 or uint8), copied; image None = no picture."""
        self._source, self._facts = None, None
        if image is None or image.size == 0:
            self._image, self._mask = None, None
        else:
            self._image = np.array(image, dtype=np.uint8, copy=True)
            self._mask = None if mask is None else _mask_u8(mask)
        self.changed.emit()

    def set_source(
        self, source: Source | None, facts: MaskFacts | None = None, name: Name | None = None
    ) -> None:
        """Follows a live document: `source()` gives its (image, mask) when asked, `facts`
        (the document's) its mask as uint8 and bounding boxes, cached, `name()` its file name;
        the caller emits `changed` (through `document_changed`) when they change."""
        self._source, self._facts, self._name = source, facts, name
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
    def photo_name(self) -> str | None:
        """The followed document's file name (None: no name, e.g. a pasted picture)."""
        return self._name() if self._name is not None else None

    @property
    def image(self) -> np.ndarray | None:
        if self._source is not None:
            image = self._source()[0]
            return None if image is None or image.size == 0 else image
        return self._image

    @property
    def mask(self) -> np.ndarray | None:
        """The uint8 mask (read-only: a followed document's is its cached one)."""
        if self._source is not None:
            image, mask = self._source()
            if image is None or mask is None or image.size == 0:
                return None
            return self._facts.u8() if self._facts is not None else _mask_u8(mask)
        return self._mask

    def mask_box(self, threshold: int = BINARY_THRESHOLD) -> Rect | None:
        """The bounding box of the mask's pixels ≥ threshold (uint8), None when there are none
        or there is no mask."""
        if self._source is not None and self._facts is not None:
            return self._facts.box(threshold) if self.mask_present() else None
        mask = self.mask
        return None if mask is None else bounding_box(mask >= threshold)

    def mask_present(self) -> bool:
        """A picture with a mask array (painted or not)."""
        if self._source is not None:
            image, mask = self._source()
            return image is not None and mask is not None and image.size != 0
        return self._mask is not None

    @property
    def size(self) -> tuple[int, int] | None:
        """(width, height) of the picture."""
        image = self.image
        if image is None:
            return None
        return int(image.shape[1]), int(image.shape[0])

    @property
    def has_mask(self) -> bool:
        """Some pixel of the uint8 mask is not 0 (a mask file is written)."""
        return self.mask_box(ANY_THRESHOLD) is not None


def _mask_u8(mask: np.ndarray) -> np.ndarray:
    if mask.dtype == np.uint8:
        return np.array(mask, copy=True)
    return to_u8(mask)


class InputWriter(AppThread):
    """Writes a job's inputs off the UI thread; exactly one of written / failed."""

    written = Signal(object)  # InputFiles
    failed = Signal(str)

    def __init__(
        self,
        folder: Path,
        image: np.ndarray | None,
        mask: np.ndarray | None,
        parent: QObject | None = None,
        refs: tuple[np.ndarray, ...] = (),
    ) -> None:
        super().__init__(parent)
        self.setObjectName("InputWriter")
        self._folder, self._image, self._mask, self._refs = folder, image, mask, refs
        self.photo_name: str | None = None  # recorded with the written files

    def run(self) -> None:  # QThread entry point
        try:
            files = write_inputs(self._folder, self._image, self._mask, self._refs)
        except Exception as exc:  # reported to the user with the file named
            log_error(log, "writing the inputs failed", exc)
            self.failed.emit(user_text(exc))
            return
        self.written.emit(dataclasses.replace(files, photo_name=self.photo_name))
