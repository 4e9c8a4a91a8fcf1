"""The staged flow on the tiny models that take the real files' paths (TinySpec.real_file_paths:
36 LLM layers with 32 heads, a Q4_K token embedding and Q4_K / Q6_K weights, BF16 DiT in/out
layers and norm scales), on the CPU build: the four stages run, their outputs are finite, the
text encoder loads neither the blocks klein never computes nor an F32 copy of the embedding,
vae-encode loads only the encoder, and a resumed diffuse is byte-identical."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from app.engine.argv import CommonArgs
from app.engine.events import Progress
from app.engine.tensorfile import read_tensors
from tests.engine.real_engine import (
    COND,
    FINAL_LATENT,
    IMAGE,
    INIT_LATENT,
    Job,
    make_images,
    run_stage,
    stage_args,
)
from tests.models.generate import ModelSet, TinySpec, generate_models

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

STEPS = 4
LLM_HIDDEN = 256  # TinySpec.real_file_paths(): a K-quant row holds 256 values
LAST_READ_LAYER = 27  # klein reads the hidden states after layers 9, 18, 27
LAYERS = 36


@pytest.fixture(scope="module")
def real_paths_models(tmp_path_factory: pytest.TempPathFactory) -> ModelSet:
    return generate_models(tmp_path_factory.mktemp("real-paths"), TinySpec.real_file_paths())


@pytest.fixture(scope="module")
def job(tmp_path_factory: pytest.TempPathFactory) -> Job:
    images = make_images(tmp_path_factory.mktemp("images"))
    return Job(steps=STEPS, strength=0.9, init_image=images.init, mask=images.mask, seed=11)


def _one_thread(stages: dict) -> dict:
    return {name: replace(args, common=CommonArgs(threads=1)) for name, args in stages.items()}


@pytest.fixture(scope="module")
def staged(sd_stage, real_paths_models, job, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("staged")
    runs = {}
    for name, args in _one_thread(stage_args(real_paths_models, job, out)).items():
        runs[name] = run_stage(sd_stage, args, out / f"{name}.log")
    return out, runs


def test_the_set_takes_the_real_files_paths(real_paths_models):
    import gguf

    llm = {t.name: t for t in gguf.GGUFReader(real_paths_models.llm).tensors}
    assert llm["token_embd.weight"].tensor_type == gguf.GGMLQuantizationType.Q4_K
    assert f"blk.{LAYERS - 1}.ffn_down.weight" in llm and f"blk.{LAYERS}.attn_q.weight" not in llm
    assert list(llm["blk.0.attn_q.weight"].shape) == [LLM_HIDDEN, 32 * 128]  # 32 heads, not 16
    assert llm["blk.0.attn_v.weight"].tensor_type == gguf.GGMLQuantizationType.Q6_K
    dit = {t.name: t for t in gguf.GGUFReader(real_paths_models.diffusion).tensors}
    for name in ("img_in.weight", "txt_in.weight", "time_in.in_layer.weight",
                 "final_layer.linear.weight", "single_blocks.0.norm.query_norm.scale"):  # fmt: skip
        assert dit[name].tensor_type == gguf.GGMLQuantizationType.BF16, name
    assert dit["single_blocks.0.linear1.weight"].tensor_type == gguf.GGMLQuantizationType.Q4_0


def test_four_stages_run_and_their_outputs_are_finite(staged, job):
    out, runs = staged
    assert list(runs) == ["vae-encode", "llm-encode", "diffuse", "vae-decode"]
    init = read_tensors(out / INIT_LATENT)["latent"]
    assert init.shape == (1, 128, job.height // 16, job.width // 16) and np.isfinite(init).all()
    cond = read_tensors(out / COND)["c_crossattn"]
    assert cond.shape[-1] == 3 * LLM_HIDDEN and np.isfinite(cond).all() and cond.std() > 0
    final = read_tensors(out / FINAL_LATENT)["latent"]
    assert np.isfinite(final).all() and not np.array_equal(final, init)
    steps = [e.step for e in runs["diffuse"].events if isinstance(e, Progress)]
    assert steps == list(range(1, len(steps) + 1)) and steps
    from PIL import Image

    with Image.open(out / IMAGE) as image:
        pixels = np.asarray(image.convert("RGB"))
    assert pixels.shape == (job.height, job.width, 3) and pixels.std() > 0


def test_the_llm_loads_only_what_klein_computes(staged):
    out, _ = staged
    log = (out / "llm-encode.log").read_text(encoding="utf-8", errors="replace")
    first, last = LAST_READ_LAYER, LAYERS - 1
    assert f"blocks {first}..{last} and the final norm are not loaded" in log, log[-3000:]
    # 9 blocks + the final norm, 11 tensors a block
    assert f"skipping {(last - first + 1) * 11 + 1} tensors" in log, log[-3000:]
    # On the CPU get_rows takes Q4_K itself: no 4x larger F32 copy of the embedding.
    assert "token embedding q4_K in the file, kept as q4_K" in log, log[-3000:]


def test_vae_encode_loads_only_the_encoder(staged):
    out, _ = staged
    log = (out / "vae-encode.log").read_text(encoding="utf-8", errors="replace")
    assert "skipping" in log and "that the model never computes" in log, log[-3000:]
    decode_log = (out / "vae-decode.log").read_text(encoding="utf-8", errors="replace")
    assert "that the model never computes" not in decode_log  # the encoder is ignored there


def test_resumed_diffuse_is_byte_identical(staged, sd_stage, real_paths_models, job, tmp_path):
    out, _ = staged
    metadata = json.loads((out / "checkpoints" / "metadata.json").read_text())
    assert metadata["last_completed_step"] == metadata["steps"]
    resume_at = metadata["steps"] // 2
    shutil.copytree(out / "checkpoints", tmp_path / "checkpoints")
    base = _one_thread(stage_args(real_paths_models, job, out))["diffuse"]
    args = replace(
        base,
        save_latent=tmp_path / FINAL_LATENT,
        checkpoint_dir=tmp_path / "checkpoints",
        resume_step=resume_at,
    )
    resumed = run_stage(sd_stage, args, tmp_path / "resumed.log")
    steps = [e.step for e in resumed.events if isinstance(e, Progress)]
    assert steps == list(range(resume_at + 1, metadata["steps"] + 1))
    assert (tmp_path / FINAL_LATENT).read_bytes() == (out / FINAL_LATENT).read_bytes()
