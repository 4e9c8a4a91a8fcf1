"""The memory plan of a job before it runs (the Devices pane shows it): per stage the fitted
settings and the plan behind them, and the largest size of the job's aspect ratio that fits
without slow settings (app/pipeline/execute/fit.py).

The engine plans a stage from its real command line, so the files a stage reads before it runs
are stood in for by small dummies of the right shape in a scratch folder: a zero latent
(vae-decode, img2img), a grey image (vae-encode) and a zero conditioning whose width is the
DiT's context size, read from the model file's header (no weights are read).
"""

from __future__ import annotations

import json
import os
import struct
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import BinaryIO

import numpy as np

from app.core.errors import InputError
from app.core.safe_files import open_read
from app.engine.argv import StageArgs
from app.engine.plan import StagePlan, plan_stage
from app.engine.process import engine_environment
from app.engine.stage import Stage
from app.engine.tensorfile import write_tensors
from app.pipeline.api import DeviceInfo
from app.pipeline.execute import fit
from app.pipeline.execute.fit import Fit, Planner, StageSettings
from app.pipeline.execute.stage_args import (
    DiffuseFiles,
    diffuse_args,
    llm_encode_args,
    vae_decode_args,
    vae_encode_args,
)
from app.pipeline.job.spec import JobSpec
from app.pipeline.plans import MAX_SEARCH_SIDE, JobPlan

LATENT_CHANNELS = 128
PROMPT_TOKENS = 512  # klein pads every prompt to 512 tokens
# The stages whose memory grows with the picture (searched for the largest size).
SIZED_STAGES = (Stage.DIFFUSE, Stage.VAE_DECODE)
PROBE_SIDES = (512, 1024)  # the longer side of the two sizes the search plans at
SHRINK_TRIES = 6

PlannerFor = Callable[[str, int, int], Planner]  # (stage, width, height) → settings → plan


def plan_job(
    spec: JobSpec,
    width: int,
    height: int,
    planner_for: PlannerFor,
    infos: Mapping[str, DeviceInfo],
    *,
    search: bool = True,
) -> JobPlan:
    """Fits every stage the job runs at width×height; with `search`, the largest size."""
    d = spec.devices
    stages = [Stage.LLM_ENCODE, Stage.DIFFUSE, Stage.VAE_DECODE]
    if spec.image is not None or spec.refs:
        stages.insert(0, Stage.VAE_ENCODE)
    fits: dict[str, Fit] = {}
    for stage in stages:
        user = fit.job_settings(stage, d)
        planner = planner_for(stage, width, height)
        if d.fit_memory:
            fits[stage] = fit.fit_stage(stage, user, planner, infos, d.max_alloc_mb)
        else:
            plan = planner(user)
            v = fit.verdict(plan, user.device, infos.get(user.device), d.max_alloc_mb)
            fits[stage] = Fit(stage, user, plan, v, ())
    largest = largest_fast_size(spec, width, height, planner_for, infos) if search else None
    return JobPlan(width, height, fits, largest, spec.reference_count, spec.uses_source_ref)


def largest_fast_size(
    spec: JobSpec,
    width: int,
    height: int,
    planner_for: PlannerFor,
    infos: Mapping[str, DeviceInfo],
) -> tuple[int, int] | None:
    """The largest size of width:height at which each sized stage fits with its most frugal
    setting that is not slow (flash attention on, 16-cell tiles); (0, 0) when not even the
    smallest does, None when the devices' memory is unknown.

    Cheap (each plan is an engine call): every stage is planned at two sizes, its total and
    largest tensor extrapolated linearly in the pixel count (what attention, convolutions and
    tiles do) to the size that meets the budget and the cap, then that size is checked with
    a plan and shrunk by 5 % until it fits."""
    d = spec.devices
    stages = []
    for stage in SIZED_STAGES:
        user = fit.job_settings(stage, d)
        fast = [s for s in fit.ladder(stage, user, infos) if not fit.is_slow(user, s)]
        stages.append((stage, fast[-1]))
    limits = [
        (fit.budget_bytes(infos.get(s.device)), fit.cap_bytes(infos.get(s.device), d.max_alloc_mb))
        for _, s in stages
    ]
    if all(budget is None and cap is None for budget, cap in limits):
        return None

    def verdict_at(stage: str, s: StageSettings, w: int, h: int) -> fit.Verdict:
        plan = planner_for(stage, w, h)(s)
        return fit.graph_cut(s, fit.verdict(plan, s.device, infos.get(s.device), d.max_alloc_mb))

    def fits_at(w: int, h: int) -> bool:
        return all(verdict_at(stage, s, w, h).fits for stage, s in stages)

    area = float(MAX_SEARCH_SIDE) ** 2
    for (stage, s), (budget, cap) in zip(stages, limits, strict=True):
        small = fit.size_for(width, height, PROBE_SIDES[0])
        big = fit.size_for(width, height, PROBE_SIDES[1])
        v1, v2 = verdict_at(stage, s, *small), verdict_at(stage, s, *big)
        a1, a2 = small[0] * small[1], big[0] * big[1]
        for limit, y1, y2 in ((budget, v1.total_bytes, v2.total_bytes),
                              (cap, v1.largest_bytes, v2.largest_bytes)):  # fmt: skip
            if limit is None or y2 <= y1:
                continue  # no limit, or it does not grow with the size
            slope = (y2 - y1) / (a2 - a1)
            area = min(area, a1 + (limit - y1) / slope)
    ratio = max(width, height) / min(width, height)
    long_side = int(min(MAX_SEARCH_SIDE, max(16.0, (max(area, 0.0) * ratio) ** 0.5)))
    while long_side > 16 and _area(fit.size_for(width, height, long_side)) > area:
        long_side -= 16  # aligning may round the short side up: stay within the estimate
    for _ in range(SHRINK_TRIES):
        size = fit.size_for(width, height, long_side)
        if fits_at(*size):
            return size
        long_side = int(long_side * 0.95)
        if long_side < 16:
            break
    return (0, 0)


def _area(size: tuple[int, int]) -> int:
    return size[0] * size[1]


# ------------------------------------------------------------------------ the engine's plans


# Stage plans by their inputs (the engine's and the model files' identity, the command line
# with the scratch folder left out, the environment the switches add): a job planned again
# (a setting changed and back, only the masked area, the size search, `run` after the window)
# reuses them; the engine's --plan of a 12 MP picture takes seconds per stage.
_PLANS: OrderedDict[tuple[object, ...], StagePlan] = OrderedDict()
_PLANS_LOCK = threading.Lock()
CACHED_STAGE_PLANS = 512
SCRATCH = "<scratch>"


def _identity(path: str | Path) -> tuple[str, int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (str(path), -1, -1)
    return (str(path), st.st_size, st.st_mtime_ns)


def cached_plan(key: tuple[object, ...], make: Callable[[], StagePlan]) -> StagePlan:
    """The plan kept for `key`, else made (outside the lock: plans run in parallel) and kept."""
    with _PLANS_LOCK:
        hit = _PLANS.get(key)
        if hit is not None:
            _PLANS.move_to_end(key)
            return hit
    plan = make()
    with _PLANS_LOCK:
        _PLANS[key] = plan
        while len(_PLANS) > CACHED_STAGE_PLANS:
            _PLANS.popitem(last=False)
    return plan


def engine_planner_for(engine: Path, spec: JobSpec, scratch: Path) -> PlannerFor:
    """Plans with `engine … --plan`, dummy inputs written into `scratch` (plans kept by their
    inputs: `cached_plan`)."""
    context: list[int] = []  # the DiT's context size, read once
    m = spec.models
    files = tuple(_identity(p) for p in (engine, m.diffusion, m.llm, m.vae) if p)

    def planner_for(stage: str, width: int, height: int) -> Planner:
        def plan(settings: StageSettings) -> StagePlan:
            args = stage_args(stage, spec, width, height, settings, scratch, context)
            added = args.common.environment()
            argv = args.to_argv()
            key = (files, tuple(a.replace(str(scratch), SCRATCH) for a in argv),
                   tuple(sorted(added.items())))  # fmt: skip
            return cached_plan(key, lambda: plan_stage(engine, argv, engine_environment(added)))

        return plan

    return planner_for


def stage_args(
    stage: str,
    spec: JobSpec,
    width: int,
    height: int,
    settings: StageSettings,
    scratch: Path,
    context: list[int],
) -> StageArgs:
    """A stage's command line for the plan (stage_args.py's builders), its inputs dummies
    written into `scratch`; `context` holds the DiT's context size once read."""
    if stage == Stage.LLM_ENCODE:
        return llm_encode_args(spec, settings, scratch / "plan_conditioning.bin", plan=True)
    if stage == Stage.VAE_ENCODE:
        image = _grey_png(scratch / f"plan_{width}x{height}.png", width, height)
        source = (image,) if spec.uses_source_ref else ()  # the photo is encoded twice
        return vae_encode_args(
            spec,
            width,
            height,
            settings,
            init_image=image,
            save_latent=scratch / "plan_init.bin",
            ref_images=source,
            save_ref_latents=scratch / "plan_refs.bin" if source else None,
        )
    latent = _zero_latent(scratch / f"plan_latent_{width}x{height}.bin", width, height)
    if stage == Stage.VAE_DECODE:
        return vae_decode_args(spec, settings, latent, scratch / "plan.png")
    if not context:
        context.append(dit_context_size(Path(spec.models.diffusion)))
    files = DiffuseFiles(
        embeddings=_zero_conditioning(scratch / "plan_cond.bin", context[0], spec.guided),
        save_latent=scratch / "plan_final.bin",
        checkpoint_dir=scratch / "plan_checkpoints",
        init_latent=lambda: latent,
        mask=lambda: _white_mask(scratch / f"plan_mask_{width}x{height}.png", width, height),
        ref_latents=lambda: _zero_refs(scratch, width, height, spec.reference_count),
    )
    return diffuse_args(spec, width, height, settings, files, plan=True)


def engine_job_plan(
    engine: Path,
    spec: JobSpec,
    width: int,
    height: int,
    infos: Mapping[str, DeviceInfo],
    *,
    search: bool = True,
) -> JobPlan:
    """plan_job with the engine's plans (a scratch folder lives as long as the call)."""
    with tempfile.TemporaryDirectory(prefix="stepwise-plan-") as scratch:
        planner = engine_planner_for(engine, spec, Path(scratch))
        return plan_job(spec, width, height, planner, infos, search=search)


def _zero_latent(path: Path, width: int, height: int) -> Path:
    if not path.exists():
        shape = (1, LATENT_CHANNELS, max(1, height // 16), max(1, width // 16))
        write_tensors(path, {"latent": np.zeros(shape, np.float32)})
    return path


def _zero_refs(scratch: Path, width: int, height: int, count: int) -> Path:
    path = scratch / f"plan_refs_{count}_{width}x{height}.bin"
    if not path.exists():
        shape = (1, LATENT_CHANNELS, max(1, height // 16), max(1, width // 16))
        write_tensors(path, {f"ref_{i}": np.zeros(shape, np.float32) for i in range(count)})
    return path


def _zero_conditioning(path: Path, context: int, uncond: bool) -> Path:
    if not path.exists():
        zeros = np.zeros((1, PROMPT_TOKENS, context), np.float32)
        tensors = {"c_crossattn": zeros}
        if uncond:
            tensors["uncond_c_crossattn"] = zeros
        write_tensors(path, tensors)
    return path


def _white_mask(path: Path, width: int, height: int) -> Path:
    if not path.exists():
        from app.imaging.io import save_png_atomic

        save_png_atomic(path, np.full((height, width), 255, np.uint8))
    return path


def _grey_png(path: Path, width: int, height: int) -> Path:
    if not path.exists():
        from app.imaging.io import save_png_atomic

        save_png_atomic(path, np.full((height, width, 3), 128, np.uint8))
    return path


# ----------------------------------------------------------- the DiT's context size (header)

_TXT_IN = ("txt_in.weight", "model.diffusion_model.txt_in.weight")
_GGUF_SCALAR = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
MAX_HEADER_ITEMS = 1 << 20
MAX_SAFETENSORS_HEADER = 100 * 1024 * 1024


def dit_context_size(path: Path) -> int:
    """The conditioning width the DiT takes: txt_in.weight's input size, from the header."""
    try:
        with open_read(path) as f:  # a FIFO is refused by name, never waited on
            magic = f.read(4)
            f.seek(0)
            shape = _gguf_shape(f) if magic == b"GGUF" else _safetensors_shape(f)
    except (OSError, struct.error, ValueError, UnicodeDecodeError) as exc:
        raise InputError(
            "Cannot read the diffusion model's header {path}: {reason}.",
            path=path,
            fix="Choose the FLUX.2 klein diffusion model file.",
            values={"reason": str(exc)},
        ) from exc
    if shape is None:
        raise InputError(
            "The diffusion model {path} has no txt_in.weight: not a FLUX.2 klein model.",
            path=path,
            fix="Choose the FLUX.2 klein diffusion model file.",
        )
    return shape


def _read(f: BinaryIO, fmt: str) -> int:
    size = struct.calcsize(fmt)
    data = f.read(size)
    if len(data) != size:
        raise ValueError("the header is truncated")
    return int(struct.unpack(fmt, data)[0])


def _gguf_string(f: BinaryIO) -> str:
    n = _read(f, "<Q")
    if n > MAX_SAFETENSORS_HEADER:
        raise ValueError("a header string is too long")
    return f.read(n).decode("utf-8")


def _gguf_skip_value(f: BinaryIO, kind: int) -> None:
    if kind == 8:
        _gguf_string(f)
    elif kind == 9:
        inner, count = _read(f, "<I"), _read(f, "<Q")
        if count > MAX_HEADER_ITEMS * 1024:
            raise ValueError("a header array is too long")
        if inner in _GGUF_SCALAR:
            f.seek(_GGUF_SCALAR[inner] * count, 1)
        else:
            for _ in range(count):
                _gguf_skip_value(f, inner)
    elif kind in _GGUF_SCALAR:
        f.seek(_GGUF_SCALAR[kind], 1)
    else:
        raise ValueError(f"unknown GGUF value type {kind}")


def _gguf_shape(f: BinaryIO) -> int | None:
    f.read(4)
    if _read(f, "<I") < 2:
        raise ValueError("GGUF version 1 is not supported")
    tensors, kvs = _read(f, "<Q"), _read(f, "<Q")
    if tensors > MAX_HEADER_ITEMS or kvs > MAX_HEADER_ITEMS:
        raise ValueError("implausible GGUF header")
    for _ in range(kvs):
        _gguf_string(f)
        _gguf_skip_value(f, _read(f, "<I"))
    for _ in range(tensors):
        name = _gguf_string(f)
        dims = [_read(f, "<Q") for _ in range(_read(f, "<I"))]
        f.seek(12, 1)  # type (u32) and offset (u64)
        if name in _TXT_IN and dims:
            return dims[0]  # ne[0]: the input size
    return None


def _safetensors_shape(f: BinaryIO) -> int | None:
    n = _read(f, "<Q")
    if n > MAX_SAFETENSORS_HEADER:
        raise ValueError("implausible safetensors header")
    header = json.loads(f.read(n).decode("utf-8"))
    for name in _TXT_IN:
        if name in header:
            return int(header[name]["shape"][-1])  # [out, in]
    return None


__all__ = ["JobPlan", "engine_job_plan", "plan_job"]
