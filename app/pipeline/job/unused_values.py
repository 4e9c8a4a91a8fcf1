"""Values a job would silently ignore, refused before anything runs (issue 29, defect 11):
the context area and the source reference need a picture, the context area needs "only the
masked area". (A preset's `[slot]` left in the prompt is preflight.check_prompt_slots'.) Run by
preflight.check_job: `run`, `queue add` and the GUI alike."""

from __future__ import annotations

from app.core.errors import InputError
from app.imaging.prepare_record import PrepareOptions
from app.pipeline.job import params as P
from app.pipeline.job.naming import named
from app.pipeline.job.spec import JobSpec

NEEDS_PICTURE_MESSAGE = "{name} needs a picture to work on; the job has none."
NEEDS_PICTURE_FIX = "Open or pass an image (-i/--init-img), or leave {flag} out."
NEEDS_ONLY_MASKED_MESSAGE = "{name} is used only with only-masked (--only-masked)."
NEEDS_ONLY_MASKED_FIX = "Turn on --only-masked, or leave {flag} out."


def check_unused_values(spec: JobSpec) -> None:
    """InputError for a value the job would ignore (module docstring)."""
    options = spec.prepare if spec.prepare is not None else PrepareOptions()
    context = options.context.strip()
    if spec.image is None:
        for p, given in ((P.CONTEXT, bool(context)), (P.SOURCE_REF, spec.source_ref is True)):
            if given:
                raise InputError(NEEDS_PICTURE_MESSAGE, fix=NEEDS_PICTURE_FIX, values=named(p))
    if context and not options.only_masked:
        raise InputError(
            NEEDS_ONLY_MASKED_MESSAGE, fix=NEEDS_ONLY_MASKED_FIX, values=named(P.CONTEXT)
        )
