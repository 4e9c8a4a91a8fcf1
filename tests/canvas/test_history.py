"""The mask history: per-stroke tile backups, exact undo / redo, the byte bound."""

from __future__ import annotations

import numpy as np
import pytest

from app.canvas.document import MaskDocument, changed_bbox
from app.canvas.history import MaskEdit, MaskHistory, StrokeBackup


def _random_mask(rng: np.random.Generator, h: int = 300, w: int = 400) -> np.ndarray:
    return rng.random((h, w), dtype=np.float32)


def test_stroke_backup_rebuilds_the_old_values_of_the_bounding_box() -> None:
    rng = np.random.default_rng(1)
    mask = _random_mask(rng)
    original = mask.copy()
    backup = StrokeBackup(mask, tile_px=32)
    for x0, y0, x1, y1 in [(10, 10, 50, 40), (45, 35, 120, 90), (300, 200, 420, 320)]:
        backup.protect(x0, y0, x1, y1)
        mask[max(0, y0) : y1, max(0, x0) : x1] = rng.random()  # write after protecting
    edit = backup.finish("stroke")
    assert edit is not None
    assert edit.rect == (10, 10, 390, 290)  # clipped to the mask
    x, y, w, h = edit.rect
    np.testing.assert_array_equal(edit.values, original[y : y + h, x : x + w])


def test_untouched_stroke_makes_no_edit() -> None:
    backup = StrokeBackup(np.zeros((10, 10), np.float32))
    backup.protect(20, 20, 30, 30)  # entirely outside
    assert backup.finish("nothing") is None


def test_undo_redo_swap_exact_values() -> None:
    mask = np.zeros((50, 50), np.float32)
    history = MaskHistory()
    history.push(MaskEdit("a", 5, 5, mask[5:15, 5:15].copy()))
    mask[5:15, 5:15] = 0.25
    after = mask.copy()
    assert history.undo(mask) is not None
    assert not mask.any()
    assert history.redo(mask) is not None
    np.testing.assert_array_equal(mask, after)
    assert history.redo(mask) is None


def test_history_is_bounded_by_bytes_but_keeps_the_newest_step() -> None:
    history = MaskHistory(limit_bytes=1000)
    for _ in range(5):
        history.push(MaskEdit("x", 0, 0, np.zeros((10, 10), np.float32)))  # 400 bytes each
    assert len(history) == 2 and history.used_bytes == 800
    history.push(MaskEdit("big", 0, 0, np.zeros((40, 40), np.float32)))  # 6400 bytes
    assert len(history) == 1 and history.undo_label() == "big"


def test_new_edit_clears_redo() -> None:
    mask = np.zeros((8, 8), np.float32)
    history = MaskHistory()
    history.push(MaskEdit("a", 0, 0, mask[:2, :2].copy()))
    history.undo(mask)
    assert history.can_redo()
    history.push(MaskEdit("b", 0, 0, mask[:2, :2].copy()))
    assert not history.can_redo()


def test_changed_bbox() -> None:
    a = np.zeros((20, 30), np.float32)
    b = a.copy()
    assert changed_bbox(a, b) is None
    b[3, 7] = 1
    b[10, 20] = 0.5
    assert changed_bbox(a, b) == (7, 3, 21, 11)


def test_document_operation_stores_only_the_changed_box(qapp) -> None:
    doc = MaskDocument()
    doc.set_image(np.zeros((100, 200, 3), np.uint8))
    seen = []
    doc.mask_changed.connect(lambda r: seen.append((r.x(), r.y(), r.width(), r.height())))

    def paint(mask: np.ndarray) -> np.ndarray:
        mask[10:20, 30:60] = 1.0
        return mask

    assert doc.apply_operation("op", paint)
    assert seen == [(30, 10, 30, 10)]
    assert doc.history.used_bytes == 10 * 30 * 4
    assert not doc.apply_operation("same again", paint)  # no change, no step
    assert doc.undo() and not doc.mask.any()
    assert doc.redo() and doc.mask[15, 40] == 1.0
    assert doc.modified


def test_document_rejects_a_size_changing_operation(qapp) -> None:
    doc = MaskDocument()
    doc.set_image(np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(ValueError):
        doc.apply_operation("bad", lambda m: m[:5])


def test_use_as_picture_is_one_undoable_step_with_the_old_mask_and_path(qapp) -> None:
    from pathlib import Path

    doc = MaskDocument()
    photo = np.full((40, 60, 3), 7, np.uint8)
    doc.set_image(photo, Path("photo.png"))
    doc.apply_operation(
        "paint", lambda m: np.pad(np.ones((10, 10), np.float32), ((5, 25), (5, 45)))
    )
    painted = doc.mask.copy()
    seen: list[str] = []
    doc.image_changed.connect(lambda: seen.append("image"))
    result = np.full((40, 60, 3), 200, np.uint8)
    doc.use_as_picture("Use as new image", result, Path("result.png"))
    assert np.array_equal(doc.image, result) and doc.mask_is_empty()
    assert doc.image_path == Path("result.png") and seen == ["image"]
    assert doc.history.undo_label() == "Use as new image"
    assert doc.undo()
    assert np.array_equal(doc.image, photo) and np.array_equal(doc.mask, painted)
    assert doc.image_path == Path("photo.png") and seen == ["image", "image"]
    assert doc.undo()  # the paint step below it still undoes
    assert doc.mask_is_empty() and np.array_equal(doc.image, photo)
    assert doc.redo() and doc.redo()
    assert np.array_equal(doc.image, result) and doc.image_path == Path("result.png")
    assert not doc.history.can_redo()


def test_a_picture_step_needs_the_document() -> None:
    from app.canvas.history import PictureEdit

    history = MaskHistory()
    mask = np.zeros((4, 4), np.float32)
    history.push(PictureEdit("p", np.zeros((4, 4, 3), np.uint8), mask.copy(), None))
    with pytest.raises(ValueError):
        history.undo(mask)
    assert history.can_undo()  # refused, not lost
