"""CLI commands over imaging: `prepare` and `composite` (parsers in app/cli/parser.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from app.core.program import typed
from app.imaging.geometry import Size
from app.imaging.io import load_image, load_mask, save_png_atomic
from app.imaging.prepare import (
    INPUT_FILE,
    MASK_FILE,
    PrepareOptions,
    PrepareRecord,
    export_prepared,
    load_prepared,
    prepare,
    soft_compositor,
)


def _describe_alignment(record: PrepareRecord) -> str:
    plan = record.align
    if plan.mode == "pad":
        left, top, right, bottom = plan.pad
        if not any(plan.pad):
            return "already a multiple of 16 px"
        return (
            f"padded from {plan.source_size} (left {left}, top {top}, right {right}, "
            f"bottom {bottom} px)"
        )
    if plan.mode == "crop":
        if plan.kept.size == plan.source_size:
            return "already a multiple of 16 px"
        return f"cropped from {plan.source_size} to {plan.kept}"
    return f"scaled from {plan.source_size}"


def cmd_prepare(args: argparse.Namespace) -> int:
    image = load_image(args.image)
    mask = load_mask(args.mask, Size.of(image))
    options = PrepareOptions(
        align=args.align,
        fill=args.fill,
        only_masked=args.only_masked,
        padding_px=args.padding,
        feather_px=args.feather,
        # The prepare parser may not offer --masked-target: the table's default then.
        masked_target=getattr(args, "masked_target", PrepareOptions.masked_target),
        context=getattr(args, "context", ""),
        expand=getattr(args, "expand", ""),
    )
    prepared = prepare(image, mask, options)
    files = export_prepared(args.out, prepared)
    record = prepared.record
    prepared_mask = prepared.mask if prepared.mask is not None else np.zeros(1, np.uint8)
    share = 100.0 * float(np.count_nonzero(prepared_mask)) / prepared_mask.size
    print(f"prepared {args.image} ({record.original_size} px) into {args.out}")
    if record.expansion is not None:
        print(f"  expanded  from {record.source_size} px by {record.expansion} (L,T,R,B px)")
    if record.only_masked:
        print(f"  region    {record.region} (mask box + {options.padding_px} px padding)")
        if record.scaled is not None:
            factor = record.scaled.width / record.region.width
            print(
                f"  scaled    to {record.scaled} px (×{factor:.2f}, target "
                f"{options.masked_target}² px) for the model, and back when compositing"
            )
    print(
        f"  {INPUT_FILE:<10}{record.input_size} px, {_describe_alignment(record)}, "
        f"fill {record.fill}"
    )
    print(f"  {MASK_FILE:<10}{record.input_size} px, {share:.1f} % to repaint")
    print(f"  files     {', '.join(sorted(files))}")
    print(f"  feather   {record.feather_px} px when compositing")
    for note in prepared.notes:
        print(f"  note: {note}")
    print(
        f"generate at -W {record.input_size.width} -H {record.input_size.height}, then: "
        + typed("composite", "--prepared", args.out, "--result", "RESULT.png", "--out", "OUT.png")
    )
    return 0


def _color_match_said(record: dict) -> str:
    """What colour match did (app/imaging/drift.Drift.as_record), in one line."""
    if record.get("reason") is not None:
        values = ", ".join(f"{k} {v}" for k, v in record.get("values", {}).items())
        return f"declined ({record['reason']}{': ' + values if values else ''})"
    light, a, b = record["offset_lab"]
    return (
        f"took out L {light:+.1f} a {a:+.1f} b {b:+.1f} (gain {record['gain']}, confidence "
        f"{record['confidence']:.2f}, texture slope {record['slope']:.2f} ± "
        f"{record['slope_se']:.2f}, from the {record['source']} ring)"
    )


def cmd_composite(args: argparse.Namespace) -> int:
    loaded = load_prepared(args.prepared)
    record = loaded.record
    result = load_image(args.result)
    blend = PrepareOptions(
        color_match=args.color_match,
        color_match_strength=args.color_match_strength,
        seam_blend=args.seam_blend,
    )
    blend.check()
    compositor = soft_compositor(loaded, blend=blend.blend)
    composited = compositor.composite(result)
    save_png_atomic(Path(args.out), composited)
    print(
        f"composited {args.result} ({Size.of(result)} px) into the original "
        f"({record.original_size} px) at {record.region}, feather {record.feather_px} px"
    )
    strength = f" ×{args.color_match_strength:g}" if args.color_match == "on" else ""
    print(f"  colour match {args.color_match}{strength}, seam blend {args.seam_blend}")
    said = compositor.color_match_record()
    if said is not None:
        print(f"  colour match: {_color_match_said(said)}")
    for note in compositor.notes:
        print(f"  note: {note}")
    print(f"  wrote {args.out}")
    return 0
