"""Preflight of the context area and the canvas expansion (issue 15): their values read, the
expansion has a picture, and both fit the picture. Re-exported by preflight.py."""

from __future__ import annotations

from pathlib import Path

from app.core.errors import InputError
from app.imaging.frame import check_frame, parse_context, parse_expand
from app.imaging.geometry import Size
from app.imaging.io import load_image
from app.imaging.prepare_record import PrepareOptions
from app.pipeline.job.spec import JobSpec


def check_frame_values(spec: JobSpec) -> None:
    """The context area and the canvas expansion read as four whole numbers each (imaging's
    frame.py says what is wrong); an expansion needs a picture to expand."""
    options = spec.prepare if spec.prepare is not None else PrepareOptions()
    parse_context(options.context)
    if parse_expand(options.expand) is not None and spec.image is None:
        raise InputError(
            "The canvas expansion {value} needs a picture to expand.",
            fix="Open or pass an image (-i/--init-img), or leave --expand out.",
            values={"value": repr(options.expand)},
        )


def expands(spec: JobSpec) -> bool:
    """The job outpaints: it has a picture and a canvas expansion (its new area is masked
    even without a mask); False for a value that cannot be read (check_frame_values says so)."""
    options = spec.prepare if spec.prepare is not None else PrepareOptions()
    try:
        return spec.image is not None and parse_expand(options.expand) is not None
    except InputError:
        return False


def check_frame_fits(spec: JobSpec, image: Path | None = None) -> None:
    """The context area lies inside the job's picture (`image`, default spec.image) and the
    expanded picture is no larger than a job may be (reads the picture only when one of them
    is set)."""
    options = spec.prepare if spec.prepare is not None else PrepareOptions()
    path = image if image is not None else spec.image
    if path is None or not (options.context.strip() or options.expand.strip()):
        return
    check_frame(options.context, options.expand, Size.of(load_image(path)))
