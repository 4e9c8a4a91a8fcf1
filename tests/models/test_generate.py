"""The tiny model generator: deterministic, cached, shaped the way the pinned sd.cpp reads."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.models import ModelSet, TinySpec, generate_models


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
    started = time.monotonic()
    assert generate_models(tmp_path) == other
    assert time.monotonic() - started < 1.0  # the second call only checks the stamp
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
