"""Preparing a picture and mask for the engine, and mapping the generated result back.

prepare() aligns to 16 px, optionally crops to the masked region ('only masked', scaled to the
target size) and pre-fills the area to repaint; composite_prepared() undoes all of that on the
engine's output, and soft_compositor() does the same for every step preview of a run (built
once, cheap per picture). plan_model_input() says the model's input size without touching a
pixel (what a panel shows). The record of what was done is prepare_record.py; the folder on
disk is prepared_folder.py (its names are re-exported here, so callers need only this module).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from app.core.errors import InputError
from app.imaging.align import AlignPlan, align_image, align_mask, plan_alignment
from app.imaging.color_match import BlendOptions
from app.imaging.composite import SoftCompositor
from app.imaging.fill import fill_masked
from app.imaging.frame import (
    Expansion,
    check_frame,
    expand_picture,
    expansion_box,
    parse_context,
    parse_expand,
)
from app.imaging.geometry import Rect, Size
from app.imaging.io import MaskSizeError, load_image, load_mask
from app.imaging.mask_ops import binarise, bounding_box
from app.imaging.prepare_record import (
    Prepared,
    PrepareOptions,
    PrepareRecord,
    mask_as_uint8,
    pixel_sha256,
)
from app.imaging.prepared_folder import (
    INPUT_FILE,
    MASK_FILE,
    ORIGINAL_FILE,
    RECORD_FILE,
    SOFT_MASK_FILE,
    PreparedFolder,
    export_prepared,
    load_prepared,
)
from app.imaging.region import masked_region, scaled_region_size

__all__ = [
    "INPUT_FILE",
    "MASK_FILE",
    "ORIGINAL_FILE",
    "RECORD_FILE",
    "SOFT_MASK_FILE",
    "BlendOptions",
    "PrepareOptions",
    "PrepareRecord",
    "Prepared",
    "PreparedFolder",
    "SoftCompositor",
    "composite_prepared",
    "export_prepared",
    "load_prepared",
    "pixel_sha256",
    "plan_model_input",
    "prepare",
    "soft_compositor",
]

MaxSize = Size | tuple[int, int] | None
_EMPTY_MASK = "The mask is empty: paint the area to repaint."
_EMPTY_MASK_FIX = "White (or at least 50 % grey) marks what to regenerate."


def prepare(
    image: np.ndarray,
    mask: np.ndarray | None,
    options: PrepareOptions,
    max_size: MaxSize = None,
) -> Prepared:
    """Expands the canvas if asked, aligns, crops to the masked region if asked, and
    pre-fills the repaint area.

    image: HxWx3 uint8 RGB. mask: HxW uint8 (0..255) or float32 (0..1), ≥ 50 % = repaint; a
    different size raises MaskSizeError, an empty one InputError. mask=None is for callers
    without a mask (txt2img, whole-picture img2img): only alignment happens (and, with an
    expansion, the new area is the mask). With only_masked and a masked_target, the region
    is scaled to about masked_target² px, no side above max_size (the job's width × height;
    None: no cap). With `options.expand` the picture and mask are expanded first (frame.py):
    the record's original is then the expanded picture, and so is the composite. The arrays
    are not copied; the record's pixel hashes catch a caller that changes them afterwards.
    """
    options.check()
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(f"prepare wants HxWx3 uint8, got {image.dtype} {image.shape}")
    size = Size.of(image)
    if mask is not None and (mask.ndim != 2 or Size.of(mask) != size):
        raise MaskSizeError(Size(mask.shape[1], mask.shape[0]), size)
    check_frame(options.context, options.expand, size)
    expansion = parse_expand(options.expand)
    if mask is None and options.only_masked and expansion is None:
        raise InputError("'Only masked' needs a mask.", fix="Paint the area to repaint.")
    soft = None if mask is None else mask_as_uint8(mask)
    fill_soft = soft  # what the chosen fill covers (the expansion has its own)
    source_hash: str | None = None
    if expansion is not None:
        source_hash = pixel_sha256(image)
        if soft is not None:
            fill_soft = np.zeros(tuple(reversed(expansion.grown(size))), np.uint8)
            fill_soft[expansion.old_area(size).slices()] = soft
        image, soft = expand_picture(image, soft, expansion)
    context = _shifted_context(options, expansion)
    # Hashing a big picture takes as long as the rest of prepare; sha256 releases the GIL, so
    # it runs beside the pixel work.
    with ThreadPoolExecutor(max_workers=1) as pool:
        image_hash = pool.submit(pixel_sha256, image)
        mask_hash = pool.submit(pixel_sha256, soft) if soft is not None else None
        image_out, mask_out, region, scaled, plan, notes = _prepare_pixels(
            image, soft, options, max_size, context, fill_soft
        )
        record = PrepareRecord(
            original_size=Size.of(image),
            region=region,
            align=plan,
            fill=options.fill if soft is not None else "none",
            feather_px=options.feather_px,
            only_masked=options.only_masked,
            padding_px=options.padding_px,
            image_sha256=image_hash.result(),
            mask_sha256=mask_hash.result() if mask_hash is not None else None,
            scaled=scaled,
            expansion=expansion,
            source_size=size if expansion is not None else None,
            source_sha256=source_hash,
        )
    return Prepared(image_out, mask_out, record, options, image, soft, notes)


def _shifted_context(options: PrepareOptions, expansion: Expansion | None) -> Rect | None:
    """The context rectangle in the (expanded) picture's frame; given in the photo's."""
    rect = parse_context(options.context)
    if rect is None or expansion is None:
        return rect
    return Rect(rect.x + expansion.left, rect.y + expansion.top, rect.width, rect.height)


def plan_model_input(
    image_size: Size | tuple[int, int],
    mask_box: Rect | None,
    options: PrepareOptions,
    max_size: MaxSize = None,
) -> tuple[Rect, Size | None, AlignPlan]:
    """Where the model's input comes from and how big it is, touching no pixel: the region of
    the picture (of the expanded one, with options.expand), the size it is scaled to (None:
    its own) and the alignment plan, whose aligned_size is the model's input size. image_size
    and mask_box (the binary mask's bounding box; None: no mask, or an empty one) are the
    photo's, before any expansion. Raises InputError for a context or expansion that cannot
    be read."""
    size = Size(int(image_size[0]), int(image_size[1]))
    expansion = parse_expand(options.expand)
    if expansion is not None:
        old = expansion.old_area(size)
        grown_box = expansion_box(size, expansion)
        if mask_box is not None:
            grown_box = grown_box.union(
                Rect(mask_box.x + old.x, mask_box.y + old.y, mask_box.width, mask_box.height)
            )
        size, mask_box = expansion.grown(size), grown_box
    return _plan(size, mask_box, options, max_size, _shifted_context(options, expansion))


def _plan(
    size: Size,
    mask_box: Rect | None,
    options: PrepareOptions,
    max_size: MaxSize,
    context: Rect | None,
) -> tuple[Rect, Size | None, AlignPlan]:
    region, scaled = Rect(0, 0, *size), None
    if options.only_masked and mask_box is not None:
        # The feather must fit inside the region, or it would be cut off with a seam.
        pad = max(options.padding_px, options.feather_px + 1)
        region = masked_region(mask_box, size, pad, context=context)
        scaled = scaled_region_size(region.size, options.masked_target, max_size)
    return region, scaled, plan_alignment(scaled or region.size, options.align)


def _prepare_pixels(
    image: np.ndarray,
    soft: np.ndarray | None,
    options: PrepareOptions,
    max_size: MaxSize,
    context: Rect | None,
    fill_soft: np.ndarray | None,
) -> tuple[np.ndarray, np.ndarray | None, Rect, Size | None, AlignPlan, list[str]]:
    size = Size.of(image)
    notes: list[str] = []
    if soft is None:
        region, scaled, plan = _plan(size, None, options, None, None)
        return align_image(plan, image), None, region, scaled, plan, notes
    binary = binarise(soft)
    box = bounding_box(binary)
    if box is None:
        raise InputError(_EMPTY_MASK, fix=_EMPTY_MASK_FIX)
    region, scaled, plan = _plan(size, box, options, max_size, context)
    part, binary_region = image[region.slices()], binary[region.slices()]
    fill_region = None
    if fill_soft is not None and fill_soft is not soft:
        fill_region = binarise(fill_soft)[region.slices()]
    if scaled is not None:
        scale = AlignPlan("scale", region.size, scaled)
        part, binary_region = align_image(scale, part), align_mask(scale, binary_region)
        if fill_region is not None:
            fill_region = align_mask(scale, fill_region)
    aligned = align_image(plan, part)
    aligned_mask = align_mask(plan, binary_region)
    if plan.mode == "crop":
        lost = int(np.count_nonzero(binary_region)) - int(np.count_nonzero(aligned_mask))
        if lost > 0:
            notes.append(
                f"cropping to {plan.aligned_size} cut off {lost} masked pixels; "
                "they keep the original (use --align pad to keep them)"
            )
    if fill_soft is None:  # an expansion alone: its area is filled already
        return aligned, aligned_mask, region, scaled, plan, notes
    fill_mask = aligned_mask if fill_region is None else align_mask(plan, fill_region)
    # align_image always returns a new array, so filling it in place is safe.
    filled = fill_masked(aligned, fill_mask, options.fill, in_place=True)
    return filled, aligned_mask, region, scaled, plan, notes


PreparedSource = Prepared | PreparedFolder | PrepareRecord | Path | str


def composite_prepared(
    source: PreparedSource, *arrays: np.ndarray | None, blend: BlendOptions | None = None
) -> np.ndarray:
    """Blends a generated picture (the prepared input's size) back into the original picture.

    Two call forms:
        composite_prepared(source, result)
        composite_prepared(source, original_image, original_mask, result)
    `source` is what `prepare` returned, what `load_prepared` returned, a prepared folder's
    path, or a bare PrepareRecord (which needs the originals passed in). Originals not passed
    come from the Prepared object or the folder (original.png, mask_soft.png); originals
    passed in must be the ones that were prepared (their pixel hashes are checked). Unmasked
    pixels come back bit-identical; a result of the wrong size raises InputError. `blend`
    (colour match, seam blend; the job's choice is `PrepareOptions.blend`): None blends the
    generated pixels as they are.
    """
    if len(arrays) == 1:
        original_image, original_mask, result = None, None, arrays[0]
    elif len(arrays) == 3:
        original_image, original_mask, result = arrays
    else:
        raise TypeError("composite_prepared(source, result) or (source, image, mask, result)")
    if result is None:
        raise TypeError("composite_prepared needs the generated picture")
    return soft_compositor(source, original_image, original_mask, blend).composite(result)


def soft_compositor(
    source: PreparedSource,
    original_image: np.ndarray | None = None,
    original_mask: np.ndarray | None = None,
    blend: BlendOptions | None = None,
) -> SoftCompositor:
    """The compositor of a prepared input: `.patch(picture, any_size=True)` maps a step
    preview (or `.composite(result)` the decoded result) into the photo through the soft
    mask, exactly as the final composite does. Build it once per run (it reads and checks the
    originals, and computes the feathered weights) and call it for every step; see
    composite.SoftCompositor. `source` and the originals are as for composite_prepared;
    blend None leaves the generated pixels as they are (no colour match)."""
    folder: Path | None = None
    if isinstance(source, Prepared):
        record = source.record
        if original_image is None:
            original_image, original_mask = source.original_image, source.original_mask
    elif isinstance(source, PrepareRecord):
        record = source
    else:
        loaded = source if isinstance(source, PreparedFolder) else load_prepared(source)
        record, folder = loaded.record, loaded.folder
    if original_image is None:
        if folder is None:
            raise TypeError("a bare record needs the original picture")
        original_image = load_image(folder / ORIGINAL_FILE)
    if original_mask is None and record.mask_sha256 is not None:
        if folder is None:
            raise TypeError("a bare record needs the original mask")
        original_mask = load_mask(folder / SOFT_MASK_FILE, record.original_size)
    if pixel_sha256(original_image) != record.image_sha256:
        raise InputError(
            "This is not the picture that was prepared.",
            fix="Use the original picture, or prepare this one again.",
        )
    binary = None
    if record.mask_sha256 is not None and original_mask is not None:
        soft = mask_as_uint8(original_mask)
        if pixel_sha256(soft) != record.mask_sha256:
            raise InputError(
                "This is not the mask that was prepared.",
                fix="Use the original mask, or prepare again with this one.",
            )
        binary = binarise(soft)
    return SoftCompositor(
        original_image,
        binary,
        record.align,
        record.region,
        record.feather_px,
        record.scale_plan,
        blend,
    )
