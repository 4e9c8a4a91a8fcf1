"""Whether a job's plan says it cannot fit, and what would (issue 30): the GUI's Run all and
Add to queue and the CLI's `run` stop on it, with the verdict in view and these offers, unless
the user insists (a button; `--force`). The plan is job_plan.JobPlan (the engine's own
`--plan` per stage, fitted by fit.py); nothing here plans again."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from app.engine.stage import Stage
from app.imaging.frame import check_frame
from app.imaging.geometry import Size
from app.imaging.io import load_image, load_mask
from app.imaging.mask_ops import BINARY_THRESHOLD, bounding_box
from app.imaging.prepare import PrepareOptions, plan_model_input
from app.pipeline.api import DeviceInfo
from app.pipeline.execute.fit import Fit
from app.pipeline.execute.job_plan import JobPlan, engine_job_plan
from app.pipeline.job.spec import JobSpec

ALIGN_PX = 16


@dataclass(frozen=True)
class Unfit:
    """The first stage the plan says cannot fit, even with every memory saver (slow False), or
    the picture is larger than what fits without slow settings (slow True: diffuse would keep
    its weights partly in RAM, many times slower), and the offers."""

    fit: Fit
    width: int
    height: int
    largest: tuple[int, int] | None  # the largest size of this aspect ratio that fits; None
    slow: bool = False

    @property
    def stage(self) -> str:
        return self.fit.stage

    @property
    def needed_bytes(self) -> int:
        v = self.fit.verdict
        return 0 if v is None else v.total_bytes

    @property
    def available_bytes(self) -> int | None:
        v = self.fit.verdict
        return None if v is None else v.available_bytes

    @property
    def device(self) -> str:
        v = self.fit.verdict
        return self.fit.settings.device if v is None else v.device

    def masked_target(self) -> int | None:
        """An only-masked target (its side, px, aligned) whose square fits: the area of the
        largest size that fits; None when not even the smallest fits."""
        if self.largest is None or self.largest == (0, 0):
            return None
        side = int(math.isqrt(self.largest[0] * self.largest[1]))
        return max(ALIGN_PX, side // ALIGN_PX * ALIGN_PX)


def unfit_of(plan: JobPlan | None) -> Unfit | None:
    """The plan's first stage that does not fit, else diffuse when the picture is larger than
    what fits without slow settings (None: it fits, or no plan)."""
    if plan is None:
        return None
    for fit in plan.fits.values():
        if not fit.fits:
            return Unfit(fit, plan.width, plan.height, plan.largest)
    diffuse = plan.fits.get(Stage.DIFFUSE)
    slowed = diffuse is not None and any(c.what == "weights_on_cpu" for c in diffuse.changes)
    if diffuse is not None and (plan.too_large or slowed):
        return Unfit(diffuse, plan.width, plan.height, plan.largest, slow=True)
    return None


def plan_for_files(
    engine: Path, spec: JobSpec, devices: Sequence[DeviceInfo], *, search: bool = False
) -> JobPlan:
    """The plan of a job whose picture and mask are files (the CLI's `run`): at the size the
    model gets — the picture's, through the job's prepare options (expansion, context,
    alignment, only masked) — with the engine's `--plan`; `search`: also the largest size that
    fits without slow settings (many more plans)."""
    width, height = spec.width, spec.height
    if spec.image is not None:
        picture = load_image(Path(spec.image))
        box = None
        if spec.mask is not None:
            box = bounding_box(load_mask(Path(spec.mask), Size.of(picture)) >= BINARY_THRESHOLD)
        options = spec.prepare or PrepareOptions()
        # A bad --context / --expand is the run's own refusal to make, not a plan of nonsense.
        check_frame(options.context, options.expand, Size.of(picture))
        _region, _scaled, aligned = plan_model_input(Size.of(picture), box, options)
        width, height = aligned.aligned_size
    infos = {d.name: d for d in devices}
    return engine_job_plan(engine, spec, int(width), int(height), infos, search=search)
