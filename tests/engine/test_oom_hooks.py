"""The engine's out-of-memory test hooks (native/PROTOCOL.md, "Test hooks"): they fail exactly
as a real out-of-memory does (exit 4, an error event with code 4, EngineOutOfMemory), after
the checkpoint they name, so a retry can resume from it."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from app.engine.argv import CommonArgs, DiffuseArgs, LlmEncodeArgs, VaeDecodeArgs
from app.engine.devices import list_devices
from app.engine.errors import EXIT_OUT_OF_MEMORY, EngineOutOfMemory
from app.engine.events import ErrorEvent, Progress
from app.engine.tensorfile import read_tensors, write_tensors
from tests.engine.real_engine import run_stage

STEPS = 4


def _env(**hooks: str) -> dict[str, str]:
    return {**os.environ, **hooks}


def _cond(sd_stage: Path, tiny_models, out: Path) -> Path:
    args = LlmEncodeArgs(
        llm=tiny_models.llm, prompt="a fox", save_embeddings=out / "cond.bin",
        common=CommonArgs(threads=1),
    )  # fmt: skip
    run_stage(sd_stage, args, out / "llm.log")
    return out / "cond.bin"


def test_oom_at_step_fails_after_that_checkpoint_and_resume_goes_on(
    sd_stage, tiny_models, tmp_path
) -> None:
    cond = _cond(sd_stage, tiny_models, tmp_path)
    ck = tmp_path / "checkpoints"
    args = DiffuseArgs(
        diffusion_model=tiny_models.diffusion, load_embeddings=cond, width=128, height=128,
        steps=STEPS, seed=3, save_latent=tmp_path / "final.bin", checkpoint_dir=ck,
        common=CommonArgs(threads=1),
    )  # fmt: skip
    env = _env(SD_STAGE_TEST_OOM_AT_STEP="2")
    failed = run_stage(sd_stage, args, tmp_path / "oom.log", env=env, check=False)
    assert failed.returncode == EXIT_OUT_OF_MEMORY
    assert isinstance(failed.error, EngineOutOfMemory)
    errors = [e for e in failed.events if isinstance(e, ErrorEvent)]
    assert [e.code for e in errors] == [EXIT_OUT_OF_MEMORY]
    assert "out of memory" in errors[0].message
    assert [e.step for e in failed.events if isinstance(e, Progress)] == [1, 2]
    meta = json.loads((ck / "metadata.json").read_text())
    assert meta["last_completed_step"] == 2
    assert sorted(p.name for p in ck.glob("step_*.bin")) == [
        "step_000.bin", "step_001.bin", "step_002.bin",
    ]  # fmt: skip
    assert not (tmp_path / "final.bin").exists()

    # The retry resumes from step 2 with the hook still set: it does not fire again at 2.
    resumed = run_stage(sd_stage, replace(args, resume_step=2), tmp_path / "resume.log", env=env)
    assert resumed.returncode == 0
    assert [e.step for e in resumed.events if isinstance(e, Progress)] == [3, 4]
    fresh = replace(args, save_latent=tmp_path / "straight.bin", checkpoint_dir=tmp_path / "ck2")
    straight = run_stage(sd_stage, fresh, tmp_path / "straight.log")
    assert straight.returncode == 0
    np.testing.assert_array_equal(
        read_tensors(tmp_path / "final.bin")["latent"],
        read_tensors(tmp_path / "straight.bin")["latent"],
    )


def test_oom_decode_fails_untiled_only(sd_stage, tiny_models, tmp_path) -> None:
    latent = tmp_path / "latent.bin"
    write_tensors(latent, {"latent": np.zeros((1, 128, 8, 8), np.float32)})
    env = _env(SD_STAGE_TEST_OOM_DECODE="1")
    untiled = VaeDecodeArgs(
        vae=tiny_models.vae,
        load_latent=latent,
        output=tmp_path / "u.png",
        common=CommonArgs(threads=1),
    )
    failed = run_stage(sd_stage, untiled, tmp_path / "u.log", env=env, check=False)
    assert failed.returncode == EXIT_OUT_OF_MEMORY
    assert isinstance(failed.error, EngineOutOfMemory)
    assert [e.code for e in failed.events if isinstance(e, ErrorEvent)] == [EXIT_OUT_OF_MEMORY]
    assert not (tmp_path / "u.png").exists()
    assert "failed to allocate" in failed.log.read_text()

    tiled = replace(
        untiled, output=tmp_path / "t.png", common=CommonArgs(threads=1, vae_tiling=True)
    )
    assert run_stage(sd_stage, tiled, tmp_path / "t.log", env=env).returncode == 0
    assert (tmp_path / "t.png").stat().st_size > 0


def test_a_real_device_allocation_failure_is_out_of_memory(
    sd_stage_vulkan, tiny_models, tmp_path
) -> None:
    """lavapipe with a buffer cap below the VAE's weights: the allocation fails for real and
    the stage ends with exit 4 and an error event (not SIGABRT, not exit 1)."""
    env = _env(GGML_VK_VISIBLE_DEVICES="0", GGML_VK_FORCE_MAX_BUFFER_SIZE="65536")
    if not any(d.name.startswith("Vulkan") for d in list_devices(sd_stage_vulkan, env)):
        pytest.skip("no Vulkan device (no ICD such as Mesa's lavapipe installed)")
    latent = tmp_path / "latent.bin"
    write_tensors(latent, {"latent": np.zeros((1, 128, 8, 8), np.float32)})
    args = VaeDecodeArgs(
        vae=tiny_models.vae, load_latent=latent, output=tmp_path / "o.png",
        common=CommonArgs(threads=1),
    )  # fmt: skip
    failed = run_stage(sd_stage_vulkan, args, tmp_path / "vk.log", env=env, check=False)
    assert failed.returncode == EXIT_OUT_OF_MEMORY, failed.log.read_text()[-2000:]
    assert isinstance(failed.error, EngineOutOfMemory)
    assert [e.code for e in failed.events if isinstance(e, ErrorEvent)] == [EXIT_OUT_OF_MEMORY]
    assert not (tmp_path / "o.png").exists()
