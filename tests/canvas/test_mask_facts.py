"""The document's cached mask facts (app/canvas/mask_facts.py): after any mix of strokes,
erasing, whole-mask operations, undo and redo they equal the facts computed from scratch, and
they are kept up by rectangle: one whole conversion per mask array, not one per read. A small
stroke's undo entry holds only its rectangle's pixels."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from app.canvas import operations as ops
from app.canvas.document import CHANGE_LOG_LEN, MaskDocument
from app.canvas.history import MaskEdit
from app.canvas.mask_facts import to_u8
from app.canvas.tools import BrushTool, PaintState, ToolKind
from app.imaging.mask_ops import bounding_box

H, W = 300, 451  # not a multiple of the 64-px tiles


@pytest.fixture
def doc(qapp) -> MaskDocument:
    document = MaskDocument()
    document.set_image(np.zeros((H, W, 3), np.uint8))
    return document


def _assert_fresh(doc: MaskDocument) -> None:
    u8 = to_u8(doc.mask)
    assert np.array_equal(doc.facts.u8(), u8)
    for threshold in (1, 128, 250):
        assert doc.facts.box(threshold) == bounding_box(u8 >= threshold), threshold


def test_the_facts_follow_every_kind_of_edit_exactly(doc: MaskDocument) -> None:
    rng = np.random.default_rng(7)
    state = PaintState()
    tool = BrushTool(doc, state)
    _assert_fresh(doc)
    for _ in range(80):
        kind = int(rng.integers(0, 7))
        if kind < 4:  # strokes and erasing, partly off the picture
            state.set_tool(ToolKind.ERASER if kind == 3 else ToolKind.BRUSH)
            state.set_size_px(int(rng.integers(2, 140)))
            state.set_hardness(float(rng.random()))
            x, y = rng.uniform(-40, W + 40), rng.uniform(-40, H + 40)
            tool.press(QPointF(x, y))
            for _step in range(int(rng.integers(0, 6))):
                tool.move(QPointF(x + rng.uniform(-90, 90), y + rng.uniform(-90, 90)))
            tool.release()
        elif kind == 4:
            doc.undo()
        elif kind == 5:
            doc.redo()
        else:
            operation = (ops.invert_mask, ops.clear_mask, lambda d: ops.grow_mask(d, 5))
            operation[int(rng.integers(0, 3))](doc)
        _assert_fresh(doc)
    assert doc.facts.conversions == 1  # the one of the picture's new mask, none since


def test_reading_again_converts_nothing_and_a_new_picture_converts_once(
    doc: MaskDocument,
) -> None:
    doc.facts.u8()
    before = doc.facts.conversions
    for _ in range(5):
        doc.facts.u8()
        doc.facts.box()
        doc.facts.any()
    assert doc.facts.conversions == before
    doc.set_image(np.zeros((64, 80, 3), np.uint8))
    assert doc.facts.u8().shape == (64, 80) and doc.facts.box() is None
    assert doc.facts.conversions == before + 1


def test_the_facts_read_only_and_a_log_outrun_converts_the_whole_mask(
    doc: MaskDocument,
) -> None:
    u8 = doc.facts.u8()
    with pytest.raises(ValueError):
        u8[0, 0] = 1
    before = doc.facts.conversions
    for i in range(CHANGE_LOG_LEN + 2):  # more changes than the log keeps
        doc.mask[0, i % W] = 1.0
        doc.notify_mask_region(doc.full_rect().adjusted(i % W, 0, 0, 0))
    _assert_fresh(doc)
    assert doc.facts.conversions == before + 1


def test_a_small_strokes_undo_entry_holds_only_its_rectangle(doc: MaskDocument) -> None:
    big = MaskDocument()
    big.set_image(np.zeros((2048, 2048, 3), np.uint8))
    state = PaintState()
    state.set_size_px(16)
    tool = BrushTool(big, state)
    tool.press(QPointF(1000, 1000))
    tool.move(QPointF(1010, 1004))
    tool.release()
    edit = big.history._undo[-1]
    assert isinstance(edit, MaskEdit)
    x, y, w, h = edit.rect
    painted = bounding_box(big.mask > 0)
    assert painted is not None
    # The entry is the stroke's own rectangle (the dab's footprint plus a pixel), not the mask.
    assert w <= painted.width + 2 and h <= painted.height + 2
    assert edit.values.size == w * h <= 40 * 40
    assert x <= painted.x and y <= painted.y
    big.undo()
    assert not big.mask.any()
    big.redo()
    assert bounding_box(big.mask > 0) == painted
