"""x0 latents from the real engine, and the background preview decoder that turns them into PNGs.

The engine's `x0` event is read from the raw stdout here: app/engine/events.py ignores event
types it does not know (PROTOCOL.md), and these tests check the engine's side of the contract.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import psutil
import pytest
from PIL import Image

from app.core import platform
from app.engine.argv import CommonArgs, Placement, VaeDecodeArgs, build_argv
from app.engine.errors import ModelLoadError
from app.engine.tensorfile import read_tensors
from app.pipeline.execute.preview_decoder import (
    MAX_FAILURES,
    STAGED_LATENT,
    DecodedPreview,
    PreviewDecoder,
    decoded_png_name,
    x0_step,
)
from tests.engine.real_engine import (
    FINAL_LATENT,
    INIT_LATENT,
    STAGE_TIMEOUT_S,
    Job,
    make_images,
    run_stage,
    stage_args,
)
from tests.jobs.guard import child_pids

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]

STEPS = 6
X0_KEEP = 4  # native/src/checkpoints.cpp
LATENT_SHAPE = (1, 128, 8, 8)  # 128×128 px


class X0Run:
    """One masked img2img diffuse; every x0 file copied the moment its event arrived."""

    def __init__(self, out: Path, job: Job, events: list[dict], listings: list[set[int]]) -> None:
        self.out = out
        self.job = job
        self.checkpoints = out / "checkpoints"
        self.copies = out / "x0-copies"
        self.events = events  # the x0 events, in order
        self.listings = listings  # x0 steps in the folder at each x0 event

    def copy(self, step: int) -> Path:
        return self.copies / f"x0_{step:03d}.bin"


def _diffuse_raw(sd_stage: Path, args, run: X0Run, log: Path) -> None:
    """Runs diffuse reading its stdout line by line (to see `x0`, which the client ignores)."""
    run.copies.mkdir(exist_ok=True)
    with open(log, "ab") as err:
        proc = subprocess.Popen(
            build_argv(sd_stage, args), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err
        )
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                event = json.loads(line)
                if event["type"] != "x0":
                    continue
                path = Path(event["path"])
                shutil.copyfile(path, run.copy(event["step"]))  # kept by the engine 4 steps
                run.events.append(event)
                run.listings.append(_x0_steps(run.checkpoints))
            assert proc.wait(STAGE_TIMEOUT_S) == 0, log.read_text(errors="replace")[-2000:]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            assert proc.stdin is not None
            proc.stdin.close()


def _x0_steps(folder: Path) -> set[int]:
    return {s for p in folder.iterdir() if (s := x0_step(p)) is not None}


@pytest.fixture(scope="module")
def x0_run(sd_stage: Path, tiny_models, tmp_path_factory: pytest.TempPathFactory) -> X0Run:
    out = tmp_path_factory.mktemp("x0-run")
    images = make_images(out / "images")
    job = Job(
        prompt="a cat", strength=1.0, init_image=images.init, mask=images.mask, seed=7, steps=STEPS
    )
    stages = stage_args(tiny_models, job, out)
    for name in ("vae-encode", "llm-encode"):
        run_stage(sd_stage, stages[name], out / f"{name}.log")
    run = X0Run(out, job, [], [])
    _diffuse_raw(sd_stage, stages["diffuse"], run, out / "diffuse.log")
    return run


def _cells(mask: Path) -> np.ndarray:
    """The mask as the engine binarises it: per 16 px latent cell, any white pixel."""
    pixels = np.asarray(Image.open(mask).convert("L"))
    h, w = pixels.shape
    return pixels.reshape(h // 16, 16, w // 16, 16).max(axis=(1, 3)) > 127


# ---- the engine -----------------------------------------------------------------------------


def test_every_step_writes_its_x0_latent_and_names_it(x0_run: X0Run) -> None:
    assert [e["step"] for e in x0_run.events] == list(range(1, STEPS + 1))  # euler: one per step
    for event in x0_run.events:
        assert Path(event["path"]) == x0_run.checkpoints / f"x0_{event['step']:03d}.bin"
    # only the newest few stay: never a step newer than the event's, never more than 4
    for event, steps in zip(x0_run.events, x0_run.listings, strict=True):
        k = event["step"]
        assert steps == set(range(max(1, k - X0_KEEP + 1), k + 1)), (k, steps)
    assert _x0_steps(x0_run.checkpoints) == {3, 4, 5, 6}
    assert not [p.name for p in x0_run.checkpoints.iterdir() if ".tmp" in p.name]


def test_x0_is_finite_and_keeps_the_init_latent_outside_the_mask(x0_run: X0Run) -> None:
    init = read_tensors(x0_run.out / INIT_LATENT)["latent"]
    masked = _cells(x0_run.job.mask)  # type: ignore[arg-type]
    assert masked.any() and not masked.all()
    for step in range(1, STEPS + 1):
        tensors = read_tensors(x0_run.copy(step))
        assert list(tensors) == ["latent"]
        x0 = tensors["latent"]
        assert x0.shape == LATENT_SHAPE and x0.dtype == np.float32
        assert np.isfinite(x0).all()
        assert np.array_equal(x0[..., ~masked], init[..., ~masked]), step  # the mask blend
        assert not np.array_equal(x0[..., masked], init[..., masked]), step
    # the last step's prediction is the result (euler to sigma 0), up to rounding
    final = read_tensors(x0_run.out / FINAL_LATENT)["latent"]
    np.testing.assert_allclose(read_tensors(x0_run.copy(STEPS))["latent"], final, atol=1e-5)


def test_a_resumed_run_removes_the_x0_files_an_earlier_process_left(
    x0_run: X0Run, sd_stage: Path, tiny_models, tmp_path: Path
) -> None:
    out = tmp_path / "resumed"
    shutil.copytree(x0_run.out, out, ignore=shutil.ignore_patterns("x0-copies", "*.log"))
    assert _x0_steps(out / "checkpoints") == {3, 4, 5, 6}  # the earlier process's
    args = stage_args(tiny_models, x0_run.job, out)["diffuse"]
    resumed = X0Run(out, x0_run.job, [], [])
    _diffuse_raw(sd_stage, replace(args, resume_step=1), resumed, out / "diffuse.log")
    assert [e["step"] for e in resumed.events] == list(range(2, STEPS + 1))
    assert resumed.listings[0] == {2}  # 3..6 of the earlier process are gone at the first write
    assert _x0_steps(out / "checkpoints") == {3, 4, 5, 6}
    # x0 files change nothing: the resumed result is the uninterrupted one, byte for byte
    assert (out / FINAL_LATENT).read_bytes() == (x0_run.out / FINAL_LATENT).read_bytes()
    for step in range(2, STEPS + 1):
        assert resumed.copy(step).read_bytes() == x0_run.copy(step).read_bytes()


# ---- the decoder ----------------------------------------------------------------------------


def _direct_decode(sd_stage: Path, vae: Path, latent: Path, out: Path) -> np.ndarray:
    args = VaeDecodeArgs(
        vae=vae,
        load_latent=latent,
        output=out,
        common=CommonArgs(threads=1, placement=Placement(vae="cpu")),
    )
    run_stage(sd_stage, args, out.with_suffix(".log"))
    return np.asarray(Image.open(out))


def _nice_child(calls: list[tuple[int, tuple[str, ...]]], monkeypatch: pytest.MonkeyPatch):
    """Records each child the decoder lowers, with the argv it was started with (read from the
    decoder's own StageProcess: /proc of a tiny decode that already ended reads empty)."""
    from app.pipeline.execute import preview_decoder as module

    started: dict[int, tuple[str, ...]] = {}

    class Recorded(module.StageProcess):
        def __init__(self, argv, *args, **kwargs) -> None:
            super().__init__(argv, *args, **kwargs)
            started[self.pid] = tuple(str(a) for a in argv)

    monkeypatch.setattr(module, "StageProcess", Recorded)

    def lower(pid: int) -> None:
        calls.append((pid, started[pid]))
        if hasattr(os, "setpriority"):
            with contextlib.suppress(OSError):  # it may have ended already
                os.setpriority(os.PRIO_PROCESS, pid, 19)

    return lower


def test_decoder_decodes_the_newest_offer_exactly_as_vae_decode_does(
    x0_run: X0Run, sd_stage: Path, tiny_models, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[int, tuple[str, ...]]] = []
    monkeypatch.setattr(
        platform, "lower_child_priority", _nice_child(calls, monkeypatch), raising=False
    )
    got: list[DecodedPreview] = []
    decoder = PreviewDecoder(sd_stage, tiny_models.vae, tmp_path / "previews", got.append)
    with decoder:
        for step in range(1, STEPS + 1):  # a burst: the decoder is still busy with the first
            decoder.offer(step, x0_run.copy(step))
        assert decoder.wait_idle(STAGE_TIMEOUT_S)
        steps = [p.step for p in got]
        assert steps[-1] == STEPS and set(steps) <= {1, STEPS}, steps  # 2..5 were skipped
        assert decoder.skipped >= STEPS - 2
        decoder.offer(3, x0_run.copy(3))  # older than what it showed: never goes back
        assert decoder.wait_idle(5) and [p.step for p in got] == steps
    assert not decoder.running and child_pids() == []
    preview = got[-1]
    assert preview.png == tmp_path / "previews" / decoded_png_name(STEPS)
    assert preview.seconds > 0
    direct = _direct_decode(sd_stage, tiny_models.vae, x0_run.copy(STEPS), tmp_path / "direct.png")
    decoded = np.asarray(Image.open(preview.png))
    assert decoded.shape == (128, 128, 3)
    assert np.array_equal(decoded, direct)
    # each decode ran in a child that was put below normal priority
    assert len(calls) == len(got)
    for _, argv in calls:
        assert "vae-decode" in argv and argv[argv.index("-t") + 1] == "1"
    names = sorted(p.name for p in (tmp_path / "previews").iterdir())
    assert names == sorted({decoded_png_name(s) for s in steps} | {"preview-decoder.log"})


def test_stop_mid_decode_leaves_no_process_and_no_partial_file(
    x0_run: X0Run, sd_stage: Path, tiny_models, tmp_path: Path
) -> None:
    got: list[DecodedPreview] = []
    folder = tmp_path / "previews"
    # The child holds in its VAE load until the stop ends it (the test hook): a tiny decode
    # otherwise finished between "the child is running" and the pid check under load.
    held = {"SD_STAGE_TEST_SLOW_LOAD": "1"}
    decoder = PreviewDecoder(sd_stage, tiny_models.vae, folder, got.append, env=held)
    decoder.start()
    decoder.offer(STEPS, x0_run.copy(STEPS))
    deadline = time.monotonic() + STAGE_TIMEOUT_S
    while decoder.child_pid is None:  # the child is started (and held)
        assert time.monotonic() < deadline and decoder.running
        time.sleep(0.01)
    pid = decoder.child_pid
    assert pid is not None and psutil.pid_exists(pid)
    decoder.stop()  # returns once the child is gone (asserted below), however busy the machine
    assert not decoder.running and got == []
    assert not psutil.pid_exists(pid) and child_pids() == []
    assert [p.name for p in folder.iterdir()] == ["preview-decoder.log"]
    decoder.offer(STEPS, x0_run.copy(STEPS))  # after stop: ignored
    assert not decoder.busy


def test_watch_decodes_new_x0_files_and_ignores_those_already_there(
    x0_run: X0Run, sd_stage: Path, tiny_models, tmp_path: Path
) -> None:
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    shutil.copyfile(x0_run.copy(5), folder / "x0_005.bin")  # an earlier engine process's
    got: list[DecodedPreview] = []
    with PreviewDecoder(sd_stage, tiny_models.vae, tmp_path / "previews", got.append) as decoder:
        decoder.watch(folder)
        time.sleep(0.6)  # two looks
        assert got == [] and not decoder.busy
        shutil.copyfile(x0_run.copy(2), folder / ".x0.tmp")
        os.replace(folder / ".x0.tmp", folder / "x0_002.bin")  # the engine's new step 2
        _wait_for(lambda: len(got) == 1)
        assert got[0].step == 2
        shutil.copyfile(x0_run.copy(5), folder / ".x0.tmp")
        os.replace(folder / ".x0.tmp", folder / "x0_005.bin")  # rewritten by the engine: new
        _wait_for(lambda: len(got) == 2)
        assert got[1].step == 5
    decoded = np.asarray(Image.open(got[1].png))
    direct = _direct_decode(sd_stage, tiny_models.vae, x0_run.copy(5), tmp_path / "direct.png")
    assert np.array_equal(decoded, direct)


def _wait_for(condition, timeout_s: float = STAGE_TIMEOUT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_latent_the_engine_already_removed_is_skipped(
    sd_stage: Path, tiny_models, tmp_path: Path
) -> None:
    with PreviewDecoder(sd_stage, tiny_models.vae, tmp_path / "p", lambda p: None) as decoder:
        decoder.offer(3, tmp_path / "x0_003.bin")
        assert decoder.wait_idle(10)
        assert (decoder.decoded, decoder.skipped, decoder.failures) == (0, 1, 0)
        assert decoder.running  # waits for the next one
    assert [p.name for p in (tmp_path / "p").iterdir()] == []


def test_a_bad_vae_ends_the_decoder_after_a_few_failures(
    x0_run: X0Run, sd_stage: Path, tmp_path: Path
) -> None:
    vae = tmp_path / "vae.safetensors"
    vae.write_bytes(b"not a model")
    decoder = PreviewDecoder(sd_stage, vae, tmp_path / "p", lambda p: None)
    with decoder:
        for step in range(1, MAX_FAILURES + 1):
            decoder.offer(step, x0_run.copy(step))
            assert decoder.wait_idle(STAGE_TIMEOUT_S)
        _wait_for(lambda: not decoder.running, 10)
    assert decoder.failures == MAX_FAILURES and decoder.decoded == 0
    assert isinstance(decoder.error, ModelLoadError)
    assert child_pids() == []
    assert sorted(p.name for p in (tmp_path / "p").iterdir()) == ["preview-decoder.log"]
    assert STAGED_LATENT not in os.listdir(tmp_path / "p")


def test_decoded_previews_auto_means_when_the_diffusion_model_is_on_a_gpu() -> None:
    from app.pipeline.execute.preview_decoder import decoder_wanted
    from app.pipeline.job.spec import DeviceChoice

    assert DeviceChoice().decoded_previews == "auto"
    wanted = {
        (choice, device): decoder_wanted(DeviceChoice(diffusion=device, decoded_previews=choice))
        for choice in ("auto", "on", "off")
        for device in ("cpu", "vulkan0")
    }
    assert wanted == {
        ("auto", "cpu"): False,
        ("auto", "vulkan0"): True,
        ("on", "cpu"): True,
        ("on", "vulkan0"): True,
        ("off", "cpu"): False,
        ("off", "vulkan0"): False,
    }


def test_decoder_threads_take_one_core_beside_a_cpu_dit_and_half_beside_a_gpu() -> None:
    from app.pipeline.execute.preview_decoder import decoder_threads
    from app.pipeline.job.spec import DeviceChoice

    assert decoder_threads(DeviceChoice(diffusion="cpu"), 16) == 1
    assert decoder_threads(DeviceChoice(diffusion="vulkan0"), 16) == 8
    assert decoder_threads(DeviceChoice(diffusion="vulkan0"), 1) == 1
