"""Every exception class → its FailureKind (the one table), and the detail it carries."""

from __future__ import annotations

from pathlib import Path

import pytest

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
    TensorFileError,
    UsageError,
    WriteFailedError,
)
from app.engine.locate import EngineNotFound
from app.engine.stage import Stage
from app.pipeline.execute.failure_kinds import StageOrderError, failure_for, failure_kind
from app.pipeline.failures import FailureKind
from app.pipeline.job.identity import ModelFileError
from app.pipeline.run.lock import RunBusy


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (EngineOutOfMemory(), FailureKind.OUT_OF_MEMORY),
        (ModelLoadError(), FailureKind.MODEL_FILE),
        (ModelFileError("The model file d.gguf does not exist."), FailureKind.MODEL_FILE),
        (BadInputError(), FailureKind.INPUT),
        (InputError("bad mask"), FailureKind.INPUT),
        (DamagedFileError("bad run.json"), FailureKind.DAMAGED),
        (TensorFileError("truncated"), FailureKind.DAMAGED),
        (OutputError("disk full"), FailureKind.OUTPUT),
        (WriteFailedError(), FailureKind.OUTPUT),
        (DiskFullError("The disk is full while writing {path}."), FailureKind.NO_ROOM),
        (EngineNotFound("no sd-stage"), FailureKind.ENGINE_MISSING),
        (EngineCrashed(), FailureKind.ENGINE_CRASHED),
        (ProtocolError(), FailureKind.ENGINE_CRASHED),
        (DeviceError("device lost"), FailureKind.DEVICE),
        (RunBusy("busy"), FailureKind.BUSY),
        (StageOrderError("llm-encode", "diffuse"), FailureKind.ORDER),
        (UsageError(), FailureKind.BUG),
        (StepwiseError("something else"), FailureKind.BUG),
        (KeyError("size"), FailureKind.BUG),
    ],
)
def test_each_exception_has_its_kind(error: BaseException, kind: FailureKind) -> None:
    assert failure_kind(error) is kind


def test_the_detail_is_the_errors_own_message() -> None:
    log = Path("/runs/r/logs/diffuse.log")
    failure = failure_for(EngineOutOfMemory(path="/m/dit.gguf"), "diffuse", log)
    assert failure.stage == "diffuse" and failure.log_path == log
    assert "ran out of memory" in failure.detail and "VAE tiling" in failure.detail
    bug = failure_for(KeyError("size"), "prepare")
    assert bug.kind is FailureKind.BUG and "KeyError" in bug.detail and "prepare" in bug.detail
    order = failure_for(StageOrderError("llm-encode", "diffuse"), "llm-encode")
    assert order.detail == "Stage llm-encode must run before diffuse."


def test_the_queue_knows_no_room_by_its_kind_not_its_words() -> None:
    """A full disk, in whatever words (preflight's estimate, a write that failed), leaves the
    queued jobs waiting; another output error fails the job."""
    from app.pipeline import events as ev
    from app.pipeline.queue.worker import no_room

    for words in ("The disk of {path} has {free_mb} MB free.", "Some new wording {path}."):
        full = failure_for(DiskFullError(words, path="/runs"), Stage.PREPARE)
        assert no_room(ev.RunFailed.of(full))
    other = failure_for(OutputError("The disk is full while writing {path}."), Stage.PREPARE)
    assert not no_room(ev.RunFailed.of(other))
