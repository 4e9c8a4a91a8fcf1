"""Whole-mask operations on a document, each one undo step; imaging.mask_ops does the maths.

The labels are stored untranslated in the history; the UI translates them (context
"MaskHistory") when it shows them.
"""

from __future__ import annotations

from app.canvas.document import MaskDocument
from app.imaging import mask_ops


def clear_mask(doc: MaskDocument) -> bool:
    return doc.apply_operation("Clear mask", mask_ops.clear)


def fill_mask(doc: MaskDocument) -> bool:
    return doc.apply_operation("Fill mask", mask_ops.fill)


def invert_mask(doc: MaskDocument) -> bool:
    return doc.apply_operation("Invert mask", mask_ops.invert)


def grow_mask(doc: MaskDocument, px: int) -> bool:
    return doc.apply_operation("Grow mask", lambda m: mask_ops.grow(m, px))


def shrink_mask(doc: MaskDocument, px: int) -> bool:
    return doc.apply_operation("Shrink mask", lambda m: mask_ops.shrink(m, px))


def blur_mask(doc: MaskDocument, px: int) -> bool:
    return doc.apply_operation("Blur mask", lambda m: mask_ops.blur(m, px))
