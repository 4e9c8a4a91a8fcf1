"""The Devices pane plans the inpainting job that will run (issue 16): vae-encode, the init
latent and the mask for diffuse, the references; the real engine plans diffuse with the mask."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from app.pipeline.api import DeviceInfo
from app.pipeline.execute.fit import job_settings
from app.pipeline.execute.job_plan import engine_job_plan, stage_args
from app.pipeline.execute.stages import DiffuseStage
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
from app.pipeline.run.folder import ModelInputRecord, create_run

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


# What differs between a run's diffuse and the plan's by design: the files (the run's own, the
# plan's stand-ins) and what only a run needs (stage_args.diffuse_args, plan=True).
FILES = ("load_embeddings", "save_latent", "checkpoint_dir", "init_latent", "mask", "ref_latents")
RUN_ONLY = ("prompt", "lora_model_dir", "resume_step", "preview", "vae")


def test_the_plan_gets_the_command_line_the_run_gets(tmp_path: Path, tiny_models) -> None:
    """One builder: every value the job gives diffuse is the same in the run and in its plan
    (a flag passed to a run but not planned would plan another graph)."""
    spec = _spec(
        tiny_models, refs=("a.png",), cfg_scale=2.5, sampler="euler_a", seed=7,
        strength=0.75, preview="vae", prompt="a <lora:door:1> door", mask_mode="soft",
    )  # fmt: skip
    run = create_run(tmp_path / "runs", spec, tmp_path / "run")
    run.model_input = ModelInputRecord(64, 48, None)
    settings = job_settings("diffuse", spec.devices)
    ran = DiffuseStage().args(run, settings, resume_step=1)
    planned = stage_args("diffuse", spec, 64, 48, settings, tmp_path / "scratch", [128])
    for f in dataclasses.fields(ran):
        a, b = getattr(ran, f.name), getattr(planned, f.name)
        if f.name in FILES:
            assert (a is None) == (b is None), f.name
        elif f.name not in RUN_ONLY:
            assert a == b, f.name
    assert ran.resume_step == 1 and ran.preview == "vae" and ran.prompt == spec.prompt
    assert planned.resume_step is None and planned.preview == "none" and planned.prompt is None
