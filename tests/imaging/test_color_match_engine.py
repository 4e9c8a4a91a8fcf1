"""Colour match in a real run (the engine and the tiny models): the composite stage applies the
job's colour match to the decoded picture, unmasked pixels stay the photo's, and with it off
the same job gives the plain blend (that only the composite's key changes:
tests/pipeline/test_params.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
from PIL import Image

from app.core.paths import app_paths
from app.imaging import prepare as prep
from app.imaging.composite import feather_weights
from app.imaging.io import load_image
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
from app.pipeline.runner import Pipeline

from .conftest import make_picture, rect_mask

W, H = 128, 96


def test_the_composite_stage_colour_matches_the_decoded_picture(
    sd_stage: Path, tiny_models, tmp_path: Path, stepwise_home: Path
) -> None:
    folder = tmp_path / "in"
    folder.mkdir()
    photo = make_picture(W, H, seed=21)
    mask = rect_mask(W, H, 40, 30, 40, 30)
    Image.fromarray(photo).save(folder / "photo.png")
    Image.fromarray(mask).save(folder / "mask.png")
    options = prep.PrepareOptions(feather_px=4, color_match="on", fill="telea")
    spec = JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a patch",
        image=str(folder / "photo.png"),
        mask=str(folder / "mask.png"),
        steps=1,
        preview="none",
        prepare=options,
        devices=DeviceChoice(threads=1),
    )
    pipeline = Pipeline(app_paths(), sd_stage, cache_limit_mb=16)
    run = pipeline.create_run(spec)
    events = list(pipeline.execute(run.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-1]

    prepared = prep.load_prepared(run.dir / "prepared")
    assert prepared.record.fill == "telea"
    decoded = load_image(run.dir / "decoded.png")
    result = load_image(run.dir / "result.png")
    weights = feather_weights(mask, 4)
    assert np.array_equal(result[weights == 0], photo[weights == 0])
    matched = prep.composite_prepared(prepared, decoded, blend=options.blend)
    plain = prep.composite_prepared(prepared, decoded)
    assert np.array_equal(result, matched)
    # The random-weight model's colours are nothing like the photo's: matching moved them.
    assert np.abs(result[30:60, 40:80].astype(int) - plain[30:60, 40:80]).mean() > 1.0

    # Off: the same job (the same decoded picture) composites plainly.
    off = dataclasses.replace(spec, prepare=dataclasses.replace(options, color_match="off"))
    other = pipeline.create_run(off)
    events = list(pipeline.execute(other.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-1]
    assert np.array_equal(load_image(other.dir / "decoded.png"), decoded)
    assert np.array_equal(load_image(other.dir / "result.png"), plain)
