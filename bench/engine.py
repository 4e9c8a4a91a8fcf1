"""Engine benchmark: staged vs monolithic, cached conditioning vs encoding, checkpoint cost.

    python bench/engine.py [--sd-stage PATH] [--size 128] [--steps 6] [--repeat 1]
                           [--app-repo DIR ...] [--vulkan | --vulkan-dit]

Runs everything side by side in one process on the same machine and prints a table of ratios:

- wall time and peak RSS of the four sd-stage processes (summed time, max RSS) against one
  monolithic sd-cli run of the same img2img + mask + reference job (without the test build's
  tensor dump), and the same job through `python -m app run` (prepare, memory plans, stages,
  composite; nothing cached) against that sd-cli run (`--app-repo DIR`: the same row for
  another checkout's app too, e.g. main beside a branch, measured in the same rounds), and
  through the app in a process already running (the CLI's entry point called in this process,
  as the GUI and the queue run a job: no interpreter start, no imports);
- a cached conditioning (reading the tensor file) against running llm-encode;
- writing a checkpoint against one sampling step (from the diffuse stage's own events).

`--vulkan`: every stage, sd-cli and the app on the first Vulkan device (GGML_VK_VISIBLE_DEVICES=0,
so Mesa's lavapipe is listed where no GPU is; the pinned sd-cli has no per-module --backend, so
the LLM runs there too: minutes). On lavapipe the pinned sd-cli dies in its VAE decode after
sampling there (heap corruption inside libvulkan_lvp, with or without --clip-on-cpu), so this
split has no sd-cli figure here. `--vulkan-dit`: the user's split, as bench/gpu_check.py --quick
runs it: the DiT on Vulkan device 0, the LLM and the VAE on the CPU (sd-cli --clip-on-cpu
--vae-on-cpu; the app's --llm-device / --vae-device cpu). Give --sd-stage a Vulkan build.

The models are the tiny random-weight klein set (tests/models), so absolute numbers are small;
the ratios are what to watch. sd-stage is found like the app finds it, or built with
native/build.py.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.engine.argv import VISIBLE_DEVICES_ENV, Placement, build_argv  # noqa: E402
from app.engine.events import Checkpoint, Progress  # noqa: E402
from app.engine.locate import EngineNotFound, build_engine, find_sd_stage  # noqa: E402
from app.engine.process import engine_environment  # noqa: E402
from app.engine.tensorfile import read_tensors  # noqa: E402
from tests.engine.real_engine import (  # noqa: E402
    COND,
    THREADS,
    Job,
    make_images,
    monolithic_argv,
    peak_rss_kib,
    run_monolithic,
    run_stage,
    stage_args,
)
from tests.models.generate import generate_models  # noqa: E402


def _engine(explicit: Path | None) -> Path:
    try:
        return find_sd_stage(explicit)
    except EngineNotFound:
        print("sd-stage not built yet: running native/build.py …", file=sys.stderr)
        return build_engine(on_line=lambda line: print(line, file=sys.stderr))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sd-stage", type=Path)
    parser.add_argument("--size", type=int, default=128, help="image width and height")
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement (median)")
    parser.add_argument("--models-dir", type=Path, help="where the tiny models are cached")
    parser.add_argument(
        "--app-repo",
        type=Path,
        action="append",
        default=[],
        help="another checkout whose `python -m app run` gets its own row (repeatable)",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--vulkan", action="store_true", help="every stage on Vulkan device 0 (lavapipe here)"
    )
    where.add_argument(
        "--vulkan-dit", action="store_true", help="the DiT on Vulkan device 0, the rest on the CPU"
    )
    args = parser.parse_args(argv)
    if args.vulkan or args.vulkan_dit:
        os.environ[VISIBLE_DEVICES_ENV] = "0"  # every child inherits it: lavapipe is listed

    sd_stage = _engine(args.sd_stage)
    sd_cli = sd_stage.with_name("sd-cli.exe" if os.name == "nt" else "sd-cli")
    with tempfile.TemporaryDirectory(prefix="stepwise-bench-") as tmp_name:
        tmp = Path(tmp_name)
        models = generate_models(args.models_dir or tmp / "models")
        images = make_images(tmp / "images", args.size, args.size)
        job = Job(
            width=args.size,
            height=args.size,
            steps=args.steps,
            strength=0.8,
            init_image=images.init,
            mask=images.mask,
            ref_images=(images.ref,),
        )
        repos = [REPO, *(r.resolve() for r in args.app_repo)]
        split = _split(args)
        rows = _measure(sd_stage, sd_cli, models, job, tmp, args.repeat, repos, split)
    _print_table(rows, sd_stage, args)
    return 0


@dataclass(frozen=True)
class Split:
    """Where the modules run, as each side is told: the stages, sd-cli and the app."""

    label: str
    placement: Placement | None = None
    sd_cli: tuple[str, ...] = ()
    app: tuple[str, ...] = ()


VK = "vulkan0"
ENGINE_DEFAULT = Split("the engine's default")
ON_VULKAN = Split(
    f"every stage on {VK} ({VISIBLE_DEVICES_ENV}=0)",
    Placement(te=VK, diffusion=VK, vae=VK),
    (),  # sd-cli of a Vulkan build puts everything on its first device
    ("--device", VK),
)


DIT_ON_VULKAN = Split(
    f"the DiT on {VK} ({VISIBLE_DEVICES_ENV}=0), the LLM and the VAE on the CPU",
    Placement(te="cpu", diffusion=VK, vae="cpu"),
    ("--clip-on-cpu", "--vae-on-cpu"),
    ("--diffusion-device", VK, "--llm-device", "cpu", "--vae-device", "cpu"),
)


def _split(args: argparse.Namespace) -> Split:
    if args.vulkan:
        return ON_VULKAN
    return DIT_ON_VULKAN if args.vulkan_dit else ENGINE_DEFAULT


def _app_args(sd_stage: Path, models, job, out: Path, split: Split) -> list[str]:
    """`app run`'s arguments for the job, its run folder under `out`."""
    argv = [
        "run", "--engine", str(sd_stage),
        "--diffusion-model", str(models.diffusion), "--llm", str(models.llm),
        "--vae", str(models.vae), "-p", job.prompt, "--steps", str(job.steps),
        "--seed", str(job.seed), "--strength", str(job.strength), "-t", str(THREADS),
        "-i", str(job.init_image), "--mask", str(job.mask), "--run-dir", str(out / "run"),
        "--sampling-method", job.sampling_method,
        # the engine job the stages and sd-cli run: the app's defaults differ (flash attention,
        # the soft mask, projected step previews), and flash attention alone changes the cost
        "--no-diffusion-fa", "--mask-mode", "hard", "--preview", "none",
    ]  # fmt: skip
    for ref in job.ref_images:
        argv += ["-r", str(ref)]
    return argv + list(split.app)


def _run_app(
    sd_stage: Path, models, job, out: Path, repo: Path = REPO, split: Split = ENGINE_DEFAULT
) -> float:
    """The same job through the app's CLI (prepare, plans, stages, composite), a fresh
    STEPWISE_HOME each time so nothing comes from the cache."""
    argv = [sys.executable, "-m", "app", *_app_args(sd_stage, models, job, out, split)]
    env = {**os.environ, "STEPWISE_HOME": str(out / "home"), "PYTHONPATH": str(repo)}
    started = time.perf_counter()
    subprocess.run(argv, cwd=repo, env=env, capture_output=True, check=True)
    return time.perf_counter() - started


def _run_app_in_process(sd_stage: Path, models, job, out: Path, split: Split) -> float:
    """The same job through the app in a process that is already running, as the GUI and the
    queue run every job after their first: the CLI's entry point called in this process (its
    modules imported before the clock starts), a fresh STEPWISE_HOME, nothing cached. What
    separates it from the `python -m app run` row is the interpreter's start and the imports."""
    from app import cli  # imported before timing, as a running app has it

    old_env = dict(os.environ)
    os.environ["STEPWISE_HOME"] = str(out / "home")
    try:
        with open(os.devnull, "w") as sink, redirect_stdout(sink), redirect_stderr(sink):
            started = time.perf_counter()
            code = cli.main(_app_args(sd_stage, models, job, out, split))
            seconds = time.perf_counter() - started
    finally:
        os.environ.clear()
        os.environ.update(old_env)
    if code != 0:
        raise SystemExit(f"app run in this process failed (exit {code}); see {out / 'home'}")
    return seconds


def _measure(
    sd_stage, sd_cli, models, job, tmp: Path, repeat: int, repos: list[Path], split: Split
) -> list[tuple]:
    staged_wall, mono_wall, staged_rss, mono_rss = [], [], [], []
    app_wall: dict[Path, list[float]] = {repo: [] for repo in repos}
    resident_wall: list[float] = []
    encode_wall, cached_read, step_s, checkpoint_s = [], [], [], []
    for i in range(repeat):
        # Alternate the order so neither side always runs on a warm page cache.
        order = ("staged", "mono") if i % 2 == 0 else ("mono", "staged")
        for side in order:
            out = tmp / f"{side}-{i}"
            out.mkdir()
            if side == "mono":
                mono_wall.append(
                    run_monolithic(sd_cli, models, job, out, dump=False, extra=split.sd_cli)
                )
                for k, repo in enumerate(repos if i % 2 == 0 else repos[::-1]):
                    app_out = tmp / f"app-{i}-{k}"
                    app_wall[repo].append(_run_app(sd_stage, models, job, app_out, repo, split))
                resident_out = tmp / f"app-resident-{i}"
                resident_wall.append(
                    _run_app_in_process(sd_stage, models, job, resident_out, split)
                )
                continue
            total = 0.0
            for name, stage in stage_args(models, job, out, split.placement).items():
                env = engine_environment(stage.common.environment())  # as the app's
                run = run_stage(sd_stage, stage, out / f"{name}.log", env=env)
                total += run.wall_s
                if name == "llm-encode":
                    encode_wall.append(run.wall_s)
                if name == "diffuse":
                    step_s += [e.seconds for e in run.events if isinstance(e, Progress)]
                    checkpoint_s += [
                        e.seconds
                        for e in run.events
                        if isinstance(e, Checkpoint) and e.seconds is not None
                    ]
            staged_wall.append(total)
            started = time.perf_counter()
            read_tensors(out / COND)
            cached_read.append(time.perf_counter() - started)

        rss_out = tmp / f"rss-{i}"
        rss_out.mkdir()
        peaks = [
            peak_rss_kib(
                build_argv(sd_stage, stage),
                rss_out / f"{name}.log",
                env=engine_environment(stage.common.environment()),
            )
            for name, stage in stage_args(models, job, rss_out, split.placement).items()
        ]
        staged_rss.append(max(peaks))
        mono_dir = tmp / f"rss-mono-{i}"
        mono_dir.mkdir()
        mono_rss.append(
            peak_rss_kib(
                monolithic_argv(sd_cli, models, job, mono_dir, split.sd_cli),
                mono_dir / "sd-cli.log",
                env={**os.environ, "SD_STAGE_DUMP_DIR": str(mono_dir)},
            )
        )

    med = statistics.median
    rows = [
        ("wall time: 4 stages / monolithic", med(staged_wall), med(mono_wall), "s"),
        *(
            (f"wall time: python -m app run{_repo_label(repo)} / monolithic",
             med(app_wall[repo]), med(mono_wall), "s")
            for repo in repos
        ),
        ("wall time: app in a running process / mono", med(resident_wall), med(mono_wall), "s"),
        ("peak RSS: largest stage / monolithic", med(staged_rss) / 1024, med(mono_rss) / 1024,
         "MiB"),
        ("conditioning: cached read / llm-encode", med(cached_read), med(encode_wall), "s"),
    ]  # fmt: skip
    if checkpoint_s:
        rows.append(("checkpoint write / sampling step", med(checkpoint_s), med(step_s), "s"))
    else:
        rows.append(("checkpoint write / sampling step", float("nan"), med(step_s), "s"))
    return rows


def _repo_label(repo: Path) -> str:
    return "" if repo == REPO else f" ({repo.name})"


def _print_table(rows: list[tuple], sd_stage: Path, args: argparse.Namespace) -> None:
    print(f"sd-stage: {sd_stage}")
    devices = _split(args).label
    print(f"job: img2img + mask + 1 ref, {args.size}x{args.size}, {args.steps} steps, "
          f"tiny klein models, median of {args.repeat}; devices: {devices}")  # fmt: skip
    print(f"{'measure':42} {'a':>12} {'b':>12} {'a/b':>8}")
    for name, a, b, unit in rows:
        ratio = a / b if b else float("nan")
        print(f"{name:42} {a:>9.4g} {unit:<3}{b:>9.4g} {unit:<3}{ratio:>8.3g}")


if __name__ == "__main__":
    sys.exit(main())
