"""A stage on the CPU beside a GPU (the real Vulkan engine on lavapipe, listed with
GGML_VK_VISIBLE_DEVICES=0): the pinned sd.cpp refuses `--backend diffusion=cpu` while it sees a
GPU ("cannot keep the diffusion model on the CPU when a GPU is present", exit 2), so a stage
placed on the CPU runs with every Vulkan device hidden from its process. Diffusion (and the text
encoder) on the CPU with the VAE on the GPU runs to the end, each stage on the device chosen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.core.paths import app_paths
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]  # lavapipe on a loaded machine


def loaded_on(log: Path) -> list[str]:
    """The devices the engine said it loaded models on (its `load` events in the stage log)."""
    found = []
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("{") and '"load"' in line:
            found.append(json.loads(line).get("device"))
    return found


def test_diffusion_on_the_cpu_and_the_vae_on_the_gpu_runs(lavapipe: Path, tiny_models) -> None:
    from app.pipeline.runner import Pipeline

    pipeline = Pipeline(app_paths(), lavapipe)
    assert {d.name for d in pipeline.devices()} == {"cpu", "vulkan0"}
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a lighthouse",
        width=128,
        height=128,
        steps=1,
        devices=DeviceChoice(threads=1, llm="cpu", diffusion="cpu", vae="vulkan0"),
    )
    run = pipeline.create_run(spec)
    events = list(pipeline.execute(run.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-3:]
    assert (run.dir / "result.png").is_file()
    manifest = json.loads((run.dir / "run.json").read_text(encoding="utf-8"))
    devices = {s: manifest["stages"][s]["memory"]["device"] for s in ("diffuse", "vae-decode")}
    assert devices == {"diffuse": "cpu", "vae-decode": "vulkan0"}


@pytest.mark.parametrize("device", ["cpu", "vulkan0"])
def test_the_devices_pane_plans_diffusion_on_every_listed_device(
    lavapipe: Path, tiny_models, tmp_path: Path, device: str
) -> None:
    """The Devices pane's plan (the engine's --plan per stage) for each device the engine lists:
    each one plans, none is an engine error, and the plan names the device it will run on."""
    from app.pipeline.execute.job_plan import engine_planner_for, plan_job
    from app.pipeline.runner import Pipeline

    infos = {d.name: d for d in Pipeline(app_paths(), lavapipe).devices()}
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a lighthouse",
        width=128,
        height=128,
        steps=1,
        devices=DeviceChoice(threads=1, llm=device, diffusion=device, vae=device),
    )
    planner_for = engine_planner_for(lavapipe, spec, tmp_path)
    plan = plan_job(spec, 128, 128, planner_for, infos, search=False)
    for stage in ("llm-encode", "diffuse", "vae-decode"):
        fitted = plan.fits[stage]
        assert fitted.settings.device == device and fitted.plan is not None, fitted
        assert fitted.plan.on(device) is not None, fitted.plan
