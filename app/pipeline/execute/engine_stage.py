"""The engine-stage adapter: spawns one sd-stage process and translates its events."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path

from app.engine import events as engine_events
from app.engine.argv import STAGE_MODELS, StageArgs, build_argv
from app.engine.errors import Cancelled, EngineError, EngineStopped, Suspended
from app.engine.events import path_inside
from app.engine.process import EngineHung, StageProcess, engine_environment
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.run.folder import LOG_DIR, Run

log = logging.getLogger(__name__)

ENGINE_EXIT_WAIT_S = 120.0
WATCH_INTERVAL_S = 0.1
# The stage watchdog (issue 38, item 8): an engine that sends no event for
# max(floor, HUNG_FACTOR × the longest silence it has shown so far in this stage) is ended and
# the stage fails with EngineHung (FailureKind.ENGINE_HUNG: the queue leaves the job
# interrupted and goes on; its run resumes from the last checkpoint). The floor covers a large
# model's load from a slow disk, which says nothing for minutes; a pause the user asked for
# does not count. STEPWISE_STAGE_WATCHDOG_S sets the floor (tests hold a stage at a step).
HUNG_FACTOR = 10.0
HUNG_FLOOR_S = 1200.0
HUNG_FLOOR_ENV = "STEPWISE_STAGE_WATCHDOG_S"


def hung_floor_s() -> float:
    """The watchdog's floor: STEPWISE_STAGE_WATCHDOG_S when it is a positive number."""
    try:
        value = float(os.environ.get(HUNG_FLOOR_ENV, ""))
    except ValueError:
        return HUNG_FLOOR_S
    return value if value > 0 and value == value else HUNG_FLOOR_S


def log_path(run: Run, name: str) -> Path:
    return run.dir / LOG_DIR / f"{name}.log"


def run_engine(
    run: Run, control: RunControl, engine: Path, args: StageArgs, name: str, record: bool = True
) -> Generator[ev.Event, None, None]:
    """One sd-stage process, its events translated; raises on any outcome but done.

    record=False (decode a step): nothing about the process goes into the stage's record."""
    stage = args.stage
    log = log_path(run, name)
    argv = build_argv(engine, args)
    env = engine_environment(args.common.environment())
    with StageProcess(argv, log_path=log, env=env, cwd=run.dir) as proc:
        yield ev.LogLine(stage, f"sd-stage pid {proc.pid}: {' '.join(argv[1:4])} …")
        run.engine_pid = proc.pid
        run.engine_started = proc.started
        run.save()
        control.attach(proc)
        watchdog = StopWatchdog(proc, control, stage)
        try:
            for event in proc.events():
                yield from _translate(run, stage, event, record)
            if watchdog.hung is not None:
                raise watchdog.hung
            try:
                done = proc.result(ENGINE_EXIT_WAIT_S)
            except EngineError:
                if watchdog.forced:  # it ignored the request: still the stop the user asked
                    raise watchdog.stopped() from None
                raise
        finally:
            watchdog.close()
            control.detach()
            run.engine_pid = None
            run.engine_started = None
    for out in done.outputs.values():
        if not path_inside(out, run.dir):
            raise EngineError(
                "The engine reported an output outside the run folder: {output}",
                path=log,
                values={"output": out},
            )


class StopWatchdog:
    """Gives a suspend/cancel its deadline: once control.stop_overdue(), the engine is
    terminated, then killed (StageProcess.stop's ladder), so stopping never waits forever.
    And the stage watchdog: an engine silent for longer than `limit_s()` (HUNG_FACTOR) is
    ended the same way, and `hung` says why."""

    def __init__(self, proc: StageProcess, control: RunControl, stage: str = "") -> None:
        self.proc = proc
        self.control = control
        self.stage = stage
        self.forced = False
        self.hung: EngineHung | None = None
        self.floor_s = hung_floor_s()
        self._longest_gap = 0.0
        self._seen_at = proc.last_event_at
        self._quiet_since = time.monotonic()
        self._done = threading.Event()
        self._thread = threading.Thread(
            target=self._watch, name=f"sd-stage-{proc.pid}-watchdog", daemon=True
        )
        self._thread.start()

    def limit_s(self) -> float:
        return max(self.floor_s, HUNG_FACTOR * self._longest_gap)

    def _silent_for(self) -> float:
        """Seconds since the engine's last event (a pause the user asked for not counted)."""
        now = time.monotonic()
        seen = self.proc.last_event_at
        if seen != self._seen_at:
            self._longest_gap = max(self._longest_gap, seen - max(self._seen_at, self._quiet_since))
            self._seen_at = seen
            self._quiet_since = seen
        if self.control.paused:
            self._quiet_since = now
        return now - max(self._quiet_since, self._seen_at)

    def _watch(self) -> None:
        while not self._done.wait(WATCH_INTERVAL_S):
            if self.proc.returncode is not None:
                return
            silent = self._silent_for()
            if silent > self.limit_s() and not self.control.stop_overdue():
                log.warning(
                    "sd-stage %s sent nothing for %.0f s in %s; ending it",
                    self.proc.pid,
                    silent,
                    self.stage,
                )
                self.hung = EngineHung(
                    "The engine sent nothing for {seconds} s in the {stage} stage and was ended.",
                    path=self.proc.log_path,
                    fix="The steps it finished are kept: resume the run (or run the queue "
                    "again) to continue from its last checkpoint; the engine log may say why.",
                    values={"seconds": f"{silent:.0f}", "stage": self.stage},
                )
                self.proc.stop(grace_s=0)  # terminate, then kill
                return
            if self.control.stop_overdue():
                log.warning(
                    "sd-stage %s did not stop within %g s of the request; forcing it",
                    self.proc.pid,
                    self.control.stop_deadline_s,
                )
                self.forced = True
                self.proc.stop(grace_s=0)  # terminate, then kill
                return

    def stopped(self) -> EngineStopped:
        """The stop the user asked for, at the last step the engine saved."""
        step = self.proc.last_checkpoint.step if self.proc.last_checkpoint else None
        if self.control.cancel_requested:
            return Cancelled(step=step)
        return Suspended(step=step)

    def close(self) -> None:
        self._done.set()
        self._thread.join(timeout=5.0)


def _translate(
    run: Run, stage: str, event: engine_events.Event, record: bool
) -> Iterator[ev.Event]:
    rec = run.stage(stage)
    if isinstance(event, engine_events.Hello):
        if record:
            rec.device = event.device
            run.set_engine_hello(event.version, event.pin)
        yield ev.DeviceReported(stage, event.device)
        yield ev.LogLine(stage, f"engine {event.version} on {event.device}")
    elif isinstance(event, engine_events.Load):
        # The stage's own model tells the device it runs on (not diffuse's preview VAE).
        if stage in STAGE_MODELS and event.model == STAGE_MODELS[stage].model:
            if record:
                rec.device = event.device
            yield ev.DeviceReported(stage, event.device)
        yield ev.LogLine(
            stage, f"loaded the {event.model} model on {event.device} in {event.seconds:.1f} s"
        )
    elif isinstance(event, engine_events.Progress):
        if record and stage == "diffuse":
            run.steps = event.steps
        eta = max(event.steps - event.step, 0) * event.seconds_per_step
        yield ev.StepProgressed(event.step, event.steps, event.seconds_per_step, eta)
    elif isinstance(event, engine_events.Checkpoint):
        path = inside(run, event.path)
        if record:
            run.last_completed_step = event.step
            run.save()
        yield ev.CheckpointSaved(event.step, path)
    elif isinstance(event, engine_events.Preview):
        yield ev.PreviewSaved(event.step, inside(run, event.path))
    elif isinstance(event, engine_events.Paused):
        yield ev.Paused(event.step)
    elif isinstance(event, engine_events.Resumed):
        yield ev.Resumed(event.step)
    elif isinstance(event, engine_events.ErrorEvent):
        yield ev.LogLine(stage, f"engine error {event.code}: {event.message}")


def inside(run: Run, path: str) -> Path:
    """A path the engine reported, refused unless it lies inside the run folder."""
    if not path_inside(path, run.dir):
        raise EngineError(
            "The engine reported a file outside the run folder: {output}",
            values={"output": path},
        )
    candidate = Path(path)
    return candidate if candidate.is_absolute() else run.dir / candidate
