"""What `prepare` was asked to do and what it did: options, the record kept as prepare.json,
and the in-memory result."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import cv2
import numpy as np

from app.core.errors import InputError
from app.imaging.align import ALIGN_MODES, ALIGN_PX, AlignMode, AlignPlan, plan_alignment
from app.imaging.color_match import (
    COLOR_MATCH_MODES,
    SEAM_BLENDS,
    BlendOptions,
    ColorMatchMode,
    SeamBlend,
)
from app.imaging.fill import FILL_MODES, FillMode
from app.imaging.frame import Expansion, parse_context, parse_expand
from app.imaging.geometry import Rect, Size

FORMAT = 1
KIND = "stepwise-prepare"
MAX_PADDING_PX = 4096
MAX_FEATHER_PX = 256
MAX_MASKED_TARGET = 4096
_OUT_OF_RANGE = {
    "padding": "Padding {value} px is out of range.",
    "feather": "Feather {value} px is out of range.",
    "masked_target": "The target size {value} px for the masked area is out of range.",
}
_USE_RANGE = "Use 0 to {max} px."


@dataclass(frozen=True)
class PrepareOptions:
    """How to prepare: alignment, fill, 'only masked' region with padding; and how to put the
    result back: the feather, colour match and seam blend (composite-only: they are not part
    of the prepare record or its key, see `blend`)."""

    align: AlignMode = "pad"
    fill: FillMode = "grey"
    only_masked: bool = False
    padding_px: int = 64
    feather_px: int = 8
    # With only_masked: the region is scaled so its area is about masked_target² px (aligned to
    # 16, never above the job's maximum size) and scaled back; 0 keeps the region's own size.
    masked_target: int = 1024
    # With only_masked: a rectangle "X,Y,W,H" of the photo the model sees as well as the mask's
    # box (the region is their union); "": the mask's box alone (frame.py).
    context: str = ""
    # Outpainting: "L,T,R,B" px added on each side, the new area masked and generated; "": none.
    expand: str = ""
    # Composite only (color_match.py). On by default: issue 32's rule is "on only where it
    # holds on every bench case", and bench/color_cases.py shows the witness-validated match
    # holding (issue 40; ARCHITECTURE.md, "Defaults that follow a bench"). This is the one
    # owner of the default (params.py reads it).
    color_match: ColorMatchMode = "on"
    color_match_strength: float = 1.0
    seam_blend: SeamBlend = "off"

    @property
    def blend(self) -> BlendOptions:
        """What the composite does to the generated picture before the soft blend."""
        return BlendOptions(self.color_match, float(self.color_match_strength), self.seam_blend)

    def check(self) -> None:
        """Raises InputError for a value a user could have typed wrong."""
        if self.align not in ALIGN_MODES:
            raise InputError(
                "Unknown alignment {value}.",
                fix="Use pad, crop or scale.",
                values={"value": repr(self.align)},
            )
        if self.fill not in FILL_MODES:
            raise InputError(
                "Unknown fill {value}.",
                fix="Use grey, blur, none, telea, ns or border.",
                values={"value": repr(self.fill)},
            )
        if self.color_match not in COLOR_MATCH_MODES or self.seam_blend not in SEAM_BLENDS:
            raise InputError(
                "Unknown colour match {value}.",
                fix="Colour match: off or on; seam blend: off or poisson.",
                values={"value": repr(f"{self.color_match}/{self.seam_blend}")},
            )
        if not 0.0 <= float(self.color_match_strength) <= 1.0:
            raise InputError(
                "Colour match strength {value} is out of range.",
                fix="Use 0 to 1.",
                values={"value": self.color_match_strength},
            )
        for what, value, limit in (
            ("padding", self.padding_px, MAX_PADDING_PX),
            ("feather", self.feather_px, MAX_FEATHER_PX),
            ("masked_target", self.masked_target, MAX_MASKED_TARGET),
        ):
            if not 0 <= value <= limit:
                raise InputError(
                    _OUT_OF_RANGE[what], fix=_USE_RANGE, values={"value": value, "max": limit}
                )
        parse_context(self.context)
        parse_expand(self.expand)


@dataclass(frozen=True)
class PrepareRecord:
    """Everything needed to map a generated picture back onto the original (prepare.json)."""

    original_size: Size
    region: Rect  # in the original picture; all of it unless only_masked
    align: AlignPlan  # applied to the region
    fill: FillMode
    feather_px: int
    only_masked: bool
    padding_px: int
    image_sha256: str
    mask_sha256: str | None  # None: no mask, the whole picture is repainted
    # 'Only masked' with a target size: the region is resized to this (sides multiples of 16)
    # before alignment, and back before compositing. None: generated at the region's own size
    # (and every record written before the target size existed).
    scaled: Size | None = None
    # Outpainting: the picture was expanded by this before anything else; original_size and
    # image_sha256 are then the expanded picture's, source_* the photo's as given. None: not
    # expanded (and every record written before outpainting existed).
    expansion: Expansion | None = None
    source_size: Size | None = None
    source_sha256: str | None = None

    @property
    def photo_sha256(self) -> str:
        """The pixel hash of the photo the user gave (before any expansion)."""
        return self.source_sha256 or self.image_sha256

    @property
    def input_size(self) -> Size:
        return self.align.aligned_size

    @property
    def generated_size(self) -> Size:
        """The region's size as the model sees it, before alignment (its own when unscaled)."""
        return self.scaled or self.region.size

    @property
    def scale_plan(self) -> AlignPlan | None:
        """The region ↔ generated-size resize as an alignment plan (None: not scaled)."""
        if self.scaled is None:
            return None
        return AlignPlan("scale", self.region.size, self.scaled)

    def to_json(self) -> dict:
        return {
            "format": FORMAT,
            "kind": KIND,
            "original": {
                "width": self.original_size.width,
                "height": self.original_size.height,
                "image_sha256": self.image_sha256,
                "mask_sha256": self.mask_sha256,
            },
            "region": list(self.region),
            "align": self.align.to_json(),
            "input": {"width": self.input_size.width, "height": self.input_size.height},
            "fill": self.fill,
            "feather_px": self.feather_px,
            "only_masked": self.only_masked,
            "padding_px": self.padding_px,
            "scale": None
            if self.scaled is None
            else {
                "width": self.scaled.width,
                "height": self.scaled.height,
                "factor": round(self.scaled.width / self.region.width, 6),
            },
            "expand": None
            if self.expansion is None or self.source_size is None
            else {
                "left": self.expansion.left,
                "top": self.expansion.top,
                "right": self.expansion.right,
                "bottom": self.expansion.bottom,
                "source_width": self.source_size.width,
                "source_height": self.source_size.height,
                "source_sha256": self.source_sha256,
            },
        }

    @classmethod
    def from_json(cls, data: dict) -> PrepareRecord:
        """Parses and cross-checks; raises ValueError/KeyError/TypeError when inconsistent."""
        original = data["original"]
        record = cls(
            original_size=Size(int(original["width"]), int(original["height"])),
            region=Rect(*(int(v) for v in data["region"])),
            align=AlignPlan.from_json(data["align"]),
            fill=data["fill"],
            feather_px=int(data["feather_px"]),
            only_masked=bool(data["only_masked"]),
            padding_px=int(data["padding_px"]),
            image_sha256=str(original["image_sha256"]),
            mask_sha256=None if original["mask_sha256"] is None else str(original["mask_sha256"]),
            scaled=_scaled_from_json(data.get("scale")),
            **_expand_from_json(data.get("expand")),
        )
        if record.expansion is not None and (
            record.source_size is None
            or record.expansion.grown(record.source_size) != record.original_size
        ):
            raise ValueError("the expansion does not match the picture's size")
        if not 0 <= record.feather_px <= MAX_FEATHER_PX:  # a forged record (issue 29, 12)
            raise ValueError(f"the feather {record.feather_px} is out of range")
        whole = Rect(0, 0, *record.original_size)
        if record.region.is_empty() or record.region.intersect(whole) != record.region:
            raise ValueError("the region lies outside the picture")
        if record.scaled is not None and (
            min(record.scaled) < 1
            or record.scaled.width % ALIGN_PX
            or record.scaled.height % ALIGN_PX
        ):
            raise ValueError("the scaled size is not a multiple of 16 px")
        if record.align.source_size != record.generated_size:
            raise ValueError("the alignment does not match the region")
        if record.fill not in FILL_MODES:
            raise ValueError(f"unknown fill {record.fill!r}")
        if (
            record.align.aligned_size
            != plan_alignment(record.generated_size, record.align.mode).aligned_size
        ):
            raise ValueError("the aligned size does not follow from the region")
        return record


def _scaled_from_json(data: object) -> Size | None:
    if data is None:  # not scaled, or a record from before the target size
        return None
    if not isinstance(data, dict):
        raise ValueError("the scale is not an object")
    return Size(int(data["width"]), int(data["height"]))


def _expand_from_json(data: object) -> dict:
    if data is None:  # not expanded, or a record from before outpainting
        return {}
    if not isinstance(data, dict):
        raise ValueError("the expansion is not an object")
    expansion = Expansion(*(int(data[k]) for k in ("left", "top", "right", "bottom")))
    if min(expansion) < 0:
        raise ValueError("the expansion has a negative side")
    digest = data.get("source_sha256")
    return {
        "expansion": expansion,
        "source_size": Size(int(data["source_width"]), int(data["source_height"])),
        "source_sha256": None if digest is None else str(digest),
    }


@dataclass
class Prepared:
    """The engine's input picture and binary mask, plus the originals and the record."""

    image: np.ndarray  # HxWx3 uint8, sides multiples of 16: what input.png holds
    mask: np.ndarray | None  # HxW uint8 0/255, same size (mask.png); None without a mask
    record: PrepareRecord
    options: PrepareOptions
    original_image: np.ndarray
    original_mask: np.ndarray | None  # as given (soft), uint8
    notes: list[str] = field(default_factory=list)  # things the user should know

    @property
    def region(self) -> Rect:
        return self.record.region


def pixel_sha256(array: np.ndarray) -> str:
    """SHA-256 of an array's shape, type and pixels (not of any file encoding)."""
    digest = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    digest.update(np.ascontiguousarray(array).data)
    return digest.hexdigest()


def mask_as_uint8(mask: np.ndarray) -> np.ndarray:
    """A uint8 (0..255) mask from uint8 or float (0..1) input; uint8 comes back as is."""
    if mask.dtype == np.uint8:
        return mask
    mask = mask.astype(np.float32, copy=False)
    # cv2 rounds and saturates ~10× faster than numpy on a 4096² canvas, but mirrors negative
    # values (it takes |x|): clip only in the rare case there are any.
    if cv2.minMaxLoc(mask)[0] < 0.0:
        mask = np.clip(mask, 0.0, 1.0)
    return cv2.convertScaleAbs(mask, alpha=255.0)
