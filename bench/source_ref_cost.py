"""What the photo as klein's first reference (source_ref) costs diffuse: s/step and plan bytes.

    python bench/source_ref_cost.py [--sd-stage PATH] [--sizes 512,1024] [--steps 2]
                                    [--repeat 3] [--threads 1] [--shape-set DIR]

For each size, one inpainting run with source_ref is prepared and encoded through the pipeline
(prepare, vae-encode, llm-encode; tiny random-weight klein models, CPU); then the same diffuse
runs without and with its ref_latents.bin (the photo's latent), interleaved `--repeat` times so
that the machine's load hits both alike. Printed per size: the median over the repeats of the
mean seconds per step, the plan's diffuse compute and total bytes (`sd-stage … --plan`, the
same arguments) and the vae-encode plan, each without, with, and as a ratio with/without.

The tiny DiT's weights are a few MB, so its compute dominates and the ratios show the cost of
the tokens themselves (the picture's plus as many again for the reference): on the real 4B/9B
models the weights are the same with and without, so the total grows by the compute only.
--shape-set DIR (a set of scripts/make_shape_models.py, e.g. DIR/klein-4b) adds the job plan's
diffuse figures for the real shapes (plans only: no weights are read, nothing runs).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.core.paths import app_paths  # noqa: E402
from app.engine.argv import DiffuseArgs, StageArgs  # noqa: E402
from app.engine.events import Progress  # noqa: E402
from app.engine.locate import EngineNotFound, build_engine, find_sd_stage  # noqa: E402
from app.engine.plan import plan_stage  # noqa: E402
from app.engine.process import engine_environment  # noqa: E402
from app.imaging.io import save_png_atomic  # noqa: E402
from app.imaging.prepare import PrepareOptions  # noqa: E402
from app.pipeline import events as ev  # noqa: E402
from app.pipeline.api import DeviceInfo  # noqa: E402
from app.pipeline.control import RunControl  # noqa: E402
from app.pipeline.execute.job_plan import engine_job_plan  # noqa: E402
from app.pipeline.execute.stages import DiffuseStage, VaeEncodeStage  # noqa: E402
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles  # noqa: E402
from app.pipeline.run.folder import REF_LATENTS, open_run  # noqa: E402
from app.pipeline.runner import Pipeline  # noqa: E402
from tests.engine.real_engine import run_stage  # noqa: E402
from tests.models.generate import generate_models  # noqa: E402

MB = 1024 * 1024


def inputs(folder: Path, size: int) -> tuple[Path, Path]:
    y, x = np.mgrid[0:size, 0:size]
    picture = np.stack([x % 256, y % 256, (x + y) % 256], axis=-1).astype(np.uint8)
    mask = np.zeros((size, size), np.uint8)
    mask[size // 4 : 3 * size // 4, size // 4 : 3 * size // 4] = 255
    save_png_atomic(folder / f"image_{size}.png", picture)
    save_png_atomic(folder / f"mask_{size}.png", mask)
    return folder / f"image_{size}.png", folder / f"mask_{size}.png"


def prepared_run(pipeline: Pipeline, models, folder: Path, size: int, steps: int, threads: int):
    """A run with source_ref whose prepare, vae-encode and llm-encode are done."""
    image, mask = inputs(folder, size)
    spec = JobSpec(
        models=ModelFiles(str(models.diffusion), str(models.llm), str(models.vae)),
        prompt="a blue door",
        image=str(image),
        mask=str(mask),
        steps=steps,
        preview="none",
        source_ref=True,
        devices=DeviceChoice(threads=threads, fit_memory=False),
        prepare=PrepareOptions(),
    )
    run = pipeline.create_run(spec, folder / f"run_{size}")
    for stage in ("prepare", "vae-encode", "llm-encode"):
        last = list(pipeline.execute(run.dir, RunControl(), only=stage))[-1]
        if isinstance(last, ev.RunFailed | ev.RunCancelled):
            raise SystemExit(f"{stage} failed: {last}")
    return open_run(run.dir)


def step_seconds(engine: Path, args: DiffuseArgs, scratch: Path) -> float:
    """Mean seconds per sampling step of one diffuse run (its own checkpoint folder)."""
    out = Path(tempfile.mkdtemp(dir=scratch))
    args = dataclasses.replace(args, checkpoint_dir=out / "ck", save_latent=out / "final.bin")
    done = run_stage(engine, args, out / "diffuse.log")
    seconds = [e.seconds for e in done.events if isinstance(e, Progress)]
    return statistics.fmean(seconds)


def plan_bytes(engine: Path, args: StageArgs) -> tuple[int, int]:
    """(compute, total) bytes of the stage's plan on the CPU."""
    plan = plan_stage(engine, args.to_argv(), engine_environment(args.common.environment()))
    cpu = plan.on("cpu")
    assert cpu is not None
    return cpu.compute_bytes, cpu.total_bytes


def shape_rows(engine: Path, folder: Path, sizes: list[int]) -> list[tuple]:
    """(size, weights, compute off, compute on, total off, total on) of diffuse in the job plan
    of an inpainting job on the real-shaped models in `folder` (CPU, memory not limiting)."""

    def one(suffix: str) -> str:
        return str(next(folder.glob(f"*{suffix}")))

    spec = JobSpec(
        models=ModelFiles(
            one("-dit-q4_0.gguf"), one("-qwen3-q4_k_m.gguf"), one("-vae-f16.safetensors")
        ),
        prompt="a blue door",
        image="photo.png",  # the plan reads only that there is one
        mask="mask.png",
    )
    infos = {"cpu": DeviceInfo("cpu", "CPU", total_bytes=1 << 40)}
    rows = []
    for size in sizes:
        fits = {}
        for on in (False, True):
            plan = engine_job_plan(
                engine, dataclasses.replace(spec, source_ref=on), size, size, infos
            )
            fitted = plan.fits["diffuse"].plan
            assert fitted is not None and fitted.ref_latents == int(on)
            fits[on] = fitted.on("cpu")
        off, on_ = fits[False], fits[True]
        assert off is not None and on_ is not None
        rows.append((size, off.weights_bytes, off.compute_bytes, on_.compute_bytes,
                     off.total_bytes, on_.total_bytes))  # fmt: skip
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sd-stage", type=Path)
    parser.add_argument("--sizes", default="512,1024")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--shape-set", type=Path, help="real-shaped models: plan figures too")
    a = parser.parse_args()
    try:
        engine = a.sd_stage or find_sd_stage(None)
    except EngineNotFound:
        engine = build_engine()
    rows = []
    with tempfile.TemporaryDirectory(prefix="stepwise-srcref-") as tmp:
        scratch = Path(tmp)
        models = generate_models(scratch / "models")
        pipeline = Pipeline(app_paths(), engine)
        for size in (int(s) for s in a.sizes.split(",")):
            run = prepared_run(pipeline, models, scratch, size, a.steps, a.threads)
            with_ref = DiffuseStage().args(run)
            assert with_ref.ref_latents == run.dir / REF_LATENTS
            without = dataclasses.replace(with_ref, ref_latents=None)
            times: dict[str, list[float]] = {"off": [], "on": []}
            for _ in range(a.repeat):
                times["off"].append(step_seconds(engine, without, scratch))
                times["on"].append(step_seconds(engine, with_ref, scratch))
            encode_on = VaeEncodeStage().args(run)
            encode_off = dataclasses.replace(encode_on, ref_images=(), save_ref_latents=None)
            rows.append(
                (
                    size,
                    statistics.median(times["off"]),
                    statistics.median(times["on"]),
                    plan_bytes(engine, without),
                    plan_bytes(engine, with_ref),
                    plan_bytes(engine, encode_off),
                    plan_bytes(engine, encode_on),
                )
            )
            print(f"{size}²: off {times['off']}, on {times['on']} s/step", flush=True)
    print()
    print(f"tiny klein models, CPU, -t {a.threads}, {a.steps} steps, median of {a.repeat}")
    head = (
        "| size | s/step off | s/step on | ratio | diffuse compute MB off / on | ratio "
        "| diffuse total MB off / on | ratio | vae-encode total MB off / on | ratio |"
    )
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for size, t_off, t_on, d_off, d_on, e_off, e_on in rows:
        print(
            f"| {size}² | {t_off:.3f} | {t_on:.3f} | {t_on / t_off:.2f} "
            f"| {d_off[0] / MB:.1f} / {d_on[0] / MB:.1f} | {d_on[0] / d_off[0]:.2f} "
            f"| {d_off[1] / MB:.1f} / {d_on[1] / MB:.1f} | {d_on[1] / d_off[1]:.2f} "
            f"| {e_off[1] / MB:.1f} / {e_on[1] / MB:.1f} | {e_on[1] / e_off[1]:.2f} |"
        )
    if a.shape_set is not None:
        sizes = [int(s) for s in a.sizes.split(",")]
        print()
        print(f"diffuse in the job plan, {a.shape_set.name} shapes (plans only)")
        print("| size | weights MB | compute MB off / on | ratio | total MB off / on | ratio |")
        print("|---|---|---|---|---|---|")
        for size, weights, c_off, c_on, t_off, t_on in shape_rows(engine, a.shape_set, sizes):
            print(
                f"| {size}² | {weights / MB:.0f} | {c_off / MB:.0f} / {c_on / MB:.0f} "
                f"| {c_on / c_off:.2f} | {t_off / MB:.0f} / {t_on / MB:.0f} | {t_on / t_off:.2f} |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
