"""Every exception a stage can raise → its FailureKind (the one table; no keyword guessing)."""

from __future__ import annotations

from pathlib import Path

from app.core.errors import (
    DamagedFileError,
    DiskFullError,
    InputError,
    OutputError,
    StepwiseError,
)
from app.engine.errors import (
    BadInputError,
    DeviceError,
    EngineCrashed,
    EngineOutOfMemory,
    ModelLoadError,
    ProtocolError,
    WriteFailedError,
)
from app.engine.locate import EngineNotFound
from app.engine.process import EngineHung
from app.pipeline.execute.decode_check import BadDecodeError
from app.pipeline.failures import Failure, FailureKind, json_values
from app.pipeline.job.identity import ModelFileError
from app.pipeline.run.lock import RunBusy

UNEXPECTED = "Unexpected error in stage {stage}: {error}"


class StageOrderError(StepwiseError):
    """ "Run next stage" asked for a stage whose inputs are not ready."""

    def __init__(self, stage: str, wanted: str) -> None:
        super().__init__(
            "Stage {stage} must run before {wanted}.", values={"stage": stage, "wanted": wanted}
        )
        self.stage = stage


# Most specific first: EngineNotFound is an EngineError, TensorFileError a DamagedFileError,
# DiskFullError an OutputError.
_KINDS: tuple[tuple[type[BaseException], FailureKind], ...] = (
    (EngineNotFound, FailureKind.ENGINE_MISSING),
    (EngineOutOfMemory, FailureKind.OUT_OF_MEMORY),
    (BadDecodeError, FailureKind.BAD_DECODE),
    (ModelLoadError, FailureKind.MODEL_FILE),
    (ModelFileError, FailureKind.MODEL_FILE),
    (BadInputError, FailureKind.INPUT),
    (InputError, FailureKind.INPUT),
    (DamagedFileError, FailureKind.DAMAGED),
    (DiskFullError, FailureKind.NO_ROOM),
    (WriteFailedError, FailureKind.OUTPUT),
    (OutputError, FailureKind.OUTPUT),
    (DeviceError, FailureKind.DEVICE),
    (EngineCrashed, FailureKind.ENGINE_CRASHED),
    (EngineHung, FailureKind.ENGINE_HUNG),
    (ProtocolError, FailureKind.ENGINE_CRASHED),
    (RunBusy, FailureKind.BUSY),
    (StageOrderError, FailureKind.ORDER),
)


def failure_kind(exc: BaseException) -> FailureKind:
    """The kind of `exc`; anything not in the table (a UsageError too) is a bug of ours."""
    for cls, kind in _KINDS:
        if isinstance(exc, cls):
            return kind
    return FailureKind.BUG


def failure_for(exc: BaseException, stage: str, log_path: Path | None = None) -> Failure:
    """The typed failure: the error's templates and values kept (each reader renders them in
    its language), `detail` their English text. The catch-all that turns a bug into a
    failure logs its traceback (the pipeline's stage loops, the worker, the model's actions)."""
    kind = failure_kind(exc)
    if isinstance(exc, StepwiseError):
        values = json_values(exc.fields())
        return Failure(
            kind, stage, exc.user_message(), log_path, exc.message, values, exc.fix or ""
        )
    values = {"stage": stage, "error": f"{type(exc).__name__}: {exc}"}
    detail = UNEXPECTED.format(**values)
    return Failure(kind, stage, detail, log_path, UNEXPECTED, values)
