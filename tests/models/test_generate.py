"""The tiny model generator: deterministic, cached, shaped the way the pinned sd.cpp reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.models import ModelSet, TinySpec, generate_models

pytestmark = pytest.mark.engine  # it makes the tiny models itself


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> ModelSet:
    return generate_models(tmp_path_factory.mktemp("models"))


def test_same_bytes_every_time_and_cached(models: ModelSet, tmp_path: Path) -> None:
    other = generate_models(tmp_path)
    for a, b in zip(
        (models.diffusion, models.llm, models.vae),
        (other.diffusion, other.llm, other.vae),
        strict=True,
    ):
        assert a.read_bytes() == b.read_bytes()
    files = (other.diffusion, other.llm, other.vae)
    before = [(f.stat().st_ino, f.stat().st_mtime_ns) for f in files]
    assert generate_models(tmp_path) == other
    # the second call only checks the stamp: no file is written again
    assert [(f.stat().st_ino, f.stat().st_mtime_ns) for f in files] == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left


def test_incomplete_set_is_regenerated(tmp_path: Path) -> None:
    first = generate_models(tmp_path)
    first.llm.write_bytes(b"truncated")
    again = generate_models(tmp_path)
    assert again.llm.stat().st_size > 1_000_000


def test_dit_is_flux2_klein(models: ModelSet) -> None:
    import gguf

    reader = gguf.GGUFReader(models.diffusion)
    names = {t.name: t for t in reader.tensors}
    assert "double_stream_modulation_img.lin.weight" in names  # FLUX.2
    assert not any(n.startswith("single_blocks.47.") for n in names)  # klein
    assert list(names["txt_in.weight"].shape) == [96, 128]  # ne: context 3 x 32, hidden 128
    assert names["img_in.weight"].tensor_type == gguf.GGMLQuantizationType.Q4_0
    assert models.diffusion.stat().st_size < 1_000_000


def test_llm_has_28_llama_cpp_layers_and_the_full_vocab(models: ModelSet) -> None:
    import gguf

    reader = gguf.GGUFReader(models.llm)
    names = {t.name: t for t in reader.tensors}
    assert list(names["token_embd.weight"].shape) == [32, 151_936]
    assert "blk.27.ffn_down.weight" in names and "blk.28.ffn_down.weight" not in names


def test_vae_channels_are_a_parameter(tmp_path: Path) -> None:
    from safetensors.numpy import load_file

    wide = generate_models(tmp_path, TinySpec(vae_encoder_channels=128))
    tensors = load_file(wide.vae)
    assert tensors["encoder.conv_in.weight"].shape == (128, 3, 3, 3)
    assert tensors["decoder.conv_in.weight"].shape == (128, 32, 3, 3)  # 32 x ch_mult 4
    assert tensors["quant_conv.weight"].shape == (64, 64, 1, 1)
    assert all(t.dtype.name == "float16" for t in tensors.values())


def test_bad_spec_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        generate_models(tmp_path, TinySpec(vae_encoder_channels=48))
    with pytest.raises(ValueError):
        generate_models(tmp_path, TinySpec(dit_hidden=64))


def test_script_entry_point(tmp_path: Path) -> None:
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, str(repo / "tests" / "models" / "generate.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    assert "diffusion:" in result.stdout and "vae:" in result.stdout


def test_real_file_paths_set_has_the_real_files_types(tmp_path: Path) -> None:
    import gguf
    import numpy as np
    from gguf.quants import dequantize

    real = generate_models(tmp_path, TinySpec.real_file_paths())
    assert real.llm.parent != generate_models(tmp_path).llm.parent  # its own cache key
    llm = {t.name: t for t in gguf.GGUFReader(real.llm).tensors}
    q = gguf.GGMLQuantizationType
    embedding = llm["token_embd.weight"]
    assert embedding.tensor_type == q.Q4_K and list(embedding.shape) == [256, 151_936]
    values = dequantize(embedding.data[:1000], q.Q4_K)
    assert abs(float(values.std()) - 1.0) < 0.05 and abs(float(values.mean())) < 0.05
    assert "blk.35.ffn_down.weight" in llm and "blk.36.ffn_down.weight" not in llm
    assert list(llm["blk.0.attn_q.weight"].shape) == [256, 32 * 128]  # 32 heads, not 16
    assert llm["blk.0.attn_v.weight"].tensor_type == q.Q6_K  # Q4_K_M: more bits in layer 0
    assert llm["blk.4.attn_v.weight"].tensor_type == q.Q4_K
    assert llm["blk.0.attn_norm.weight"].tensor_type == q.F32
    dit = {t.name: t for t in gguf.GGUFReader(real.diffusion).tensors}
    assert list(dit["txt_in.weight"].shape) == [768, 128]  # context 3 x 256
    for name in ("img_in.weight", "time_in.out_layer.weight", "final_layer.linear.weight",
                 "double_blocks.0.img_attn.norm.key_norm.scale"):  # fmt: skip
        assert dit[name].tensor_type == q.BF16, name
    assert dit["double_blocks.0.img_attn.qkv.weight"].tensor_type == q.Q4_0
    scale = dequantize(dit["single_blocks.0.norm.query_norm.scale"].data, q.BF16)
    assert np.all(np.abs(scale - 1.0) < 0.6)  # near one, as the F32 set has it


def test_real_file_paths_need_36_layers_and_k_quant_rows(tmp_path: Path) -> None:
    import dataclasses

    with pytest.raises(ValueError):
        generate_models(tmp_path, dataclasses.replace(TinySpec.real_file_paths(), llm_layers=28))
    with pytest.raises(ValueError):
        generate_models(tmp_path, dataclasses.replace(TinySpec.real_file_paths(), llm_hidden=128))


@pytest.mark.parametrize("qtype", ["q4_0", "q8_0", "q4_k", "q6_k"])
def test_random_blocks_have_the_asked_scale(qtype: str) -> None:
    import gguf
    import numpy as np
    from gguf.quants import dequantize

    from app.engine.gguf_blocks import random_blocks

    blocks = random_blocks(np.random.default_rng(3), qtype, 64, 1024, std=0.02)
    values = dequantize(blocks, gguf.GGMLQuantizationType[qtype.upper()])
    assert values.shape == (64, 1024)
    assert abs(float(values.std()) / 0.02 - 1.0) < 0.03
    assert abs(float(values.mean())) < 0.12 * 0.02  # Q4_0: d·(q − 8) averages −d/2
