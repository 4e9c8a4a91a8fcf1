"""Helpers that drive the real sd-stage (and the reference sd-cli) on the tiny models.

Used by the integration tests and bench/engine.py. A job runs either as four sd-stage
processes (vae-encode, llm-encode, diffuse, vae-decode) or as one monolithic sd-cli run whose
intermediate tensors the patched sd-cli dumps into SD_STAGE_DUMP_DIR; both write files with the
same names, so results compare file by file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.engine.argv import (
    CommonArgs,
    DiffuseArgs,
    LlmEncodeArgs,
    Placement,
    StageArgs,
    VaeDecodeArgs,
    VaeEncodeArgs,
    build_argv,
)
from app.engine.events import Event
from app.engine.process import StageProcess
from tests.models.generate import ModelSet

STAGE_TIMEOUT_S = 300.0
THREADS = 2
DUMP_ENV = "SD_STAGE_DUMP_DIR"

INIT_LATENT = "init_latent.bin"
REF_LATENTS = "ref_latents.bin"
COND = "cond.bin"
FINAL_LATENT = "final_latent.bin"
IMAGE = "result.png"


@dataclass(frozen=True)
class Job:
    """One generation: txt2img, or img2img with optional mask and reference images."""

    prompt: str = "a red fox in the snow"
    width: int = 128
    height: int = 128
    steps: int = 6
    seed: int = 42
    strength: float | None = None
    init_image: Path | None = None
    mask: Path | None = None
    ref_images: tuple[Path, ...] = ()
    sampling_method: str = "euler"


@dataclass
class StageRun:
    """What one stage process did."""

    events: list[Event]
    returncode: int
    log: Path
    wall_s: float
    error: BaseException | None = None


EventHook = Callable[[StageProcess, Event], None]


def run_stage(
    binary: Path,
    args: StageArgs,
    log_path: Path,
    *,
    on_event: EventHook | None = None,
    env: dict[str, str] | None = None,
    check: bool = True,
) -> StageRun:
    """Run one stage to its end; with `check`, a failure raises the engine's exception."""
    started = time.monotonic()
    events: list[Event] = []
    error: BaseException | None = None
    with StageProcess(build_argv(binary, args), log_path=log_path, env=env) as proc:
        for event in proc.events(idle_timeout_s=STAGE_TIMEOUT_S):
            events.append(event)
            if on_event is not None:
                on_event(proc, event)
        try:
            proc.result(STAGE_TIMEOUT_S)
        except Exception as exc:  # the caller decides; `check` re-raises
            if check:
                raise
            error = exc
        code = proc.wait(STAGE_TIMEOUT_S)
    return StageRun(events, code, log_path, time.monotonic() - started, error)


def stage_args(
    models: ModelSet, job: Job, out: Path, placement: Placement | None = None
) -> dict[str, StageArgs]:
    """The four stages' arguments of `job`, writing into `out` (the names of the dump files);
    `placement`: the devices (the engine's default when None)."""
    common = CommonArgs(threads=THREADS, placement=placement or Placement())
    stages: dict[str, StageArgs] = {}
    if job.init_image is not None or job.ref_images:
        stages["vae-encode"] = VaeEncodeArgs(
            vae=models.vae,
            width=job.width,
            height=job.height,
            init_image=job.init_image,
            save_latent=out / INIT_LATENT if job.init_image is not None else None,
            ref_images=job.ref_images,
            save_ref_latents=out / REF_LATENTS if job.ref_images else None,
            common=common,
        )
    stages["llm-encode"] = LlmEncodeArgs(
        llm=models.llm, prompt=job.prompt, save_embeddings=out / COND, common=common
    )
    stages["diffuse"] = DiffuseArgs(
        diffusion_model=models.diffusion,
        load_embeddings=out / COND,
        width=job.width,
        height=job.height,
        steps=job.steps,
        seed=job.seed,
        save_latent=out / FINAL_LATENT,
        checkpoint_dir=out / "checkpoints",
        sampling_method=job.sampling_method,
        strength=job.strength,
        init_latent=out / INIT_LATENT if job.init_image is not None else None,
        mask=job.mask,
        ref_latents=out / REF_LATENTS if job.ref_images else None,
        common=common,
    )
    stages["vae-decode"] = VaeDecodeArgs(
        vae=models.vae, load_latent=out / FINAL_LATENT, output=out / IMAGE, common=common
    )
    return stages


def run_staged(
    binary: Path,
    models: ModelSet,
    job: Job,
    out: Path,
    hooks: dict[str, EventHook] | None = None,
) -> dict[str, StageRun]:
    """All stages of `job` as separate processes; returns each stage's run."""
    out.mkdir(parents=True, exist_ok=True)
    runs = {}
    for name, args in stage_args(models, job, out).items():
        hook = (hooks or {}).get(name)
        runs[name] = run_stage(binary, args, out / f"{name}.log", on_event=hook)
    return runs


def monolithic_argv(
    sd_cli: Path, models: ModelSet, job: Job, out: Path, extra: Sequence[str] = ()
) -> list[str]:
    argv = [
        str(sd_cli),
        "--diffusion-model", str(models.diffusion),
        "--llm", str(models.llm),
        "--vae", str(models.vae),
        "-p", job.prompt,
        "-W", str(job.width),
        "-H", str(job.height),
        "--steps", str(job.steps),
        "--seed", str(job.seed),
        "--cfg-scale", "1.0",
        "--sampling-method", job.sampling_method,
        "-t", str(THREADS),
        "-o", str(out / IMAGE),
    ]  # fmt: skip
    if job.init_image is not None:
        argv += ["-i", str(job.init_image)]
    if job.strength is not None:
        argv += ["--strength", repr(float(job.strength))]
    if job.mask is not None:
        argv += ["--mask", str(job.mask)]
    for ref in job.ref_images:
        argv += ["-r", str(ref)]
    return argv + list(extra)


def run_monolithic(
    sd_cli: Path,
    models: ModelSet,
    job: Job,
    out: Path,
    *,
    dump: bool = True,
    extra: Sequence[str] = (),
) -> float:
    """One reference sd-cli run dumping its tensors into `out` (`dump`: the test build's hook;
    off for timing); returns the wall time."""
    out.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, DUMP_ENV: str(out)} if dump else dict(os.environ)
    started = time.monotonic()
    with open(out / "sd-cli.log", "wb") as log:
        result = subprocess.run(
            monolithic_argv(sd_cli, models, job, out, extra),
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            timeout=STAGE_TIMEOUT_S,
            check=False,
        )
    wall = time.monotonic() - started
    if result.returncode != 0:
        tail = (out / "sd-cli.log").read_text(errors="replace")[-3000:]
        raise AssertionError(f"sd-cli failed with {result.returncode}:\n{tail}")
    return wall


# ---- peak memory --------------------------------------------------------------------------------

_PROBE = r"""
import json, os, subprocess, sys
argv, env, log = json.loads(sys.argv[1])
with open(log, "wb") as f:
    proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
print(json.dumps({"code": os.waitstatus_to_exitcode(status), "maxrss_kib": usage.ru_maxrss}))
"""


def peak_rss_kib(argv: Sequence[str], log: Path, env: dict[str, str] | None = None) -> int:
    """Peak resident set size of one command, from wait4's rusage of exactly that child."""
    payload = json.dumps([list(argv), env or dict(os.environ), str(log)])
    result = subprocess.run(
        [sys.executable, "-c", _PROBE, payload],
        capture_output=True,
        text=True,
        timeout=STAGE_TIMEOUT_S,
        check=True,
    )
    report = json.loads(result.stdout)
    if report["code"] != 0:
        raise AssertionError(f"{argv[:3]} failed with {report['code']}; see {log}")
    return int(report["maxrss_kib"])


@dataclass
class Images:
    """Input images for img2img tests."""

    init: Path
    mask: Path
    ref: Path


def make_images(folder: Path, width: int = 128, height: int = 128) -> Images:
    """Deterministic init image, mask (a white square) and reference image."""
    import numpy as np
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(7)
    yy, xx = np.mgrid[0:height, 0:width]
    init = np.stack([xx * 255 // width, yy * 255 // height, (xx + yy) % 256], axis=-1)
    init = (init + rng.integers(0, 32, init.shape)).clip(0, 255).astype(np.uint8)
    mask = np.zeros((height, width), np.uint8)
    mask[height // 4 : height * 3 // 4, width // 4 : width * 3 // 4] = 255
    ref = rng.integers(0, 256, (64, 64, 3)).astype(np.uint8)
    images = Images(folder / "init.png", folder / "mask.png", folder / "ref.png")
    Image.fromarray(init).save(images.init)
    Image.fromarray(mask).save(images.mask)
    Image.fromarray(ref).save(images.ref)
    return images
