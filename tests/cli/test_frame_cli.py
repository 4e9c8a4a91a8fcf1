"""`run --context` and `run --expand` (issue 15, items 5 and 6) with the real engine and the
tiny models: the context area sets the region the model sees, outpainting generates a bigger
picture whose old pixels away from the seam are the photo's, bit for bit, and resumes
byte-identical after a stop; bad values are refused before any stage runs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app.core.paths import app_paths
from app.engine.tensorfile import read_tensors
from app.imaging.composite import feather_weights
from app.imaging.frame import SEAM_PX, seam_band_px
from app.imaging.prepare import PrepareOptions
from app.pipeline import events as ev
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
from app.pipeline.runner import Pipeline
from tests.cli.conftest import run_cli, status_json
from tests.cli.test_run_cli import _interrupt

W, H = 128, 96
FEATHER = 4


@pytest.fixture()
def photo(tmp_path: Path) -> tuple[Path, Path, np.ndarray]:
    """A textured 128×96 photo and a small mask (x 80..96, y 40..52)."""
    rng = np.random.default_rng(5)
    y, x = np.mgrid[0:H, 0:W]
    picture = np.stack([x * 2, y * 2, (x + y)], axis=-1).astype(np.int16)
    picture = np.clip(picture + rng.integers(-20, 20, picture.shape), 0, 255).astype(np.uint8)
    mask = np.zeros((H, W), np.uint8)
    mask[40:52, 80:96] = 255
    folder = tmp_path / "in"
    folder.mkdir()
    Image.fromarray(picture).save(folder / "photo.png")
    Image.fromarray(mask).save(folder / "mask.png")
    return folder / "photo.png", folder / "mask.png", picture


def _run(model_args: list[str], run_dir: Path, image: Path, *extra: str | Path):
    return run_cli(
        "run", *model_args, "-p", "a wider view", "-i", image, "--run-dir", run_dir,
        "--steps", "1", "-t", "1", "--preview", "none", *extra,
    )  # fmt: skip


def test_context_area_sets_the_region(tmp_path: Path, model_args, photo) -> None:
    image, mask, _picture = photo
    common = ("--mask", mask, "--only-masked", "--padding", "8", "--masked-target", "0")
    plain = tmp_path / "plain"
    done = _run(model_args, plain, image, *common)
    assert done.returncode == 0, done.stdout + done.stderr
    # The mask's box plus 9 px (the padding, at least the 8 px feather + 1): x 71..105,
    # y 31..61, grown to multiples of 16 around it: 48×32 at (64, 30).
    assert status_json(plain)["model_input"]["region"] == [64, 30, 48, 32]

    wide = tmp_path / "wide"
    done = _run(model_args, wide, image, *common, "--context", "0,0,48,32")
    assert done.returncode == 0, done.stdout + done.stderr
    status = status_json(wide)
    # The union of (71, 31)-(105, 61) and (0, 0)-(48, 32) is 105×61 at the origin; grown to
    # multiples of 16 inside the picture: 112×64.
    assert status["model_input"]["region"] == [0, 0, 112, 64]
    assert (status["model_input"]["width"], status["model_input"]["height"]) == (112, 64)
    assert status["params"]["context"] == "0,0,48,32"
    with Image.open(wide / "result.png") as result:
        assert result.size == (W, H)

    # A context inside the mask's box leaves the region as it was.
    inside = tmp_path / "inside"
    done = _run(model_args, inside, image, *common, "--context", "80,40,8,8")
    assert done.returncode == 0, done.stdout + done.stderr
    assert status_json(inside)["model_input"]["region"] == [64, 30, 48, 32]


def _old_part(result: np.ndarray, left: int, top: int) -> np.ndarray:
    return result[top : top + H, left : left + W]


def test_outpaint_generates_the_expanded_picture(tmp_path: Path, model_args, photo) -> None:
    image, _mask, picture = photo
    run_dir = tmp_path / "out"
    done = _run(model_args, run_dir, image, "--expand", "32,0,16,16", "--feather", str(FEATHER))
    assert done.returncode == 0, done.stdout + done.stderr
    status = status_json(run_dir)
    assert status["params"]["expand"] == "32,0,16,16"
    assert (status["model_input"]["width"], status["model_input"]["height"]) == (176, 112)
    result = np.asarray(Image.open(run_dir / "result.png").convert("RGB"))
    assert result.shape == (H + 16, W + 48, 3)
    # The run keeps the photo as given; the expansion is in its job.
    with Image.open(run_dir / "inputs" / "image.png") as kept:
        assert kept.size == (W, H)

    old = _old_part(result, 32, 0)
    band = seam_band_px(FEATHER)
    away = np.zeros((H, W), bool)
    away[: H - band, band : W - band] = True  # the top edge was not expanded
    assert np.array_equal(old[away], picture[away])
    changed = np.any(old != picture, axis=2)
    # The seam blends: old pixels at the expanded edges changed, but only inside the band.
    assert changed[:, :SEAM_PX].any() and changed[:, W - SEAM_PX :].any()
    assert changed[H - SEAM_PX :, :].any()
    assert not changed[away].any()
    # The engine was given the expansion as its mask: latent cells without a masked pixel
    # kept the photo's init latent, the others were generated.
    final = read_tensors(run_dir / "final_latent.bin")["latent"][0]
    init = read_tensors(run_dir / "init_latent.bin")["latent"][0]
    engine_mask = np.asarray(Image.open(run_dir / "prepared" / "mask.png"))
    # In soft mode (the default) the engine gets the feathered mask: a cell the feather
    # reaches repaints too (the 32-px ramp's seam ends on a cell edge here).
    engine_mask = feather_weights(engine_mask, FEATHER)
    rows, cols = engine_mask.shape[0] // 16, engine_mask.shape[1] // 16
    masked = engine_mask.reshape(rows, 16, cols, 16).max(axis=(1, 3)) > 0
    change = np.abs(final - init).max(axis=0)
    assert (~masked).any() and masked.any()
    assert change[~masked].max() < 0.05 and change[masked].min() > 0.5, change
    # The new area is generated, not the pre-fill and not black.
    prepared = np.asarray(Image.open(run_dir / "prepared" / "input.png").convert("RGB"))
    new = np.ones(result.shape[:2], bool)
    new[0:H, 32 : 32 + W] = False
    assert np.any(result[new] != prepared[: H + 16, : W + 48][new])
    assert result[new].mean() > 5


def _spec(tiny_models, image: Path, steps: int) -> JobSpec:
    return JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a wider view",
        image=str(image),
        steps=steps,
        preview="none",
        devices=DeviceChoice(threads=1),
        prepare=PrepareOptions(expand="16,16,0,0", feather_px=FEATHER),
    )


def test_outpaint_resumes_byte_identical(
    tmp_path: Path, model_args, photo, tiny_models, sd_stage: Path
) -> None:
    image, _mask, picture = photo
    steps = 3
    reference = tmp_path / "reference"
    done = _run(
        model_args, reference, image, "--expand", "16,16,0,0", "--feather", str(FEATHER),
        "--steps", str(steps),
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr

    pipeline = Pipeline(app_paths(), sd_stage)
    run = pipeline.create_run(_spec(tiny_models, image, steps), tmp_path / "stopped")
    seen = _interrupt(pipeline, run, "suspend")
    assert isinstance(seen[-1], ev.RunSuspended), seen[-3:]
    assert 1 <= status_json(run.dir)["last_completed_step"] < steps

    done = run_cli("resume", run.dir, "--engine", sd_stage)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Resuming from the checkpoint" in done.stdout  # not started over
    for name in ("prepared/input.png", "prepared/mask.png", "final_latent.bin", "result.png"):
        assert (run.dir / name).read_bytes() == (reference / name).read_bytes(), name
    result = np.asarray(Image.open(run.dir / "result.png").convert("RGB"))
    assert result.shape == (H + 16, W + 16, 3)
    band = seam_band_px(FEATHER)
    old = _old_part(result, 16, 16)
    assert np.array_equal(old[band:, band:], picture[band:, band:])


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [
        ("--context", "-1,0,10,10", "has no size"),
        ("--context", "0,0,500,10", "reaches outside the 128×96 px picture"),
        ("--context", "1.5,0,10,10", "is not four whole numbers"),
        ("--context", "0,0,10", "is not four whole numbers"),
        ("--context", "0,0,0,10", "has no size"),
        ("--expand", "-4,0,0,0", "has a negative side"),
        ("--expand", "5000,0,0,0", "no side may exceed 4096 px"),
        ("--expand", "a,b,c,d", "is not four whole numbers"),
    ],
)
def test_bad_values_are_refused_before_any_stage(
    tmp_path: Path, model_args, photo, flag: str, value: str, says: str
) -> None:
    image, mask, _picture = photo
    run_dir = tmp_path / "bad"
    done = _run(model_args, run_dir, image, "--mask", mask, "--only-masked", f"{flag}={value}")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "Unexpected error" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, done.stderr
    assert repr(value) in lines[0] and says in lines[0], lines[0]
    assert not (run_dir / "prepared").exists() and not (run_dir / "logs").exists()
