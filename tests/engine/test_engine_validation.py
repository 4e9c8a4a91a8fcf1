"""sd-stage refuses every bad input up front (issue 9): wrong-shaped or damaged tensor files,
prompts longer than the text encoder's window, absurd sizes and numbers, a damaged
metadata.json. Each refusal is exit 5 (bad input) or 2 (bad flag) with one line naming the file
or flag, what was expected and what was found; never an abort, a signal or exit 1. The real
engine on the tiny models; the good files come from one small img2img job (tests/engine/fuzz.py).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from app.engine.tensorfile import read_tensors, write_tensors
from tests.engine.fuzz import Corpus, Tensor, encode, make_corpus

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]


@pytest.fixture(scope="module")
def corpus(sd_stage: Path, tiny_models, tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    return make_corpus(sd_stage, tiny_models, tmp_path_factory.mktemp("corpus"))


def _run(argv: list[str], timeout_s: float = 120) -> tuple[int, dict | None, list[str]]:
    """Exit code, the error event (if any) and the names of every event the engine wrote (a
    refusal "at once" writes no `hello`: the engine emits it after probing devices, just before
    it loads a model)."""
    result = subprocess.run(
        argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout_s
    )
    events = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    errors = [event for event in events if event.get("event") == "error"]
    names = [str(event.get("event")) for event in events]
    return result.returncode, (errors[-1] if errors else None), names


def _assert_refused(code: int, error: dict | None, want: int, *words: str) -> str:
    assert code == want, f"exit {code}, expected {want}: {error}"
    assert error is not None and error["code"] == want
    message = error["message"]
    assert "\n" not in message
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    return message


def _decode(corpus: Corpus, latent: Path, out: Path) -> tuple[int, dict | None, list[str]]:
    return _run(corpus.decode_argv(latent, out))


def _latent(corpus: Corpus) -> np.ndarray:
    return read_tensors(corpus.files["latent"])["latent"]


# ---- latents -------------------------------------------------------------------------------------


def test_a_latent_without_128_channels_is_refused(corpus, tmp_path):
    latent = _latent(corpus)  # (1, 128, 4, 4)
    bad = tmp_path / "c127.bin"
    write_tensors(bad, {"latent": latent[:, :127]})
    code, error, _ = _decode(corpus, bad, tmp_path)
    message = _assert_refused(code, error, 5, "c127.bin", "[4, 4, 127, 1]", "[W/16, H/16, 128, 1]")
    assert "expected" in message
    assert not (tmp_path / "out.png").exists()


def test_a_dimension_of_zero_is_refused(corpus, tmp_path):
    bad = tmp_path / "zero.bin"
    bad.write_bytes(encode([Tensor(b"latent", 0, [4, 0, 128, 1], b"")]))  # our writer refuses it
    code, error, _ = _decode(corpus, bad, tmp_path)
    _assert_refused(code, error, 5, "zero.bin", "[4, 0, 128, 1]")


def test_a_latent_with_nan_is_refused(corpus, tmp_path):
    latent = _latent(corpus).copy()
    latent[0, 3, 1, 2] = np.nan
    bad = tmp_path / "nan.bin"
    write_tensors(bad, {"latent": latent})
    code, error, _ = _decode(corpus, bad, tmp_path)
    _assert_refused(code, error, 5, "nan.bin", "1 NaN/Inf")


def test_an_absurd_latent_size_is_refused(corpus, tmp_path):
    # A consistent file (the data is all there) asking for a 32768-pixel-wide image.
    bad = tmp_path / "wide.bin"
    write_tensors(bad, {"latent": np.zeros((1, 128, 1, 2048), np.float32)})
    code, error, _ = _decode(corpus, bad, tmp_path)
    _assert_refused(code, error, 5, "wide.bin", "at most 1024")


def test_an_init_latent_with_a_batch_is_refused(corpus, tmp_path):
    latent = _latent(corpus)
    bad = tmp_path / "batch.bin"
    write_tensors(bad, {"latent": np.concatenate([latent, latent])})
    code, error, _ = _run(corpus.diffuse_argv(tmp_path, init_latent=bad))
    _assert_refused(code, error, 5, "--load-latent", "batch.bin", "[4, 4, 128, 2]")


def test_ref_latents_of_the_wrong_shape_are_refused(corpus, tmp_path):
    refs = read_tensors(corpus.files["ref_latents"])
    bad = tmp_path / "refs.bin"
    write_tensors(bad, {"ref_0": refs["ref_0"][:, :64]})
    code, error, _ = _run(corpus.diffuse_argv(tmp_path, ref_latents=bad))
    _assert_refused(code, error, 5, "--load-ref-latents", "refs.bin", "64")


def test_a_checkpoint_of_another_size_is_refused(corpus, tmp_path):
    checkpoints = tmp_path / "checkpoints"
    shutil.copytree(corpus.checkpoints, checkpoints)
    step = checkpoints / "step_001.bin"
    x = read_tensors(step)["x_t"]
    write_tensors(step, {"x_t": np.zeros((1, 128, 8, 8), np.float32) + x.mean()})
    meta = json.loads((checkpoints / "metadata.json").read_text())
    meta["checkpoints"]["1"]["sha256"] = hashlib.sha256(step.read_bytes()).hexdigest()
    (checkpoints / "metadata.json").write_text(json.dumps(meta))
    argv = corpus.diffuse_argv(tmp_path, checkpoints=checkpoints, resume_step=1)
    code, error, _ = _run(argv)
    _assert_refused(code, error, 5, "step_001.bin", "[8, 8, 128, 1]", "[4, 4, 128, 1]")


def test_a_damaged_metadata_field_is_bad_input_not_a_crash(corpus, tmp_path):
    checkpoints = tmp_path / "checkpoints"
    shutil.copytree(corpus.checkpoints, checkpoints)
    meta = json.loads((checkpoints / "metadata.json").read_text())
    meta["checkpoints"]["1"]["file"] = 5  # a number where a file name belongs
    (checkpoints / "metadata.json").write_text(json.dumps(meta))
    argv = corpus.diffuse_argv(tmp_path, checkpoints=checkpoints, resume_step=1)
    code, error, _ = _run(argv)
    _assert_refused(code, error, 5, "metadata.json", "damaged")


# ---- conditioning --------------------------------------------------------------------------------


def test_a_conditioning_of_another_hidden_size_is_refused(corpus, tmp_path):
    cond = read_tensors(corpus.files["embeddings"])["c_crossattn"]  # (512, 96)
    bad = tmp_path / "cond64.bin"
    write_tensors(bad, {"c_crossattn": cond[:, :64].copy()})
    code, error, _ = _run(corpus.diffuse_argv(tmp_path, embeddings=bad))
    _assert_refused(code, error, 5, "cond64.bin", "[64, 512]", "context size is 96")


@pytest.mark.parametrize("name", ["c_vector", "extra_c_crossattn_0", "latent"])
def test_a_conditioning_with_a_foreign_tensor_is_refused(corpus, tmp_path, name):
    cond = read_tensors(corpus.files["embeddings"])
    cond[name] = np.ones((1, 7), np.float32)
    bad = tmp_path / "cond.bin"
    write_tensors(bad, cond)
    code, error, _ = _run(corpus.diffuse_argv(tmp_path, embeddings=bad))
    _assert_refused(code, error, 5, "cond.bin", name)


def test_a_header_that_lies_about_its_dims_is_refused(corpus, tmp_path):
    data = bytearray(corpus.files["embeddings"].read_bytes())
    struct.pack_into("<i", data, 12, 0)  # ne0 = 0: the data that follows belongs to nothing
    bad = tmp_path / "lie.bin"
    bad.write_bytes(bytes(data))
    code, error, _ = _run(corpus.diffuse_argv(tmp_path, embeddings=bad))
    _assert_refused(code, error, 5, "lie.bin")


# ---- prompts, sizes, numbers ---------------------------------------------------------------------


def _encode_argv(sd_stage: Path, tiny_models, prompt: str, out: Path) -> list[str]:
    return [str(sd_stage), "--stage", "llm-encode", "--llm", str(tiny_models.llm), "-p", prompt,
            "--cfg-scale", "1", "-t", "1", "--save-embeddings", str(out / "cond.bin"),
            "--events", "jsonl"]  # fmt: skip


@pytest.mark.parametrize("chars", [8_000, 40_000])
def test_a_prompt_longer_than_the_window_is_refused_at_once(sd_stage, tiny_models, tmp_path, chars):
    """Refused before the model loads, asserted by behaviour: no `hello` event (written just
    before loading), and the same refusal with an LLM file whose tensor data is cut off (a load
    would fail on it with exit 3)."""
    prompt = ("a red fox in the snow " * (chars // 22 + 1))[:chars]
    code, error, events = _run(_encode_argv(sd_stage, tiny_models, prompt, tmp_path))
    _assert_refused(code, error, 5, "-p", "at most 512 tokens", "shorten it")
    assert "hello" not in events, events
    assert not (tmp_path / "cond.bin").exists()
    cut = tmp_path / "cut-llm.gguf"
    with open(tiny_models.llm, "rb") as src, open(cut, "wb") as dst:
        dst.write(src.read(tiny_models.llm.stat().st_size // 2))
    argv = _encode_argv(sd_stage, tiny_models, prompt, tmp_path)
    argv[argv.index(str(tiny_models.llm))] = str(cut)
    code, error, events = _run(argv)
    _assert_refused(code, error, 5, "-p", "at most 512 tokens")
    assert "hello" not in events, events


def test_a_prompt_within_the_window_is_encoded(sd_stage, tiny_models, tmp_path):
    prompt = "a red fox in the snow " * 20  # ~100 tokens: past the no-tokenizer fast path
    code, error, _ = _run(_encode_argv(sd_stage, tiny_models, prompt, tmp_path), timeout_s=300)
    assert code == 0, error
    assert read_tensors(tmp_path / "cond.bin")["c_crossattn"].shape == (512, 96)


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["-W", "8", "-H", "64"], ["8x64", "16..16384"]),
        (["-W", "32768", "-H", "64"], ["32768x64"]),
        (["--steps", "100000"], ["--steps", "1..10000"]),
        (["--strength", "nan"], ["--strength"]),
        (["--cfg-scale", "inf"], ["--cfg-scale"]),
    ],
)
def test_absurd_numbers_are_usage_errors(corpus, tmp_path, flags, words):
    argv = [
        str(corpus.binary), "--stage", "diffuse", "--diffusion-model", str(corpus.diffusion),
        "--load-embeddings", str(corpus.files["embeddings"]), "-W", "64", "-H", "64",
        "--steps", "2", "--cfg-scale", "1", "--save-latent", str(tmp_path / "final.bin"),
        "--events", "jsonl",
    ]  # fmt: skip
    code, error, events = _run(argv + flags)
    _assert_refused(code, error, 2, *words)
    assert "hello" not in events, events  # refused before any device or model is touched
    assert not (tmp_path / "final.bin").exists()
