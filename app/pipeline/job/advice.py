"""Klein advice in one place: settings that waste time or do nothing with FLUX.2 [klein].

Notes are codes with parameters (failures.Note); the CLI (app/cli/texts.py) and the UI
(app/ui/words/texts.py) own the words. The samplers that resume bit-exactly come from the engine
(`Pipeline.catalog().resumable`, from `sd-stage --list-samplers`), so they are a parameter.
"""

from __future__ import annotations

from app.pipeline.failures import Note, NoteCode
from app.pipeline.job.params import ALIGN_PX, KLEIN_SCHEDULER, KLEIN_STEPS
from app.pipeline.job.preflight import expands, mask_is_empty
from app.pipeline.job.spec import JobSpec, effective_steps

# More steps than this gain nothing for a model distilled for KLEIN_STEPS.
MANY_STEPS = 2 * KLEIN_STEPS


def job_notes(
    spec: JobSpec, resumable: frozenset[str], *, mask_empty: bool | None = None
) -> list[Note]:
    """Advice for `spec`, in a stable order; `resumable`: the samplers the engine resumes.

    `mask_empty`: the painter's mask has nothing to repaint (the GUI knows it from its
    document); None reads spec.mask's file. An inpainting job with an empty mask would repaint
    nothing, or without a mask the whole picture: NoteCode.EMPTY_MASK says so, first."""
    notes: list[Note] = []
    if mask_empty is None:
        mask_empty = spec.mask is not None and mask_is_empty(spec.mask)
    outpaint = expands(spec)  # the expansion is masked by itself
    if spec.image is not None and mask_empty and not outpaint:
        notes.append(Note(NoteCode.EMPTY_MASK))
    if spec.guided:
        notes.append(Note(NoteCode.CFG_NOT_ONE, {"cfg": spec.cfg_scale}))
    elif spec.negative_prompt.strip():
        notes.append(Note(NoteCode.NEGATIVE_UNUSED))
    if spec.scheduler != KLEIN_SCHEDULER:
        notes.append(Note(NoteCode.SCHEDULER_NOT_SIMPLE, {"scheduler": spec.scheduler}))
    if spec.steps > MANY_STEPS:
        notes.append(Note(NoteCode.MANY_STEPS, {"steps": spec.steps}))
    if spec.sampler not in resumable:
        notes.append(Note(NoteCode.SAMPLER_NOT_RESUMABLE, {"sampler": spec.sampler}))
    if spec.is_txt2img and (spec.width % ALIGN_PX or spec.height % ALIGN_PX):
        notes.append(
            Note(
                NoteCode.SIZE_NOT_ALIGNED,
                {"width": spec.width, "height": spec.height, "align": ALIGN_PX},
            )
        )
    if (
        spec.image is not None
        and spec.mask is None
        and spec.strength >= 1.0
        and not mask_empty
        and not outpaint
    ):
        notes.append(Note(NoteCode.STRENGTH_NO_MASK))
    if spec.image is not None and spec.strength < 1.0:
        notes.append(
            Note(
                NoteCode.STRENGTH_STEPS,
                {"strength": spec.strength, "run": effective_steps(spec), "steps": spec.steps},
            )
        )
    return notes
