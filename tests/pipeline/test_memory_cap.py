"""A simulated driver cap on lavapipe (GGML_VK_VISIBLE_DEVICES=0, the job's max_alloc_mb →
GGML_VK_FORCE_MAX_ALLOCATION_SIZE just below what an untiled vae-decode's largest tensor needs
at the test size, above a 32-cell tile's): with fitting on, the run tiles up front from the
plan; with fitting off, the untiled decode runs out of memory, is retried tiled and gives the
same picture as the run tiled from the start (the fitting-on run: one module-wide run, whose
stage cache the fitting-off run shares: its prompt is not encoded again). Uses the engine's
--plan and its OOM exit (for a refused allocation) and a Vulkan ICD; skips cleanly otherwise."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.paths import app_paths
from app.engine.argv import CommonArgs, Placement, VaeDecodeArgs
from app.engine.plan import parse_plan
from app.pipeline import events as ev
from app.pipeline.api import RunSnapshot
from app.pipeline.control import RunControl
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
from app.pipeline.run.folder import open_run

MIB = 1024 * 1024
# 36 × 4 latent cells: a 32-cell tile is 8/9 of the picture (lavapipe decodes slowly: small)
W, H = 576, 64

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(1800),  # lavapipe: a decode takes minutes on a loaded 2-core machine
]


@pytest.fixture(scope="module")
def lavapipe(sd_stage_vulkan: Path) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GGML_VK_VISIBLE_DEVICES", "0")
        listing = subprocess.run(
            [str(sd_stage_vulkan), "--list-devices"], capture_output=True, timeout=120, check=False
        )
        text = (listing.stdout + listing.stderr).lower()
        if b"llvmpipe" not in text:
            pytest.skip("no lavapipe Vulkan device here")
        yield sd_stage_vulkan


def largest_decode_tensor(engine: Path, vae: Path, tmp: Path, tiled: bool) -> int:
    args = VaeDecodeArgs(
        vae=vae,
        load_latent=tmp / "absent_latent.bin",  # planned from -W -H (native/PROTOCOL.md)
        output=tmp / "plan.png",
        common=CommonArgs(
            threads=1,
            placement=Placement(vae="vulkan0"),
            vae_tiling=tiled,
            vae_tile_size=32 if tiled else None,
        ),
    )
    argv = [str(engine), *args.to_argv(), "-W", str(W), "-H", str(H), "--plan"]
    done = subprocess.run(argv, capture_output=True, timeout=300, check=True, env=os.environ)
    plan = parse_plan(done.stdout.decode().strip().splitlines()[-1])
    share = plan.on("vulkan0")
    assert share is not None, plan
    return share.largest_tensor_bytes


def job(models, cap_mb: int, **devices: object) -> JobSpec:
    return JobSpec(
        models=ModelFiles(str(models.diffusion), str(models.llm), str(models.vae)),
        prompt="a lighthouse",
        width=W,
        height=H,
        steps=1,
        devices=DeviceChoice(
            threads=1, diffusion="vulkan0", vae="vulkan0", max_alloc_mb=cap_mb, **devices
        ),  # type: ignore[arg-type]
    )


@pytest.fixture(scope="module")
def cap_mb(lavapipe: Path, tiny_models, tmp_path_factory: pytest.TempPathFactory) -> int:
    tmp = tmp_path_factory.mktemp("cap-plans")
    untiled = largest_decode_tensor(lavapipe, tiny_models.vae, tmp, tiled=False)
    tiled = largest_decode_tensor(lavapipe, tiny_models.vae, tmp, tiled=True)
    cap = (untiled - 1) // MIB  # just below the untiled decode's largest tensor
    assert tiled < cap * MIB, (untiled, tiled)
    return cap


@pytest.fixture(scope="module")
def shared_home(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One STEPWISE_HOME for the module's runs: the fitting-off run reuses the fitting-on
    run's text encoding and diffusion from the stage cache."""
    return {"STEPWISE_HOME": str(tmp_path_factory.mktemp("memory-cap-home"))}


@pytest.fixture(scope="module")
def fitted_run(lavapipe: Path, tiny_models, cap_mb: int, shared_home) -> tuple[RunSnapshot, list]:
    """The job with fitting on, run once for the module: its events and its run."""
    from app.pipeline.runner import Pipeline

    pipeline = Pipeline(app_paths(shared_home), lavapipe)
    run = pipeline.create_run(job(tiny_models, cap_mb))
    return run, list(pipeline.execute(run.dir, RunControl()))


def test_fitting_on_the_run_tiles_up_front(fitted_run) -> None:
    run, events = fitted_run
    assert isinstance(events[-1], ev.RunFinished), events[-3:]
    rec = open_run(run.dir).stage("vae-decode")
    assert [(c["what"], c["to"], c["why"]) for c in rec.memory_changes] == [
        ("vae_tiling", True, "plan"),
        ("vae_tile_size", 32, "plan"),
    ]
    assert not any("Retrying" in e.text for e in events if isinstance(e, ev.LogLine))


def test_fitting_off_the_decode_fails_is_retried_tiled_and_equals_a_tiled_run(
    lavapipe: Path, tiny_models, cap_mb: int, shared_home, fitted_run
) -> None:
    from app.pipeline.runner import Pipeline

    tiled, tiled_events = fitted_run  # tiled from the start (32-cell tiles, the plan's choice)
    assert isinstance(tiled_events[-1], ev.RunFinished), tiled_events[-3:]
    memory = open_run(tiled.dir).stage("vae-decode").memory
    assert (memory["vae_tiling"], memory["vae_tile_size"]) == (True, 32), memory
    pipeline = Pipeline(app_paths(shared_home), lavapipe)
    run = pipeline.create_run(job(tiny_models, cap_mb, fit_memory=False))
    events = list(pipeline.execute(run.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-3:]
    cached = {e.stage for e in events if isinstance(e, ev.StageFinished) and e.cached}
    assert "llm-encode" in cached, cached  # the module's stage cache is shared
    rec = open_run(run.dir).stage("vae-decode")
    assert [(c["what"], c["to"], c["why"]) for c in rec.memory_changes] == [
        ("vae_tiling", True, "out_of_memory"),
        ("vae_tile_size", 32, "out_of_memory"),
    ]
    assert (run.dir / "result.png").read_bytes() == (tiled.dir / "result.png").read_bytes()
