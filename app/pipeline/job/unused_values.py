"""Values a job would silently ignore, refused before anything runs (issue 29, defect 11):
the context area and the source reference need a picture, the context area needs "only the
masked area", and a prompt may not still hold a preset's `[slot]` (the text encoder would read
"[describe the object]" literally). Run by preflight.check_job: `run`, `queue add` and the GUI
alike."""

from __future__ import annotations

from app.core.errors import InputError
from app.imaging.prepare_record import PrepareOptions
from app.pipeline.job import params as P
from app.pipeline.job.presets import PRESETS, SLOT
from app.pipeline.job.spec import JobSpec

NEEDS_PICTURE_MESSAGE = "{name} needs a picture to work on; the job has none."
NEEDS_PICTURE_FIX = "Open or pass an image (-i/--init-img), or leave {flag} out."
NEEDS_ONLY_MASKED_MESSAGE = "{name} is used only with only-masked (--only-masked)."
NEEDS_ONLY_MASKED_FIX = "Turn on --only-masked, or leave {flag} out."
SLOT_LEFT_MESSAGE = "The prompt still holds the preset's placeholder {slot}."
SLOT_LEFT_FIX = "Replace {slot} with your own words."

# The placeholders of the presets' templates: "[describe the object]", …
PRESET_SLOTS: tuple[str, ...] = tuple(
    found.group(0) for p in PRESETS for found in SLOT.finditer(p.prompt)
)


def _named(p: P.Param) -> dict[str, str]:
    flag = p.flags[0] if p.flags else p.name
    return {"name": f"{p.name} ({flag})", "param": p.name, "flag": flag}


def check_unused_values(spec: JobSpec) -> None:
    """InputError for a value the job would ignore (module docstring)."""
    options = spec.prepare if spec.prepare is not None else PrepareOptions()
    context = options.context.strip()
    if spec.image is None:
        for p, given in ((P.CONTEXT, bool(context)), (P.SOURCE_REF, spec.source_ref is True)):
            if given:
                raise InputError(NEEDS_PICTURE_MESSAGE, fix=NEEDS_PICTURE_FIX, values=_named(p))
    if context and not options.only_masked:
        raise InputError(
            NEEDS_ONLY_MASKED_MESSAGE, fix=NEEDS_ONLY_MASKED_FIX, values=_named(P.CONTEXT)
        )
    for slot in PRESET_SLOTS:
        if isinstance(spec.prompt, str) and slot in spec.prompt:
            raise InputError(SLOT_LEFT_MESSAGE, fix=SLOT_LEFT_FIX, values={"slot": slot})
