"""Fit a stage to its device's memory: the fastest settings whose plan fits, chosen up front.

A stage's *settings* are the memory switches it runs with (`StageSettings`: device, flash
attention, VAE tiling and tile size, weights partly on the CPU). For each stage there is ONE
order of settings, fastest first, each step turning on one more memory saver (`ladder`):

- diffuse:     the job's settings → flash attention on → weights in RAM and a graph cut to the
               device's budget (`--params-backend cpu --max-vram GiB`; 596 cuts the graph into
               segments only when the weights live off the compute device: slow, ~2× a step)
- vae-decode,
  vae-encode:  untiled → tiled with 32-cell tiles → 16-cell tiles → the CPU (tiling kept)
- llm-encode:  the job's device → the CPU

Fitting only ever turns memory savers ON and never off: a switch the user turned on (tiling,
flash attention, the CPU) stays on, a smaller tile the user chose stays. Every change is a
`Change` (stage, what, from, to, why) recorded in run.json and shown by the UI and the CLI, so
nothing is changed silently. `fit_memory` off (the job's `devices.fit_memory`): no planning,
the job's settings are what runs first; an out-of-memory is still retried with the next
setting (recorded the same way: a retry can only save a render that would have failed).

"Fits" (`verdict`): the plan's total on the device ≤ the device's free (else total) memory
minus a margin (`margin_bytes`: 10 %, at least 256 MiB), and its largest single allocation
and largest single tensor ≤ the device's cap: DeviceInfo.max_alloc_bytes, or the job's
max_alloc_mb when that is set and lower. A device whose memory is unknown fits (nothing to
check; an out-of-memory is then recovered from by retrying, app/pipeline/execute/memory_retry.py).

Everything here is a pure function of plans and device facts: the caller passes a planner
(settings → StagePlan), so tests need no engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from app.engine.argv import STAGE_MODELS
from app.engine.plan import StagePlan
from app.engine.stage import Stage
from app.pipeline.api import DeviceInfo
from app.pipeline.job.spec import DeviceChoice
from app.pipeline.plans import CPU as CPU
from app.pipeline.plans import Change as Change
from app.pipeline.plans import Fit as Fit
from app.pipeline.plans import StageSettings as StageSettings
from app.pipeline.plans import Verdict as Verdict

MIB = 1024 * 1024
GIB = 1024 * MIB
MIN_MARGIN = 256 * MIB
MARGIN_FRACTION = 0.10
TILE_SIZES = (32, 16)  # latent cells per tile side, largest (fastest) first
# Without device facts, the graph cut's budget (GiB) when diffuse falls back to it.
FALLBACK_MAX_VRAM_GIB = 2.0

VAE_STAGES = (Stage.VAE_ENCODE, Stage.VAE_DECODE)

# Why a setting changed (run.json "why"; the UI and CLI own the texts).
WHY_PLAN = "plan"  # the plan did not fit the device
WHY_OUT_OF_MEMORY = "out_of_memory"  # the stage ran out of memory
WHY_BAD_DECODE = "bad_decode"  # the decode was constant, NaN or Inf
WHY_NOTHING_FITS = "nothing_fits"  # no setting fits: the most frugal one is tried


def job_settings(stage: str, d: DeviceChoice) -> StageSettings:
    """A stage's settings exactly as the job's devices say (no fitting)."""
    module = STAGE_MODELS[stage].module
    device = {"te": d.llm, "diffusion": d.diffusion, "vae": d.vae}[module]
    if stage == Stage.DIFFUSE:
        return StageSettings(device=device, flash_attention=d.flash_attention)
    if stage in VAE_STAGES:
        return StageSettings(
            device=device,
            vae_tiling=d.vae_tiling,
            vae_tile_size=d.vae_tile_size if d.vae_tiling else None,
        )
    return StageSettings(device=device)


def margin_bytes(available: int) -> int:
    return max(MIN_MARGIN, int(available * MARGIN_FRACTION))


def available_bytes(info: DeviceInfo | None) -> int | None:
    if info is None:
        return None
    return info.free_bytes if info.free_bytes is not None else info.total_bytes


def budget_bytes(info: DeviceInfo | None) -> int | None:
    available = available_bytes(info)
    return None if available is None else max(0, available - margin_bytes(available))


def cap_bytes(info: DeviceInfo | None, max_alloc_mb: int) -> int | None:
    """The largest single allocation: the device's, or the user's (a GPU driver's cap: not
    for the CPU) when set and lower."""
    caps = [c for c in (info.max_alloc_bytes if info else None,) if c]
    if max_alloc_mb > 0 and not (info is not None and info.name == CPU):
        caps.append(max_alloc_mb * MIB)
    return min(caps) if caps else None


def verdict(plan: StagePlan, device: str, info: DeviceInfo | None, max_alloc_mb: int) -> Verdict:
    """Does the plan's share on `device` fit it? (See the module docstring.)"""
    share = plan.on(device)
    weights = share.weights_bytes if share else 0
    compute = share.compute_bytes if share else 0
    total = share.total_bytes if share else 0
    largest = max(share.largest_alloc_bytes, share.largest_tensor_bytes) if share else 0
    available = available_bytes(info)
    budget = budget_bytes(info)
    cap = cap_bytes(info, max_alloc_mb)
    reason = ""
    if budget is not None and total > budget:
        reason = "total"
    elif cap is not None and largest > cap:
        reason = "allocation"
    return Verdict(
        not reason, device, weights, compute, total, largest, available, budget, cap, reason
    )


def graph_cut(settings: StageSettings, v: Verdict) -> Verdict:
    """With the graph cut the engine keeps the device within --max-vram, but its plan is the
    uncut graph's (an upper bound, native/PROTOCOL.md): the total is bounded by the cut; the
    largest tensor still has to fit the cap."""
    if not (settings.weights_on_cpu and settings.max_vram_gib) or v.reason != "total":
        return v
    bound = int(settings.max_vram_gib * GIB)
    return dataclasses.replace(v, fits=True, reason="", total_bytes=min(v.total_bytes, bound))


def _graph_cut_gib(info: DeviceInfo | None) -> float:
    budget = budget_bytes(info)
    if budget is None or budget <= 0:
        return FALLBACK_MAX_VRAM_GIB
    return max(0.5, int(budget / GIB * 10) / 10)  # GiB, rounded down to 0.1


def ladder(
    stage: str, user: StageSettings, infos: Mapping[str, DeviceInfo] | None = None
) -> list[StageSettings]:
    """The job's settings, then each next memory saver in the documented order (only those
    that turn a saver on: a saver the user turned on is never turned off)."""
    infos = infos or {}
    steps = [user]
    if stage == Stage.DIFFUSE:
        fa = dataclasses.replace(user, flash_attention=True)
        steps.append(fa)
        if user.device != CPU and not user.weights_on_cpu:
            gib = _graph_cut_gib(infos.get(user.device))
            steps.append(dataclasses.replace(fa, weights_on_cpu=True, max_vram_gib=gib))
    elif stage in VAE_STAGES:
        current = user.vae_tile_size if user.vae_tiling else None
        for tile in TILE_SIZES:
            if current is None or tile < current:
                steps.append(dataclasses.replace(steps[-1], vae_tiling=True, vae_tile_size=tile))
        if user.device != CPU:
            steps.append(dataclasses.replace(steps[-1], device=CPU))
    elif stage == Stage.LLM_ENCODE and user.device != CPU:
        steps.append(dataclasses.replace(user, device=CPU))
    out: list[StageSettings] = []
    for s in steps:
        if s not in out:
            out.append(s)
    return out


def changes_between(stage: str, old: StageSettings, new: StageSettings, why: str) -> list[Change]:
    return [
        Change(stage, f.name, getattr(old, f.name), getattr(new, f.name), why)
        for f in dataclasses.fields(StageSettings)
        if getattr(old, f.name) != getattr(new, f.name)
    ]


def next_setting(
    stage: str,
    user: StageSettings,
    current: StageSettings,
    tried: set[StageSettings],
    infos: Mapping[str, DeviceInfo] | None = None,
) -> StageSettings | None:
    """The first setting after `current` in the ladder not tried yet (None: none left)."""
    order = ladder(stage, user, infos)
    start = order.index(current) + 1 if current in order else 0
    return next((s for s in order[start:] if s not in tried), None)


Planner = Callable[[StageSettings], StagePlan]


def fit_stage(
    stage: str,
    user: StageSettings,
    planner: Planner,
    infos: Mapping[str, DeviceInfo],
    max_alloc_mb: int = 0,
) -> Fit:
    """The first setting of the ladder whose plan fits its device; when none fits, the most
    frugal one (recorded as such). A planner that raises leaves the job's settings."""
    last: tuple[StageSettings, StagePlan, Verdict] | None = None
    for settings in ladder(stage, user, infos):
        plan = planner(settings)
        v = graph_cut(
            settings, verdict(plan, settings.device, infos.get(settings.device), max_alloc_mb)
        )
        last = (settings, plan, v)
        if v.fits:
            why = WHY_PLAN
            return Fit(stage, settings, plan, v, tuple(changes_between(stage, user, settings, why)))
    assert last is not None  # the ladder holds at least the user's settings
    settings, plan, v = last
    changes = changes_between(stage, user, settings, WHY_NOTHING_FITS)
    return Fit(stage, settings, plan, v, tuple(changes))


def size_for(aspect_w: int, aspect_h: int, long_side: int, align: int = 16) -> tuple[int, int]:
    """A size with the aspect ratio whose longer side is `long_side`, sides aligned."""
    long_side = max(align, long_side // align * align)
    if aspect_w >= aspect_h:
        short = max(align, round(long_side * aspect_h / aspect_w / align) * align)
        return long_side, short
    short = max(align, round(long_side * aspect_w / aspect_h / align) * align)
    return short, long_side


def largest_size(
    aspect_w: int,
    aspect_h: int,
    fits_at: Callable[[int, int], bool],
    *,
    max_side: int = 4096,
    align: int = 16,
) -> tuple[int, int] | None:
    """The largest size of this aspect ratio for which `fits_at(w, h)` holds (memory grows
    with the size, so a binary search over the longer side: ~log2(max_side/align) plans);
    None when not even the smallest size fits."""
    lo, hi = 1, max_side // align  # in units of `align` on the longer side
    if not fits_at(*size_for(aspect_w, aspect_h, lo * align, align)):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits_at(*size_for(aspect_w, aspect_h, mid * align, align)):
            lo = mid
        else:
            hi = mid - 1
    return size_for(aspect_w, aspect_h, lo * align, align)


def is_slow(user: StageSettings, settings: StageSettings) -> bool:
    """Settings that cost much more time than the job's: the graph cut, or the CPU instead of
    the job's GPU (flash attention and VAE tiling are not slow)."""
    return (settings.weights_on_cpu and not user.weights_on_cpu) or (
        settings.device == CPU and user.device != CPU
    )
