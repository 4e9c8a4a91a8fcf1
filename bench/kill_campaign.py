"""Kill campaign: SIGKILL the CLI and its engine at random moments, resume, compare the result.

    python bench/kill_campaign.py [--count 20] [--seed 0] [--steps 6] [--sd-stage PATH]
                                  [--work DIR] [--keep]

A reference run (`python -m app run ...`, the tiny models, -t 1) is made once, unkilled. Then,
until --count kills were made: a fresh run starts in its own process group and is killed
(SIGKILL to the whole group and to the engine, which has a group of its own: a power cut) at a
random moment inside a stage (aimed at each stage in turn: once run.json says it runs, a random
part of its duration in the reference run); `python -m app resume DIR` is killed the same way with
probability 1/2, until one resume runs to its end. Each run's result.png is compared with the
reference byte for byte and its folder searched for temporary files (core/atomic.py's
`.NAME.HEX12.tmp`, or any `*.tmp`). A table is printed: kill, run, the stage killed in (the one
run.json said was running, or `between` stages), byte-identical, files left. Exit 0 when every
run is byte-identical with 0 files left. tests/cli/test_kill_campaign.py runs a small version.

Each run has its own STEPWISE_HOME, so no stage is skipped as cached and every stage can be hit.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from app.pipeline.run.folder import STAGES as STAGE_ORDER  # noqa: E402 - aimed at in turn

RUN_TIMEOUT_S = 600.0
POLL_S = 0.005
TEMP_NAME = re.compile(r"^\..+\.[0-9a-f]{12}\.tmp$")
PROMPT = "a red house by the sea"


@dataclass
class Kill:
    number: int
    run: int
    command: str  # run | resume
    after_s: float
    stage: str  # the stage run.json said was running, "between" or "before run.json"


@dataclass
class RunOutcome:
    run: int
    kills: int
    identical: bool
    files_left: list[str]
    exit_code: int


def cli_argv(models: dict[str, Path], engine: Path, steps: int) -> list[str]:
    return [
        "--diffusion-model", str(models["diffusion"]), "--llm", str(models["llm"]),
        "--vae", str(models["vae"]), "--engine", str(engine), "-t", "1", "--steps", str(steps),
        "--seed", "42", "-p", PROMPT,
    ]  # fmt: skip


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["STEPWISE_HOME"] = str(home)
    env.pop("QT_QPA_PLATFORM", None)
    return env


def _start(args: list[str], home: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "app", *args],
        cwd=REPO,
        env=_env(home),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own group: the kill reaches the CLI and its helpers
    )


def running_stage(run_dir: Path) -> str:
    """The stage run.json says is running (read tolerantly: it may be mid-replace)."""
    try:
        data = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "before run.json"
    stages = data.get("stages", {})
    for name, rec in stages.items():
        if isinstance(rec, dict) and rec.get("state") == "running":
            return str(name)
    return "between"


def kill_tree(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the CLI's group and every descendant (the engine runs in a group of its own)."""
    import psutil

    try:
        family = psutil.Process(proc.pid).children(recursive=True)
    except psutil.Error:
        family = []
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    for child in family:
        try:
            child.kill()
        except psutil.Error:
            pass
    proc.wait(timeout=30)


def kill_in_stage(
    proc: subprocess.Popen[bytes],
    run_dir: Path,
    target: str,
    stage_seconds: dict[str, float],
    rng: random.Random,
) -> tuple[str, float] | None:
    """Waits until run.json says `target` (or a later stage) runs, then a random part of that
    stage's reference duration, and kills; None when the process ended first."""
    started = time.monotonic()
    while proc.poll() is None:
        stage = running_stage(run_dir)
        if stage in STAGE_ORDER and STAGE_ORDER.index(stage) >= STAGE_ORDER.index(target):
            time.sleep(rng.uniform(0.0, max(stage_seconds.get(stage, 0.0), 0.005)))
            break
        if time.monotonic() - started > RUN_TIMEOUT_S:
            break
        time.sleep(POLL_S)
    if proc.poll() is not None:
        return None
    stage = running_stage(run_dir)
    kill_tree(proc)
    return stage, time.monotonic() - started


def stage_seconds_of(run_dir: Path) -> dict[str, float]:
    data = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
    return {
        name: float(rec.get("seconds") or 0.0)
        for name, rec in data.get("stages", {}).items()
        if isinstance(rec, dict)
    }


def leftover_temps(run_dir: Path) -> list[str]:
    return sorted(
        str(p.relative_to(run_dir))
        for p in run_dir.rglob("*")
        if p.is_file() and (TEMP_NAME.match(p.name) or p.name.endswith(".tmp"))
    )


def reference(
    work: Path, models: dict[str, Path], engine: Path, image: Path, mask: Path, steps: int
) -> tuple[bytes, float]:
    run_dir = work / "reference"
    started = time.monotonic()
    args = ["run", *cli_argv(models, engine, steps), "-i", str(image), "--mask", str(mask)]
    done = subprocess.run(
        [sys.executable, "-m", "app", *args, "--run-dir", str(run_dir)],
        cwd=REPO,
        env=_env(work / "home-reference"),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the reference run failed ({done.returncode}):\n{done.stderr}")
    return (run_dir / "result.png").read_bytes(), time.monotonic() - started


def campaign(
    count: int,
    work: Path,
    models: dict[str, Path],
    engine: Path,
    image: Path,
    mask: Path,
    *,
    steps: int = 6,
    seed: int = 0,
    log: bool = True,
) -> tuple[list[Kill], list[RunOutcome]]:
    """`count` kills spread over as many runs as it takes; every run finished and compared."""
    rng = random.Random(seed)
    ref, duration = reference(work, models, engine, image, mask, steps)
    stage_seconds = stage_seconds_of(work / "reference")
    if log:
        print(f"reference run: {duration:.1f} s; stages: {stage_seconds}", flush=True)
    kills: list[Kill] = []
    outcomes: list[RunOutcome] = []
    run_no = 0
    while len(kills) < count:
        run_no += 1
        run_dir = work / f"run-{run_no:02d}"
        home = work / f"home-{run_no:02d}"
        args = ["run", *cli_argv(models, engine, steps), "-i", str(image), "--mask", str(mask)]
        args += ["--run-dir", str(run_dir)]
        run_args = args
        command = "run"
        run_kills = 0
        code = 0
        while True:
            proc = _start(args, home)
            if len(kills) < count and (command == "run" or rng.random() < 0.5):
                target = STAGE_ORDER[len(kills) % len(STAGE_ORDER)]
                hit = kill_in_stage(proc, run_dir, target, stage_seconds, rng)
                if hit is not None:
                    stage, after = hit
                    kills.append(Kill(len(kills) + 1, run_no, command, round(after, 2), stage))
                    run_kills += 1
                    if log:
                        print(f"kill {len(kills)}: run {run_no} {command} at {after:.2f} s in "
                              f"{stage} (aimed at {target})", flush=True)  # fmt: skip
                    if (run_dir / "run.json").exists() or (run_dir / "run.json.bak").exists():
                        command, args = "resume", ["resume", str(run_dir), "--engine", str(engine)]
                    else:  # killed before the run existed: start it afresh
                        shutil.rmtree(run_dir, ignore_errors=True)
                        command, args = "run", run_args
                    continue
            code = proc.wait(timeout=RUN_TIMEOUT_S)
            break
        result = run_dir / "result.png"
        identical = code == 0 and result.is_file() and result.read_bytes() == ref
        outcomes.append(RunOutcome(run_no, run_kills, identical, leftover_temps(run_dir), code))
    return kills, outcomes


def table(kills: list[Kill], outcomes: list[RunOutcome]) -> str:
    by_run = {o.run: o for o in outcomes}
    lines = [
        f"{'kill':>4}  {'run':>3}  {'command':<7} {'at s':>6}  {'stage killed in':<16} "
        f"{'byte-identical':<14} files left"
    ]
    for k in kills:
        o = by_run.get(k.run)
        same = "?" if o is None else ("yes" if o.identical else "NO")
        left = "?" if o is None else str(len(o.files_left))
        lines.append(
            f"{k.number:>4}  {k.run:>3}  {k.command:<7} {k.after_s:>6.2f}  {k.stage:<16} "
            f"{same:<14} {left}"
        )
    stages: dict[str, int] = {}
    for k in kills:
        stages[k.stage] = stages.get(k.stage, 0) + 1
    identical = sum(o.identical for o in outcomes)
    left = sum(len(o.files_left) for o in outcomes)
    lines.append(
        f"{len(kills)} kills over {len(outcomes)} runs; byte-identical {identical}/"
        f"{len(outcomes)} runs; files left {left}; kills by stage: "
        + ", ".join(f"{s} {n}" for s, n in sorted(stages.items()))
    )
    for o in outcomes:
        if o.files_left:
            lines.append(f"  run {o.run} left: {', '.join(o.files_left)}")
        if o.exit_code:
            lines.append(f"  run {o.run}: the last resume exited {o.exit_code}")
    return "\n".join(lines)


def prepare(work: Path) -> tuple[dict[str, Path], Path, Path]:
    from app.pipeline.selftest import selftest_images
    from tests.models.generate import generate_models

    ms = generate_models(work / "models")
    image, mask = selftest_images(work / "inputs")
    return {"diffusion": ms.diffusion, "llm": ms.llm, "vae": ms.vae}, image, mask


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=20, help="SIGKILLs in all (default 20)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill moments")
    parser.add_argument("--steps", type=int, default=6, help="diffusion steps per run")
    parser.add_argument("--sd-stage", type=Path, default=None, help="the engine to run")
    parser.add_argument("--work", type=Path, default=None, help="folder for the runs")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    from app.engine.locate import find_sd_stage

    engine = find_sd_stage(args.sd_stage)
    work = args.work or Path(tempfile.mkdtemp(prefix="stepwise-kill-"))
    work.mkdir(parents=True, exist_ok=True)
    models, image, mask = prepare(work)
    kills, outcomes = campaign(
        args.count, work, models, engine, image, mask, steps=args.steps, seed=args.seed
    )
    print(table(kills, outcomes))
    ok = all(o.identical and not o.files_left for o in outcomes)
    if args.keep or not ok:
        print(f"runs kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
