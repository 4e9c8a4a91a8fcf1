"""A decode that yields no picture is a failure, never a result (sd.cpp #1220's grey image):
a VAE that maps every latent to grey, and a NaN latent, through the real engine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.core.paths import app_paths
from app.engine.tensorfile import file_sha256, read_tensors, write_tensors
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.execute.decode_check import BadDecodeError, check_decoded, check_latent
from app.pipeline.failures import FailureKind
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
from app.pipeline.run.folder import FINAL_LATENT, FileRecord, open_run
from app.pipeline.runner import Pipeline

BAD_DECODE = getattr(FailureKind, "BAD_DECODE", FailureKind.OUT_OF_MEMORY)


def test_check_decoded_refuses_one_colour_and_removes_it(tmp_path: Path) -> None:
    grey = tmp_path / "grey.png"
    Image.fromarray(np.full((32, 48, 3), 128, np.uint8)).save(grey)
    with pytest.raises(BadDecodeError) as info:
        check_decoded(grey)
    assert info.value.retry and "one colour (value 128)" in info.value.user_message()
    assert not grey.exists()
    picture = tmp_path / "ok.png"
    pixels = np.full((32, 48, 3), 128, np.uint8)
    pixels[0, 0, 0] = 129  # one value off is a picture
    Image.fromarray(pixels).save(picture)
    check_decoded(picture)
    assert picture.exists()


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_check_latent_refuses_nan_and_inf(tmp_path: Path, bad: float) -> None:
    latent = np.zeros((1, 128, 4, 4), np.float32)
    path = tmp_path / "final_latent.bin"
    write_tensors(path, {"latent": latent})
    check_latent(path)
    latent[0, 3, 1, 2] = bad
    write_tensors(path, {"latent": latent})
    with pytest.raises(BadDecodeError) as info:
        check_latent(path)
    assert not info.value.retry
    assert "1 NaN or infinite values (latent)" in info.value.user_message()


def grey_vae(tiny_vae: Path, out: Path) -> Path:
    """The tiny VAE with its last conv zeroed: every latent decodes to (0 + 1) / 2 = grey."""
    from safetensors.numpy import load_file, save_file

    tensors = load_file(str(tiny_vae))
    for name in ("decoder.conv_out.weight", "decoder.conv_out.bias"):
        tensors[name] = np.zeros_like(tensors[name])
    save_file(tensors, str(out))
    return out


def job(models, vae: Path, **devices: object) -> JobSpec:
    return JobSpec(
        models=ModelFiles(str(models.diffusion), str(models.llm), str(vae)),
        prompt="a grey day",
        width=64,
        height=64,
        steps=1,
        devices=DeviceChoice(threads=1, **devices),  # type: ignore[arg-type]
    )


def test_a_grey_decode_is_retried_then_fails_without_result(
    sd_stage: Path, tiny_models, tmp_path: Path
) -> None:
    pipeline = Pipeline(app_paths(), sd_stage)
    run = pipeline.create_run(job(tiny_models, grey_vae(tiny_models.vae, tmp_path / "grey.st")))
    events = list(pipeline.execute(run.dir, RunControl()))
    last = events[-1]
    assert isinstance(last, ev.RunFailed), events[-3:]
    assert (last.stage, last.kind) == ("vae-decode", BAD_DECODE)
    assert "one colour" in last.message
    assert not (run.dir / "result.png").exists() and not (run.dir / "decoded.png").exists()
    # Retried with every other setting of the CPU's ladder (tiles 32, then 16), once each.
    rec = open_run(run.dir).stage("vae-decode")
    assert [(c["what"], c["to"], c["why"]) for c in rec.memory_changes] == [
        ("vae_tiling", True, "bad_decode"),
        ("vae_tile_size", 32, "bad_decode"),
        ("vae_tile_size", 16, "bad_decode"),
    ]
    assert sum("Retrying" in e.text for e in events if isinstance(e, ev.LogLine)) == 2
    snap = pipeline.snapshot(run.dir)
    assert snap.failure is not None and snap.failure.kind == BAD_DECODE and snap.result is None


def test_a_nan_latent_fails_before_the_decode(sd_stage: Path, tiny_models) -> None:
    pipeline = Pipeline(app_paths(), sd_stage)
    run = pipeline.create_run(job(tiny_models, tiny_models.vae))
    events = list(pipeline.execute(run.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-3:]  # this VAE decodes a picture
    latent_path = run.dir / FINAL_LATENT
    tensors = read_tensors(latent_path)
    name, latent = next(iter(tensors.items()))
    latent = latent.copy()
    latent.flat[5] = np.nan
    write_tensors(latent_path, {name: latent})
    stored = open_run(run.dir)  # keep diffuse up to date with the poisoned latent
    stored.stage("diffuse").outputs = {
        FINAL_LATENT: FileRecord(FINAL_LATENT, file_sha256(latent_path))
    }
    stored.stage("vae-decode").mark("pending", key=None, seconds=None, cached=False)
    stored.set_result(None)
    stored.save()
    (run.dir / "result.png").unlink()
    events = list(pipeline.execute(run.dir, RunControl()))
    last = events[-1]
    assert isinstance(last, ev.RunFailed), events[-3:]
    assert last.stage == "vae-decode" and "NaN or infinite" in last.message
    assert not any(isinstance(e, ev.LogLine) and "Retrying" in e.text for e in events)
    assert not (run.dir / "result.png").exists() and not (run.dir / "decoded.png").exists()
