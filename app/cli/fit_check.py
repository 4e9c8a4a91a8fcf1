"""`run` refuses a job its memory plan says cannot fit (issue 30), with the plan's verdict and
what would fit; `--force` runs it anyway. The verdict is pipeline/plans.py's, the plan the
engine's own (`sd-stage --plan` per stage, fitted), with the largest size that fits without
slow settings searched as the window's plan does (issue 41: a 12 MP photo the window refused
ran at full size from the command line); a plan that cannot be made (no engine, a model file
the run will name) is said in one line and the run goes on to say what is wrong itself."""

from __future__ import annotations

import logging
import sys

from app.core.errors import StepwiseError
from app.pipeline.api import PipelineAPI
from app.pipeline.job.spec import JobSpec
from app.pipeline.plans import MAX_SEARCH_SIDE, Unfit, unfit_of

log = logging.getLogger(__name__)
GB = 1024**3


def _gb(value: int | None) -> str:
    return "? GB" if value is None else f"{value / GB:.1f} GB"


def unfit_text(unfit: Unfit, picture: bool = False) -> str:
    """The refusal in English: the verdict, then the offers (`picture`: the size is the
    photo's, so only the masked area is the smaller size)."""
    if unfit.slow:
        largest = ""
        if unfit.largest is not None and unfit.largest != (0, 0):
            largest = f"; the largest size that does is {unfit.largest[0]}×{unfit.largest[1]}"
        head = (
            f"{unfit.stage} at {unfit.width}×{unfit.height} is larger than what {unfit.device} "
            f"runs without slow settings (weights partly in RAM, many times slower){largest}."
        )
    else:
        head = (
            f"{unfit.stage} at {unfit.width}×{unfit.height} needs {_gb(unfit.needed_bytes)} on "
            f"{unfit.device}, which has {_gb(unfit.available_bytes)}, even with every memory "
            "saver."
        )
    target = unfit.masked_target()
    masked = f" --masked-target {target}" if target is not None else " with a --masked-target"
    offers = [f"--only-masked{masked} (only the masked area)"]
    if picture:
        pass  # the photo sets the size: only the masked area is smaller
    elif unfit.largest is not None and unfit.largest != (0, 0):
        offers.append(f"a smaller size: -W {unfit.largest[0]} -H {unfit.largest[1]}")
    else:
        offers.append("a smaller -W / -H")
    offers.append("--force (run it anyway)")
    return f"The memory plan says this job does not fit: {head}\nTry: " + "; ".join(offers)


def refusal(pipeline: PipelineAPI, spec: JobSpec) -> str | None:
    """The refusal's text, or None when the plan says it fits or no plan can be made."""
    try:
        devices = pipeline.devices()
        plan = pipeline.plan(spec, None, devices, search=False)
        if unfit_of(plan) is None and max(plan.width, plan.height) > MAX_SEARCH_SIDE:
            # Larger than the window's plan ever searches: its verdict (too large to run
            # without slow settings) needs the largest size that does; the stage plans above
            # are reused (job_plan.cached_plan).
            plan = pipeline.plan(spec, None, devices, search=True)
    except (StepwiseError, OSError, ValueError) as exc:
        log.info("no memory plan before the run: %s", exc)
        print(f"note: no memory plan could be made before the run ({exc})", file=sys.stderr)
        return None
    unfit = unfit_of(plan)
    return None if unfit is None else unfit_text(unfit, picture=spec.image is not None)
