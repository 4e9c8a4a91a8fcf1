"""The painting document: an RGB image, a soft mask over it, and the mask's undo history."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, QRect, Signal

from app.canvas.history import (
    HISTORY_LIMIT_BYTES,
    Edit,
    MaskEdit,
    MaskHistory,
    PictureEdit,
    StrokeBackup,
)
from app.canvas.mask_facts import Box, MaskFacts

MaskOperation = Callable[[np.ndarray], np.ndarray]
# Mask changes remembered for readers that catch up by rectangle (MaskFacts); one further
# behind converts the whole mask again.
CHANGE_LOG_LEN = 4096


def changed_bbox(old: np.ndarray, new: np.ndarray) -> tuple[int, int, int, int] | None:
    """x0, y0, x1, y1 (exclusive) of the pixels that differ, or None."""
    diff = old != new
    rows = np.flatnonzero(diff.any(axis=1))
    if rows.size == 0:
        return None
    cols = np.flatnonzero(diff[rows[0] : rows[-1] + 1].any(axis=0))
    return int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1


class MaskDocument(QObject):
    """Image uint8 HxWx3 and mask float32 HxW in [0, 1] (1 = repaint); all edits go through here."""

    image_changed = Signal()
    mask_changed = Signal(QRect)
    history_changed = Signal()
    modified_changed = Signal(bool)

    def __init__(
        self, parent: QObject | None = None, history_limit_bytes: int = HISTORY_LIMIT_BYTES
    ) -> None:
        super().__init__(parent)
        self.image = np.zeros((0, 0, 3), np.uint8)
        self.mask = np.zeros((0, 0), np.float32)
        self.image_path: Path | None = None
        self.mask_path: Path | None = None
        # Files a picture was read from that stand for another (a run's copy of the user's
        # photo): the name the user knows each by (image_title).
        self._titles: dict[Path, str] = {}
        self.history = MaskHistory(history_limit_bytes)
        self._stroke: StrokeBackup | None = None
        self._stroke_label = ""
        self._modified = False
        # Every mask change gets a revision and its rectangle is logged (mask_changes_since).
        self.mask_revision = 0
        self._changes: deque[tuple[int, Box]] = deque(maxlen=CHANGE_LOG_LEN)
        self.facts = MaskFacts(self)  # the mask as uint8 and its bounding boxes, cached

    # --- state -----------------------------------------------------------------------------

    @property
    def width(self) -> int:
        return int(self.image.shape[1])

    @property
    def height(self) -> int:
        return int(self.image.shape[0])

    def is_empty(self) -> bool:
        return self.image.size == 0

    def full_rect(self) -> QRect:
        return QRect(0, 0, self.width, self.height)

    @property
    def modified(self) -> bool:
        return self._modified

    def set_modified(self, modified: bool) -> None:
        if modified != self._modified:
            self._modified = modified
            self.modified_changed.emit(modified)

    def mask_is_empty(self) -> bool:
        return self.mask.size == 0 or not bool((self.mask > 0).any())

    def mask_changes_since(self, revision: int) -> list[Box] | None:
        """The rectangles the mask changed in after `revision` (None: not all are known any
        more, read the whole mask)."""
        if revision == self.mask_revision:
            return []
        if not self._changes or self._changes[0][0] > revision + 1:
            return None
        return [box for rev, box in self._changes if rev > revision]

    def _mask_touched(self, rect: QRect) -> None:
        """Every mask change ends here: a new revision, its rectangle logged, the signal."""
        self.mask_revision += 1
        box = (rect.x(), rect.y(), rect.x() + rect.width(), rect.y() + rect.height())
        self._changes.append((self.mask_revision, box))
        self.mask_changed.emit(rect)

    # --- whole-document changes -----------------------------------------------------------

    @property
    def image_title(self) -> str | None:
        """The picture's name for the user (the window title, the run it makes): its file's,
        or the photo's that the file is a copy of (set_image's `title`); None: no file."""
        path = self.image_path
        return None if path is None else self._titles.get(path, path.name)

    def set_image(
        self, image: np.ndarray, path: Path | None = None, title: str | None = None
    ) -> None:
        """Starts a new document: an empty mask of the image's size and no history. `title`:
        the name the picture goes by when `path` is a copy (a resumed run's inputs/image.png)."""
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError("image must be uint8 HxWx3")
        self.image = np.ascontiguousarray(image)
        self.mask = np.zeros(image.shape[:2], np.float32)
        self.image_path = path
        if path is not None and title:
            self._titles[path] = title
        self.mask_path = None
        self.history.clear()
        self._stroke = None
        self.set_modified(False)
        self.image_changed.emit()
        self._mask_touched(self.full_rect())
        self.history_changed.emit()

    def replace_image(self, image: np.ndarray) -> None:
        """Swaps the picture under the mask (e.g. for a composited result); the mask stays."""
        if image.shape[:2] != self.mask.shape:
            raise ValueError("replacement image must have the mask's size")
        self.image = np.ascontiguousarray(image)
        self.image_changed.emit()

    def use_as_picture(
        self, label: str, image: np.ndarray, path: Path | None = None, title: str | None = None
    ) -> None:
        """The picture becomes `image` (e.g. a generated result) with an empty mask, as one
        undoable step: undo brings the old picture, its mask and its path back. `title`: the
        name it goes by (a run's result.png is named after the photo and the seed)."""
        if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise ValueError("image must be uint8 HxWx3")
        if self._stroke is not None:
            self.end_stroke()
        old = PictureEdit(label, self.image, self.mask, self.image_path)
        self.image = np.ascontiguousarray(image)
        self.mask = np.zeros(image.shape[:2], np.float32)
        self.image_path = path
        if path is not None and title:
            self._titles[path] = title
        self.history.push(old)
        self.set_modified(True)
        self._picture_swapped()

    def _picture_swapped(self) -> None:
        self.image_changed.emit()
        self._mask_touched(self.full_rect())
        self.history_changed.emit()

    # --- mask edits -----------------------------------------------------------------------

    def apply_operation(self, label: str, operation: MaskOperation) -> bool:
        """Runs `operation(mask) -> new mask` as one undoable step; False if nothing changed."""
        if self.is_empty():
            return False
        new = np.asarray(operation(self.mask.copy()), dtype=np.float32)
        if new.shape != self.mask.shape:
            raise ValueError("a mask operation changed the mask's size")
        return self._commit(label, new)

    def replace_mask(self, label: str, mask: np.ndarray) -> bool:
        """Sets the whole mask (e.g. a loaded file) as one undoable step."""
        return self.apply_operation(label, lambda _old: mask)

    def _commit(self, label: str, new: np.ndarray) -> bool:
        np.clip(new, 0.0, 1.0, out=new)
        box = changed_bbox(self.mask, new)
        if box is None:
            return False
        x0, y0, x1, y1 = box
        self.history.push(MaskEdit(label, x0, y0, self.mask[y0:y1, x0:x1].copy()))
        self.mask[y0:y1, x0:x1] = new[y0:y1, x0:x1]
        self.set_modified(True)
        self._mask_touched(QRect(x0, y0, x1 - x0, y1 - y0))
        self.history_changed.emit()
        return True

    # Strokes write into the mask in place (dab by dab) and become one undo step at the end.

    def begin_stroke(self, label: str) -> None:
        self._stroke = StrokeBackup(self.mask)
        self._stroke_label = label

    def stroke_backup(self) -> StrokeBackup:
        if self._stroke is None:
            raise RuntimeError("no stroke in progress")
        return self._stroke

    def notify_mask_region(self, rect: QRect) -> None:
        """Tools call this after writing into `mask` directly."""
        rect = rect.intersected(self.full_rect())
        if not rect.isEmpty():
            self._mask_touched(rect)

    def end_stroke(self) -> bool:
        stroke, self._stroke = self._stroke, None
        if stroke is None:
            return False
        edit = stroke.finish(self._stroke_label)
        if edit is None:
            return False
        self.history.push(edit)
        self.set_modified(True)
        self.history_changed.emit()
        return True

    def undo(self) -> bool:
        return self._step(self.history.undo)

    def redo(self) -> bool:
        return self._step(self.history.redo)

    def _step(self, step: Callable[[np.ndarray, MaskDocument], Edit | None]) -> bool:
        if self._stroke is not None:
            self.end_stroke()
        edit = step(self.mask, self)
        if edit is None:
            return False
        if isinstance(edit, PictureEdit):
            self.set_modified(True)
            self._picture_swapped()
            return True
        x, y, w, h = edit.rect
        self.set_modified(True)
        self._mask_touched(QRect(x, y, w, h))
        self.history_changed.emit()
        return True
