"""JobSpec.prepare reaches the engine: crop + only masked gives the engine the region's size and
composites back into the full photo, unmasked pixels bit-identical (bug 1 of issue 7)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image

from app.core.paths import app_paths
from app.imaging.prepare import PrepareOptions
from app.pipeline import events as ev
from app.pipeline.api import ModelInput
from app.pipeline.control import RunControl
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.run.status import status_json
from app.pipeline.runner import Pipeline

W, H = 192, 160


def _photo(folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    yy, xx = np.mgrid[0:H, 0:W]
    rgb = np.stack([(xx * 5) % 256, (yy * 3) % 256, (xx + yy) % 256], axis=-1).astype(np.uint8)
    mask = np.zeros((H, W), np.uint8)
    mask[40:80, 100:140] = 255
    Image.fromarray(rgb).save(folder / "photo.png")
    Image.fromarray(mask).save(folder / "mask.png")
    return folder / "photo.png", folder / "mask.png"


def test_crop_and_only_masked_reach_the_engine(sd_stage: Path, tiny_models, tmp_path) -> None:
    photo, mask = _photo(tmp_path / "in")
    pipeline = Pipeline(app_paths(), sd_stage, cache_limit_mb=16)
    options = PrepareOptions(
        align="crop", only_masked=True, padding_px=10, feather_px=4, masked_target=0
    )
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="only the door",
        image=str(photo),
        mask=str(mask),
        steps=2,
        preview="none",
        prepare=options,
    )
    run = pipeline.create_run(spec)
    events = list(pipeline.execute(run.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-1]

    record = json.loads((run.dir / "prepared" / "prepare.json").read_text())
    x, y, w, h = record["region"]
    assert record["only_masked"] and record["align"]["mode"] == "crop"
    assert (w, h) != (W, H) and x <= 100 and y <= 40 and x + w >= 140 and y + h >= 80
    expected = ModelInput(w - w % 16, h - h % 16, (x, y, w, h))
    snap = pipeline.snapshot(run.dir)
    assert snap.model_input == expected
    status = status_json(snap)
    assert status["model_input"] == {
        "width": expected.width,
        "height": expected.height,
        "region": [x, y, w, h],
    }
    # What the engine was given and made: the region's cropped size, not the photo's.
    for name in ("prepared/input.png", "decoded.png"):
        with Image.open(run.dir / name) as img:
            assert img.size == (expected.width, expected.height), name
    result = np.asarray(Image.open(run.dir / "result.png").convert("RGB"))
    original = np.asarray(Image.open(photo).convert("RGB"))
    assert result.shape == original.shape
    outside = np.ones((H, W), bool)
    outside[y : y + h, x : x + w] = False
    assert np.array_equal(result[outside], original[outside])
    assert not np.array_equal(result[50:70, 110:130], original[50:70, 110:130])
