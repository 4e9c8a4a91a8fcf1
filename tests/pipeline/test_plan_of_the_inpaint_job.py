"""The Devices pane plans the inpainting job that will run (issue 16): vae-encode, the init
latent and the mask for diffuse, the references; the real engine plans diffuse with the mask."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from app.pipeline.api import DeviceInfo
from app.pipeline.execute.fit import job_settings
from app.pipeline.execute.job_plan import engine_job_plan, stage_args
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles

CPU = DeviceInfo("cpu", "CPU", total_bytes=32 * 1024**3)


def _spec(tiny_models, **changes) -> JobSpec:
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a door",
        image="<the picture>",
        mask="<the mask>",
        steps=1,
        devices=DeviceChoice(threads=1),
    )
    return dataclasses.replace(spec, **changes)


def test_diffuse_is_planned_with_the_init_latent_and_the_mask(tmp_path: Path, tiny_models) -> None:
    spec = _spec(tiny_models)
    settings = job_settings("diffuse", spec.devices)
    args = stage_args("diffuse", spec, 64, 48, settings, tmp_path, [128])
    argv = args.to_argv()
    assert "--mask" in argv and args.mask is not None and args.mask.is_file()
    assert args.init_latent is not None and args.mask_mode == spec.mask_mode
    # Image to image without a mask: the init latent, no mask; text to image: neither.
    plain = stage_args("diffuse", _spec(tiny_models, mask=None), 64, 48, settings, tmp_path, [128])
    assert plain.mask is None and plain.init_latent is not None
    txt = stage_args(
        "diffuse", _spec(tiny_models, image=None, mask=None), 64, 48, settings, tmp_path, [128]
    )
    assert txt.mask is None and txt.init_latent is None


def test_the_engine_plans_the_whole_inpaint_job(sd_stage: Path, tiny_models) -> None:
    plan = engine_job_plan(sd_stage, _spec(tiny_models, refs=("a.png",)), 64, 64, {"cpu": CPU})
    assert list(plan.fits) == ["vae-encode", "llm-encode", "diffuse", "vae-decode"]
    assert plan.fits["vae-encode"].plan.images == 1
    assert plan.fits["diffuse"].plan.ref_latents == 1
    assert all(fit.plan is not None for fit in plan.fits.values())
