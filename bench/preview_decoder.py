"""Background preview decoder benchmark: what decoding x0 latents on the CPU costs sampling.

    python bench/preview_decoder.py [--sd-stage PATH] [--sizes 128,256] [--steps 10]
                                    [--repeat 2] [--diffuse-threads 2] [--configs ...]

For each size, runs the same txt2img diffuse (tiny random-weight klein models, DiT on the CPU)
alone and with a PreviewDecoder watching its checkpoint folder, in several decoder settings
(threads, priority), interleaved so that the machine's load hits every setting alike, and
prints per setting the median diffuse wall time and mean step time as ratios to diffuse alone,
the decoded previews delivered before the run ended per step, and the mean decode time.

This is the worst case for the decoder: here the DiT computes on the same CPU cores as the
VAE. On a GPU run the DiT leaves the CPU mostly idle and the same decoder costs less.
Priority: "low" = nice 19 for every thread of the decoder child (Linux nice is per thread)
and for its autogroup (Linux, sched_autogroup_enabled: the child leads its own session, so
without this its group competes with the DiT's as an equal); Windows: IDLE_PRIORITY_CLASS;
"normal" = unchanged.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from app.engine.argv import CommonArgs, build_argv  # noqa: E402
from app.engine.events import Progress  # noqa: E402
from app.engine.locate import EngineNotFound, build_engine, find_sd_stage  # noqa: E402
from app.engine.process import StageProcess  # noqa: E402
from app.pipeline.execute.preview_decoder import DecodedPreview, PreviewDecoder  # noqa: E402
from tests.engine.real_engine import COND, Job, run_stage, stage_args  # noqa: E402
from tests.models.generate import generate_models  # noqa: E402

RUN_TIMEOUT_S = 1800.0
CONFIGS = ("none", "t1-low", "t1-normal", "t2-low")


def lower_child_priority(pid: int) -> bool:
    """What app/core/platform.py should get: every thread of `pid` below normal priority."""
    try:
        proc = psutil.Process(pid)
        if os.name == "nt":
            proc.nice(psutil.IDLE_PRIORITY_CLASS)  # type: ignore[attr-defined]
            return True
        for thread in proc.threads():  # Linux: nice is per thread (new ones inherit it)
            try:
                os.setpriority(os.PRIO_PROCESS, thread.id, 19)
            except OSError:
                pass
        proc.nice(19)
        # Linux with autogroup: the child leads its own session (platform.child_popen_kwargs),
        # so its autogroup competes with the DiT's as an equal unless the group's nice is set.
        try:
            with open(f"/proc/{pid}/autogroup", "w") as group:
                group.write("19")
        except OSError:
            pass
    except (psutil.Error, OSError):
        return False
    return True


@dataclass
class Sample:
    wall_s: float
    step_s: float  # mean `progress` seconds (sampling only)
    delivered: int  # decoded previews that arrived before diffuse ended
    decode_s: list[float] = field(default_factory=list)


def _engine(explicit: Path | None) -> Path:
    try:
        return find_sd_stage(explicit)
    except EngineNotFound:
        print("sd-stage not built yet: running native/build.py …", file=sys.stderr)
        return build_engine(on_line=lambda line: print(line, file=sys.stderr))


def _decoder(config: str, sd_stage: Path, vae: Path, out: Path, got: list) -> PreviewDecoder:
    threads = int(config[1 : config.index("-")])
    low = config.endswith("-low")
    return PreviewDecoder(
        sd_stage,
        vae,
        out,
        got.append,
        threads=threads,
        lower_priority=lower_child_priority if low else (lambda pid: None),
    )


def _run(config: str, sd_stage: Path, models, diffuse, folder: Path) -> Sample:
    shutil.rmtree(folder, ignore_errors=True)
    checkpoints = folder / "checkpoints"
    checkpoints.mkdir(parents=True)
    args = replace(diffuse, checkpoint_dir=checkpoints, save_latent=folder / "final.bin")
    got: list[DecodedPreview] = []
    decoder = None
    if config != "none":
        decoder = _decoder(config, sd_stage, models.vae, folder / "previews", got)
        decoder.start()
        decoder.watch(checkpoints)
    steps: list[float] = []
    started = time.monotonic()
    try:
        with StageProcess(build_argv(sd_stage, args), log_path=folder / "diffuse.log") as proc:
            for event in proc.events(idle_timeout_s=RUN_TIMEOUT_S):
                if isinstance(event, Progress):
                    steps.append(event.seconds)
            proc.result(RUN_TIMEOUT_S)
        wall = time.monotonic() - started
        delivered = len(got)
    finally:
        if decoder is not None:
            decoder.stop()  # the run ended: what did not arrive by now is not shown
    return Sample(wall, statistics.fmean(steps), delivered, [p.seconds for p in got])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sd-stage", type=Path)
    parser.add_argument("--sizes", default="128,256", help="image sides, comma-separated")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=2, help="runs per setting (median)")
    parser.add_argument("--diffuse-threads", type=int, default=2)
    parser.add_argument("--configs", default=",".join(CONFIGS), help="none,tN-low,tN-normal")
    args = parser.parse_args(argv)
    configs = [c.strip() for c in args.configs.split(",") if c.strip()]
    sd_stage = _engine(args.sd_stage)
    results: dict[tuple[int, str], list[Sample]] = {}
    with tempfile.TemporaryDirectory(prefix="stepwise-bench-previews-") as tmp:
        root = Path(tmp)
        models = generate_models(root / "models")
        for size in (int(s) for s in args.sizes.split(",")):
            job = Job(prompt="a red fox in the snow", width=size, height=size, steps=args.steps)
            out = root / f"s{size}"
            stages = stage_args(models, job, out)
            out.mkdir(parents=True)
            run_stage(sd_stage, stages["llm-encode"], out / "llm.log")
            assert (out / COND).is_file()
            diffuse = replace(stages["diffuse"], common=CommonArgs(threads=args.diffuse_threads))
            for rep in range(args.repeat):
                for config in configs:
                    sample = _run(config, sd_stage, models, diffuse, out / f"{config}-{rep}")
                    results.setdefault((size, config), []).append(sample)
                    print(
                        f"  {size}² {config:10} run {rep + 1}: {sample.wall_s:6.2f} s, "
                        f"{sample.delivered} previews",
                        file=sys.stderr,
                    )
    _print_table(results, configs, args, sd_stage)
    return 0


def _print_table(results, configs, args, sd_stage: Path) -> None:
    print(f"sd-stage: {sd_stage}")
    print(
        f"txt2img, {args.steps} steps, diffuse -t {args.diffuse_threads} on "
        f"{os.cpu_count()} CPUs, median of {args.repeat}; decoder = vae-decode per preview"
    )
    header = f"{'size':>5} {'decoder':10} {'wall s':>7} {'wall/none':>9} {'step/none':>9}"
    print(header + f" {'previews/step':>13} {'decode s':>8}")
    for size in sorted({s for s, _ in results}):
        base = results.get((size, "none"))
        base_wall = statistics.median(s.wall_s for s in base) if base else None
        base_step = statistics.median(s.step_s for s in base) if base else None
        for config in configs:
            samples = results[(size, config)]
            wall = statistics.median(s.wall_s for s in samples)
            step = statistics.median(s.step_s for s in samples)
            per_step = statistics.median(s.delivered for s in samples) / args.steps
            decodes = [d for s in samples for d in s.decode_s]
            decode = f"{statistics.fmean(decodes):8.2f}" if decodes else f"{'-':>8}"
            ratio_wall = f"{wall / base_wall:9.3f}" if base_wall else f"{'-':>9}"
            ratio_step = f"{step / base_step:9.3f}" if base_step else f"{'-':>9}"
            print(
                f"{size:>5} {config:10} {wall:7.2f} {ratio_wall} {ratio_step} "
                f"{per_step:13.2f} {decode}"
            )


if __name__ == "__main__":
    raise SystemExit(main())
