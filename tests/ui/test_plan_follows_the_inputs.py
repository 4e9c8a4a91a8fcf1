"""The Devices pane's plan is the job that will run (issue 16): a picture opened, a mask
painted, a reference added each plan again, with vae-encode, the mask and the reference."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from app.jobs.job_inputs import Reference
from app.jobs.memory_plan import MemoryPlan
from app.pipeline.api import DeviceInfo
from app.pipeline.execute.job_plan import plan_job
from app.pipeline.job.spec import JobSpec
from app.pipeline.plans import JobPlan
from tests.ui.test_plan_pane import model, scaled_planner

__all__ = ["model"]  # the fixture, used by name


class SpecRecorder:
    def __init__(self) -> None:
        self.specs: list[JobSpec] = []

    def __call__(
        self, spec: JobSpec, width: int, height: int, infos: Mapping[str, DeviceInfo]
    ) -> JobPlan:
        self.specs.append(spec)
        return plan_job(spec, width, height, scaled_planner, infos, search=False)


def _next_plan(qtbot, plan: MemoryPlan) -> JobPlan:
    with qtbot.waitSignal(plan.planned, timeout=20_000) as blocker:
        pass
    return blocker.args[0]


def test_the_plan_follows_the_picture_the_mask_and_the_references(qtbot, model) -> None:
    recorder = SpecRecorder()
    plan = MemoryPlan(model, recorder)
    try:
        first = _next_plan(qtbot, plan)
        assert "vae-encode" not in first.fits and recorder.specs[-1].image is None
        image = np.full((64, 96, 3), 100, np.uint8)
        model.inputs.set_document(image, np.zeros((64, 96), np.uint8))  # no form change
        second = _next_plan(qtbot, plan)
        assert "vae-encode" in second.fits
        assert recorder.specs[-1].image is not None and recorder.specs[-1].mask is None
        mask = np.zeros((64, 96), np.uint8)
        mask[10:40, 20:60] = 255
        model.inputs.set_document(image, mask)
        _next_plan(qtbot, plan)
        assert recorder.specs[-1].mask is not None  # diffuse is planned with its mask
        model.inputs.add_ref(Reference.of(np.full((32, 32, 3), 7, np.uint8), "ref.png"))
        fourth = _next_plan(qtbot, plan)
        assert fourth.references == 1 and recorder.specs[-1].refs == ("ref.png",)
    finally:
        assert plan.stop()
