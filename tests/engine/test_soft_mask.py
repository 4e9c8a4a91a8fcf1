"""`--mask-mode soft` on the real sd-stage and the tiny models (native/PROTOCOL.md, "Masks").

The mask is a horizontal ramp, so the eight latent cell columns of the 128-px picture have the
soft values 0, 0.16, 0.32, 0.49, 0.66, 0.82, 0.99 and 1 (each cell the largest of its 16 px).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from app.engine.argv import DiffuseArgs
from app.engine.events import ErrorEvent, Paused, Progress
from app.engine.process import StageProcess
from app.engine.tensorfile import read_tensors
from tests.engine.pause_hook import PAUSE_AT_STEP_ENV
from tests.engine.real_engine import (
    FINAL_LATENT,
    INIT_LATENT,
    Job,
    make_images,
    run_stage,
    stage_args,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

SIZE = 128
CELL = 16
STEPS = 8


def ramp_mask(path: Path, width: int = SIZE, height: int = SIZE) -> np.ndarray:
    """0 over the first cell column, rising linearly to 255 at the last cell column; returns
    each latent cell column's soft value (the largest pixel of the column, 0..1)."""
    from PIL import Image

    x = np.arange(width, dtype=np.float64)
    row = np.rint(np.clip((x - CELL) / (width - 2 * CELL), 0.0, 1.0) * 255).astype(np.uint8)
    Image.fromarray(np.tile(row, (height, 1))).save(path)
    return row.reshape(-1, CELL).max(axis=1) / 255.0


@pytest.fixture(scope="module")
def encoded(sd_stage, tiny_models, tmp_path_factory) -> tuple[Path, Job, np.ndarray]:
    """The init latent and the conditioning, once; the ramp's cell values."""
    out = tmp_path_factory.mktemp("soft-encoded")
    images = make_images(out / "images")
    cells = ramp_mask(out / "ramp.png")
    job = Job(
        prompt="a soft edge", init_image=images.init, mask=out / "ramp.png", steps=STEPS,
        strength=1.0,
    )  # fmt: skip
    args = stage_args(tiny_models, job, out)
    for stage in ("vae-encode", "llm-encode"):
        run_stage(sd_stage, args[stage], out / f"{stage}.log")
    return out, job, cells


def diffuse_args(tiny_models, encoded, folder: Path, mode: str | None) -> DiffuseArgs:
    out, job, _ = encoded
    base = stage_args(tiny_models, job, out)["diffuse"]
    assert isinstance(base, DiffuseArgs)
    folder.mkdir(parents=True, exist_ok=True)
    return replace(
        base,
        save_latent=folder / FINAL_LATENT,
        checkpoint_dir=folder / "checkpoints",
        mask_mode=mode,
    )


@pytest.fixture(scope="module")
def runs(sd_stage, tiny_models, encoded, tmp_path_factory) -> dict[str, Path]:
    """One uninterrupted diffuse per mode (None: no flag, the engine's default)."""
    folders = {}
    for mode in ("soft", "hard", None):
        folder = tmp_path_factory.mktemp(f"soft-run-{mode}")
        args = diffuse_args(tiny_models, encoded, folder, mode)
        run_stage(sd_stage, args, folder / "diffuse.log")
        folders[str(mode)] = folder
    return folders


def _latent(path: Path, name: str = "latent") -> np.ndarray:
    return read_tensors(path)[name][0]  # [128, h, w]


def _change_per_column(final: np.ndarray, init: np.ndarray) -> np.ndarray:
    return np.abs(final.astype(np.float64) - init).mean(axis=(0, 1))


def test_hard_is_the_default_and_the_mode_is_recorded(runs) -> None:
    hard, default = runs["hard"], runs["None"]
    assert (hard / FINAL_LATENT).read_bytes() == (default / FINAL_LATENT).read_bytes()
    for mode, folder in (("soft", runs["soft"]), ("hard", hard), ("hard", default)):
        metadata = json.loads((folder / "checkpoints" / "metadata.json").read_text())
        assert metadata["mask_mode"] == mode


def test_soft_never_changes_a_cell_of_mask_value_zero(runs, encoded) -> None:
    out, _, cells = encoded
    init = _latent(out / INIT_LATENT)
    zero = cells == 0.0
    assert zero.sum() == 1  # the first cell column
    soft_x0 = _latent(runs["soft"] / "checkpoints" / f"x0_{STEPS:03d}.bin")
    hard_x0 = _latent(runs["hard"] / "checkpoints" / f"x0_{STEPS:03d}.bin")
    # The last step's x0 prediction after the blend: exactly the init latent there.
    assert np.array_equal(soft_x0[:, :, zero], init[:, :, zero])
    assert np.array_equal(hard_x0[:, :, zero], init[:, :, zero])
    soft, hard = _latent(runs["soft"] / FINAL_LATENT), _latent(runs["hard"] / FINAL_LATENT)
    # The final latent there is hard mode's, bit for bit (and the init up to float rounding).
    assert np.array_equal(soft[:, :, zero], hard[:, :, zero])
    assert np.allclose(soft[:, :, zero], init[:, :, zero], atol=1e-4)
    # Everywhere else soft mode made something: every other cell column moved off the init.
    assert (_change_per_column(soft, init)[~zero] > 1e-3).all()


def test_soft_changes_grow_with_the_mask_value_and_hard_is_one_step(runs, encoded) -> None:
    out, _, cells = encoded
    init = _latent(out / INIT_LATENT)
    soft = _change_per_column(_latent(runs["soft"] / FINAL_LATENT), init)
    hard = _change_per_column(_latent(runs["hard"] / FINAL_LATENT), init)
    # Soft: more change for a larger mask value (cells whose value opens the same number of
    # steps may tie), from nothing at 0 to the full repaint at 1.
    opened = [sum(1 for s in range(1, STEPS + 1) if m > 1 - s / STEPS) for m in cells]
    assert opened == sorted(opened) and opened[0] == 0 and opened[-1] == STEPS
    for i in range(1, len(cells)):
        if opened[i] > opened[i - 1]:
            assert soft[i] > soft[i - 1], (i, soft.round(4).tolist())
    # Value 1 is repainted in every step, as in hard mode (not bit-equal: through attention it
    # sees a latent that differs elsewhere); the least opened column changes much less.
    assert soft[-1] == pytest.approx(hard[-1], rel=0.05)
    assert soft[1] < 0.75 * soft[-1]
    # Hard: the library's rounding, one step at mask value 0.5.
    repainted = cells >= 0.5
    assert (hard[~repainted] < 1e-3).all() and (hard[repainted] > 0.9 * soft[-1]).all()


def test_soft_resume_after_a_kill_is_identical(sd_stage, tiny_models, encoded, runs, tmp_path):
    args = diffuse_args(tiny_models, encoded, tmp_path, "soft")
    kill_at = random.Random().randint(1, STEPS - 1)

    def kill(proc: StageProcess, event) -> None:
        if isinstance(event, Paused):  # held after step kill_at (the test hook)
            proc.kill()

    held = {PAUSE_AT_STEP_ENV: str(kill_at)}
    killed = run_stage(
        sd_stage, args, tmp_path / "killed.log", on_event=kill, env=held, check=False
    )
    assert killed.returncode == -9, f"killed at step {kill_at}, exit {killed.returncode}"
    assert not (tmp_path / FINAL_LATENT).exists()
    metadata = json.loads((tmp_path / "checkpoints" / "metadata.json").read_text())
    last = metadata["last_completed_step"]
    assert kill_at - 1 <= last < STEPS
    resumed = run_stage(sd_stage, replace(args, resume_step=last), tmp_path / "resumed.log")
    assert [e.step for e in resumed.events if isinstance(e, Progress)] == list(
        range(last + 1, STEPS + 1)
    )
    expected = runs["soft"] / FINAL_LATENT
    assert (tmp_path / FINAL_LATENT).read_bytes() == expected.read_bytes()
    for step in range(last + 1, STEPS + 1):
        name = f"step_{step:03d}.bin"
        got = (tmp_path / "checkpoints" / name).read_bytes()
        assert got == (runs["soft"] / "checkpoints" / name).read_bytes(), name


def test_resume_with_the_other_mode_or_mask_is_refused(
    sd_stage, tiny_models, encoded, runs, tmp_path
):
    from PIL import Image

    soft = runs["soft"] / "checkpoints"
    args = diffuse_args(tiny_models, encoded, tmp_path, "soft")
    (tmp_path / "checkpoints").mkdir()
    for name in ("metadata.json", "step_002.bin"):
        (tmp_path / "checkpoints" / name).write_bytes((soft / name).read_bytes())
    other_mask = tmp_path / "other.png"
    Image.fromarray(np.full((SIZE, SIZE), 255, np.uint8)).save(other_mask)
    for changed, word in (
        (replace(args, mask_mode="hard"), "mask_mode"),
        (replace(args, mask=other_mask), "inputs.mask"),
    ):
        run = run_stage(
            sd_stage, replace(changed, resume_step=2), tmp_path / "run.log", check=False
        )
        errors = [e for e in run.events if isinstance(e, ErrorEvent)]
        assert run.returncode == 5 and len(errors) == 1, run.log.read_text()[-2000:]
        assert word in errors[0].message and "differs from the checkpointed run" in (
            errors[0].message
        )
        assert not (tmp_path / FINAL_LATENT).exists()


def test_an_unknown_mask_mode_is_a_usage_error(sd_stage, tiny_models, encoded, tmp_path):
    import subprocess

    from app.engine.argv import build_argv

    args = diffuse_args(tiny_models, encoded, tmp_path, "soft")
    argv = build_argv(sd_stage, args)
    argv[argv.index("--mask-mode") + 1] = "fuzzy"
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2
    assert "--mask-mode 'fuzzy': use hard or soft" in result.stdout + result.stderr


def test_soft_with_a_binary_mask_is_hard_bit_for_bit(sd_stage, tiny_models, encoded, tmp_path):
    out, _, _ = encoded
    square = out / "images" / "mask.png"  # make_images: a white square, 0 elsewhere
    finals = {}
    for mode in ("soft", "hard"):
        args = replace(diffuse_args(tiny_models, encoded, tmp_path / mode, mode), mask=square)
        run_stage(sd_stage, args, tmp_path / mode / "diffuse.log")
        finals[mode] = (tmp_path / mode / FINAL_LATENT).read_bytes()
    assert finals["soft"] == finals["hard"]
