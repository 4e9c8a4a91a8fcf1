"""Bringing a picture to a multiple of 16 px (the VAE works on 16-px cells) and back.

pad   — grows each side by edge-replicating pixels; undone exactly by cropping.
crop  — cuts the remainder (< 16 px per axis) off both sides, centred; the cut margin cannot be
        regenerated and keeps the original pixels when composited.
scale — resizes to the nearest multiple of 16 (INTER_AREA shrinking, LANCZOS growing); undone by
        resizing back, so it is the only lossy mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import cv2
import numpy as np

from app.imaging.geometry import Rect, Size
from app.imaging.mask_ops import BINARY_THRESHOLD

ALIGN_PX = 16
AlignMode = Literal["pad", "crop", "scale"]
ALIGN_MODES: tuple[AlignMode, ...] = ("pad", "crop", "scale")


@dataclass(frozen=True)
class AlignPlan:
    """How a picture of `source_size` becomes `aligned_size`, and how to undo it."""

    mode: AlignMode
    source_size: Size
    aligned_size: Size
    # pad: pixels added on each side (left, top, right, bottom); zeros for other modes.
    pad: tuple[int, int, int, int] = (0, 0, 0, 0)
    # crop: the kept part of the source; the whole source for other modes.
    crop: Rect | None = None

    @property
    def kept(self) -> Rect:
        """The part of the source that the aligned picture shows (all of it unless cropping)."""
        return self.crop or Rect(0, 0, *self.source_size)

    def to_json(self) -> dict:
        return {
            "mode": self.mode,
            "source_size": list(self.source_size),
            "aligned_size": list(self.aligned_size),
            "pad": list(self.pad),
            "crop": list(self.crop) if self.crop else None,
        }

    @classmethod
    def from_json(cls, data: dict) -> AlignPlan:
        if data["mode"] not in ALIGN_MODES:
            raise ValueError(f"unknown align mode {data['mode']!r}")
        pad = tuple(int(v) for v in data["pad"])
        if len(pad) != 4:
            raise ValueError("pad needs four values")
        return cls(
            mode=data["mode"],
            source_size=Size(*(int(v) for v in data["source_size"])),
            aligned_size=Size(*(int(v) for v in data["aligned_size"])),
            pad=pad,
            crop=Rect(*(int(v) for v in data["crop"])) if data.get("crop") else None,
        )


def _up(n: int, step: int) -> int:
    return -(-n // step) * step


def plan_alignment(
    size: Size | tuple[int, int], mode: AlignMode, step_px: int = ALIGN_PX
) -> AlignPlan:
    """Works out the aligned size and the offsets; touches no pixels."""
    width, height = int(size[0]), int(size[1])
    if width < 1 or height < 1:
        raise ValueError(f"cannot align an empty picture ({width}×{height})")
    source = Size(width, height)
    if mode == "pad":
        extra_w, extra_h = _up(width, step_px) - width, _up(height, step_px) - height
        left, top = extra_w // 2, extra_h // 2
        pad = (left, top, extra_w - left, extra_h - top)
        return AlignPlan("pad", source, Size(width + extra_w, height + extra_h), pad=pad)
    if mode == "crop":
        # A side shorter than one cell cannot be cropped; it is padded up instead.
        new_w = width - width % step_px if width >= step_px else step_px
        new_h = height - height % step_px if height >= step_px else step_px
        if new_w > width or new_h > height:
            return plan_alignment(size, "pad", step_px)
        crop = Rect((width - new_w) // 2, (height - new_h) // 2, new_w, new_h)
        return AlignPlan("crop", source, Size(new_w, new_h), crop=crop)
    if mode == "scale":
        new_w = max(step_px, int(round(width / step_px)) * step_px)
        new_h = max(step_px, int(round(height / step_px)) * step_px)
        return AlignPlan("scale", source, Size(new_w, new_h))
    raise ValueError(f"unknown align mode {mode!r}")


def _resize(array: np.ndarray, size: Size) -> np.ndarray:
    if Size.of(array) == size:
        return array.copy()
    shrinking = size.width <= array.shape[1] and size.height <= array.shape[0]
    interpolation = cv2.INTER_AREA if shrinking else cv2.INTER_LANCZOS4
    return cv2.resize(array, tuple(size), interpolation=interpolation)


def align_image(plan: AlignPlan, image: np.ndarray) -> np.ndarray:
    """Applies the plan to a picture (HxWx3 uint8) of the plan's source size."""
    _check_size(plan.source_size, image, "picture")
    if plan.mode == "pad":
        left, top, right, bottom = plan.pad
        if not any(plan.pad):
            return image.copy()
        return cv2.copyMakeBorder(image, top, bottom, left, right, cv2.BORDER_REPLICATE)
    if plan.mode == "crop":
        return image[plan.kept.slices()].copy()
    return _resize(image, plan.aligned_size)


def align_mask(plan: AlignPlan, mask: np.ndarray) -> np.ndarray:
    """Applies the plan to a binary uint8 mask; the result is binary (0/255) again.

    Padding replicates the edge like the picture, so a mask touching the border keeps covering
    the padding next to it. Scaling down keeps any pixel that was partly repaint (it is better
    to repaint a hair more than to lose a thin stroke); scaling up is nearest-neighbour.
    """
    _check_size(plan.source_size, mask, "mask")
    if plan.mode == "pad":
        left, top, right, bottom = plan.pad
        if not any(plan.pad):
            return mask.copy()
        return cv2.copyMakeBorder(mask, top, bottom, left, right, cv2.BORDER_REPLICATE)
    if plan.mode == "crop":
        return mask[plan.kept.slices()].copy()
    if Size.of(mask) == plan.aligned_size:
        return mask.copy()
    shrinking = (
        plan.aligned_size.width <= mask.shape[1] and plan.aligned_size.height <= mask.shape[0]
    )
    if shrinking:
        scaled = cv2.resize(mask, tuple(plan.aligned_size), interpolation=cv2.INTER_AREA)
        return np.where(scaled > 0, np.uint8(255), np.uint8(0))
    scaled = cv2.resize(mask, tuple(plan.aligned_size), interpolation=cv2.INTER_NEAREST)
    return np.where(scaled >= BINARY_THRESHOLD, np.uint8(255), np.uint8(0))


def unalign_image(plan: AlignPlan, aligned: np.ndarray) -> tuple[np.ndarray, Rect]:
    """Undoes the plan on a picture of the aligned size.

    Returns the pixels and where they belong in the source frame: the whole source for pad and
    scale, the cropped rectangle for crop. Pad is undone exactly (a pure slice).
    """
    _check_size(plan.aligned_size, aligned, "generated picture")
    if plan.mode == "pad":
        left, top, _, _ = plan.pad
        width, height = plan.source_size
        return aligned[top : top + height, left : left + width], Rect(0, 0, width, height)
    if plan.mode == "crop":
        return aligned, plan.kept
    return _resize(aligned, plan.source_size), plan.kept


def _check_size(expected: Size, array: np.ndarray, what: str) -> None:
    if Size.of(array) != expected:
        raise ValueError(f"the {what} is {Size.of(array)}, the alignment plan expects {expected}")
