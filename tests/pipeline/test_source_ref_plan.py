"""The job's memory plan counts the photo as a reference (source_ref): the real engine plans
diffuse with one more reference latent and vae-encode with one more picture, diffuse's compute
grows, and the plan's lines say what the references cost in tokens."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from app.pipeline.api import DeviceInfo
from app.pipeline.execute.job_plan import engine_job_plan
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles

CPU = DeviceInfo("cpu", "CPU", total_bytes=32 * 1024**3)


def _spec(tiny_models, **changes) -> JobSpec:
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a door",
        image="photo.png",  # the plan reads only that there is one
        mask="mask.png",
        steps=1,
        devices=DeviceChoice(threads=1),
    )
    return dataclasses.replace(spec, **changes)


def _compute(plan, stage: str) -> int:
    fitted = plan.fits[stage].plan
    assert fitted is not None
    return sum(d.compute_bytes for d in fitted.devices)


def test_the_plan_includes_the_photo_as_a_reference(sd_stage: Path, tiny_models) -> None:
    infos = {"cpu": CPU}
    off = engine_job_plan(sd_stage, _spec(tiny_models), 128, 128, infos)
    on = engine_job_plan(sd_stage, _spec(tiny_models, source_ref=True), 128, 128, infos)
    assert (off.references, off.source_ref, off.reference_tokens) == (0, False, 0)
    assert (on.references, on.source_ref) == (1, True)
    assert on.picture_tokens == 64 and on.reference_tokens == 64  # 8×8 cells, the same again
    assert off.fits["diffuse"].plan.ref_latents == 0
    assert on.fits["diffuse"].plan.ref_latents == 1  # the engine planned with it
    assert off.fits["vae-encode"].plan.images == 1
    assert on.fits["vae-encode"].plan.images == 2  # the photo encoded once more
    assert _compute(on, "diffuse") > _compute(off, "diffuse")
    # Text to image has no photo to show: the option costs nothing there.
    txt = engine_job_plan(
        sd_stage, _spec(tiny_models, image=None, mask=None, source_ref=True), 128, 128, infos
    )
    assert txt.references == 0 and txt.fits["diffuse"].plan.ref_latents == 0


def test_a_users_reference_and_the_photo_are_both_counted(sd_stage: Path, tiny_models) -> None:
    spec = _spec(tiny_models, source_ref=True, refs=("a.png",))
    plan = engine_job_plan(sd_stage, spec, 64, 64, {"cpu": CPU})
    assert plan.references == 2 and plan.reference_tokens == 2 * 16
    assert plan.fits["diffuse"].plan.ref_latents == 2
