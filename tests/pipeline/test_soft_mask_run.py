"""A run in soft mask mode (the default) on the real engine: diffuse gets the composite's
weights as its mask, the engine records the mode, and the photo outside the feather is untouched
in result.png."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import numpy as np
from PIL import Image

from app.core.paths import app_paths
from app.imaging.composite import feather_weights
from app.imaging.io import load_mask
from app.imaging.prepare import PrepareOptions, load_prepared
from app.imaging.soft_mask import soft_engine_mask
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.job.params import MASK_MODE
from app.pipeline.job.spec import JobSpec, ModelFiles, spec_from_dict, spec_to_dict
from app.pipeline.run.folder import SOFT_MASK
from app.pipeline.run.status import status_json
from app.pipeline.runner import Pipeline

W, H = 160, 128
FEATHER = 24


def _photo(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    yy, xx = np.mgrid[0:H, 0:W]
    rgb = np.stack([(xx * 5) % 256, (yy * 3) % 256, (xx + yy) % 256], axis=-1).astype(np.uint8)
    mask = np.zeros((H, W), np.uint8)
    mask[48:80, 64:96] = 255
    Image.fromarray(rgb).save(folder / "photo.png")
    Image.fromarray(mask).save(folder / "mask.png")
    return folder / "photo.png", folder / "mask.png"


def test_a_soft_run_gives_the_engine_the_feather_and_keeps_the_photo(
    sd_stage: Path, tiny_models, tmp_path
) -> None:
    photo, mask = _photo(tmp_path / "in")
    pipeline = Pipeline(app_paths(), sd_stage, cache_limit_mb=16)
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a soft patch",
        image=str(photo),
        mask=str(mask),
        steps=4,
        preview="none",
        prepare=PrepareOptions(feather_px=FEATHER),
    )
    assert spec.mask_mode == MASK_MODE.default == "soft"
    run = pipeline.create_run(spec)
    events = list(pipeline.execute(run.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-1]

    # The engine's mask: 255 on the prepared mask, the feather falling off outside it.
    prepared = load_prepared(run.dir / "prepared")
    binary = load_mask(run.dir / "prepared" / "mask.png", prepared.input_size)
    engine_mask = load_mask(run.dir / SOFT_MASK, prepared.input_size)
    assert np.array_equal(engine_mask, soft_engine_mask(binary, prepared.record))
    assert np.array_equal(engine_mask, feather_weights(binary, FEATHER))
    assert engine_mask[binary == 255].min() == 255
    ring = (engine_mask > 0) & (engine_mask < 255)
    assert ring.sum() > 0 and (binary[ring] == 0).all()
    metadata = json.loads((run.dir / "checkpoints" / "metadata.json").read_text())
    assert metadata["mask_mode"] == "soft"
    assert metadata["inputs"]["mask"] == hashlib.sha256(engine_mask_bytes(run.dir)).hexdigest()

    # The composite keeps every photo pixel the feather does not reach, bit for bit.
    result = np.asarray(Image.open(run.dir / "result.png").convert("RGB"))
    original = np.asarray(Image.open(photo).convert("RGB"))
    outside = engine_mask == 0
    assert np.array_equal(result[outside], original[outside])
    assert not np.array_equal(result[56:72, 72:88], original[56:72, 72:88])
    assert status_json(pipeline.snapshot(run.dir))["params"]["mask_mode"] == "soft"


def engine_mask_bytes(run_dir: Path) -> bytes:
    return (run_dir / SOFT_MASK).read_bytes()


def test_a_run_recorded_before_the_mask_mode_was_hard() -> None:
    spec = JobSpec(models=ModelFiles("d", "l", "v"), prompt="x", image="i.png", mask="m.png")
    data = spec_to_dict(spec)
    assert data["mask_mode"] == "soft"
    del data["mask_mode"]
    assert spec_from_dict(data) == dataclasses.replace(spec, mask_mode="hard")
