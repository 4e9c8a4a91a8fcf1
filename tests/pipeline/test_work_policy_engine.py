"""The work policy on the real engine: idle → the user comes back → idle again. The job in hand
is suspended by the policy (the engine held at step 2 by the test hook, never a race), the
engine is gone while the worker waits, and the job then resumes and ends byte-identical to the
same job run without a stop."""

from __future__ import annotations

import os
from pathlib import Path

import psutil
import pytest

from app.core import platform
from app.core.paths import app_paths
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.job.spec import DeviceChoice, JobSpec, ModelFiles
from app.pipeline.queue.jobs import JobQueue, QueuedJob
from app.pipeline.queue.work_gate import Sources, WorkGate, read_status
from app.pipeline.queue.worker import EMPTY, run_queue
from app.pipeline.run.records import RESULT_FILE
from app.pipeline.runner import Pipeline
from app.pipeline.work_policy import AT_COMPUTER, Verdict, policy_of
from tests.engine.pause_hook import PAUSE_AT_STEP_ENV
from tests.fakes.fake_idle import FakeIdle

pytestmark = pytest.mark.timeout(900)

BUSY, AWAY = 0.0, 3600.0


def _spec(tiny_models, inputs) -> JobSpec:
    image, mask = inputs
    models = ModelFiles(str(tiny_models.diffusion), str(tiny_models.llm), str(tiny_models.vae))
    return JobSpec(
        models=models,
        prompt="a red house",
        image=str(image),
        mask=str(mask),
        steps=4,
        seed=11,
        devices=DeviceChoice(threads=1),
    )


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from app.pipeline.selftest import selftest_images

    return selftest_images(tmp_path_factory.mktemp("inputs"))


def test_idle_busy_idle_suspends_frees_the_gpu_and_resumes_bit_exactly(
    tmp_path: Path,
    tiny_models,
    sd_stage: Path,
    inputs,
) -> None:
    spec = _spec(tiny_models, inputs)
    pipeline = Pipeline(app_paths(), engine=sd_stage, cache_limit_mb=64)
    alone = tmp_path / "alone"
    pipeline.create_run(spec, alone)
    events = list(pipeline.execute(alone, RunControl()))
    assert isinstance(events[-1], ev.RunFinished), events[-1]

    queue = JobQueue(app_paths())
    (job,) = queue.add([spec])
    idle = FakeIdle(AWAY)
    control = RunControl()
    seen: dict[str, object] = {}
    states: list[Verdict] = []
    gate_box: list[WorkGate] = []

    def on_event(_job: QueuedJob, run_dir: Path | None, event: ev.Event) -> None:
        if isinstance(event, ev.Paused) and "held" not in seen:
            # The engine holds itself after step 2: the user comes back now.
            os.environ.pop(PAUSE_AT_STEP_ENV, None)  # the resumed engine does not hold
            seen["held"] = event.step
            seen["pid"] = control.process_id
            idle.set(BUSY)
            gate_box[0].poke()
        if isinstance(event, ev.RunSuspended):
            seen["suspended"] = event.step

    def on_state(now: Verdict) -> None:
        states.append(now)
        if now.reason == AT_COMPUTER:
            # The worker waits: the engine is gone, no child of ours is left.
            pid = seen.get("pid")
            seen["engine_gone"] = isinstance(pid, int) and platform.process_info(pid) is None
            seen["children"] = [p.pid for p in psutil.Process().children(recursive=True)]
            seen["attached"] = control.process_id
            seen["status"] = read_status(queue.dir)
            seen["run"] = pipeline.snapshot(queue.run_dir_of(job.id))
            idle.set(AWAY)  # the user leaves again

    gate = WorkGate(
        policy_of("idle", 5),
        Sources(idle=idle, battery=lambda: None),
        poll_s=0.05,
        on_state=on_state,
        status_dir=queue.dir,
    )
    gate_box.append(gate)
    os.environ[PAUSE_AT_STEP_ENV] = "2"  # popped once held (and by conftest after a failure)
    report = run_queue(pipeline, queue, control, on_event, gate=gate)
    gate.close()

    assert seen.get("held") == 2, seen
    assert seen.get("suspended") == 2, seen  # suspended at the step it held at
    assert seen.get("engine_gone") is True, seen
    assert seen.get("children") == [] and seen.get("attached") is None, seen
    status = seen.get("status")
    assert status is not None and status.waiting.reason == AT_COMPUTER, seen  # type: ignore[attr-defined]
    run = seen["run"]
    assert run.last_completed_step == 2 and not run.finished, run  # type: ignore[attr-defined]
    assert 2 in run.checkpoints, run  # type: ignore[attr-defined]
    assert [s.reason for s in states] == ["", AT_COMPUTER, ""], states
    assert report.reason == EMPTY and report.finished == [job.id], report
    result = queue.run_dir_of(job.id) / RESULT_FILE
    assert result.read_bytes() == (alone / RESULT_FILE).read_bytes()
    assert read_status(queue.dir) is None  # the worker's state file went with it
