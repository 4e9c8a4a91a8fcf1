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
from app.imaging.align import align_image
from app.imaging.color_match import to_lab, to_rgb
from app.imaging.composite import feather_weights, repainted_area
from app.imaging.io import load_image
from app.imaging.mask_ops import binarise
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
    # The random-weight model's picture has nothing of the photo's structure around the mask:
    # that is new content, not drift, so colour match leaves it as generated (it used to
    # read the model's colours there as drift and move the whole patch). The run's record says
    # so, as data (issue 40: the first real inpaints show what their rings kept).
    assert np.array_equal(result, plain)
    record = pipeline.snapshot(run.dir).color_match
    assert record is not None and record["applied"] is False
    assert record["reason"] == "no_witness" and "slope" in record["values"]
    # The same prepared folder with a decoded picture that is the photo drifted over the
    # repainted cells (what a drifting model returns): the drift is taken out of the mask.
    r = prepared.record
    cells = repainted_area(binarise(mask), r.align, r.region, r.scale_plan)
    assert cells[30:60, 40:80].all() and not cells.all()
    lab = to_lab(photo)
    lab[cells] += np.float32([6.0, 8.0, -8.0])
    drifted = align_image(r.align, to_rgb(lab))
    fixed = prep.composite_prepared(run.dir / "prepared", drifted, blend=options.blend)
    left = prep.composite_prepared(run.dir / "prepared", drifted)
    inside = np.s_[30:60, 40:80]
    error_left = np.abs(left[inside].astype(int) - photo[inside]).mean()
    assert np.abs(fixed[inside].astype(int) - photo[inside]).mean() < 0.3 * error_left

    # Off: the same job (the same decoded picture) composites plainly.
    off = dataclasses.replace(spec, prepare=dataclasses.replace(options, color_match="off"))
    other = pipeline.create_run(off)
    events = list(pipeline.execute(other.dir, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-1]
    assert np.array_equal(load_image(other.dir / "decoded.png"), decoded)
    assert np.array_equal(load_image(other.dir / "result.png"), plain)
    assert pipeline.snapshot(other.dir).color_match is None  # off: nothing to say
