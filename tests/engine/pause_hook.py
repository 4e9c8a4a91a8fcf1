"""Stopping a tiny run at a chosen step, deterministically: the test build's
SD_STAGE_TEST_PAUSE_AT_STEP (native/PROTOCOL.md, "Test hooks") makes diffuse pause after that
step's checkpoint by itself. A suspend sent from Python when a checkpoint event arrived raced
the tiny steps: under load the run often finished first.

How a test stops a run at a step: it sets the hook before the run starts (`engines_pause_at`,
`suspend_at`, `hold_session_at_step`, or `env=` for one process); the engine pauses by itself
after step k's checkpoint and emits `paused`, and the test suspends, cancels, kills or resumes
on that `Paused` event. The fake pipeline honours the same variable (tests/fakes/fake_steps.py).
A stop that must land inside a child's work holds the child (`SD_STAGE_TEST_SLOW_LOAD=1`: the
load lasts until the stop). Never a command sent when a step event or a log line arrives, nor
an assert that a child still exists: tests/test_code_quality.py (`race_shaped`) fails on that
pattern in any test that does not hold the engine."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from app.pipeline import events as ev
from app.pipeline.api import PipelineAPI
from app.pipeline.control import RunControl

PAUSE_AT_STEP_ENV = "SD_STAGE_TEST_PAUSE_AT_STEP"


@contextmanager
def engines_pause_at(step: int) -> Iterator[None]:
    """Engines spawned inside pause after step `step` (set for them only, not for a resume)."""
    os.environ[PAUSE_AT_STEP_ENV] = str(step)
    try:
        yield
    finally:
        del os.environ[PAUSE_AT_STEP_ENV]


def suspend_at(pipeline: PipelineAPI, run_dir: Path, step: int) -> list[ev.Event]:
    """Executes the run until its engine pauses after `step`, then suspends it: the events
    (the last one RunSuspended at `step`)."""
    control = RunControl()
    seen: list[ev.Event] = []
    with engines_pause_at(step):
        for event in pipeline.execute(Path(run_dir), control):
            seen.append(event)
            if isinstance(event, ev.Paused):
                control.suspend()
    return seen


def hold_session_at_step(session: Any, step: int) -> None:
    """The diffuse engine of the session's (a jobs/run_session.RunSession) next run pauses itself
    after step `step`. A pause sent when the step's event arrived raced the tiny steps under
    load: all of them were done first and the run then held between stages, with no engine.
    The hook is cleared once the engine holds, so the engine of a resume does not hold again."""
    os.environ[PAUSE_AT_STEP_ENV] = str(step)

    def held(_step: int) -> None:
        os.environ.pop(PAUSE_AT_STEP_ENV, None)

    session.runner_started.connect(
        lambda r: r.paused.connect(held, Qt.ConnectionType.DirectConnection)
    )
