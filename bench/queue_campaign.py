"""Queue kill campaign: SIGKILL the `queue run` worker at random moments; every job must finish
byte-identical to that job run alone, none run twice, none lost, no temporary file left.

    python bench/queue_campaign.py [--jobs 5] [--kills 10] [--seed 0] [--steps 3]
                                   [--sd-stage PATH] [--work DIR] [--keep]

Each job (the tiny models, 64×64, -t 1; the first one inpaints the selftest photo, the others
are text-to-image with their own prompt and seed) is first run alone with `python -m app run`
(the reference). Then the jobs are queued with `queue add` in a fresh STEPWISE_HOME and `queue
run` workers are started one after another; until --kills kills were made, each is killed (its
process group and the engine's, bench/kill_campaign.py's kill_tree: a power cut): every other
kill just after a checkpoint inside a diffusion, the others once the worker printed a random
number (1..30) of lines (any stage of any job, between jobs too), each plus a random part of a
second. The last worker runs to its end. Checked: every
job `done` in `queue list --json`, its result.png equal to the reference byte for byte, one run
folder per job, no worker started a job after another worker reported it finished, no job
computed a diffusion step twice (but the one a kill cut off before its checkpoint), no
`*.tmp` in the data folder and nothing left in the queue's staging folder.
tests/cli/test_queue_cli.py runs a small version (3 jobs, 3 kills).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for extra in (REPO, REPO / "bench"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from kill_campaign import kill_tree, leftover_temps  # noqa: E402

RUN_TIMEOUT_S = 900.0
POLL_S = 0.02
KILL_AFTER_LINES = 30
SIZE = 64
PROMPTS = ("a red house by the sea", "a green boat", "a blue door", "a yellow field", "snow")
HEADER = re.compile(r"^job (\S+): seed ")
STEP_LINE = re.compile(r"^\[diffuse\] step (\d+)/(\d+)")
CHECKPOINT_LINE = re.compile(r"^\[diffuse\] checkpoint [1-9]")
FINISHED = re.compile(r"^job (\S+) finished: ")


@dataclass
class Campaign:
    jobs: int
    kills: list[float] = field(default_factory=list)  # seconds after each killed worker began
    workers: int = 0
    identical: int = 0
    lost: list[str] = field(default_factory=list)  # job ids not done
    ran_twice: list[str] = field(default_factory=list)  # started again after it finished
    # jobs that computed more diffusion steps than their steps plus one per kill that hit
    # them: a killed job went back further than its last checkpoint (or started over)
    recomputed: list[str] = field(default_factory=list)
    folders: int = 0  # run folders in the runs folder
    temps: list[str] = field(default_factory=list)
    staging_left: list[str] = field(default_factory=list)
    last_exit: int | None = None
    seconds_alone: list[float] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (
            self.identical == self.jobs
            and not self.lost
            and not self.ran_twice
            and not self.recomputed
            and self.folders == self.jobs
            and not self.temps
            and not self.staging_left
            and self.last_exit == 0
        )

    def table(self) -> str:
        kills = ", ".join(f"{k:.1f}" for k in self.kills)
        return "\n".join(
            [
                f"jobs {self.jobs}; workers started {self.workers}; kills {len(self.kills)} "
                f"(at {kills} s into the worker)",
                f"byte-identical to the job run alone: {self.identical}/{self.jobs}",
                f"lost: {len(self.lost)}; ran twice: {len(self.ran_twice)}; went back past a "
                f"checkpoint: {len(self.recomputed)}; run folders: "
                f"{self.folders}; temp files left: {len(self.temps)}; staging left: "
                f"{len(self.staging_left)}; last worker exit: {self.last_exit}",
                "one job alone: " + ", ".join(f"{s:.1f} s" for s in self.seconds_alone),
            ]
        )


def env_for(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["STEPWISE_HOME"] = str(home)
    env.pop("QT_QPA_PLATFORM", None)
    return env


def job_args(
    n: int, models: dict[str, Path], engine: Path, steps: int, image: Path, mask: Path
) -> list[str]:
    args = [
        "--diffusion-model", str(models["diffusion"]), "--llm", str(models["llm"]),
        "--vae", str(models["vae"]), "--engine", str(engine), "-t", "1", "--steps", str(steps),
        "--seed", str(100 + n), "-p", PROMPTS[n % len(PROMPTS)],
    ]  # fmt: skip
    if n == 0:
        return args + ["-i", str(image), "--mask", str(mask)]
    return args + ["-W", str(SIZE), "-H", str(SIZE)]


def cli(args: list[str], home: Path, timeout: float = RUN_TIMEOUT_S) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app", *args],
        cwd=REPO,
        env=env_for(home),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def references(work: Path, all_args: list[list[str]]) -> tuple[list[bytes], list[float]]:
    out, seconds = [], []
    for n, args in enumerate(all_args):
        folder = work / f"reference-{n}"
        started = time.monotonic()
        done = cli(["run", *args, "--run-dir", str(folder)], work / "home-reference")
        if done.returncode != 0:
            raise RuntimeError(f"reference {n} failed ({done.returncode}):\n{done.stderr}")
        seconds.append(time.monotonic() - started)
        out.append((folder / "result.png").read_bytes())
    return out, seconds


def start_worker(home: Path, engine: Path, log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as handle:
        return subprocess.Popen(
            [sys.executable, "-m", "app", "queue", "run", "--engine", str(engine)],
            cwd=REPO,
            env=env_for(home),
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: the kill reaches the worker and helpers
        )


def _lines(log: Path) -> int:
    try:
        return log.read_bytes().count(b"\n")
    except OSError:
        return 0


def _checkpointed(log: Path) -> bool:
    """The worker printed a checkpoint of step 1 or later."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(CHECKPOINT_LINE.match(line) for line in text.splitlines())


def _last_line(log: Path) -> str:
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return lines[-1] if lines else ""


def queue_list(home: Path) -> list[dict]:
    done = cli(["queue", "list", "--json"], home, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"queue list failed:\n{done.stderr}")
    return json.loads(done.stdout)


def recomputed(logs: list[Path], killed: list[Path], steps: int) -> list[str]:
    """Jobs whose diffusion computed more than `steps` steps, but for the step a kill cut off
    between its progress line and its checkpoint: a resume never goes back before the last
    checkpoint (nor starts over)."""
    computed: dict[str, int] = {}
    allowed: dict[str, int] = {}
    for log in logs:
        job, open_step = None, False
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            head = HEADER.match(line)
            if head:
                job, open_step = head.group(1), False
            if job is not None and STEP_LINE.match(line):
                computed[job] = computed.get(job, 0) + 1
                open_step = True
            elif line.startswith("[diffuse] checkpoint"):
                open_step = False
        if log in killed and job is not None and open_step:
            allowed[job] = allowed.get(job, 0) + 1
    return sorted(j for j, n in computed.items() if n > steps + allowed.get(j, 0))


def ran_twice(logs: list[Path]) -> list[str]:
    """Jobs a worker started after an earlier worker (or itself) reported them finished."""
    finished: set[str] = set()
    twice: list[str] = []
    for log in logs:
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            head = HEADER.match(line)
            if head and head.group(1) in finished:
                twice.append(head.group(1))
            done = FINISHED.match(line)
            if done:
                if done.group(1) in finished:
                    twice.append(done.group(1))
                finished.add(done.group(1))
    return twice


def campaign(
    jobs: int,
    kills: int,
    work: Path,
    models: dict[str, Path],
    engine: Path,
    image: Path,
    mask: Path,
    *,
    steps: int = 3,
    seed: int = 0,
    log: bool = True,
) -> Campaign:
    rng = random.Random(seed)
    all_args = [job_args(n, models, engine, steps, image, mask) for n in range(jobs)]
    refs, alone = references(work, all_args)
    result = Campaign(jobs, seconds_alone=alone)
    if log:
        print("alone: " + ", ".join(f"{s:.1f} s" for s in alone), flush=True)
    home = work / "home"
    for args in all_args:
        added = cli(["queue", "add", *args], home, timeout=120)
        if added.returncode != 0:
            raise RuntimeError(f"queue add failed:\n{added.stderr}")
    logs: list[Path] = []
    killed: list[Path] = []
    while True:
        log_file = work / f"worker-{len(logs) + 1:02d}.log"
        logs.append(log_file)
        proc = start_worker(home, engine, log_file)
        result.workers += 1
        began = time.monotonic()
        if len(result.kills) < kills:
            # Every other kill lands inside a diffusion (just after a checkpoint of step 1 or
            # later: a resume must not go back before it); the others after a random number
            # of the worker's output lines (a job prints about 25), in any stage or between
            # jobs. Then a random part of a second.
            in_diffuse = len(result.kills) % 2 == 0
            lines = rng.randint(1, KILL_AFTER_LINES)
            pause = rng.uniform(0.0, 0.3 if in_diffuse else 1.0)
            while proc.poll() is None and not (
                _checkpointed(log_file) if in_diffuse else _lines(log_file) >= lines
            ):
                if time.monotonic() - began > RUN_TIMEOUT_S:
                    break
                time.sleep(POLL_S)
            deadline = time.monotonic() + pause
            while proc.poll() is None and time.monotonic() < deadline:
                time.sleep(POLL_S)
            if proc.poll() is None:
                kill_tree(proc)
                killed.append(log_file)
                result.kills.append(time.monotonic() - began)
                if log:
                    print(
                        f"kill {len(result.kills)} at {result.kills[-1]:.1f} s "
                        f"({'in diffuse' if in_diffuse else f'after {lines} lines'}): "
                        f"{_last_line(log_file)}",
                        flush=True,
                    )
                continue
        result.last_exit = proc.wait(timeout=RUN_TIMEOUT_S)
        if all(j["state"] == "done" for j in queue_list(home)) or result.last_exit != 0:
            break
    listed = queue_list(home)
    for n, job in enumerate(listed):
        if job["state"] != "done" or not job["result"]:
            result.lost.append(job["id"])
            continue
        if Path(job["result"]).read_bytes() == refs[n]:
            result.identical += 1
    result.ran_twice = ran_twice(logs)
    result.recomputed = recomputed(logs, killed, steps)
    runs = home / "data" / "runs"
    result.folders = sum(1 for p in runs.iterdir() if p.is_dir()) if runs.is_dir() else 0
    result.temps = leftover_temps(home / "data")
    staging = home / "data" / "queue" / "staging"
    result.staging_left = sorted(p.name for p in staging.iterdir()) if staging.is_dir() else []
    return result


def prepare(work: Path) -> tuple[dict[str, Path], Path, Path]:
    from app.pipeline.selftest import selftest_images
    from tests.models.generate import generate_models

    ms = generate_models(work / "models")
    image, mask = selftest_images(work / "inputs")
    return {"diffusion": ms.diffusion, "llm": ms.llm, "vae": ms.vae}, image, mask


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=5, help="jobs in the queue (default 5)")
    parser.add_argument("--kills", type=int, default=10, help="SIGKILLs in all (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill moments")
    parser.add_argument("--steps", type=int, default=3, help="diffusion steps per job")
    parser.add_argument("--sd-stage", type=Path, default=None, help="the engine to run")
    parser.add_argument("--work", type=Path, default=None, help="folder for the runs")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    from app.engine.locate import find_sd_stage

    engine = find_sd_stage(args.sd_stage)
    work = args.work or Path(tempfile.mkdtemp(prefix="stepwise-queue-"))
    work.mkdir(parents=True, exist_ok=True)
    models, image, mask = prepare(work)
    outcome = campaign(
        args.jobs, args.kills, work, models, engine, image, mask, steps=args.steps, seed=args.seed
    )
    print(outcome.table())
    if args.keep or not outcome.ok:
        print(f"kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if outcome.ok else 1


if __name__ == "__main__":
    sys.exit(main())
