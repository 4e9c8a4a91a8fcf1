"""Stopping a tiny run at a chosen step, deterministically: the test build's
SD_STAGE_TEST_PAUSE_AT_STEP (native/PROTOCOL.md, "Test hooks") makes diffuse pause after that
step's checkpoint by itself. A suspend sent from Python when a checkpoint event arrived raced
the tiny steps: under load the run often finished first."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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
