"""Out-of-memory recovery (pipeline/execute/memory_retry.py): fit before run, retry with the next
setting, record what changed. The first tests drive run_fitted with a stage that only injects
faults (it implements the Stage protocol); the engine-driven ones use the engine's
(`--plan`, SD_STAGE_TEST_OOM_AT_STEP / SD_STAGE_TEST_OOM_DECODE)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.core.paths import app_paths
from app.engine.errors import EngineOutOfMemory
from app.engine.plan import DevicePlan, StagePlan
from app.pipeline import events as ev
from app.pipeline.api import DeviceInfo
from app.pipeline.cache.store import StageCache
from app.pipeline.control import RunControl
from app.pipeline.execute import fit
from app.pipeline.execute.engine_stage import common_args
from app.pipeline.execute.fit import StageSettings
from app.pipeline.execute.memory_retry import run_fitted
from app.pipeline.execute.stages import StageContext
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
from app.pipeline.run.folder import Run, create_run, open_run

GIB = 1024**3
ROOT = Path(__file__).resolve().parents[2]


class OomStage:
    """A vae-decode stand-in: fails with out of memory while the settings are in `oom_for`."""

    name = "vae-decode"

    def __init__(self, oom_for: list[StageSettings]) -> None:
        self.oom_for = oom_for
        self.ran: list[StageSettings | None] = []

    def outputs(self, run: Run) -> dict[str, str]:
        return {}

    def args(self, run: Run, settings: StageSettings | None = None):
        raise AssertionError("the test planner does not build arguments")

    def run(self, ctx: StageContext):
        self.ran.append(ctx.settings)
        yield ev.LogLine(self.name, "decoding")
        if ctx.settings in self.oom_for:
            raise EngineOutOfMemory("out of memory (simulated)")
        return False


def make_run(tmp_path: Path, **devices: object) -> Run:
    spec = JobSpec(
        models=ModelFiles("dit.gguf", "llm.gguf", "vae.safetensors"),
        prompt="x",
        devices=DeviceChoice(**devices),  # type: ignore[arg-type]
    )
    return create_run(tmp_path / "runs", spec, tmp_path / "run")


def ctx_for(run: Run, tmp_path: Path) -> StageContext:
    cache = StageCache(tmp_path / "cache", 1 << 20)
    return StageContext(run, RunControl(), tmp_path / "sd-stage", "key", cache)


def drive(gen):
    events = []
    try:
        while True:
            events.append(next(gen))
    except StopIteration as stop:
        return stop.value, events


def no_plan(ctx, obj):
    def plan(settings: StageSettings) -> StagePlan:
        raise NotImplementedError("no --plan")

    return plan


UNTILED = StageSettings("vulkan0")
TILED32 = StageSettings("vulkan0", vae_tiling=True, vae_tile_size=32)
TILED16 = StageSettings("vulkan0", vae_tiling=True, vae_tile_size=16)
CPU16 = StageSettings("cpu", vae_tiling=True, vae_tile_size=16)


def test_oom_retries_with_the_next_setting_and_records_it(tmp_path: Path) -> None:
    run = make_run(tmp_path, vae="vulkan0", fit_memory=False)
    stage = OomStage([UNTILED])
    cached, events = drive(run_fitted(stage, ctx_for(run, tmp_path), dict, no_plan))
    assert cached is False
    assert stage.ran == [UNTILED, TILED32]
    rec = open_run(run.dir).stage("vae-decode")  # what run.json says, read back
    assert rec.memory == TILED32.to_json()
    assert rec.memory_changes == [
        {"stage": "vae-decode", "what": "vae_tiling", "from": False, "to": True,
         "why": "out_of_memory"},
        {"stage": "vae-decode", "what": "vae_tile_size", "from": None, "to": 32,
         "why": "out_of_memory"},
    ]  # fmt: skip
    lines = [e.text for e in events if isinstance(e, ev.LogLine)]
    assert any("Retrying" in t for t in lines)
    assert "vae-decode: VAE tiling False → True (the stage ran out of memory)" in lines


def test_each_setting_is_tried_once_then_the_failure_stands(tmp_path: Path) -> None:
    run = make_run(tmp_path, vae="vulkan0")
    stage = OomStage([UNTILED, TILED32, TILED16, CPU16])
    with pytest.raises(EngineOutOfMemory):
        drive(run_fitted(stage, ctx_for(run, tmp_path), dict, no_plan))
    assert stage.ran == [UNTILED, TILED32, TILED16, CPU16]
    changes = open_run(run.dir).stage("vae-decode").memory_changes
    assert [c["what"] for c in changes] == ["vae_tiling", "vae_tile_size", "vae_tile_size",
                                            "device"]  # fmt: skip


def test_the_plan_picks_tiling_up_front(tmp_path: Path) -> None:
    run = make_run(tmp_path, vae="vulkan0", max_alloc_mb=512)
    infos = {"vulkan0": DeviceInfo("vulkan0", "gpu", total_bytes=8 * GIB, max_alloc_bytes=GIB)}
    stage = OomStage([])
    planned: list[StageSettings] = []

    def planner(ctx, obj):
        def plan(s: StageSettings) -> StagePlan:
            planned.append(s)
            largest = 300 << 20 if s.vae_tiling else 700 << 20  # untiled > the 512 MB cap
            share = DevicePlan("vulkan0", 1, 1 << 30, largest, largest, 1 << 30)
            return StagePlan("vae-decode", 512, 512, {}, (share,))

        return plan

    drive(run_fitted(stage, ctx_for(run, tmp_path), lambda: infos, planner))
    assert planned == [UNTILED, TILED32]
    assert stage.ran == [TILED32]  # never ran untiled
    changes = open_run(run.dir).stage("vae-decode").memory_changes
    assert {c["why"] for c in changes} == {"plan"}


def test_fit_memory_off_plans_nothing(tmp_path: Path) -> None:
    run = make_run(tmp_path, vae="vulkan0", fit_memory=False)

    def planner(ctx, obj):
        raise AssertionError("fit_memory off: no plan")

    stage = OomStage([])
    drive(run_fitted(stage, ctx_for(run, tmp_path), dict, planner))
    assert stage.ran == [UNTILED]
    assert open_run(run.dir).stage("vae-decode").memory_changes == []


class NamedStage(OomStage):
    """OomStage under another stage's name (its ladder is that stage's)."""

    def __init__(self, name: str) -> None:
        super().__init__([])
        self.name = name


@pytest.mark.parametrize(
    ("stage_name", "devices", "plans"),
    [
        ("llm-encode", {"llm": "cpu"}, 0),  # the CPU has no other setting
        ("diffuse", {"diffusion": "cpu", "flash_attention": True}, 0),
        ("diffuse", {"diffusion": "cpu", "flash_attention": False}, 1),  # fa is a saver
        ("llm-encode", {"llm": "vulkan0"}, 1),  # the CPU is the next setting
        ("vae-decode", {"vae": "cpu"}, 1),  # tiles are savers on the CPU too
    ],
)
def test_a_ladder_of_one_setting_is_not_planned(
    tmp_path: Path, stage_name: str, devices: dict, plans: int
) -> None:
    run = make_run(tmp_path, **devices)
    planned: list[StageSettings] = []

    def planner(ctx, obj):
        def plan(s: StageSettings) -> StagePlan:
            planned.append(s)
            return StagePlan(stage_name, 64, 64, {}, (DevicePlan(s.device, 1, 1, 1, 1, 2),))

        return plan

    stage = NamedStage(stage_name)
    drive(run_fitted(stage, ctx_for(run, tmp_path), dict, planner))
    assert len(planned) == plans
    assert stage.ran == [fit.job_settings(stage_name, run.spec.devices)]  # the job's settings
    assert (len(fit.ladder(stage_name, stage.ran[0])) == 1) == (plans == 0)


def test_settings_reach_the_engine_flags_and_the_cap_the_environment(tmp_path: Path) -> None:
    spec = make_run(tmp_path, max_alloc_mb=1536, threads=1).spec
    graph_cut = StageSettings("vulkan0", True, weights_on_cpu=True, max_vram_gib=2.5)
    common = common_args(spec, "diffusion", graph_cut)
    argv = common.to_argv()
    assert argv[argv.index("--backend") + 1] == "diffusion=vulkan0"
    assert argv[argv.index("--params-backend") + 1] == "cpu"
    assert argv[argv.index("--max-vram") + 1] == "2.5"
    assert "--diffusion-fa" in argv
    cap = str(1536 * 1024**2)
    assert common.environment() == {
        "GGML_VK_FORCE_MAX_ALLOCATION_SIZE": cap,
        "GGML_VK_FORCE_MAX_BUFFER_SIZE": cap,
    }
    vae = common_args(spec, "vae", CPU16).to_argv()
    assert vae[vae.index("--backend") + 1] == "vae=cpu"
    assert vae[vae.index("--vae-tile-size") + 1] == "16x16" and "--vae-tiling" in vae
    # a stage on the CPU sees no GPU (the pinned sd.cpp refuses diffusion=cpu beside one)
    cpu_env = common_args(make_run(tmp_path / "b").spec, "vae").environment()
    assert cpu_env == {
        "GGML_VK_VISIBLE_DEVICES": "none",
        "VK_DRIVER_FILES": os.devnull,
        "VK_ICD_FILENAMES": os.devnull,
    }
    on_gpu = StageSettings("vulkan0", False)
    assert common_args(make_run(tmp_path / "c").spec, "vae", on_gpu).environment() == {}


# ---------------------------------------------------------------- with the real engine


def test_oom_mid_diffuse_resumes_from_the_last_checkpoint(
    sd_stage: Path, tiny_models, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The engine fails as out of memory after checkpointing step 2 of 4; the retry (flash
    attention on) resumes after step 2: the engine ran steps 1, 2, then 3, 4 — none twice."""
    from app.pipeline.runner import Pipeline

    pipeline = Pipeline(app_paths(), sd_stage)
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a cat",
        width=128,
        height=128,
        steps=4,
        devices=DeviceChoice(threads=1, flash_attention=False, fit_memory=False),
    )
    run = pipeline.create_run(spec)
    monkeypatch.setenv("SD_STAGE_TEST_OOM_AT_STEP", "2")
    # The hook fires when step 2's checkpoint is written; the retry resumes after step 2, so it
    # writes no step-2 checkpoint and runs on.
    events = list(pipeline.execute(run.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-3:]
    steps = [e.step for e in events if isinstance(e, ev.StepProgressed)]
    assert steps == [1, 2, 3, 4], steps  # every step ran once: none before the checkpoint again
    lines = [e.text for e in events if isinstance(e, ev.LogLine)]
    assert "Resuming from the checkpoint after step 2." in lines
    rec = open_run(run.dir).stage("diffuse")
    assert [(c["what"], c["why"]) for c in rec.memory_changes] == [
        ("flash_attention", "out_of_memory")
    ]
    assert os.path.exists(run.dir / "result.png")


def _job(models, **devices: object) -> JobSpec:
    return JobSpec(
        models=ModelFiles(str(models.diffusion), str(models.llm), str(models.vae)),
        prompt="a cat",
        width=128,
        height=128,
        steps=2,
        devices=DeviceChoice(threads=1, **devices),  # type: ignore[arg-type]
    )


def test_decode_oom_with_fitting_off_is_retried_tiled_and_equals_a_tiled_run(
    sd_stage: Path, tiny_models, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.pipeline.runner import Pipeline

    pipeline = Pipeline(app_paths(), sd_stage)
    tiled = pipeline.create_run(_job(tiny_models, vae_tiling=True, vae_tile_size=32))
    assert isinstance(list(pipeline.execute(tiled.dir, RunControl()))[-1], ev.RunFinished)
    monkeypatch.setenv("SD_STAGE_TEST_OOM_DECODE", "1")  # an untiled decode fails as OOM
    run = pipeline.create_run(_job(tiny_models, fit_memory=False))
    events = list(pipeline.execute(run.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-3:]
    rec = open_run(run.dir).stage("vae-decode")
    assert [(c["what"], c["to"], c["why"]) for c in rec.memory_changes] == [
        ("vae_tiling", True, "out_of_memory"),
        ("vae_tile_size", 32, "out_of_memory"),
    ]
    assert rec.memory == TILED32.to_json() | {"device": "cpu"}
    assert (run.dir / "result.png").read_bytes() == (tiled.dir / "result.png").read_bytes()


def test_ladder_for_the_retry_matches_fit() -> None:
    """The retry walks the same documented order the plan does."""
    user = fit.job_settings("vae-decode", DeviceChoice(vae="vulkan0"))
    assert fit.ladder("vae-decode", user) == [UNTILED, TILED32, TILED16, CPU16]


def test_status_json_reports_the_memory_changes(tmp_path: Path) -> None:
    from app.pipeline.run.status import status_json
    from app.pipeline.runner import snapshot_of

    run = make_run(tmp_path, vae="vulkan0", fit_memory=False)
    drive(run_fitted(OomStage([UNTILED]), ctx_for(run, tmp_path), dict, no_plan))
    stages = {s["name"]: s for s in status_json(snapshot_of(open_run(run.dir)))["stages"]}
    memory = stages["vae-decode"]["memory"]
    assert memory["settings"] == TILED32.to_json()
    assert [c["why"] for c in memory["changes"]] == ["out_of_memory", "out_of_memory"]
    assert stages["diffuse"]["memory"] is None
