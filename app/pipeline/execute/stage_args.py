"""The one builder of every engine stage's command line, shared by a run (stages.py), a plan
and `measure` (job_plan.py) and "Decode this step" (runner.py): the engine switches of a stage
(`common_args`) and each stage's arguments (`llm_encode_args`, `vae_encode_args`,
`diffuse_args`, `vae_decode_args`), built once from the JobSpec; the caller says only which
files the stage reads and writes. A parameter row with an `engine_flag` needs no line here
(`row_flags`); a flag that needs code (a file, a switch the memory fit turns) is one line here
(tests/pipeline/test_hardening_keys.py compares the run's and the plan's command lines for
every row)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.engine.argv import (
    STAGE_MODELS,
    CommonArgs,
    DiffuseArgs,
    LlmEncodeArgs,
    Placement,
    VaeDecodeArgs,
    VaeEncodeArgs,
)
from app.engine.stage import Stage
from app.pipeline.execute.fit import MIB, StageSettings, job_settings
from app.pipeline.job.frame_checks import expands
from app.pipeline.job.params import PARAMS
from app.pipeline.job.spec import JobSpec


def common_args(spec: JobSpec, stage: str, settings: StageSettings | None = None) -> CommonArgs:
    """The engine switches of a stage's model: the memory settings the stage runs with
    (app/pipeline/execute/fit.py; None: the job's devices as they are)."""
    d = spec.devices
    module = STAGE_MODELS[stage].module
    if settings is None:
        settings = job_settings(stage, d)
    return CommonArgs(
        threads=d.threads if d.threads > 0 else None,
        placement=Placement(**{module: settings.device}),
        params_backend="cpu" if settings.weights_on_cpu else None,
        mmap=d.mmap,
        flash_attention=settings.flash_attention and module == "diffusion",
        vae_tiling=settings.vae_tiling and module == "vae",
        vae_tile_size=settings.vae_tile_size if settings.vae_tiling and module == "vae" else None,
        max_vram_gib=settings.max_vram_gib if settings.weights_on_cpu else None,
        max_alloc_bytes=d.max_alloc_mb * MIB if d.max_alloc_mb > 0 else None,
        extra=row_flags(spec, stage),
    )


def row_flags(spec: JobSpec, stage: str) -> tuple[str, ...]:
    """The flags of the table's rows with an `engine_flag` whose stage (`invalidates`) this
    is, each only when its value is not the row's default (the default is "flag not given",
    so older runs keep their keys and command lines); a bool row is its flag alone."""
    out: list[str] = []
    for p in PARAMS:
        if p.engine_flag is None or p.invalidates != stage:
            continue
        head, _, tail = p.spec_field.partition(".")
        value = getattr(getattr(spec, head), tail) if tail else getattr(spec, head)
        if value == p.default:
            continue
        if p.kind is bool:
            out.append(p.engine_flag)
        else:
            out += [p.engine_flag, repr(float(value)) if p.kind is float else str(value)]
    return tuple(out)


def llm_encode_args(
    spec: JobSpec, settings: StageSettings | None, save_embeddings: Path, *, plan: bool = False
) -> LlmEncodeArgs:
    """llm-encode's command line. plan=True: what the plan loads (no LoRA folder: --plan loads
    no weights; an empty prompt planned as a short one)."""
    m = spec.models
    return LlmEncodeArgs(
        llm=Path(m.llm),
        prompt=(spec.prompt or "a picture") if plan else spec.prompt,
        save_embeddings=save_embeddings,
        negative_prompt=spec.negative_prompt if spec.guided else "",
        cfg_scale=spec.cfg_scale,
        lora_model_dir=Path(m.lora_dir) if not plan and m.lora_dir else None,
        common=common_args(spec, Stage.LLM_ENCODE, settings),
    )


def vae_encode_args(
    spec: JobSpec,
    width: int,
    height: int,
    settings: StageSettings | None,
    *,
    init_image: Path | None,
    save_latent: Path | None,
    ref_images: tuple[Path, ...],
    save_ref_latents: Path | None,
) -> VaeEncodeArgs:
    """vae-encode's command line: the picture (img2img / inpainting) and the reference images."""
    return VaeEncodeArgs(
        vae=Path(spec.models.vae),
        width=width,
        height=height,
        init_image=init_image,
        save_latent=save_latent,
        ref_images=ref_images,
        save_ref_latents=save_ref_latents,
        common=common_args(spec, Stage.VAE_ENCODE, settings),
    )


def vae_decode_args(
    spec: JobSpec, settings: StageSettings | None, load_latent: Path, output: Path
) -> VaeDecodeArgs:
    """vae-decode's command line: a latent into a PNG."""
    return VaeDecodeArgs(
        vae=Path(spec.models.vae),
        load_latent=load_latent,
        output=output,
        common=common_args(spec, Stage.VAE_DECODE, settings),
    )


@dataclass(frozen=True)
class DiffuseFiles:
    """The files diffuse reads and writes: a run's own, or a plan's stand-ins. The inputs only
    some jobs have are asked for only when the job has them (a plan writes its dummy then)."""

    embeddings: Path
    save_latent: Path
    checkpoint_dir: Path
    init_latent: Callable[[], Path]  # img2img / inpainting
    mask: Callable[[], Path]  # with a mask or a canvas expansion
    ref_latents: Callable[[], Path]  # with reference images


def diffuse_masked(spec: JobSpec) -> bool:
    """diffuse gets a mask: a picture with a mask or with a canvas expansion (its new area)."""
    return spec.image is not None and bool(spec.mask or expands(spec))


def diffuse_args(
    spec: JobSpec,
    width: int,
    height: int,
    settings: StageSettings,
    files: DiffuseFiles,
    *,
    plan: bool = False,
    resume_step: int | None = None,
) -> DiffuseArgs:
    """diffuse's command line for `spec` at width×height.

    plan=True: the command line the Devices pane plans with, which has always left out what
    only a run needs (resuming, the step previews, the prompt's LoRA tags: --plan loads no
    weights) and plans a seed of -1 as 0."""
    is_img = spec.image is not None
    masked = diffuse_masked(spec)
    m = spec.models
    return DiffuseArgs(
        diffusion_model=Path(m.diffusion),
        load_embeddings=files.embeddings,
        width=width,
        height=height,
        steps=spec.steps,
        seed=max(spec.seed, 0) if plan else spec.seed,
        save_latent=files.save_latent,
        checkpoint_dir=files.checkpoint_dir,
        sampling_method=spec.sampler,
        scheduler=spec.scheduler,
        cfg_scale=spec.cfg_scale,
        strength=spec.strength if is_img else None,
        init_latent=files.init_latent() if is_img else None,
        mask=files.mask() if masked else None,
        mask_mode=spec.mask_mode if masked else None,
        ref_latents=files.ref_latents() if spec.reference_count else None,
        prompt=spec.prompt if not plan and "<lora:" in spec.prompt else None,
        lora_model_dir=Path(m.lora_dir) if not plan and m.lora_dir else None,
        resume_step=None if plan else resume_step,
        preview="none" if plan else spec.preview,
        vae=Path(m.vae) if not plan and spec.preview == "vae" else None,
        common=common_args(spec, Stage.DIFFUSE, settings),
    )
