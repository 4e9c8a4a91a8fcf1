"""'Only masked': the part of a big picture around the mask that is generated at full detail."""

from __future__ import annotations

from app.imaging.align import ALIGN_PX
from app.imaging.geometry import Rect, Size

MAX_SCALED_SIDE_PX = 4096  # the largest side a job may have (the width/height rows' maximum)


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
    mask_box: Rect,
    image_size: Size | tuple[int, int],
    padding_px: int,
    step_px: int = ALIGN_PX,
    context: Rect | None = None,
) -> Rect:
    """The mask's bounding box plus `padding_px` context, clamped to the picture, joined with
    the `context` rectangle when one is given (the union: the model sees both), grown so both
    sides are multiples of `step_px` (unless the picture is too small on that axis)."""
    width, height = int(image_size[0]), int(image_size[1])
    pad = max(0, int(padding_px))
    x0, y0 = max(0, mask_box.x - pad), max(0, mask_box.y - pad)
    x1, y1 = min(width, mask_box.right + pad), min(height, mask_box.bottom + pad)
    if context is not None and not context.is_empty():
        x0, y0 = min(x0, max(0, context.x)), min(y0, max(0, context.y))
        x1, y1 = max(x1, min(width, context.right)), max(y1, min(height, context.bottom))
    x, w = _grow_axis(x0, x1 - x0, width, step_px)
    y, h = _grow_axis(y0, y1 - y0, height, step_px)
    return Rect(x, y, w, h)


def scaled_region_size(
    region_size: Size | tuple[int, int],
    target_px: int,
    max_size: Size | tuple[int, int] | None = None,
    step_px: int = ALIGN_PX,
) -> Size | None:
    """The size the 'only masked' region is generated at, or None to keep its own size.

    The region is scaled (keeping its aspect) so that its area is about target_px², both sides
    rounded to multiples of `step_px`, and shrunk further if a side would exceed `max_size`
    (rounded down to the step). A tiny region is upscaled, which is the point: a 256×208 eye
    comes out of the model with a megapixel of detail. target_px 0 keeps the region's size.
    """
    width, height = int(region_size[0]), int(region_size[1])
    if target_px <= 0 or width < 1 or height < 1:
        return None
    factor = target_px / (width * height) ** 0.5
    # Without a job maximum, the engine's own limit on a side bounds the scaled region.
    cap = max_size if max_size is not None else (MAX_SCALED_SIDE_PX, MAX_SCALED_SIDE_PX)
    max_w = max(step_px, int(cap[0]) // step_px * step_px)
    max_h = max(step_px, int(cap[1]) // step_px * step_px)
    factor = min(factor, max_w / width, max_h / height)
    new_w = min(max_w, max(step_px, int(round(width * factor / step_px)) * step_px))
    new_h = min(max_h, max(step_px, int(round(height * factor / step_px)) * step_px))
    if (new_w, new_h) == (width, height):
        return None
    return Size(new_w, new_h)
