"""Which stages run and when: `only`, pauses between stages, the terminal-event rules.

Exactly one terminal event ends every execute(); a failure is typed (failure_kinds) and
recorded in run.json before its RunFailed is yielded.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Protocol

from app.core.errors import StepwiseError, error_text
from app.engine.errors import Cancelled, EngineError, Suspended
from app.engine.stage import Stage
from app.engine.tensorfile import file_sha256
from app.pipeline import events as ev
from app.pipeline.api import DeviceInfo, EngineCatalog
from app.pipeline.cache.store import StageCache
from app.pipeline.control import RunControl
from app.pipeline.execute.engine_stage import log_path
from app.pipeline.execute.failure_kinds import StageOrderError, failure_for
from app.pipeline.execute.memory_retry import run_fitted
from app.pipeline.execute.stages import STAGE_OBJECTS, StageContext
from app.pipeline.failures import Failure
from app.pipeline.job import preflight
from app.pipeline.run import checkpoints
from app.pipeline.run.folder import (
    RESULT_FILE,
    STAGES,
    Run,
    check_entries,
    remove_leftover_temps,
)
from app.pipeline.run.lock import RunLock, stop_orphan_engine

log = logging.getLogger(__name__)


class Resources(Protocol):
    """What the scheduler needs from the pipeline."""

    cache: StageCache

    def engine_binary(self) -> Path: ...

    def engine_version(self, engine: Path) -> str: ...

    def stage_keys(self, run: Run, engine: Path) -> dict[str, str | None]: ...

    def devices(self) -> list[DeviceInfo]: ...

    def catalog_if_any(self) -> EngineCatalog | None: ...


class DevicesOnce:
    """The engine's devices by name, asked once per execute() and only when a stage plans."""

    def __init__(self, res: Resources) -> None:
        self._res = res
        self._found: dict[str, DeviceInfo] | None = None

    def __call__(self) -> dict[str, DeviceInfo]:
        if self._found is None:
            self._found = {d.name: d for d in self._res.devices()}
        return self._found


def up_to_date(run: Run, stage: str, key: str | None) -> bool:
    """Done with this key, and every output still has its recorded sha256."""
    rec = run.stage(stage)
    if rec.key != key or not rec.done:
        return False
    for out in rec.outputs.values():
        path = run.dir / out.file
        try:
            if file_sha256(path) != out.sha256:
                log.warning("%s does not match run.json; running %s again", path, stage)
                return False
        except (OSError, StepwiseError):
            return False
    return not (stage == Stage.PREPARE and run.model_input is None)


def mark(
    run: Run, stage: str, state: str, *, key: str | None, seconds: float | None, cached: bool
) -> None:
    rec = run.stage(stage)
    rec.mark(state, key=key, seconds=seconds, cached=cached)
    if state == "skipped":
        rec.outputs = {}
    # Everything downstream of a stage that runs again is stale until it runs too.
    if state == "running":
        for later in STAGES[STAGES.index(stage) + 1 :]:
            if run.stage(later).done:
                run.stage(later).state = "pending"
                run.stage(later).key = None
        run.set_result(None)
    run.save()


def engine_log_of(run: Run, stage: str, exc: BaseException) -> Path | None:
    """The stage's engine log when `exc` is the engine's and the log exists (a failure shows it)."""
    path = log_path(run, stage)
    return path if isinstance(exc, EngineError) and path.exists() else None


def record_failure(run: Run, failure: Failure) -> None:
    """The failure written into run.json, its stage marked failed; a write that fails is only
    logged (the run is failing already: the RunFailed event matters more)."""
    try:
        run.stage(failure.stage).mark(
            "failed", key=None, seconds=None, cached=False, message=failure.detail
        )
        run.failure = failure
        run.save()
    except StepwiseError as exc:  # already failing; the event matters more (one line, no trace)
        log.warning("could not record the failure: %s", error_text(exc))
    except Exception:  # already failing; the event matters more
        log.exception("could not record the failure")


def execute(res: Resources, run: Run, control: RunControl, only: str | None) -> ev.EventStream:
    """Runs every stage not up to date (or just `only`) under the run's lock."""
    if only is not None and only not in STAGES:
        raise ValueError(f"unknown stage {only!r}")
    lock = RunLock(run.dir)
    try:
        lock.__enter__()
    except StepwiseError as exc:  # busy, a read-only place, a linked or odd .lock
        failure = failure_for(exc, Stage.PREPARE)
        yield ev.RunFailed.of(failure)
        return
    try:
        try:
            check_entries(run.dir)  # no link among the run's entries, its folders are folders
        except StepwiseError as exc:
            failure = failure_for(exc, Stage.PREPARE)
            yield ev.RunFailed.of(failure)
            return
        remove_leftover_temps(run.dir)
        yield from _execute_locked(res, run, control, only)
    finally:
        lock.__exit__(None, None, None)


def _execute_locked(  # noqa: C901 - the stage loop's pause, cache and terminal-event rules
    res: Resources, run: Run, control: RunControl, only: str | None
) -> ev.EventStream:
    stage = Stage.PREPARE
    try:
        if stop_orphan_engine(run.engine_pid, run.dir, started=run.engine_started):
            yield ev.LogLine(
                Stage.DIFFUSE, "Stopped an engine left running by a crashed Stepwise process."
            )
        run.failure = None
        # A resumed or changed run is checked like a new one, its sampler and scheduler against
        # the engine's list too (run.json may have been edited; issue 17, 11).
        preflight.check_job(run.spec, res.catalog_if_any())
        engine = res.engine_binary()
        keys = res.stage_keys(run, engine)
        # Before any stage: checkpoints whose key changed under them are never lost silently.
        checkpoints.check_not_orphaned(run, keys[Stage.DIFFUSE])
        run.set_engine(str(engine), res.engine_version(engine))
        if not run.finished:
            run.set_result(None)
        run.save()
        devices = DevicesOnce(res)
        for obj in STAGE_OBJECTS:
            stage = obj.name
            if only is not None and STAGES.index(stage) > STAGES.index(only):
                break
            key = keys[stage]
            if key is None:
                mark(run, stage, "skipped", key=None, seconds=None, cached=False)
                continue
            if up_to_date(run, stage, key):
                if stage == only or only is None:
                    yield ev.StageStarted(stage, run.dir)
                    yield ev.StageFinished(stage, 0.0, True, run.stage(stage).device or "")
                continue
            if only is not None and stage != only:
                raise StageOrderError(stage, only)
            if control.paused and not (control.cancel_requested or control.suspend_requested):
                # Paused between stages: hold here, no engine (and no model) loaded.
                yield ev.Paused(run.last_completed_step)
                control.wait_while_paused()
                if not (control.cancel_requested or control.suspend_requested):
                    yield ev.Resumed(run.last_completed_step)
            if control.cancel_requested:
                yield ev.RunCancelled(run.last_completed_step)
                return
            if control.suspend_requested:
                yield ev.RunSuspended(run.last_completed_step)
                return
            yield ev.StageStarted(stage, run.dir)
            started = time.monotonic()
            mark(run, stage, "running", key=None, seconds=None, cached=False)
            ctx = StageContext(run, control, engine, key, res.cache)
            cached = yield from run_fitted(obj, ctx, devices)
            seconds = time.monotonic() - started
            mark(
                run,
                stage,
                "cached" if cached else "done",
                key=key,
                seconds=round(seconds, 3),
                cached=cached,
            )
            yield ev.StageFinished(stage, seconds, cached, run.stage(stage).device or "")
        if only is not None and only != Stage.COMPOSITE:
            outputs = list(run.stage(only).outputs.values())
            yield ev.RunFinished(run.dir / outputs[0].file if outputs else run.dir)
            return
        run.set_result(RESULT_FILE)
        run.save()
        yield ev.RunFinished(run.dir / RESULT_FILE)
    except (Suspended, Cancelled) as exc:
        run.stage(stage).mark("pending", key=None, seconds=None, cached=False)
        run.save()
        step = checkpoints.step_after_stop(run, exc.step)
        yield ev.RunSuspended(step) if isinstance(exc, Suspended) else ev.RunCancelled(step)
    except Exception as exc:  # every failure, a bug too: still exactly one terminal event
        if not isinstance(exc, StepwiseError):
            log.exception("stage %s of run %s failed", stage, run.dir)
        where = exc.stage if isinstance(exc, StageOrderError) else stage
        failure = failure_for(exc, where, engine_log_of(run, stage, exc))
        record_failure(run, failure)
        yield ev.RunFailed.of(failure)
