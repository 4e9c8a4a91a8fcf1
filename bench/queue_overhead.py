"""The queue's overhead per job, and the cache hit for a prompt shared across the queue.

    python bench/queue_overhead.py [--jobs 4] [--steps 2] [--sd-stage PATH] [--work DIR]

J tiny jobs (the tiny models, the selftest photo and mask, -t 1, one prompt, seeds 1..J) are
queued (`JobQueue.add`: the inputs hashed and stored once) and run by one worker
(`queue_worker.run_queue`) in a fresh STEPWISE_HOME. The pipeline's own work (create_run +
execute) is timed inside the worker; the queue's overhead per job is what is left of the
worker's wall time, plus the add, divided by J, reported as a ratio of the pipeline's time
for a tiny job. The cache: in how many of the jobs llm-encode (and vae-encode) came from the
cache, and that stage's seconds in the first job (what each later job saved).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


class TimedPipeline:
    """The real Pipeline with create_run and execute timed (everything else passes through)."""

    def __init__(self, pipeline: Any) -> None:
        self._p = pipeline
        self.seconds = 0.0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._p, name)

    def create_run(self, spec: Any, run_dir: Path | None = None) -> Any:
        started = time.perf_counter()
        try:
            return self._p.create_run(spec, run_dir)
        finally:
            self.seconds += time.perf_counter() - started

    def execute(self, run_dir: Path, control: Any, *, only: str | None = None) -> Iterator[Any]:
        events = self._p.execute(run_dir, control, only=only)
        while True:
            started = time.perf_counter()
            try:
                event = next(events)
            except StopIteration:
                self.seconds += time.perf_counter() - started
                return
            self.seconds += time.perf_counter() - started
            yield event


def measure(work: Path, jobs: int, steps: int, engine: Path | None) -> dict[str, Any]:
    os.environ["STEPWISE_HOME"] = str(work / "home")
    from app.core.paths import app_paths
    from app.pipeline.control import RunControl
    from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
    from app.pipeline.queue.jobs import JobQueue
    from app.pipeline.queue.worker import run_queue
    from app.pipeline.run.folder import open_run
    from app.pipeline.runner import Pipeline
    from app.pipeline.selftest import selftest_images
    from tests.models.generate import generate_models

    models = generate_models(work / "models")
    image, mask = selftest_images(work / "inputs")
    paths = app_paths()
    specs = [
        JobSpec(
            models=ModelFiles(str(models.diffusion), str(models.llm), str(models.vae)),
            prompt="a red house by the sea",
            image=str(image),
            mask=str(mask),
            steps=steps,
            seed=n + 1,
            devices=DeviceChoice(threads=1),
        )
        for n in range(jobs)
    ]
    queue = JobQueue(paths)
    started = time.perf_counter()
    queue.add(specs)
    add_s = time.perf_counter() - started
    pipeline = TimedPipeline(Pipeline(paths, engine))
    started = time.perf_counter()
    report = run_queue(pipeline, queue, RunControl())  # type: ignore[arg-type]
    worker_s = time.perf_counter() - started
    assert len(report.finished) == jobs, report
    overhead = (worker_s - pipeline.seconds + add_s) / jobs
    per_job = pipeline.seconds / jobs
    runs = [open_run(queue.run_dir_of(v.job.id)) for v in queue.views()[1]]
    llm_cached = sum(r.stage("llm-encode").cached for r in runs)
    vae_cached = sum(r.stage("vae-encode").cached for r in runs)
    first_llm = runs[0].stage("llm-encode").seconds or 0.0
    return {
        "jobs": jobs,
        "job_s": per_job,
        "overhead_s": overhead,
        "ratio": overhead / per_job,
        "add_s": add_s,
        "llm_cached": llm_cached,
        "vae_cached": vae_cached,
        "first_llm_s": first_llm,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jobs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--sd-stage", type=Path, default=None)
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="stepwise-queue-overhead-"))
    r = measure(work, args.jobs, args.steps, args.sd_stage)
    print(
        f"{r['jobs']} tiny jobs: the pipeline {r['job_s']:.2f} s per job; the queue's own work "
        f"{r['overhead_s'] * 1000:.1f} ms per job (add {r['add_s'] * 1000:.1f} ms for all) = "
        f"{r['ratio']:.4f} × a tiny job"
    )
    print(
        f"shared prompt: llm-encode from the cache in {r['llm_cached']} of {r['jobs']} jobs "
        f"(the first encode took {r['first_llm_s']:.2f} s); vae-encode from the cache in "
        f"{r['vae_cached']} of {r['jobs']}"
    )
    print(f"work folder: {work}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
