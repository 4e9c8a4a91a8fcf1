"""The `prepare` and `composite` commands, run as a user would: `python -m app ...`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from PIL import Image

from app.imaging.composite import feather_weights
from app.imaging.io import load_image, load_mask

from .conftest import make_picture, rect_mask

REPO = Path(__file__).resolve().parents[2]


def run_app(*args: str | Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"STEPWISE_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "app", *map(str, args)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_prepare_then_composite_round_trip(tmp_path: Path, stepwise_home: Path) -> None:
    picture = make_picture(437, 301, seed=9)
    mask = rect_mask(437, 301, 150, 80, 70, 40)
    Image.fromarray(picture).save(tmp_path / "photo.png")
    Image.fromarray(mask).save(tmp_path / "mask.png")
    out = tmp_path / "prepared"

    done = run_app(
        "prepare",
        tmp_path / "photo.png",
        "--mask",
        tmp_path / "mask.png",
        "--out",
        out,
        "--feather",
        "6",
        home=stepwise_home,
    )
    assert done.returncode == 0, done.stderr
    assert "448×304" in done.stdout and "left 5, top 1, right 6, bottom 2" in done.stdout
    assert "-W 448 -H 304" in done.stdout
    engine_input = load_image(out / "input.png")
    engine_mask = load_mask(out / "mask.png")
    assert engine_input.shape == (304, 448, 3) and engine_mask.shape == (304, 448)
    assert np.all(engine_input[engine_mask == 255] == 128)
    assert json.loads((out / "prepare.json").read_text())["format"] == 1

    # Stand-in for the engine: invert everything (so any leak outside the mask would show).
    Image.fromarray(255 - engine_input).save(tmp_path / "result.png")
    done = run_app(
        "composite",
        "--prepared",
        out,
        "--result",
        tmp_path / "result.png",
        "--out",
        tmp_path / "final.png",
        "--color-match",
        "off",  # the stand-in's colours are nothing like the photo's: keep them as they are
        home=stepwise_home,
    )
    assert done.returncode == 0, done.stderr
    assert "final.png" in done.stdout
    final = load_image(tmp_path / "final.png")
    weights = feather_weights(mask, 6)
    assert np.array_equal(final[weights == 0], picture[weights == 0])
    assert np.array_equal(final[mask == 255], 255 - np.full_like(picture, 128)[mask == 255])
    assert np.count_nonzero(weights == 0) < weights.size  # the feather did reach outside


def test_only_masked_via_the_cli(tmp_path: Path, stepwise_home: Path) -> None:
    picture = make_picture(1200, 900, seed=4)
    mask = rect_mask(1200, 900, 600, 400, 30, 30)
    Image.fromarray(picture).save(tmp_path / "photo.png")
    Image.fromarray(mask).save(tmp_path / "mask.png")
    done = run_app(
        "prepare",
        tmp_path / "photo.png",
        "--mask",
        tmp_path / "mask.png",
        "--out",
        tmp_path / "p",
        "--only-masked",
        "--padding",
        "40",
        "--fill",
        "blur",
        home=stepwise_home,
    )
    assert done.returncode == 0, done.stderr
    engine_input = load_image(tmp_path / "p" / "input.png")
    assert engine_input.shape[0] % 16 == 0 and engine_input.shape[1] % 16 == 0
    # The 110×110 region (30 px mask + 40 px padding, grown to 16) is scaled up to the
    # default target of 1024² px for the model.
    assert engine_input.shape[:2] == (1024, 1024)
    assert "scaled    to 1024×1024 px" in done.stdout
    Image.fromarray(np.zeros_like(engine_input)).save(tmp_path / "result.png")
    done = run_app(
        "composite",
        "--prepared",
        tmp_path / "p",
        "--result",
        tmp_path / "result.png",
        "--out",
        tmp_path / "final.png",
        "--color-match",
        "off",  # a black stand-in: colour matching would (rightly) lift it towards the photo
        home=stepwise_home,
    )
    assert done.returncode == 0, done.stderr
    final = load_image(tmp_path / "final.png")
    assert final.shape == picture.shape
    assert np.all(final[400:430, 600:630] == 0)
    weights = feather_weights(mask, 8)
    assert np.array_equal(final[weights == 0], picture[weights == 0])
    # With colour match (the default): the black ring is new content, not drift: it declines,
    # says why, and the composite is the plain one.
    done = run_app(
        "composite", "--prepared", tmp_path / "p", "--result", tmp_path / "result.png",
        "--out", tmp_path / "matched.png", home=stepwise_home,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "colour match: declined (no_witness: " in done.stdout
    assert np.array_equal(load_image(tmp_path / "matched.png"), final)


def test_cli_errors_are_one_line_naming_the_file(tmp_path: Path, stepwise_home: Path) -> None:
    (tmp_path / "photo.png").write_text("not a picture")
    Image.fromarray(np.zeros((8, 8), np.uint8)).save(tmp_path / "mask.png")

    def prepare() -> subprocess.CompletedProcess[str]:
        photo, mask = tmp_path / "photo.png", tmp_path / "mask.png"
        return run_app(
            "prepare", photo, "--mask", mask, "--out", tmp_path / "p", home=stepwise_home
        )

    done = prepare()
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "photo.png" in lines[0]
    assert not (tmp_path / "p").exists()

    Image.fromarray(make_picture(32, 32)).save(tmp_path / "photo.png")
    done = prepare()
    assert done.returncode == 2 and "8×8" in done.stderr and "32×32" in done.stderr

    Image.fromarray(np.zeros((32, 32), np.uint8)).save(tmp_path / "mask.png")
    done = prepare()
    assert done.returncode == 2 and "mask is empty" in done.stderr

    done = run_app(
        "composite",
        "--prepared",
        tmp_path / "nowhere",
        "--result",
        tmp_path / "photo.png",
        "--out",
        tmp_path / "o.png",
        home=stepwise_home,
    )
    assert done.returncode == 2 and "not a prepared folder" in done.stderr


def test_composite_refuses_a_result_of_the_wrong_size(tmp_path: Path, stepwise_home: Path) -> None:
    Image.fromarray(make_picture(40, 40)).save(tmp_path / "photo.png")
    Image.fromarray(rect_mask(40, 40, 5, 5, 10, 10)).save(tmp_path / "mask.png")
    assert (
        run_app(
            "prepare",
            tmp_path / "photo.png",
            "--mask",
            tmp_path / "mask.png",
            "--out",
            tmp_path / "p",
            home=stepwise_home,
        ).returncode
        == 0
    )
    Image.fromarray(make_picture(64, 64)).save(tmp_path / "result.png")
    done = run_app(
        "composite",
        "--prepared",
        tmp_path / "p",
        "--result",
        tmp_path / "result.png",
        "--out",
        tmp_path / "o.png",
        home=stepwise_home,
    )
    assert done.returncode == 2 and "64×64" in done.stderr and "48×48" in done.stderr
    assert not (tmp_path / "o.png").exists()
