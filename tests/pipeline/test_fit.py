"""Fit before run (app/pipeline/execute/fit.py) with planned numbers: the klein-9B figures of
issue 11 (compute buffers measured at the real shape) on the user's card, 8 GB with a 2 GB cap."""

from __future__ import annotations

import dataclasses

import pytest

from app.engine.plan import DevicePlan, StagePlan
from app.pipeline.api import DeviceInfo
from app.pipeline.execute import fit
from app.pipeline.execute.fit import StageSettings
from app.pipeline.job.spec import DeviceChoice

MIB = 1024 * 1024
MB = MIB  # sd.cpp logs "MB" of 1024² bytes; the figures are those
GIB = 1024 * MIB
CARD = DeviceInfo("vulkan0", "RX 590", total_bytes=8 * GIB, free_bytes=8 * GIB - 200 * MIB,
                  max_alloc_bytes=4 * GIB)  # fmt: skip
INFOS = {"vulkan0": CARD, "cpu": DeviceInfo("cpu", "CPU", total_bytes=32 * GIB)}
CAP_MB = 2048  # the driver claims 4 GiB; the user's setting says 2 GiB

DIT_WEIGHTS = 5011 * MB
VAE_WEIGHTS = 95 * MB
DIT_COMPUTE = {  # (w, h): (without FA, with FA) compute buffer, from issue 11's table
    (352, 864): (775 * MB, 502 * MB),
    (512, 768): (1011 * MB, 595 * MB),
    (768, 1024): (2405 * MB, 1117 * MB),
    (1024, 1024): (3654 * MB, 1422 * MB),
}
VAE_COMPUTE = {  # untiled, tiled (32-cell tiles)
    (352, 864): (1931 * MB, 1144 * MB),
    (512, 768): (2497 * MB, 1665 * MB),
    (768, 1024): (4994 * MB, 1665 * MB),
    (1024, 1024): (6658 * MB, 1665 * MB),
}
SIZES = tuple(DIT_COMPUTE)


def attention_bytes(w: int, h: int) -> int:
    """Without flash attention: the scores, 4 bytes · L² · 32 heads (L = image + 512 tokens)."""
    tokens = (w // 16) * (h // 16) + 512
    return 4 * tokens * tokens * 32


def im2col_bytes(w: int, h: int) -> int:
    """An untiled decode's largest tensor: the last 3×3 conv's im2col, 128 ch, f32."""
    return w * h * 128 * 9 * 4


def share(device: str, weights: int, compute: int, largest: int) -> DevicePlan:
    return DevicePlan(device, weights, compute, min(largest, GIB), largest, weights + compute)


def planner(stage: str, w: int, h: int, calls: list[StageSettings] | None = None):
    def plan(s: StageSettings) -> StagePlan:
        if calls is not None:
            calls.append(s)
        if stage == "diffuse":
            plain, fa = DIT_COMPUTE[(w, h)]
            compute, largest = (
                (fa, 180 * MB) if s.flash_attention else (plain, attention_bytes(w, h))
            )
            if s.weights_on_cpu:  # the graph cut: a segment's weights at a time
                dev = share(s.device, DIT_WEIGHTS // 8, compute, largest)
                return StagePlan(stage, w, h, {}, (dev, share("cpu", DIT_WEIGHTS, 0, 0)))
            return StagePlan(stage, w, h, {}, (share(s.device, DIT_WEIGHTS, compute, largest),))
        untiled, tiled = VAE_COMPUTE[(w, h)]
        if s.vae_tiling:
            tile = (s.vae_tile_size or 32) * 16
            scale = (tile * tile) / (512 * 512)
            compute, largest = int(tiled * scale), im2col_bytes(tile, tile)
        else:
            compute, largest = untiled, im2col_bytes(w, h)
        return StagePlan(stage, w, h, {}, (share(s.device, VAE_WEIGHTS, compute, largest),))

    return plan


def test_ladders_are_the_documented_order() -> None:
    gpu = StageSettings(device="vulkan0")
    assert fit.ladder("vae-decode", gpu) == [
        gpu,
        StageSettings("vulkan0", vae_tiling=True, vae_tile_size=32),
        StageSettings("vulkan0", vae_tiling=True, vae_tile_size=16),
        StageSettings("cpu", vae_tiling=True, vae_tile_size=16),
    ]
    diffuse = fit.ladder("diffuse", gpu, INFOS)
    assert diffuse[1] == StageSettings("vulkan0", flash_attention=True)
    # budget = free − 10 % margin = 7.0 GiB of 7.8, rounded down to 0.1 GiB
    assert diffuse[2] == StageSettings(
        "vulkan0", flash_attention=True, weights_on_cpu=True, max_vram_gib=7.0
    )
    assert fit.ladder("llm-encode", gpu) == [gpu, StageSettings("cpu")]
    assert fit.ladder("llm-encode", StageSettings("cpu")) == [StageSettings("cpu")]


def test_a_saver_the_user_turned_on_is_never_turned_off() -> None:
    user = StageSettings("vulkan0", vae_tiling=True, vae_tile_size=16)
    order = fit.ladder("vae-encode", user)
    assert order == [user, StageSettings("cpu", vae_tiling=True, vae_tile_size=16)]
    assert all(s.vae_tiling and s.vae_tile_size == 16 for s in order)
    fa_user = StageSettings("vulkan0", flash_attention=True)
    assert all(s.flash_attention for s in fit.ladder("diffuse", fa_user, INFOS))


@pytest.mark.parametrize("size", SIZES)
def test_8gb_card_with_2gb_cap(size: tuple[int, int]) -> None:
    """Job: flash attention off, VAE untiled, all on vulkan0. The plan says what fits."""
    w, h = size
    d = DeviceChoice(llm="cpu", diffusion="vulkan0", vae="vulkan0", flash_attention=False)
    diffuse = fit.fit_stage(
        "diffuse", fit.job_settings("diffuse", d), planner("diffuse", w, h), INFOS, CAP_MB
    )
    decode = fit.fit_stage(
        "vae-decode", fit.job_settings("vae-decode", d), planner("vae-decode", w, h), INFOS, CAP_MB
    )
    assert diffuse.fits and decode.fits
    # FA where plain attention does not fit: at 768×1024 weights + compute (7.24 GiB) exceed
    # the 7.02 GiB budget, at 1024² the scores (2.72 GB) the cap as well; at 352×864 and
    # 512×768 plain attention fits (5.65 / 5.88 GiB, scores 0.37 / 0.54 GB).
    want_fa = size in ((768, 1024), (1024, 1024))
    assert diffuse.settings == StageSettings("vulkan0", flash_attention=want_fa)
    assert [(c.what, c.new, c.why) for c in diffuse.changes] == (
        [("flash_attention", True, fit.WHY_PLAN)] if want_fa else []
    )
    # The untiled decode's im2col: 1.40 / 1.81 GB fit 2 GiB; 3.62 / 4.83 GB do not → tiled 32.
    want_tiled = size in ((768, 1024), (1024, 1024))
    assert decode.settings == (
        StageSettings("vulkan0", vae_tiling=True, vae_tile_size=32)
        if want_tiled
        else StageSettings("vulkan0")
    )
    assert decode.verdict is not None and decode.verdict.cap_bytes == CAP_MB * MIB
    assert decode.verdict.largest_bytes <= CAP_MB * MIB


def test_1024_diffuse_fits_with_fa_and_the_figures_are_the_plans() -> None:
    d = DeviceChoice(diffusion="vulkan0", flash_attention=False)
    f = fit.fit_stage(
        "diffuse", fit.job_settings("diffuse", d), planner("diffuse", 1024, 1024), INFOS, CAP_MB
    )
    v = f.verdict
    assert v is not None and v.fits
    assert (v.weights_bytes, v.compute_bytes) == (DIT_WEIGHTS, 1422 * MB)
    assert v.total_bytes == DIT_WEIGHTS + 1422 * MB  # 6.4 GB of a 7.0 GiB budget
    assert v.budget_bytes == (8 * GIB - 200 * MIB) - int((8 * GIB - 200 * MIB) * 0.1)


def test_the_driver_cap_without_a_user_setting_is_the_drivers() -> None:
    """The cap is the lower of the driver's and the user's. With a 1 GiB cap, a 32-cell tile's
    im2col (512² px: 1.21 GB) does not fit either: the decode goes to 16-cell tiles."""
    assert fit.cap_bytes(CARD, 0) == 4 * GIB
    assert fit.cap_bytes(CARD, 8192) == 4 * GIB  # a higher user value does not raise it
    assert fit.cap_bytes(CARD, 1024) == 1024 * MIB
    assert fit.cap_bytes(INFOS["cpu"], 1024) is None  # the user's cap is a GPU driver's
    f = fit.fit_stage(
        "vae-decode", StageSettings("vulkan0"), planner("vae-decode", 512, 768), INFOS, 1024
    )
    assert f.settings == StageSettings("vulkan0", vae_tiling=True, vae_tile_size=16)
    assert f.verdict is not None and f.verdict.reason == ""
    assert [c.what for c in f.changes] == ["vae_tiling", "vae_tile_size"]


def test_nothing_fits_gives_the_most_frugal_setting_recorded() -> None:
    small = DeviceInfo("vulkan0", "tiny", total_bytes=1 * GIB, max_alloc_bytes=256 * MIB)
    infos = {"vulkan0": small, "cpu": DeviceInfo("cpu", "CPU", total_bytes=2 * GIB)}

    def too_big(s: StageSettings) -> StagePlan:
        return StagePlan("vae-decode", 1024, 1024, {}, (share(s.device, 1, 4 * GIB, 2 * GIB),))

    f = fit.fit_stage("vae-decode", StageSettings("vulkan0"), too_big, infos, 0)
    assert not f.fits
    assert f.settings == StageSettings("cpu", vae_tiling=True, vae_tile_size=16)
    assert {c.what for c in f.changes} == {"device", "vae_tiling", "vae_tile_size"}
    assert {c.why for c in f.changes} == {fit.WHY_NOTHING_FITS}


def test_unknown_memory_fits_with_the_jobs_settings_and_plans_once() -> None:
    calls: list[StageSettings] = []
    infos = {"vulkan0": DeviceInfo("vulkan0", "no facts")}
    user = StageSettings("vulkan0")
    f = fit.fit_stage("vae-decode", user, planner("vae-decode", 1024, 1024, calls), infos)
    assert f.settings == user and f.changes == () and calls == [user]


def test_next_setting_walks_the_ladder_once_each() -> None:
    user = StageSettings("vulkan0")
    tried = {user}
    seen = []
    current = user
    while (nxt := fit.next_setting("vae-decode", user, current, tried)) is not None:
        seen.append(nxt)
        tried.add(nxt)
        current = nxt
    assert seen == fit.ladder("vae-decode", user)[1:]
    assert len(seen) == 3


def test_changes_and_settings_round_trip_json() -> None:
    old = StageSettings("vulkan0")
    new = dataclasses.replace(old, vae_tiling=True, vae_tile_size=32)
    changes = fit.changes_between("vae-decode", old, new, fit.WHY_OUT_OF_MEMORY)
    assert [c.to_json() for c in changes] == [
        {"stage": "vae-decode", "what": "vae_tiling", "from": False, "to": True,
         "why": "out_of_memory"},
        {"stage": "vae-decode", "what": "vae_tile_size", "from": None, "to": 32,
         "why": "out_of_memory"},
    ]  # fmt: skip
    assert [fit.Change.from_json(c.to_json()) for c in changes] == changes
    assert StageSettings.from_json(new.to_json()) == new


def test_largest_size_that_fits_without_slow_settings() -> None:
    """For 352:864 on the 8 GB card, 2 GB cap: the DiT with FA fits while weights + compute
    ≤ the budget; the compute grows ~ with the pixels (1422 MB at 1024²)."""

    def fits_at(w: int, h: int) -> bool:
        compute = int(1422 * MB * (w * h) / (1024 * 1024))
        plan = StagePlan("diffuse", w, h, {}, (share("vulkan0", DIT_WEIGHTS, compute, 1),))
        return fit.verdict(plan, "vulkan0", CARD, CAP_MB).fits

    best = fit.largest_size(352, 864, fits_at)
    assert best is not None
    w, h = best
    assert w % 16 == 0 and h % 16 == 0 and h > w
    assert fits_at(w, h) and not fits_at(*fit.size_for(352, 864, h + 16))
    assert abs(w / h - 352 / 864) < 0.03
    assert 1.5e6 < w * h < 1.7e6  # (7193 − 5011 MiB) / 1422 MiB · 1024² ≈ 1.61 Mpx
    assert fit.largest_size(1, 1, lambda w, h: False) is None


def test_slow_settings() -> None:
    user = StageSettings("vulkan0")
    assert not fit.is_slow(user, StageSettings("vulkan0", vae_tiling=True, vae_tile_size=16))
    assert not fit.is_slow(user, StageSettings("vulkan0", flash_attention=True))
    assert fit.is_slow(user, StageSettings("cpu"))
    assert fit.is_slow(user, StageSettings("vulkan0", weights_on_cpu=True, max_vram_gib=2.0))


def test_the_graph_cut_bounds_an_uncut_plan_by_its_budget() -> None:
    """The engine plans the uncut graph, weights counted on the device: the last diffuse rung
    fits through the cut (the plain and FA rungs do not), and the cap still applies."""

    def uncut(s: StageSettings) -> StagePlan:  # 5 GB weights + 3.5 GB compute on the device
        return StagePlan("diffuse", 1536, 1536, {},
                         (share(s.device, DIT_WEIGHTS, 3500 * MB, 300 * MB),))  # fmt: skip

    user = StageSettings("vulkan0", flash_attention=True)
    f = fit.fit_stage("diffuse", user, uncut, INFOS, CAP_MB)
    assert f.fits and f.settings.weights_on_cpu and f.settings.max_vram_gib == 7.0
    assert f.verdict is not None and f.verdict.total_bytes == 7 * GIB
    assert [c.what for c in f.changes] == ["weights_on_cpu", "max_vram_gib"]


def test_the_job_plan_finds_the_largest_size_with_few_plans() -> None:
    """plan_job: every stage fitted; the largest fast size from two probes per sized stage,
    extrapolated and checked (each plan is an engine call)."""
    from app.pipeline.execute.job_plan import plan_job
    from app.pipeline.job.spec import JobSpec, ModelFiles

    calls: list[tuple[str, int, int]] = []

    def planner_for(stage: str, w: int, h: int):
        def plan(s: StageSettings) -> StagePlan:
            calls.append((stage, w, h))
            k = w * h / (1024 * 1024)
            if stage == "diffuse":
                compute = int((1422 if s.flash_attention else 3654) * MB * k)
                return StagePlan(stage, w, h, {}, (share(s.device, DIT_WEIGHTS, compute, MB),))
            if stage == "vae-decode":
                compute = 1665 * MB if s.vae_tiling else int(6658 * MB * k)
                largest = im2col_bytes(512, 512) if s.vae_tiling else im2col_bytes(w, h)
                return StagePlan(stage, w, h, {}, (share(s.device, VAE_WEIGHTS, compute, largest),))
            return StagePlan(stage, w, h, {}, (share(s.device, 4599 * MB, 150 * MB, 631 * MB),))

        return plan

    spec = JobSpec(
        ModelFiles("d", "l", "v"),
        "x",
        devices=DeviceChoice(diffusion="vulkan0", vae="vulkan0", max_alloc_mb=CAP_MB),
    )
    plan = plan_job(spec, 352, 864, planner_for, INFOS)
    assert plan.fits["diffuse"].settings.flash_attention  # the job's default: FA on
    assert not plan.fits["vae-decode"].settings.vae_tiling  # 1.4 GB im2col fits 2 GiB
    search = [c for c in calls if c[1:] != (352, 864)]
    assert len(search) <= 6, search  # 2 probes × 2 stages + 1 check per stage
    assert plan.largest is not None
    w, h = plan.largest
    assert 1.5e6 < w * h < 1.7e6 and not plan.too_large  # as test_largest_size_…: 1.61 Mpx
    assert plan_job(spec, 1024, 2048, planner_for, INFOS, search=True).too_large
    unknown = {"vulkan0": DeviceInfo("vulkan0", "?"), "cpu": DeviceInfo("cpu", "?")}
    free = dataclasses.replace(spec, devices=dataclasses.replace(spec.devices, max_alloc_mb=0))
    assert plan_job(free, 352, 864, planner_for, unknown).largest is None
