"""Bad input on the command line: one clear line and exit 2, never a traceback, before any
stage runs (issue 9, defects 3 and 4)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.cli.conftest import run_cli


def _run(tmp_path: Path, model_args: list[str], run_dir: Path, *extra: str):
    return run_cli("run", *model_args, "-p", "a red house", "--run-dir", run_dir, *extra)


@pytest.mark.parametrize("extra", [("--steps", "0"), ("-W", "0"), ("-H", "8"), ("--seed", "-5")])
def test_bad_value_refused_before_the_encoders(tmp_path: Path, model_args, extra) -> None:
    run_dir = tmp_path / "run"
    done = _run(tmp_path, model_args, run_dir, *extra)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "Unexpected error" not in done.stderr
    assert extra[0] in done.stderr or "out of range" in done.stderr
    assert not (run_dir / "logs").exists()  # no engine stage started


def test_run_dir_under_a_file(tmp_path: Path, model_args) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    done = _run(tmp_path, model_args, blocker / "run")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1 and str(blocker) in lines[0] and "--run-dir" in lines[0], done.stderr


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="POSIX modes, not root")
def test_run_dir_read_only(tmp_path: Path, model_args) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        done = _run(tmp_path, model_args, locked / "run")
    finally:
        locked.chmod(0o700)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "read-only" in done.stderr and str(locked) in done.stderr


def test_model_of_the_wrong_kind(tmp_path: Path, model_args) -> None:
    text = tmp_path / "model.gguf"
    text.write_text("this is not a model")
    args = list(model_args)
    args[args.index("--vae") + 1] = str(text)
    done = _run(tmp_path, args, tmp_path / "run")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "VAE (--vae)" in done.stderr and str(text) in done.stderr
    assert not (tmp_path / "run" / "logs").exists()


def test_an_empty_mask_is_refused_before_the_run(tmp_path: Path, model_args, inputs) -> None:
    """An empty mask repaints nothing: refused before any run folder, as `queue add` refuses it
    (issue 38 item 10; tests/cli/test_leftovers_38.py compares the two)."""
    import numpy as np

    from app.imaging.io import load_image, save_png_atomic

    photo, _mask = inputs
    height, width = load_image(photo).shape[:2]
    black = tmp_path / "black-mask.png"
    save_png_atomic(black, np.zeros((height, width), np.uint8))
    done = _run(
        tmp_path, model_args, tmp_path / "run", "-i", str(photo), "--mask", str(black),
        "--steps", "1",
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "The mask is empty" in said, said
    assert "run folder:" not in done.stdout and "Traceback" not in said
    assert not (tmp_path / "run" / "run.json").exists()
