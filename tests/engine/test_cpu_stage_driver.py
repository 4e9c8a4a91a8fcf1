"""A stage placed on the CPU loads no Vulkan driver (app/engine/argv.py NO_DRIVER_ENVS): with
the Vulkan engine, ggml-vulkan makes no instance and lists no device for it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from app.engine.argv import (
    NO_DRIVER_ENVS,
    CommonArgs,
    Placement,
    VaeEncodeArgs,
    build_argv,
)
from app.engine.process import engine_environment
from tests.engine.real_engine import make_images

VULKAN_LISTING = "ggml_vulkan: Found"  # what ggml-vulkan logs once it has made an instance


def _plan_stderr(engine: Path, args: VaeEncodeArgs, env: dict[str, str]) -> str:
    done = subprocess.run(
        [*map(str, build_argv(engine, args)), "--plan"],
        env=env,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr


def test_a_stage_on_the_cpu_loads_no_vulkan_driver(
    sd_stage_vulkan: Path, tiny_models, tmp_path: Path
) -> None:
    images = make_images(tmp_path / "images", 64, 64)
    common = CommonArgs(threads=1, placement=Placement(vae="cpu"))
    args = VaeEncodeArgs(
        vae=tiny_models.vae,
        width=64,
        height=64,
        init_image=images.init,
        save_latent=tmp_path / "init.bin",
        common=common,
    )
    app_env = engine_environment(common.environment())
    assert all(app_env[var] for var in NO_DRIVER_ENVS)
    # The control: the same stage with its drivers left to the loader makes an instance.
    drivers_left = {k: v for k, v in app_env.items() if k not in NO_DRIVER_ENVS}
    if VULKAN_LISTING not in _plan_stderr(sd_stage_vulkan, args, drivers_left):
        pytest.skip("no Vulkan driver installed here: nothing to keep from loading")
    assert VULKAN_LISTING not in _plan_stderr(sd_stage_vulkan, args, app_env)
