"""`python -m app run / resume / status / selftest` with the real engine and the tiny models."""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import psutil
import pytest

from app.core.paths import app_paths
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.job.spec import JobSpec, ModelFiles
from app.pipeline.runner import STAGES, Pipeline
from tests.cli.conftest import run_cli, status_json
from tests.engine.pause_hook import PAUSE_AT_STEP_ENV, engines_pause_at, suspend_at

ENGINE_STAGES = ("vae-encode", "llm-encode", "diffuse", "vae-decode")


def _run(
    tmp_path: Path, name: str, model_args: list[str], inputs: tuple[Path, Path], *extra: str
) -> Path:
    run_dir = tmp_path / name
    image, mask = inputs
    done = run_cli(
        "run",
        *model_args,
        "-p",
        "a red house",
        "-i",
        image,
        "--mask",
        mask,
        "--run-dir",
        run_dir,
        *extra,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return run_dir


def test_run_writes_result_and_status(tmp_path: Path, model_args, inputs) -> None:
    run_dir = _run(tmp_path, "run", model_args, inputs, "--steps", "4")
    status = status_json(run_dir)
    assert [s["name"] for s in status["stages"]] == list(STAGES)
    for stage in status["stages"]:
        assert stage["state"] in ("done", "cached"), stage
        assert stage["seconds"] is not None
        assert {"name", "state", "cached", "seconds"} <= set(stage)
    engine = {s["name"]: s for s in status["stages"] if s["name"] in ENGINE_STAGES}
    assert all(s["device"] for s in engine.values()), engine
    assert status["steps"] == 4 and status["last_completed_step"] == 4
    assert status["result"] == str(run_dir / "result.png")
    assert (run_dir / "result.png").stat().st_size > 0
    text = run_cli("status", run_dir)
    assert text.returncode == 0 and "diffuse" in text.stdout


def test_second_run_reuses_conditioning_and_latent(tmp_path: Path, model_args, inputs) -> None:
    first = _run(tmp_path, "first", model_args, inputs, "--seed", "1")
    second = _run(tmp_path, "second", model_args, inputs, "--seed", "2")
    stages = {s["name"]: s for s in status_json(second)["stages"]}
    assert stages["llm-encode"]["cached"] and stages["llm-encode"]["state"] == "cached"
    assert stages["vae-encode"]["cached"]
    assert not stages["diffuse"]["cached"]
    # No LLM process was started for the second run: it has no llm-encode log.
    assert (first / "logs" / "llm-encode.log").exists()
    assert not (second / "logs" / "llm-encode.log").exists()
    assert (first / "conditioning.bin").read_bytes() == (second / "conditioning.bin").read_bytes()


def _spec(tiny_models, inputs, steps: int) -> JobSpec:
    image, mask = inputs
    return JobSpec(
        models=ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae)),
        prompt="a red house",
        image=str(image),
        mask=str(mask),
        steps=steps,
        preview="none",
    )


def _interrupt(pipeline: Pipeline, run, how: str) -> list:
    """Runs until the engine pauses after step 1's checkpoint (the test build's
    SD_STAGE_TEST_PAUSE_AT_STEP: a pause sent from here raced the tiny steps under load and the
    run finished first), then kills the engine (how="kill") or suspends it (how="suspend");
    returns the events. The hook is set for this run's engine only, not for the resume."""
    if how == "suspend":
        return suspend_at(pipeline, run.dir, 1)
    control = RunControl()
    seen = []
    with engines_pause_at(1):
        for event in pipeline.execute(run.dir, control):
            seen.append(event)
            if isinstance(event, ev.Paused):
                pid = control.process_id
                assert pid is not None
                psutil.Process(pid).kill()
    return seen


def test_killed_engine_resumes_byte_identical(
    tmp_path: Path, model_args, inputs, tiny_models, sd_stage: Path
) -> None:
    steps = 8
    reference = _run(tmp_path, "reference", model_args, inputs, "--steps", str(steps))
    pipeline = Pipeline(app_paths(), sd_stage)
    run = pipeline.create_run(_spec(tiny_models, inputs, steps), tmp_path / "killed")
    seen = _interrupt(pipeline, run, "kill")
    terminal = seen[-1]
    assert isinstance(terminal, ev.RunFailed), seen[-3:]
    assert terminal.stage == "diffuse" and terminal.log_path is not None
    assert sum(isinstance(e, ev.RunFailed | ev.RunFinished) for e in seen) == 1
    status = status_json(run.dir)
    assert 1 <= status["last_completed_step"] < steps
    assert status["result"] is None

    done = run_cli("resume", run.dir, "--engine", sd_stage)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Resuming from the checkpoint" in done.stdout
    assert (run.dir / "final_latent.bin").read_bytes() == (
        reference / "final_latent.bin"
    ).read_bytes()
    assert (run.dir / "result.png").read_bytes() == (reference / "result.png").read_bytes()
    status = status_json(run.dir)
    assert status["last_completed_step"] == steps
    assert status["result"] == str(run.dir / "result.png")


def test_suspend_then_resume_with_a_damaged_checkpoint(
    tmp_path: Path, model_args, inputs, tiny_models, sd_stage: Path
) -> None:
    steps = 8
    reference = _run(tmp_path, "reference", model_args, inputs, "--steps", str(steps))
    pipeline = Pipeline(app_paths(), sd_stage)
    run = pipeline.create_run(_spec(tiny_models, inputs, steps), tmp_path / "suspended")
    seen = _interrupt(pipeline, run, "suspend")
    assert isinstance(seen[-1], ev.RunSuspended), seen[-3:]
    last = seen[-1].step
    assert 1 <= last < steps
    # Damage the newest checkpoint: resume must not trust it and start from an earlier one.
    meta = json.loads((run.dir / "checkpoints" / "metadata.json").read_text())
    newest = meta["checkpoints"][str(meta["last_completed_step"])]["file"]
    (run.dir / "checkpoints" / newest).write_bytes(b"garbage")

    done = run_cli("resume", run.dir, "--engine", sd_stage)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (run.dir / "result.png").read_bytes() == (reference / "result.png").read_bytes()


@pytest.mark.skipif(sys.platform == "win32", reason="Ctrl+C is a console event there, not SIGINT")
def test_ctrl_c_suspends_with_exit_6(tmp_path: Path, model_args, inputs) -> None:
    import subprocess
    import sys

    from tests.cli.conftest import REPO_ROOT

    image, mask = inputs
    run_dir = tmp_path / "ctrl-c"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app",
            "run",
            *model_args,
            "-p",
            "a red house",
            "-i",
            str(image),
            "--mask",
            str(mask),
            "--steps",
            "30",
            "--run-dir",
            str(run_dir),
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # the engine holds after step 1 (the test hook): the Ctrl+C lands mid-run, however busy
        env={**os.environ, PAUSE_AT_STEP_ENV: "1"},
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if "checkpoint 1" in line:
            proc.send_signal(signal.SIGINT)
            break
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 6, out + err
    status = status_json(run_dir)
    assert status["result"] is None and status["last_completed_step"] >= 1
    done = run_cli("resume", run_dir, "--engine", model_args[-1])
    assert done.returncode == 0, done.stdout + done.stderr


def test_selftest_reports_devices(tmp_path: Path, sd_stage: Path) -> None:
    done = run_cli("selftest", "--engine", sd_stage, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"]
    assert set(report["devices"]) == set(ENGINE_STAGES)
    assert report["seconds_per_step"] > 0


def test_failures_exit_1_with_a_plain_message(tmp_path: Path, model_args, inputs) -> None:
    image, mask = inputs
    broken = tmp_path / "not-a-model.gguf"
    # GGUF's magic passes the up-front check (tests/cli/test_preflight_cli.py refuses files
    # without it); the rest is garbage that only the engine's loader finds.
    broken.write_bytes(b"GGUF" + b"nope" * 100)
    args = list(model_args)
    args[args.index("--llm") + 1] = str(broken)
    done = run_cli(
        "run", *args, "-p", "x", "-i", image, "--mask", mask, "--run-dir", tmp_path / "r"
    )
    assert done.returncode == 1
    assert "failed in llm-encode" in done.stderr
    assert "engine log:" in done.stderr
    status = status_json(tmp_path / "r")
    states = {s["name"]: s["state"] for s in status["stages"]}
    assert states["llm-encode"] == "failed"


def test_killed_cli_resumes_byte_identical(tmp_path: Path, model_args, inputs) -> None:
    import subprocess
    import sys

    from tests.cli.conftest import REPO_ROOT

    steps = 24
    reference = _run(tmp_path, "reference", model_args, inputs, "--steps", str(steps))
    image, mask = inputs
    run_dir = tmp_path / "crashed"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "app",
            "run",
            *model_args,
            "-p",
            "a red house",
            "-i",
            str(image),
            "--mask",
            str(mask),
            "--steps",
            str(steps),
            "--run-dir",
            str(run_dir),
        ],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        # the engine holds after step 2 (the test hook) until the kill; orphaned, it suspends
        env={**os.environ, PAUSE_AT_STEP_ENV: "2"},
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if "checkpoint 2" in line:
            proc.kill()  # SIGKILL: no clean-up at all; the engine is left orphaned
            break
    proc.wait(timeout=60)
    proc.stdout.close()
    done = run_cli("resume", run_dir, "--engine", model_args[-1])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Resuming from the checkpoint" in done.stdout
    assert (run_dir / "result.png").read_bytes() == (reference / "result.png").read_bytes()
    assert status_json(run_dir)["last_completed_step"] == steps


def test_only_masked_crop_reaches_the_engine(tmp_path: Path, model_args, inputs) -> None:
    """`run --only-masked --align crop`: the engine gets the mask's box (plus padding, cropped
    to 16 px), the result has the photo's size and every unmasked pixel is the photo's."""
    import cv2
    import numpy as np
    from PIL import Image

    image, mask = inputs
    run_dir = _run(
        tmp_path, "masked", model_args, inputs, "--only-masked", "--align", "crop",
        "--padding", "8", "--masked-target", "0", "--steps", "2",
    )  # fmt: skip
    status = status_json(run_dir)
    photo = np.asarray(Image.open(image).convert("RGB"))
    painted = np.asarray(Image.open(mask).convert("L")) > 0
    # The feather (8 px by default) lies outside the mask; beyond it the photo is untouched.
    reach = 2 * (params_feather := status["params"]["feather"]) + 3
    near = cv2.dilate(painted.astype(np.uint8), np.ones((reach, reach), np.uint8)) > 0
    keep = ~near
    assert params_feather == 8 and keep.any()
    mi = status["model_input"]
    x, y, w, h = mi["region"]
    ys, xs = np.nonzero(painted)
    assert x <= xs.min() and y <= ys.min() and x + w > xs.max() and y + h > ys.max()
    assert (w, h) != photo.shape[1::-1]  # a part of the photo, not all of it
    assert (mi["width"], mi["height"]) == (w - w % 16, h - h % 16)  # crop: down to 16 px
    result = np.asarray(Image.open(run_dir / "result.png").convert("RGB"))
    assert result.shape == photo.shape
    assert np.array_equal(result[keep], photo[keep])
    params = status["params"]
    assert (params["only_masked"], params["align"], params["padding"]) == (True, "crop", 8)


def test_vae_tile_size_reaches_the_engine(tmp_path: Path, model_args, inputs) -> None:
    """A parameter added by one table row (plus its JobSpec field and engine flag) is a run
    flag, in status --json, and on the engine's command line."""
    run_dir = _run(
        tmp_path, "tiles", model_args, inputs, "--vae-tiling", "--vae-tile-size", "16",
        "--steps", "1",
    )  # fmt: skip
    argv = json.loads((run_dir / "logs" / "vae-decode.log").read_text().splitlines()[0][8:])
    assert argv[argv.index("--vae-tile-size") + 1] == "16x16"
    assert "--vae-tiling" in argv
    assert status_json(run_dir)["params"]["vae_tile_size"] == 16
