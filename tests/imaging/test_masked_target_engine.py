"""'Only masked' with a target size through the real engine and the tiny models: the engine
gets the scaled region, and the result maps back into the photo, unmasked pixels exact."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image

from app.core.paths import app_paths
from app.imaging.composite import feather_weights
from app.imaging.prepare import PrepareOptions
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
from app.pipeline.runner import Pipeline

from .conftest import make_picture, rect_mask

W, H = 320, 240


def test_the_engine_generates_the_scaled_region_and_it_composites_back(
    sd_stage: Path, tiny_models, tmp_path: Path, stepwise_home: Path
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    photo = make_picture(W, H, seed=11)
    mask = rect_mask(W, H, 200, 60, 24, 12)  # a small edit: region 64×48 with 16 px padding
    Image.fromarray(photo).save(folder / "photo.png")
    Image.fromarray(mask).save(folder / "mask.png")
    options = PrepareOptions(only_masked=True, padding_px=16, feather_px=4, masked_target=128)
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a small detailed edit",
        image=str(folder / "photo.png"),
        mask=str(folder / "mask.png"),
        steps=2,
        preview="none",
        prepare=options,
        devices=DeviceChoice(threads=1),
    )
    pipeline = Pipeline(app_paths(), sd_stage, cache_limit_mb=16)
    run = pipeline.create_run(spec)
    events = list(pipeline.execute(run.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-1]

    record = json.loads((run.dir / "prepared" / "prepare.json").read_text())
    x, y, w, h = record["region"]
    assert (w, h) == (64, 48)
    assert (record["scale"]["width"], record["scale"]["height"]) == (144, 112)  # ≈ 128² px
    snap = pipeline.snapshot(run.dir)
    assert snap.model_input is not None
    assert (snap.model_input.width, snap.model_input.height) == (144, 112)
    for name in ("prepared/input.png", "decoded.png"):
        with Image.open(run.dir / name) as img:
            assert img.size == (144, 112), name
    result = np.asarray(Image.open(run.dir / "result.png").convert("RGB"))
    assert result.shape == photo.shape
    weights = feather_weights(mask, 4)
    assert np.array_equal(result[weights == 0], photo[weights == 0])
    assert np.any(result[60:72, 200:224] != photo[60:72, 200:224])
