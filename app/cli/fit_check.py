"""`run` refuses a job its memory plan says cannot fit (issue 30), with the plan's verdict and
what would fit; `--force` runs it anyway. The verdict is pipeline/fit_guard's, the plan the
engine's own (`sd-stage --plan` per stage, fitted); a plan that cannot be made (no engine, a
model file the run will name) lets the run go on and say so itself."""

from __future__ import annotations

import logging
from pathlib import Path

from app.core.errors import StepwiseError
from app.pipeline import Unfit, plan_for_files, unfit_of
from app.pipeline.api import PipelineAPI
from app.pipeline.job.spec import JobSpec

log = logging.getLogger(__name__)
GB = 1024**3


def _gb(value: int | None) -> str:
    return "? GB" if value is None else f"{value / GB:.1f} GB"


def unfit_text(unfit: Unfit) -> str:
    """The refusal in English: the verdict, then the offers."""
    if unfit.slow:
        head = (
            f"{unfit.stage} at {unfit.width}×{unfit.height} fits {unfit.device} only with slow "
            "settings (weights partly in RAM, many times slower)."
        )
    else:
        head = (
            f"{unfit.stage} at {unfit.width}×{unfit.height} needs {_gb(unfit.needed_bytes)} on "
            f"{unfit.device}, which has {_gb(unfit.available_bytes)}, even with every memory "
            "saver."
        )
    offers = ["--only-masked with a --masked-target (only the masked area)"]
    if unfit.largest is not None and unfit.largest != (0, 0):
        offers.append(f"a smaller size: -W {unfit.largest[0]} -H {unfit.largest[1]}")
    else:
        offers.append("a smaller -W / -H")
    offers.append("--force (run it anyway)")
    return f"The memory plan says this job does not fit: {head}\nTry: " + "; ".join(offers)


def refusal(pipeline: PipelineAPI, spec: JobSpec, engine: Path) -> str | None:
    """The refusal's text, or None when the plan says it fits or no plan can be made."""
    try:
        plan = plan_for_files(engine, spec, pipeline.devices())
    except (StepwiseError, OSError, ValueError) as exc:
        log.info("no memory plan before the run: %s", exc)
        return None
    unfit = unfit_of(plan)
    return None if unfit is None else unfit_text(unfit)
