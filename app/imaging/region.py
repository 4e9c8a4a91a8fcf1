"""'Only masked': the part of a big picture around the mask that is generated at full detail."""

from __future__ import annotations

from app.imaging.align import ALIGN_PX
from app.imaging.geometry import Rect, Size


def _grow_axis(start: int, length: int, limit: int, step: int) -> tuple[int, int]:
    """Grows [start, start+length) to a multiple of `step` inside [0, limit), centred when it can.

    When the picture itself is too short the whole axis is returned (alignment pads it later):
    growing is preferred to cropping, which would cut into the context.
    """
    target = -(-length // step) * step
    if target > limit:
        return 0, limit
    extra = target - length
    start -= extra // 2
    start = min(max(start, 0), limit - target)
    return start, target


def masked_region(
    mask_box: Rect, image_size: Size | tuple[int, int], padding_px: int, step_px: int = ALIGN_PX
) -> Rect:
    """The mask's bounding box plus `padding_px` context, clamped to the picture, grown so both
    sides are multiples of `step_px` (unless the picture is too small on that axis)."""
    width, height = int(image_size[0]), int(image_size[1])
    pad = max(0, int(padding_px))
    x0, y0 = max(0, mask_box.x - pad), max(0, mask_box.y - pad)
    x1, y1 = min(width, mask_box.right + pad), min(height, mask_box.bottom + pad)
    x, w = _grow_axis(x0, x1 - x0, width, step_px)
    y, h = _grow_axis(y0, y1 - y0, height, step_px)
    return Rect(x, y, w, h)
