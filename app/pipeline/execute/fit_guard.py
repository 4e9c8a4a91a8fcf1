"""The plan of a job whose picture and mask are files (the CLI's `run`, through
PipelineAPI.plan): at the size the model gets. The verdict and the offers are
app/pipeline/plans.py's `unfit_of` and `Unfit`; nothing here decides whether it fits."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from app.imaging.frame import check_frame
from app.imaging.geometry import Size
from app.imaging.io import load_image, load_mask
from app.imaging.mask_ops import BINARY_THRESHOLD, bounding_box
from app.imaging.prepare import PrepareOptions, plan_model_input
from app.pipeline.api import DeviceInfo
from app.pipeline.execute.job_plan import engine_job_plan
from app.pipeline.job.spec import JobSpec
from app.pipeline.plans import JobPlan


def plan_for_files(
    engine: Path,
    spec: JobSpec,
    devices: Sequence[DeviceInfo],
    *,
    size: tuple[int, int] | None = None,
    search: bool = False,
) -> JobPlan:
    """The job's plan at `size`, else (the CLI's `run`) at the size the model gets — the
    picture's, through the job's prepare options (expansion, context, alignment, only
    masked), read from its files — with the engine's `--plan`; `search`: also the largest size
    that fits without slow settings (many more plans)."""
    width, height = size or (spec.width, spec.height)
    if size is None and spec.image is not None:
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
