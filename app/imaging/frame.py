"""The frame of a job: the context area the model sees, and the canvas expansion (outpainting).

Both are typed as four whole numbers: the context area as X,Y,W,H in the photo's pixels (with
'only masked' the region generated is the union of the mask's box plus padding and this
rectangle), the expansion as L,T,R,B, the pixels added on each side. An empty text means
"none". Parsing and the checks against the picture live here, so prepare, the preflight and
the GUI say the same thing about the same value.

Expanding a picture: the new area is pre-filled from the old picture (`OUTPAINT_FILL`: edge
extension when the fill table has it, else Telea, else the push-pull blur) and masked; the
mask is hard (255) over the whole new area and ramps into the old picture over RAMP_PX (from
full at the old edge to nothing at RAMP_PX, so it binarises to SEAM_PX = RAMP_PX / 2), and the
composite's feather adds feather_px beyond that. A hard new area with a ~32-px ramp is what
flux-2-swift-mlx's inpainting guide found for klein: a gradient across the whole new canvas
bands. Old pixels from `seam_band_px(feather_px)` inside an expanded edge come back bit for bit.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from app.core.errors import InputError
from app.imaging.fill import FILL_MODES, fill_masked
from app.imaging.geometry import Rect, Size
from app.imaging.region import MAX_SCALED_SIDE_PX

RAMP_PX = 32  # the mask's ramp into the old picture at an expanded edge (flux-2-swift-mlx)
SEAM_PX = RAMP_PX // 2  # how far the repaint mask (binarised) reaches into the old picture
MAX_EXPANDED_SIDE_PX = MAX_SCALED_SIDE_PX  # the largest side a job may have
# Preferred first: the fill that continues the old picture best (border and telea join the
# fill table with the content-aware fills; until then the blur is what there is).
_OUTPAINT_FILLS = ("border", "telea", "blur")

_CONTEXT_SYNTAX = "The context area {value} is not four whole numbers X,Y,W,H."
_CONTEXT_SYNTAX_FIX = (
    "Give the rectangle as X,Y,W,H in pixels of the photo, e.g. 0,0,512,512 (--context), "
    "or leave it empty."
)
_CONTEXT_EMPTY = "The context area {value} has no size."
_CONTEXT_EMPTY_FIX = "Give X and Y from 0 and a width and height of at least 1 px."
_CONTEXT_OUTSIDE = "The context area {value} reaches outside the {size} px picture."
_CONTEXT_OUTSIDE_FIX = "Keep X + W within {width} and Y + H within {height}."
_EXPAND_SYNTAX = "The canvas expansion {value} is not four whole numbers L,T,R,B."
_EXPAND_SYNTAX_FIX = (
    "Give the pixels to add on the left, top, right and bottom, e.g. 0,0,256,0 (--expand), "
    "or leave it empty."
)
_EXPAND_NEGATIVE = "The canvas expansion {value} has a negative side."
_EXPAND_NEGATIVE_FIX = "Use 0 or more pixels on each side."
_EXPAND_TOO_BIG = "The canvas expansion {value} makes the {size} px picture {expanded} px."
_EXPAND_TOO_BIG_FIX = "Add fewer pixels: no side may exceed {max} px."


class Expansion(NamedTuple):
    """Pixels added on each side of the picture."""

    left: int
    top: int
    right: int
    bottom: int

    def is_empty(self) -> bool:
        return not any(self)

    def grown(self, size: Size | tuple[int, int]) -> Size:
        """The picture's size once expanded."""
        return Size(int(size[0]) + self.left + self.right, int(size[1]) + self.top + self.bottom)

    def old_area(self, size: Size | tuple[int, int]) -> Rect:
        """Where the old picture (of `size`) sits in the expanded one."""
        return Rect(self.left, self.top, int(size[0]), int(size[1]))

    def __str__(self) -> str:
        return ",".join(str(v) for v in self)


def _four_ints(text: str) -> tuple[int, int, int, int] | None:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 4:
        return None
    try:
        numbers = [int(p, 10) for p in parts]
    except ValueError:
        return None
    return numbers[0], numbers[1], numbers[2], numbers[3]


def parse_context(text: str) -> Rect | None:
    """The context rectangle of an "X,Y,W,H" text (None for an empty one); InputError for
    anything else, or a rectangle without size or left of / above the picture."""
    if not text.strip():
        return None
    numbers = _four_ints(text)
    if numbers is None:
        raise InputError(_CONTEXT_SYNTAX, fix=_CONTEXT_SYNTAX_FIX, values={"value": repr(text)})
    rect = Rect(*numbers)
    if rect.x < 0 or rect.y < 0 or rect.is_empty():
        raise InputError(_CONTEXT_EMPTY, fix=_CONTEXT_EMPTY_FIX, values={"value": repr(text)})
    return rect


def format_context(rect: Rect | None) -> str:
    """The text parse_context reads back ("" for none)."""
    return "" if rect is None else f"{rect.x},{rect.y},{rect.width},{rect.height}"


def parse_expand(text: str) -> Expansion | None:
    """The expansion of an "L,T,R,B" text (None for an empty or all-zero one); InputError for
    anything else or a negative side."""
    if not text.strip():
        return None
    numbers = _four_ints(text)
    if numbers is None:
        raise InputError(_EXPAND_SYNTAX, fix=_EXPAND_SYNTAX_FIX, values={"value": repr(text)})
    expansion = Expansion(*numbers)
    if min(expansion) < 0:
        raise InputError(_EXPAND_NEGATIVE, fix=_EXPAND_NEGATIVE_FIX, values={"value": repr(text)})
    return None if expansion.is_empty() else expansion


def check_frame(context: str, expand: str, image_size: Size | tuple[int, int]) -> None:
    """Both values against a picture of `image_size` (before expansion): the context inside
    it, the expanded picture no larger than a job may be. InputError names the value."""
    size = Size(int(image_size[0]), int(image_size[1]))
    rect = parse_context(context)
    if rect is not None and (rect.right > size.width or rect.bottom > size.height):
        raise InputError(
            _CONTEXT_OUTSIDE,
            fix=_CONTEXT_OUTSIDE_FIX,
            values={
                "value": repr(context),
                "size": size,
                "width": size.width,
                "height": size.height,
            },
        )
    expansion = parse_expand(expand)
    if expansion is not None:
        grown = expansion.grown(size)
        if max(grown) > MAX_EXPANDED_SIDE_PX:
            raise InputError(
                _EXPAND_TOO_BIG,
                fix=_EXPAND_TOO_BIG_FIX,
                values={
                    "value": repr(expand),
                    "size": size,
                    "expanded": grown,
                    "max": MAX_EXPANDED_SIDE_PX,
                },
            )


def expansion_for_aspect(
    size: Size | tuple[int, int], ratio_w: int, ratio_h: int, anchor: str = "centre"
) -> Expansion:
    """The least expansion that gives a picture of `size` the aspect ratio_w:ratio_h, added on
    both sides ("centre", the odd pixel right/bottom) or on one ("left", "right", "top",
    "bottom": the side the new area goes on, when that is the axis that grows)."""
    width, height = int(size[0]), int(size[1])
    if ratio_w < 1 or ratio_h < 1:
        raise ValueError("an aspect ratio needs two positive numbers")
    # Grow the side that is short for the ratio; never shrink.
    if width * ratio_h < height * ratio_w:  # too narrow: add width
        extra = -(-height * ratio_w // ratio_h) - width
        if anchor == "left":
            return Expansion(extra, 0, 0, 0)
        if anchor == "right":
            return Expansion(0, 0, extra, 0)
        return Expansion(extra // 2, 0, extra - extra // 2, 0)
    extra = -(-width * ratio_h // ratio_w) - height
    if extra <= 0:
        return Expansion(0, 0, 0, 0)
    if anchor == "top":
        return Expansion(0, extra, 0, 0)
    if anchor == "bottom":
        return Expansion(0, 0, 0, extra)
    return Expansion(0, extra // 2, 0, extra - extra // 2)


def outpaint_fill() -> str:
    """The fill the new area gets: the first of border / telea / blur the fill table has."""
    return next(mode for mode in _OUTPAINT_FILLS if mode in FILL_MODES)


def seam_band_px(feather_px: int) -> int:
    """How far inside an expanded edge old pixels may change (beyond it: bit-identical)."""
    return SEAM_PX + max(0, int(feather_px))


def expansion_box(size: Size | tuple[int, int], expansion: Expansion) -> Rect:
    """The bounding box (in the expanded picture) of what expansion_mask marks for repaint,
    computed without building the mask."""
    grown = expansion.grown(size)
    old = expansion.old_area(size)
    seam_w, seam_h = min(SEAM_PX, old.width), min(SEAM_PX, old.height)
    if expansion.top or expansion.bottom:
        x0, x1 = 0, grown.width
    else:
        x0 = 0 if expansion.left else old.right - seam_w
        x1 = grown.width if expansion.right else old.x + seam_w
    if expansion.left or expansion.right:
        y0, y1 = 0, grown.height
    else:
        y0 = 0 if expansion.top else old.bottom - seam_h
        y1 = grown.height if expansion.bottom else old.y + seam_h
    return Rect(x0, y0, x1 - x0, y1 - y0)


def expansion_mask(size: Size | tuple[int, int], expansion: Expansion) -> np.ndarray:
    """uint8 mask of the expanded picture: 255 on the new area, a ramp into the old picture
    from each expanded edge (≥ 128 for the first SEAM_PX pixels, 0 from RAMP_PX), 0 inside."""
    grown = expansion.grown(size)
    old = expansion.old_area(size)
    mask = np.full((grown.height, grown.width), 255, np.uint8)
    inner = np.zeros((old.height, old.width), np.float32)
    ramp = RAMP_PX
    ys = np.arange(old.height, dtype=np.float32)[:, None]
    xs = np.arange(old.width, dtype=np.float32)[None, :]
    distances = []
    if expansion.left:
        distances.append(np.broadcast_to(xs, inner.shape))
    if expansion.right:
        distances.append(np.broadcast_to(old.width - 1 - xs, inner.shape))
    if expansion.top:
        distances.append(np.broadcast_to(ys, inner.shape))
    if expansion.bottom:
        distances.append(np.broadcast_to(old.height - 1 - ys, inner.shape))
    for d in distances:
        np.maximum(inner, np.clip(1.0 - d / ramp, 0.0, 1.0), out=inner)
    mask[old.slices()] = np.floor(inner * 255.0).astype(np.uint8)
    return mask


def expand_picture(
    image: np.ndarray, mask: np.ndarray | None, expansion: Expansion
) -> tuple[np.ndarray, np.ndarray]:
    """The picture on its expanded canvas, the new area pre-filled (outpaint_fill), and the
    mask to repaint: the expansion's mask combined (the larger value) with `mask` (uint8, the
    old size; None: only the new area)."""
    size = Size.of(image)
    grown = expansion.grown(size)
    old = expansion.old_area(size)
    canvas = np.zeros((grown.height, grown.width, 3), np.uint8)
    canvas[old.slices()] = image
    new_area = np.full((grown.height, grown.width), 255, np.uint8)
    new_area[old.slices()] = 0
    canvas = fill_masked(canvas, new_area, outpaint_fill(), in_place=True)  # type: ignore[arg-type]
    combined = expansion_mask(size, expansion)
    if mask is not None:
        np.maximum(combined[old.slices()], mask, out=combined[old.slices()])
    return canvas, combined
