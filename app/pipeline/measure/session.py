"""What "measure this computer" measures with, and one whole measurement: shared by
`python -m app measure` (app/cli/measure_command.py) and Help → Measure this computer
(app/jobs/measure_worker.py).

The models: the user's own files (the remembered job's), else shape-only models of the real
klein sizes (random weights; scripts/make_shape_models.py writes them once into the cache),
or with `quick` the tiny test models (app/engine/tiny_models.py) at tiny sizes. The sizes: the
user's (the remembered job's width × height) unless given. The report goes into the data
folder's `measure/` (AppPaths.measure_dir; Settings lists it).
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.paths import AppPaths
from app.core.settings import Settings
from app.engine.tiny_models import TinySpec, generate_models
from app.pipeline.job import params as P
from app.pipeline.job.spec import ModelFiles
from app.pipeline.measure.probe import MeasureCancelled, Measurement, MeasureSetup, Progress_
from app.pipeline.measure.report import report_of, write_report

# What the models measured with are, as the report says (the window translates these texts).
MINE_NOTE = "your model files"
SHAPE_NOTE = "shape-only models of klein {shape}"
TINY_NOTE = "tiny test models"
SHAPE_FOLDER = "shape-models"
SHAPES = ("4b", "9b")
QUICK_SIZES = ((32, 48), (64, 64))
QUICK_STEPS = 2
FULL_STEPS = 2  # enough for a mean step; a step's time does not change along a run
QUICK_LLM = dataclasses.replace(TinySpec.real_file_paths(), llm_layers=2)
SHAPE_SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "make_shape_models.py"
SHAPE_TIMEOUT_S = 3600.0

NO_SHAPES_MESSAGE = "Cannot write the shape-only models into {path}: {reason}"
NO_SHAPES_FIX = "Choose your model files in the Generate tab, or free some disk space."
BAD_SIZE_MESSAGE = "{value} is not a size (WIDTHxHEIGHT, multiples of 16)"
BAD_SIZE_FIX = "Give sizes like 352x864,1024x1024."


def parse_sizes(text: str) -> tuple[tuple[int, int], ...]:
    sizes = []
    for part in text.split(","):
        w, _, h = part.strip().lower().partition("x")
        if not (w.isdigit() and h.isdigit()) or int(w) % 16 or int(h) % 16 or not int(w) * int(h):
            raise InputError(BAD_SIZE_MESSAGE, fix=BAD_SIZE_FIX, values={"value": part})
        sizes.append((int(w), int(h)))
    return tuple(sorted(set(sizes), key=lambda s: s[0] * s[1]))


def user_models(settings: Settings) -> ModelFiles | None:
    """The remembered job's model files, when all three exist."""
    job = settings.job
    names = [str(job.get(p.name, "")) for p in (P.DIFFUSION_MODEL, P.LLM_MODEL, P.VAE_MODEL)]
    if all(names) and all(Path(n).is_file() for n in names):
        return ModelFiles(*names)
    return None


def user_size(settings: Settings) -> tuple[int, int]:
    w = settings.job.get(P.WIDTH.name, P.WIDTH.default)
    h = settings.job.get(P.HEIGHT.name, P.HEIGHT.default)
    return (int(w), int(h))


def shape_models(paths: AppPaths, shape: str) -> ModelFiles:
    """The shape-only set of `shape`, written once (minutes; 10 GB for 9B) into the cache."""
    folder = paths.cache_dir / SHAPE_FOLDER
    done = subprocess.run(
        [sys.executable, str(SHAPE_SCRIPT), str(folder), "--shape", shape],
        capture_output=True, text=True, timeout=SHAPE_TIMEOUT_S, check=False,
    )  # fmt: skip
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or len(lines) < 3:
        reason = (done.stderr.strip().splitlines() or ["the writer failed"])[-1]
        raise InputError(
            NO_SHAPES_MESSAGE, path=folder, fix=NO_SHAPES_FIX, values={"reason": reason}
        )
    sub = folder / f"klein-{shape}"
    return ModelFiles(
        str(sub / f"klein-{shape}-dit-q4_0.gguf"),
        str(sub / f"klein-{shape}-qwen3-q4_k_m.gguf"),
        str(sub / f"klein-{shape}-vae-f16.safetensors"),
    )


def make_setup(
    paths: AppPaths,
    settings: Settings,
    engine: Path,
    *,
    quick: bool = False,
    shape: str = "9b",
    sizes: tuple[tuple[int, int], ...] | None = None,
    devices: tuple[str, ...] | None = None,
    steps: int | None = None,
) -> MeasureSetup:
    threads = int(settings.job.get(P.THREADS.name, P.THREADS.default))
    if quick:
        # the text encoder: 2 layers (a software Vulkan device needs minutes for the 28 of the
        # suite's tiny one; bench/gpu_check.py --quick does the same)
        tiny = generate_models(paths.cache_dir / "tiny-models")
        two = generate_models(paths.cache_dir / "tiny-models", QUICK_LLM)
        models = ModelFiles(str(tiny.diffusion), str(two.llm), str(tiny.vae))
        return MeasureSetup(
            engine, models, TINY_NOTE, sizes or QUICK_SIZES, steps or QUICK_STEPS,
            threads or 1, devices,
        )  # fmt: skip
    mine = user_models(settings)
    note = MINE_NOTE
    if mine is None:
        mine, note = shape_models(paths, shape), SHAPE_NOTE.format(shape=shape.upper())
    return MeasureSetup(
        engine, mine, note, sizes or (user_size(settings),), steps or FULL_STEPS, threads, devices
    )


def measure(
    setup: MeasureSetup,
    paths: AppPaths,
    on_progress: Progress_ | None = None,
    cancel: threading.Event | None = None,
) -> tuple[dict[str, Any], Path, Path]:
    """Runs the whole measurement; the report (partial when cancelled) and its .md and .json."""
    started = time.monotonic()
    cancelled = False
    with tempfile.TemporaryDirectory(prefix="stepwise-measure-") as scratch:
        m = Measurement(setup, Path(scratch), on_progress, cancel)
        try:
            m.run()
        except MeasureCancelled:
            cancelled = True
    report = report_of(m, time.monotonic() - started, cancelled)
    md, js = write_report(report, paths.measure_dir)
    return report, md, js
