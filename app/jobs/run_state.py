"""The state of the generation model's current run, as one enum."""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication

from app.core.errors import ERROR_CONTEXT, StepwiseError, error_text

if TYPE_CHECKING:
    from app.pipeline.api import RunSnapshot

DONE_STATES = ("done", "cached", "skipped")


def user_text(exc: BaseException) -> str:
    """The user's text for an exception, in the UI's language (error templates are translated
    in Qt context "errors"); the one call the jobs layer uses."""
    return error_text(exc, lambda text: QCoreApplication.translate(ERROR_CONTEXT, text))


def log_error(logger: logging.Logger, what: str, exc: BaseException) -> None:
    """Logs a failure a catch-all turned into a message: a StepwiseError (the user can fix it)
    as one line, anything else (a bug) as an error with its traceback."""
    if isinstance(exc, StepwiseError):
        logger.info("%s: %s", what, error_text(exc))
    else:
        logger.error("%s: %s", what, error_text(exc), exc_info=exc)


class RunState(StrEnum):
    IDLE = "idle"  # no run, or a run not started yet
    PREPARING = "preparing"  # the inputs are being written, the run made
    RUNNING = "running"
    PAUSING = "pausing"  # pause asked, the current step finishes
    PAUSED = "paused"  # the engine holds with its model loaded
    SUSPENDING = "suspending"  # suspend asked, the current step finishes
    CANCELLING = "cancelling"
    SUSPENDED = "suspended"  # stopped with the GPU free; resumable
    CANCELLED = "cancelled"  # stopped on request; what is on disk stays valid
    FAILED = "failed"
    FINISHED = "finished"

    @property
    def busy(self) -> bool:
        """A worker is active (no new run, no form-driven change of the run)."""
        return self in _BUSY

    @property
    def can_pause(self) -> bool:
        return self is RunState.RUNNING

    @property
    def can_resume(self) -> bool:
        return self is RunState.PAUSED


_BUSY = frozenset(
    {
        RunState.PREPARING,
        RunState.RUNNING,
        RunState.PAUSING,
        RunState.PAUSED,
        RunState.SUSPENDING,
        RunState.CANCELLING,
    }
)
# The terminal signal of a runner → the state it leaves.
TERMINAL_STATES = {
    "finished": RunState.FINISHED,
    "failed": RunState.FAILED,
    "cancelled": RunState.CANCELLED,
    "suspended": RunState.SUSPENDED,
}


def next_stage(run: RunSnapshot) -> str | None:
    """The first stage not done yet (vae-encode is passed over when there is nothing to
    encode: the pipeline skips it on the way), or None when every stage is done."""
    nothing_to_encode = run.spec.image is None and not run.spec.refs
    for stage in run.stages:
        if stage.state in DONE_STATES:
            continue
        if stage.name == "vae-encode" and nothing_to_encode:
            continue
        return stage.name
    return None
