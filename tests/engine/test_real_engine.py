"""The real sd-stage, built by native/build.py, on the tiny random-weight klein models.

Staged = four sd-stage processes; monolithic = one reference sd-cli run (patched to dump its
intermediate tensors). Never skipped: if the engine does not build, these tests fail.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import replace
from pathlib import Path

import pytest

from app.engine.argv import DiffuseArgs, LlmEncodeArgs, VaeDecodeArgs, build_argv
from app.engine.errors import Suspended
from app.engine.events import ErrorEvent, Hello, Load, Paused, Progress, Resumed, Stopped
from app.engine.process import StageProcess
from app.engine.tensorfile import read_tensors, write_tensors
from tests.engine.pause_hook import PAUSE_AT_STEP_ENV
from tests.engine.real_engine import (
    COND,
    FINAL_LATENT,
    IMAGE,
    INIT_LATENT,
    REF_LATENTS,
    Images,
    Job,
    StageRun,
    make_images,
    monolithic_argv,
    peak_rss_kib,
    run_monolithic,
    run_stage,
    run_staged,
    stage_args,
)

# The first test to ask for the engine builds it (minutes on 2 cores; Vulkan longer), inside
# its own time limit; every engine wait below has its own shorter timeout.
BUILD_AND_RUN_TIMEOUT_S = 3600
pytestmark = [pytest.mark.slow, pytest.mark.timeout(BUILD_AND_RUN_TIMEOUT_S)]

EXPECTED_LOADS = {
    "vae-encode": ["vae"],
    "llm-encode": ["llm"],
    "diffuse": ["diffusion"],
    "vae-decode": ["vae"],
}


@pytest.fixture(scope="module")
def sd_cli(sd_stage: Path) -> Path:
    path = sd_stage.with_name("sd-cli.exe" if os.name == "nt" else "sd-cli")
    assert path.is_file(), f"native/build.py did not leave the reference sd-cli at {path}"
    return path


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> Images:
    return make_images(tmp_path_factory.mktemp("images"))


@pytest.fixture(scope="module")
def txt2img() -> Job:
    return Job()


@pytest.fixture(scope="module")
def img2img(images: Images) -> Job:
    return Job(
        prompt="a cat on a sofa",
        strength=0.8,
        init_image=images.init,
        mask=images.mask,
        ref_images=(images.ref,),
        seed=7,
    )


@pytest.fixture(scope="module")
def staged_txt2img(sd_stage, tiny_models, txt2img, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("staged-txt2img")
    return out, run_staged(sd_stage, tiny_models, txt2img, out)


@pytest.fixture(scope="module")
def staged_img2img(sd_stage, tiny_models, img2img, tmp_path_factory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("staged-img2img")
    return out, run_staged(sd_stage, tiny_models, img2img, out)


def _pixels(path: Path):
    import numpy as np
    from PIL import Image

    with Image.open(path) as image:
        return np.asarray(image.convert("RGB"))


def _assert_same_bytes(a: Path, b: Path) -> None:
    assert a.is_file(), f"{a} is missing"
    assert b.is_file(), f"{b} is missing"
    if a.read_bytes() != b.read_bytes():
        ta, tb = read_tensors(a), read_tensors(b)
        detail = {}
        for name in sorted(set(ta) | set(tb)):
            if name not in ta or name not in tb or ta[name].shape != tb[name].shape:
                detail[name] = (
                    getattr(ta.get(name), "shape", None),
                    getattr(tb.get(name), "shape", None),
                )
            else:
                detail[name] = float(abs(ta[name].astype("f8") - tb[name]).max())
        raise AssertionError(f"{a} differs from {b}: {detail}")


def _assert_same_image(a: Path, b: Path) -> None:
    import numpy as np

    pa, pb = _pixels(a), _pixels(b)
    assert pa.shape == pb.shape
    assert np.array_equal(pa, pb), f"max pixel difference {np.abs(pa.astype(int) - pb).max()}"


# ---- staged == monolithic ------------------------------------------------------------------------


def test_txt2img_staged_equals_monolithic(staged_txt2img, sd_cli, tiny_models, txt2img, tmp_path):
    out, _ = staged_txt2img
    run_monolithic(sd_cli, tiny_models, txt2img, tmp_path)
    for name in (COND, FINAL_LATENT):
        _assert_same_bytes(out / name, tmp_path / name)
    assert not (tmp_path / INIT_LATENT).exists()
    _assert_same_image(out / IMAGE, tmp_path / IMAGE)


def test_img2img_mask_ref_staged_equals_monolithic(
    staged_img2img, sd_cli, tiny_models, img2img, tmp_path
):
    out, _ = staged_img2img
    run_monolithic(sd_cli, tiny_models, img2img, tmp_path)
    for name in (INIT_LATENT, REF_LATENTS, COND, FINAL_LATENT):
        _assert_same_bytes(out / name, tmp_path / name)
    _assert_same_image(out / IMAGE, tmp_path / IMAGE)


def test_outputs_are_finite_and_shaped(staged_img2img, img2img):
    import numpy as np

    out, _ = staged_img2img
    latent = read_tensors(out / FINAL_LATENT)["latent"]
    assert latent.shape == (1, 128, img2img.height // 16, img2img.width // 16)
    assert np.isfinite(latent).all()
    cond = read_tensors(out / COND)
    assert "c_crossattn" in cond and np.isfinite(cond["c_crossattn"]).all()
    pixels = _pixels(out / IMAGE)
    assert pixels.shape == (img2img.height, img2img.width, 3)
    assert pixels.std() > 0  # not a blank image


def test_each_stage_loads_only_its_own_model(staged_txt2img, staged_img2img):
    for _, runs in (staged_txt2img, staged_img2img):
        for name, run in runs.items():
            loads = [e.model for e in run.events if isinstance(e, Load)]
            assert loads == EXPECTED_LOADS[name], f"{name} loaded {loads}"
            hello = run.events[0]
            assert isinstance(hello, Hello) and hello.stage == name


def test_diffuse_reports_every_step_and_checkpoint(staged_img2img):
    out, runs = staged_img2img
    events = runs["diffuse"].events
    steps = [e.step for e in events if isinstance(e, Progress)]
    assert steps == list(range(1, len(steps) + 1))
    metadata = json.loads((out / "checkpoints" / "metadata.json").read_text())
    assert metadata["last_completed_step"] == steps[-1] == metadata["steps"]
    for step in range(0, steps[-1] + 1):
        assert (out / "checkpoints" / f"step_{step:03d}.bin").is_file()


# ---- interruption and resume ---------------------------------------------------------------------


def _diffuse_args(staged_out: Path, out: Path, base: DiffuseArgs, **changes) -> DiffuseArgs:
    """`base` (the uninterrupted run's diffuse) reading the staged inputs, writing into `out`."""
    fields = {
        "load_embeddings": staged_out / COND,
        "save_latent": out / FINAL_LATENT,
        "checkpoint_dir": out / "checkpoints",
        **changes,
    }
    return replace(base, **fields)


def _decode(sd_stage: Path, tiny_models, latent: Path, out: Path) -> Path:
    png = out / "resumed.png"
    run_stage(
        sd_stage,
        VaeDecodeArgs(vae=tiny_models.vae, load_latent=latent, output=png),
        out / "decode.log",
    )
    return png


@pytest.mark.parametrize("which", ["txt2img", "img2img"])
def test_sigkill_during_diffuse_then_resume_is_identical(
    which, request, sd_stage, tiny_models, tmp_path
):
    staged_out, _ = request.getfixturevalue(f"staged_{which}")
    job = request.getfixturevalue(which)
    base = stage_args(tiny_models, job, staged_out)["diffuse"]
    args = _diffuse_args(staged_out, tmp_path, base)
    total = len(
        [e for e in request.getfixturevalue(f"staged_{which}")[1]["diffuse"].events
         if isinstance(e, Progress)]
    )  # fmt: skip
    kill_at = random.Random().randint(1, total - 1)

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
    assert kill_at - 1 <= last < total, f"kill at {kill_at}: last checkpoint {last}"
    assert (tmp_path / "checkpoints" / f"step_{last:03d}.bin").is_file()

    resumed = run_stage(sd_stage, replace(args, resume_step=last), tmp_path / "resumed.log")
    steps = [e.step for e in resumed.events if isinstance(e, Progress)]
    assert steps == list(range(last + 1, total + 1))
    _assert_same_bytes(tmp_path / FINAL_LATENT, staged_out / FINAL_LATENT)
    png = _decode(sd_stage, tiny_models, tmp_path / FINAL_LATENT, tmp_path)
    assert png.read_bytes() == (staged_out / IMAGE).read_bytes()


def test_pause_then_resume_is_identical(staged_txt2img, sd_stage, tiny_models, txt2img, tmp_path):
    staged_out, _ = staged_txt2img
    args = _diffuse_args(
        staged_out, tmp_path, stage_args(tiny_models, txt2img, staged_out)["diffuse"]
    )

    def control(proc: StageProcess, event) -> None:
        if isinstance(event, Paused):  # held after step 2 (the test hook), as by a pause
            assert proc.resume()

    held = {PAUSE_AT_STEP_ENV: "2"}
    run = run_stage(sd_stage, args, tmp_path / "diffuse.log", on_event=control, env=held)
    paused = [e for e in run.events if isinstance(e, Paused)]
    resumed = [e for e in run.events if isinstance(e, Resumed)]
    assert len(paused) == 1 and len(resumed) == 1 and paused[0].step == resumed[0].step
    _assert_same_bytes(tmp_path / FINAL_LATENT, staged_out / FINAL_LATENT)


def test_suspend_then_resume_in_a_new_process_is_identical(
    staged_img2img, sd_stage, tiny_models, img2img, tmp_path
):
    staged_out, _ = staged_img2img
    args = _diffuse_args(
        staged_out, tmp_path, stage_args(tiny_models, img2img, staged_out)["diffuse"]
    )

    def suspend(proc: StageProcess, event) -> None:
        if isinstance(event, Paused):  # held after step 2 (the test hook)
            assert proc.suspend()

    held = {PAUSE_AT_STEP_ENV: "2"}
    first = run_stage(
        sd_stage, args, tmp_path / "first.log", on_event=suspend, env=held, check=False
    )
    assert first.returncode == 6
    assert isinstance(first.error, Suspended)
    stopped = [e for e in first.events if isinstance(e, Stopped)]
    assert stopped and stopped[-1].reason == "suspended"
    step = stopped[-1].step
    assert first.error.step == step
    assert not (tmp_path / FINAL_LATENT).exists()

    run_stage(sd_stage, replace(args, resume_step=step), tmp_path / "second.log")
    _assert_same_bytes(tmp_path / FINAL_LATENT, staged_out / FINAL_LATENT)


# ---- the sampler catalog -------------------------------------------------------------------------


def _list_samplers(sd_stage: Path) -> dict:
    import subprocess

    result = subprocess.run(
        [str(sd_stage), "--list-samplers"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def _flag_parse_error(sd_stage: Path, *flags: str) -> bool:
    """Whether the flag parser refuses `flags` (a valid line fails later, on the missing model)."""
    import subprocess

    argv = [str(sd_stage), "--stage", "diffuse", "--events", "jsonl", *flags]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stderr
    error = json.loads(result.stdout.splitlines()[-1])
    return "bad command line" in error["message"]


def test_list_samplers_names_exactly_what_the_flags_accept(sd_stage):
    catalog = _list_samplers(sd_stage)
    assert set(catalog) == {"samplers", "schedulers"}
    names = [s["name"] for s in catalog["samplers"]]
    assert len(names) == len(set(names)) == 15
    assert names[:2] == ["euler", "euler_a"] and "dpm++2m" in names and "ipndm" in names
    assert all(set(s) == {"name", "resumable"} for s in catalog["samplers"])
    schedulers = catalog["schedulers"]
    assert len(schedulers) == len(set(schedulers)) == 11
    assert {"discrete", "simple", "karras"} <= set(schedulers)
    for name in names:
        assert not _flag_parse_error(sd_stage, "--sampling-method", name), name
    for name in schedulers:
        assert not _flag_parse_error(sd_stage, "--scheduler", name), name
    assert _flag_parse_error(sd_stage, "--sampling-method", "euler_x")
    assert _flag_parse_error(sd_stage, "--scheduler", "simplex")


def test_resumable_is_what_resume_does(staged_txt2img, sd_stage, tiny_models, txt2img, tmp_path):
    """resumable: resuming from step 1 is bit-identical; not resumable: resume is refused (5)."""
    staged_out, _ = staged_txt2img
    base = stage_args(tiny_models, txt2img, staged_out)["diffuse"]
    resumable = {}
    for sampler in _list_samplers(sd_stage)["samplers"]:
        name = sampler["name"]
        out = tmp_path / name.replace("+", "p")
        out.mkdir()
        args = _diffuse_args(staged_out, out, base, steps=3, sampling_method=name)
        run_stage(sd_stage, args, out / "first.log")
        whole = (out / FINAL_LATENT).read_bytes()
        (out / FINAL_LATENT).unlink()
        resumed = run_stage(
            sd_stage, replace(args, resume_step=1), out / "resumed.log", check=False
        )
        if resumed.returncode == 0:
            assert (out / FINAL_LATENT).read_bytes() == whole, f"{name} resumed differently"
        else:
            assert resumed.returncode == 5, f"{name}: exit {resumed.returncode}"
        resumable[name] = resumed.returncode == 0
    assert resumable == {s["name"]: s["resumable"] for s in _list_samplers(sd_stage)["samplers"]}
    assert {n for n, r in resumable.items() if r} == {
        "euler",
        "euler_a",
        "heun",
        "dpm2",
        "dpm++2s_a",
    }


# ---- memory --------------------------------------------------------------------------------------


def test_every_stage_peaks_below_the_monolithic_run(
    sd_stage, sd_cli, tiny_models, img2img, tmp_path
):
    staged_out = tmp_path / "staged"
    staged_out.mkdir()
    peaks = {}
    for name, args in stage_args(tiny_models, img2img, staged_out).items():
        peaks[name] = peak_rss_kib(build_argv(sd_stage, args), staged_out / f"{name}.log")
    mono_out = tmp_path / "mono"
    mono_out.mkdir()
    mono = peak_rss_kib(
        monolithic_argv(sd_cli, tiny_models, img2img, mono_out),
        mono_out / "sd-cli.log",
        env={**os.environ, "SD_STAGE_DUMP_DIR": str(mono_out)},
    )
    assert max(peaks.values()) < mono, f"stage peaks {peaks} KiB vs monolithic {mono} KiB"


# ---- bad input -----------------------------------------------------------------------------------


def _assert_refused(run: StageRun, code: int, folder: Path, before: set[str], *words: str):
    assert run.returncode == code, f"exit {run.returncode}, expected {code}; see {run.log}"
    errors = [e for e in run.events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and errors[0].code == code
    message = errors[0].message
    assert "\n" not in message and message.strip()
    for word in words:
        assert word in message, f"{word!r} not in {message!r}"
    after = {p.name for p in folder.iterdir()} - {run.log.name}
    assert after == before, f"left behind: {sorted(after - before)}"
    assert "\n" not in str(run.error)


def _files(folder: Path) -> set[str]:
    return {p.name for p in folder.iterdir()}


def test_missing_model_is_a_model_load_error(
    staged_txt2img, sd_stage, tiny_models, txt2img, tmp_path
):
    staged_out, _ = staged_txt2img
    base = stage_args(tiny_models, txt2img, staged_out)["diffuse"]
    args = _diffuse_args(staged_out, tmp_path, base, diffusion_model=tmp_path / "missing.gguf")
    before = _files(tmp_path)
    run = run_stage(sd_stage, args, tmp_path / "run.log", check=False)
    _assert_refused(run, 3, tmp_path, before, "missing.gguf")


def test_vae_given_as_llm_is_a_model_load_error(sd_stage, tiny_models, tmp_path):
    args = LlmEncodeArgs(llm=tiny_models.vae, prompt="x", save_embeddings=tmp_path / COND)
    before = _files(tmp_path)
    run = run_stage(sd_stage, args, tmp_path / "run.log", check=False)
    _assert_refused(run, 3, tmp_path, before, "--llm")


def test_truncated_conditioning_is_bad_input(
    staged_txt2img, sd_stage, tiny_models, txt2img, tmp_path
):
    staged_out, _ = staged_txt2img
    data = (staged_out / COND).read_bytes()
    (tmp_path / "inputs").mkdir()
    truncated = tmp_path / "inputs" / COND
    truncated.write_bytes(data[: len(data) // 2])
    base = stage_args(tiny_models, txt2img, staged_out)["diffuse"]
    args = replace(_diffuse_args(staged_out, tmp_path, base), load_embeddings=truncated)
    before = _files(tmp_path)
    run = run_stage(sd_stage, args, tmp_path / "run.log", check=False)
    _assert_refused(run, 5, tmp_path, before, COND)


def test_resume_with_changed_seed_is_refused(
    staged_txt2img, sd_stage, tiny_models, txt2img, tmp_path
):
    staged_out, _ = staged_txt2img
    base = stage_args(tiny_models, txt2img, staged_out)["diffuse"]
    args = _diffuse_args(staged_out, tmp_path, base)
    run_stage(sd_stage, args, tmp_path / "first.log")
    (tmp_path / FINAL_LATENT).unlink()
    before = _files(tmp_path)
    run = run_stage(
        sd_stage,
        replace(args, seed=args.seed + 1, resume_step=2),
        tmp_path / "run.log",
        check=False,
    )
    _assert_refused(run, 5, tmp_path, before, "seed")


def test_resume_with_changed_conditioning_is_refused(
    staged_txt2img, sd_stage, tiny_models, txt2img, tmp_path
):
    staged_out, _ = staged_txt2img
    base = stage_args(tiny_models, txt2img, staged_out)["diffuse"]
    args = _diffuse_args(staged_out, tmp_path, base)
    run_stage(sd_stage, args, tmp_path / "first.log")
    (tmp_path / FINAL_LATENT).unlink()
    cond = read_tensors(staged_out / COND)
    cond["c_crossattn"] = cond["c_crossattn"] * 0.5
    (tmp_path / "other").mkdir()
    write_tensors(tmp_path / "other" / COND, cond)
    before = _files(tmp_path)
    run = run_stage(
        sd_stage,
        replace(args, load_embeddings=tmp_path / "other" / COND, resume_step=2),
        tmp_path / "run.log",
        check=False,
    )
    _assert_refused(run, 5, tmp_path, before, "embeddings")


def test_resume_without_metadata_is_refused(
    staged_txt2img, sd_stage, tiny_models, txt2img, tmp_path
):
    staged_out, _ = staged_txt2img
    base = stage_args(tiny_models, txt2img, staged_out)["diffuse"]
    args = _diffuse_args(staged_out, tmp_path, base, resume_step=3)
    (tmp_path / "checkpoints").mkdir()
    before = _files(tmp_path)
    run = run_stage(sd_stage, args, tmp_path / "run.log", check=False)
    _assert_refused(run, 5, tmp_path, before, "--resume-step")


def test_resume_from_a_missing_checkpoint_is_refused(
    staged_txt2img, sd_stage, tiny_models, txt2img, tmp_path
):
    staged_out, _ = staged_txt2img
    base = stage_args(tiny_models, txt2img, staged_out)["diffuse"]
    args = _diffuse_args(staged_out, tmp_path, base)
    run_stage(sd_stage, args, tmp_path / "first.log")
    (tmp_path / FINAL_LATENT).unlink()
    (tmp_path / "checkpoints" / "step_003.bin").unlink()
    before = _files(tmp_path)
    run = run_stage(sd_stage, replace(args, resume_step=3), tmp_path / "run.log", check=False)
    _assert_refused(run, 5, tmp_path, before, "step_003")


def test_resume_from_a_damaged_checkpoint_is_refused(
    staged_txt2img, sd_stage, tiny_models, txt2img, tmp_path
):
    staged_out, _ = staged_txt2img
    base = stage_args(tiny_models, txt2img, staged_out)["diffuse"]
    args = _diffuse_args(staged_out, tmp_path, base)
    run_stage(sd_stage, args, tmp_path / "first.log")
    (tmp_path / FINAL_LATENT).unlink()
    checkpoint = tmp_path / "checkpoints" / "step_003.bin"
    data = bytearray(checkpoint.read_bytes())
    data[-1] ^= 0xFF  # same size, different bytes: only the recorded sha256 can tell
    checkpoint.write_bytes(bytes(data))
    before = _files(tmp_path)
    run = run_stage(sd_stage, replace(args, resume_step=3), tmp_path / "run.log", check=False)
    _assert_refused(run, 5, tmp_path, before, "step_003")


def test_unwritable_checkpoint_dir_is_a_write_failure(
    staged_txt2img, sd_stage, tiny_models, txt2img, tmp_path
):
    staged_out, _ = staged_txt2img
    base = stage_args(tiny_models, txt2img, staged_out)["diffuse"]
    # A file where a folder must be: unwritable even for root, unlike a chmod.
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    args = _diffuse_args(staged_out, tmp_path, base, checkpoint_dir=blocker / "checkpoints")
    before = _files(tmp_path)
    run = run_stage(sd_stage, args, tmp_path / "run.log", check=False)
    _assert_refused(run, 8, tmp_path, before, "not-a-folder")


# ---- Vulkan on lavapipe --------------------------------------------------------------------------


def test_vulkan_build_runs_diffuse_on_lavapipe(
    sd_stage_vulkan, staged_txt2img, tiny_models, txt2img, tmp_path
):
    staged_out, _ = staged_txt2img
    base = stage_args(tiny_models, txt2img, staged_out)["diffuse"]
    args = _diffuse_args(staged_out, tmp_path, base, steps=2)
    # lavapipe is a CPU-type Vulkan device, which ggml skips unless it is made visible.
    env = {**os.environ, "GGML_VK_VISIBLE_DEVICES": "0"}
    run = run_stage(sd_stage_vulkan, args, tmp_path / "vulkan.log", env=env)
    hello = run.events[0]
    assert isinstance(hello, Hello)
    assert any("llvmpipe" in d.description.lower() for d in hello.devices), hello.devices
    assert hello.device.lower().startswith("vulkan"), hello.device
    loads = [e for e in run.events if isinstance(e, Load)]
    assert [e.model for e in loads] == ["diffusion"]
    assert loads[0].device.lower().startswith("vulkan")
    import numpy as np

    latent = read_tensors(tmp_path / FINAL_LATENT)["latent"]
    assert np.isfinite(latent).all()
