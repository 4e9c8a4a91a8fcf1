"""The photo as klein's first reference image (source_ref), with the real engine and the tiny
models: the prepared crop before the fill is written, encoded as ref_0 in ref_latents.bin
before the user's references, and handed to diffuse; without it nothing changes. The option is
part of the keys from prepare on, and the vae-encode cache keeps both variants."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.core.paths import app_paths
from app.engine.tensorfile import read_tensors
from app.imaging.io import load_image
from app.imaging.prepare import PrepareOptions
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.execute.stages import DiffuseStage, VaeEncodeStage
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
from app.pipeline.run.folder import (
    INIT_LATENT,
    PREPARED_DIR,
    REF_LATENTS,
    SOURCE_REF_FILE,
    open_run,
)
from app.pipeline.runner import Pipeline

SIZE = 64  # the model input: 64×64 px, 4×4 latent cells


@pytest.fixture()
def pipeline(sd_stage: Path) -> Pipeline:
    return Pipeline(app_paths(), sd_stage)


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A picture with detail everywhere, a mask over its middle, and a user's reference."""
    y, x = np.mgrid[0:SIZE, 0:SIZE]
    image = np.stack([x * 4, y * 4, (x * y) % 256], axis=-1).astype(np.uint8)
    mask = np.zeros((SIZE, SIZE), np.uint8)
    mask[16:48, 16:48] = 255
    ref = np.zeros((32, 48, 3), np.uint8)
    ref[..., 0] = 200
    folder = tmp_path / "in"
    folder.mkdir()
    for name, array in (("image.png", image), ("mask.png", mask), ("ref.png", ref)):
        Image.fromarray(array).save(folder / name)
    return folder / "image.png", folder / "mask.png", folder / "ref.png"


def _spec(tiny_models, image: Path, mask: Path, *refs: Path, source_ref: bool) -> JobSpec:
    return JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a blue door",
        image=str(image),
        mask=str(mask),
        refs=tuple(str(r) for r in refs),
        steps=1,
        preview="none",
        source_ref=source_ref,
        devices=DeviceChoice(threads=1),
        prepare=PrepareOptions(fill="grey"),
    )


def _execute(pipeline: Pipeline, run_dir: Path) -> set[str]:
    events = list(pipeline.execute(run_dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-3:]
    return {e.stage for e in events if isinstance(e, ev.StageFinished) and not e.cached}


def _encode(sd_stage: Path, vae: Path, picture: Path, out: Path) -> np.ndarray:
    """The engine's own encoding of a picture (as an init latent)."""
    argv = [str(sd_stage), "--stage", "vae-encode", "--vae", str(vae), "-i", str(picture)]
    argv += ["-W", str(SIZE), "-H", str(SIZE), "-t", "1", "--save-latent", str(out)]
    subprocess.run(argv, check=True, capture_output=True, timeout=120)
    return read_tensors(out)["latent"]


def test_the_photo_is_the_first_reference_and_off_changes_nothing(
    pipeline: Pipeline, tiny_models, files, sd_stage: Path, tmp_path: Path
) -> None:
    image, mask, ref = files
    off = pipeline.create_run(_spec(tiny_models, image, mask, ref, source_ref=False))
    _execute(pipeline, off.dir)
    on = pipeline.create_run(_spec(tiny_models, image, mask, ref, source_ref=True))
    _execute(pipeline, on.dir)

    without = read_tensors(off.dir / REF_LATENTS)
    with_photo = read_tensors(on.dir / REF_LATENTS)
    assert sorted(without) == ["ref_0"]
    assert sorted(with_photo) == ["ref_0", "ref_1"]  # one more image ...
    # ... of the model input's shape (numpy order: 1 × 128 channels × H/16 × W/16) ...
    assert with_photo["ref_0"].shape == (1, 128, SIZE // 16, SIZE // 16)
    assert (on.dir / REF_LATENTS).stat().st_size > (off.dir / REF_LATENTS).stat().st_size
    # ... and the user's reference follows it, encoded exactly as without the option.
    assert np.array_equal(with_photo["ref_1"], without["ref_0"])

    # The source reference is the prepared crop before the fill: the photo's own pixels in
    # the hole, input.png's everywhere else.
    source = load_image(on.dir / SOURCE_REF_FILE)
    filled = load_image(on.dir / PREPARED_DIR / "input.png")
    original = load_image(image)
    assert np.array_equal(source, original)  # no crop or padding at 64×64
    assert np.array_equal(source[:16], filled[:16])
    assert (filled[16:48, 16:48] == 128).all() and not (source[16:48, 16:48] == 128).all()
    # ref_0 is the encoding of that picture, not of the grey-filled input.
    expected = _encode(sd_stage, tiny_models.vae, on.dir / SOURCE_REF_FILE, tmp_path / "s.bin")
    assert np.array_equal(with_photo["ref_0"], expected)
    assert not np.array_equal(with_photo["ref_0"], read_tensors(on.dir / INIT_LATENT)["latent"])

    # Diffuse gets the references; the init latents of both runs are the same.
    assert np.array_equal(
        read_tensors(on.dir / INIT_LATENT)["latent"], read_tensors(off.dir / INIT_LATENT)["latent"]
    )
    assert DiffuseStage().args(open_run(on.dir)).ref_latents == on.dir / REF_LATENTS


def test_without_references_no_ref_latents_are_made(pipeline: Pipeline, tiny_models, files) -> None:
    image, mask, _ref = files
    off = pipeline.create_run(_spec(tiny_models, image, mask, source_ref=False))
    _execute(pipeline, off.dir)
    assert not (off.dir / REF_LATENTS).exists()
    assert not (off.dir / SOURCE_REF_FILE).exists()
    run = open_run(off.dir)
    assert DiffuseStage().args(run).ref_latents is None
    assert VaeEncodeStage().args(run).ref_images == ()


def test_turning_it_on_and_off_reruns_from_prepare_and_reuses_the_cache(
    pipeline: Pipeline, tiny_models, files
) -> None:
    image, mask, _ref = files
    run = pipeline.create_run(_spec(tiny_models, image, mask, source_ref=False))
    _execute(pipeline, run.dir)
    before = open_run(run.dir)
    keys_off = {s: before.stage(s).key for s in ("prepare", "vae-encode", "llm-encode")}

    pipeline.update_run(run.dir, {"source_ref": True})
    ran = _execute(pipeline, run.dir)
    # The conditioning does not depend on it; everything that reads the photo does.
    assert ran == {"prepare", "vae-encode", "diffuse", "vae-decode", "composite"}
    on = open_run(run.dir)
    assert on.stage("llm-encode").key == keys_off["llm-encode"]
    assert on.stage("prepare").key != keys_off["prepare"]
    assert on.stage("vae-encode").key != keys_off["vae-encode"]
    assert sorted(read_tensors(run.dir / REF_LATENTS)) == ["ref_0"]
    assert VaeEncodeStage().args(on).ref_images == (run.dir / SOURCE_REF_FILE,)

    # Off again: the encoded latents of the first run come from the cache, and the source
    # reference is gone with the option.
    pipeline.update_run(run.dir, {"source_ref": False})
    ran = _execute(pipeline, run.dir)
    assert "vae-encode" not in ran and "prepare" in ran
    again = open_run(run.dir)
    assert again.stage("vae-encode").key == keys_off["vae-encode"]
    assert again.stage("vae-encode").state == "cached"
    assert not (run.dir / SOURCE_REF_FILE).exists()
    assert DiffuseStage().args(again).ref_latents is None
