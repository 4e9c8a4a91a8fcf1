"""One line saying what colour match did to a result (the run's record), for the workspace."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import QCoreApplication


def _tr(text: str) -> str:
    return QCoreApplication.translate("Workspace", text)


def color_match_line(record: dict[str, Any] | None) -> str:
    """The record of app/imaging/drift.Drift.as_record as a sentence; "" for none."""
    if not isinstance(record, dict):
        return ""
    found = record.get("values")
    values: dict[str, Any] = found if isinstance(found, dict) else {}
    reason = record.get("reason")
    if reason == "no_witness":
        return _tr(
            "Colour match left the colours alone: the pixels around the mask do not keep the "
            "photo's texture (slope {slope}), so they are new content, not drift."
        ).format(slope=f"{float(values.get('slope', 0.0)):.2f}")
    if reason == "no_ring":
        return _tr("Colour match left the colours alone: no unmasked pixels around the mask.")
    if reason == "tiny_ring":
        return _tr(
            "Colour match left the colours alone: only {n} unmasked pixels around the mask."
        ).format(n=values.get("n", 0))
    if reason is not None:
        return _tr("Colour match left the colours alone.")
    offset = record.get("offset_lab")
    if not (isinstance(offset, list) and len(offset) == 3):
        return ""
    size = math.sqrt(sum(float(v) ** 2 for v in offset))
    if size < 1.0 or not record.get("applied"):
        return _tr("Colour match found no drift to take out.")
    return _tr(
        "Colour match took out a drift of {size} LAB units (L {l}, a {a}, b {b}), confidence "
        "{confidence} %; the pixels around the mask kept the photo's texture (slope {slope})."
    ).format(
        size=f"{size:.1f}", l=f"{float(offset[0]):+.1f}", a=f"{float(offset[1]):+.1f}",
        b=f"{float(offset[2]):+.1f}", confidence=round(100 * float(record.get("confidence", 0))),
        slope=f"{float(record.get('slope', 0.0)):.2f}",
    )  # fmt: skip
