"""What execute() reports while a run goes: plain frozen dataclasses the UI thread can read."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from app.pipeline.failures import Failure, FailureKind


@dataclass(frozen=True)
class StageStarted:
    """A stage begins (also for stages answered from the cache)."""

    stage: str
    run_dir: Path


@dataclass(frozen=True)
class StageFinished:
    """A stage is done; cached = its output came from the cache or an earlier run."""

    stage: str
    seconds: float
    cached: bool
    device: str = ""


@dataclass(frozen=True)
class StepProgressed:
    """A sampling step finished."""

    step: int
    steps: int
    seconds_per_step: float
    eta_s: float


@dataclass(frozen=True)
class PreviewSaved:
    """A preview image of `step` is on disk (inside the run directory)."""

    step: int
    path: Path


@dataclass(frozen=True)
class CheckpointSaved:
    """x_t after `step` is on disk (inside the run directory)."""

    step: int
    path: Path


@dataclass(frozen=True)
class Paused:
    """The engine holds after `step` with its model loaded."""

    step: int


@dataclass(frozen=True)
class Resumed:
    """The engine continues after a pause."""

    step: int


@dataclass(frozen=True)
class LogLine:
    """A line of the engine's log or a note from the pipeline."""

    stage: str
    text: str


@dataclass(frozen=True)
class DeviceReported:
    """The device a stage really runs on (from the engine's hello/load events)."""

    stage: str
    device: str


@dataclass(frozen=True)
class RunFinished:
    """Terminal: the result image is on disk."""

    result_path: Path


@dataclass(frozen=True)
class RunFailed:
    """Terminal: why (`kind`), the English detail (`message`), the engine's log (may be None),
    and the error's templates with their values (`template`, `fix`, `values`: the readers
    render them in their language; app/pipeline/failures.Failure)."""

    stage: str
    kind: FailureKind
    message: str
    log_path: Path | None
    template: str = ""
    values: Mapping[str, str | int | float | bool] = field(default_factory=dict)
    fix: str = ""

    @classmethod
    def of(cls, failure: Failure) -> RunFailed:
        return cls(
            failure.stage,
            failure.kind,
            failure.detail,
            failure.log_path,
            failure.message,
            dict(failure.values),
            failure.fix,
        )

    @property
    def failure(self) -> Failure:
        return Failure(
            self.kind,
            self.stage,
            self.message,
            self.log_path,
            self.template,
            dict(self.values),
            self.fix,
        )


@dataclass(frozen=True)
class RunSuspended:
    """Terminal: stopped with the GPU free; resumable from `step` (last completed step)."""

    step: int


@dataclass(frozen=True)
class RunCancelled:
    """Terminal: stopped on request; what is on disk stays valid."""

    step: int


Event = (
    StageStarted
    | StageFinished
    | StepProgressed
    | PreviewSaved
    | CheckpointSaved
    | Paused
    | Resumed
    | LogLine
    | DeviceReported
    | RunFinished
    | RunFailed
    | RunSuspended
    | RunCancelled
)
TERMINAL_EVENTS = (RunFinished, RunFailed, RunSuspended, RunCancelled)
# What execute(), decode_step() and accept_step() return: a generator, so a caller that stops
# early closes it (`events.close()`) and the pipeline's own clean-up runs (a child stopped).
EventStream = Generator[Event, None, None]
