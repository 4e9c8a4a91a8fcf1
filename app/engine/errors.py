"""Engine failures and stop outcomes, one class per sd-stage exit code (native/PROTOCOL.md)."""

from __future__ import annotations

import re
import signal
from pathlib import Path

from app.core.errors import DamagedFileError, StepwiseError

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_MODEL_LOAD = 3
EXIT_OUT_OF_MEMORY = 4
EXIT_BAD_INPUT = 5
EXIT_SUSPENDED = 6
EXIT_CANCELLED = 7
EXIT_WRITE_FAILED = 8

# Keeps a user-facing message one readable line even if the engine sends a novel.
MAX_MESSAGE_CHARS = 500


class EngineError(StepwiseError):
    """sd-stage failed; `exit_code` and the tail of its log say how."""

    default_message = "The engine failed."
    default_fix: str | None = None

    def __init__(
        self,
        message: str | None = None,
        *,
        exit_code: int | None = None,
        stderr_tail: str = "",
        path: Path | str | None = None,
        fix: str | None = None,
        values: dict[str, object] | None = None,
    ) -> None:
        self.exit_code = exit_code
        self.stderr_tail = stderr_tail
        super().__init__(
            _one_line(message or self.default_message),
            path=path,
            fix=fix if fix is not None else self.default_fix,
            values=values,
        )


class UsageError(EngineError):
    """Bad or conflicting flags (exit 2): a bug in how we called the engine."""

    default_message = "The engine refused its command line."
    default_fix = "This is a bug in Stepwise; please report it with the engine log."


class ModelLoadError(EngineError):
    """A model file is missing, unreadable or of the wrong kind (exit 3)."""

    default_message = "A model file could not be loaded."
    default_fix = (
        "Check the model files under Generate → Setup → Models; each must be the right "
        "kind of file."
    )


class EngineOutOfMemory(EngineError):
    """An allocation failed on the host or the GPU (exit 4, or a recognised crash)."""

    default_message = "The engine ran out of memory."
    default_fix = (
        "Try a smaller image, turn on VAE tiling, or run the text encoder and VAE on the CPU."
    )


class BadInputError(EngineError):
    """An input file is missing, truncated or inconsistent, incl. resume mismatches (exit 5)."""

    default_message = "An input file of the engine is missing or damaged."
    default_fix = "Run the stage that makes it again."


class WriteFailedError(EngineError):
    """An output could not be written (exit 8)."""

    default_message = "The engine could not write its output."
    default_fix = "Check that the run folder is writable and the disk has free space."


class EngineCrashed(EngineError):
    """Internal error (exit 1), a signal, or an exit code the protocol does not define."""

    default_message = "The engine stopped unexpectedly."
    default_fix = "Try again; if it keeps happening, report it with the engine log."


class DeviceError(EngineCrashed):
    """The GPU was lost while the engine ran (driver reset), or its API would not start."""


class ProtocolError(EngineError):
    """The engine's output broke the event protocol (not JSON, wrong types, too long)."""

    default_message = "The engine sent something Stepwise does not understand."
    default_fix = "Rebuild the engine (python native/build.py) so it matches this version."


class TensorFileError(DamagedFileError):
    """A tensor file is truncated or malformed."""


class EngineStopped(StepwiseError):
    """The engine stopped on request; what is on disk stays valid."""

    default_message = "The engine stopped."

    def __init__(self, message: str | None = None, *, step: int | None = None) -> None:
        self.step = step
        super().__init__(message or self.default_message)


class Suspended(EngineStopped):
    """Suspended after a checkpoint (exit 6); resume with --resume-step."""

    default_message = "Suspended; the run can be resumed from its last checkpoint."


class Cancelled(EngineStopped):
    """Cancelled on request (exit 7); the last checkpoint stays valid."""

    default_message = "Cancelled."


_CLASS_FOR_EXIT: dict[int, type[EngineError]] = {
    EXIT_INTERNAL: EngineCrashed,
    EXIT_USAGE: UsageError,
    EXIT_MODEL_LOAD: ModelLoadError,
    EXIT_OUT_OF_MEMORY: EngineOutOfMemory,
    EXIT_BAD_INPUT: BadInputError,
    EXIT_WRITE_FAILED: WriteFailedError,
}

# Known failure lines in the engine's log (sd.cpp, ggml, Vulkan, CUDA), most specific first.
# Each gives the class to use when the exit code alone says nothing better, and a plain message.
_OOM = re.compile(
    r"out of memory|ErrorOutOfDeviceMemory|ErrorOutOfHostMemory|OutOfPoolMemory|"
    r"std::bad_alloc|cudaMalloc failed|failed to allocate|ggml_gallocr_reserve_n: failed|"
    r"unable to allocate",
    re.IGNORECASE,
)
_DEVICE_LOST = re.compile(r"DeviceLost|device lost|VK_ERROR_DEVICE_LOST", re.IGNORECASE)
_NO_VULKAN = re.compile(
    r"ErrorIncompatibleDriver|ErrorInitializationFailed|no Vulkan devices|vkCreateInstance",
    re.IGNORECASE,
)
# sd-stage's refusal of a --backend device it does not list (native/src/context.cpp).
_NO_SUCH_DEVICE = re.compile(r"--backend \w+=(\S+): no such device")
_NO_SUCH_DEVICE_MESSAGE = "The device {device} is not one the engine finds on this computer now."
_NO_SUCH_DEVICE_FIX = (
    "Choose a device the engine lists under Generate → Setup → Devices (Detect devices); the "
    "CPU always works. If it is a GPU, check that it and its driver are installed."
)
_OPEN_FAILED = re.compile(r"failed to open[^\n]*|No such file or directory[^\n]*", re.IGNORECASE)

_DEVICE_LOST_MESSAGE = "The GPU driver reset while the engine was running (device lost)."
_DEVICE_LOST_FIX = "Update the GPU driver, close other GPU programs, or run on the CPU."
_NO_VULKAN_MESSAGE = "The engine could not start Vulkan on this computer."
_NO_VULKAN_FIX = "Install or update the GPU driver, or choose the CPU under Devices."
# The engine's own one-line error: a value in a template, so the sentence around it translates.
ENGINE_REPORTED = "The engine reported: {engine}"


def error_for_exit(
    code: int, message: str | None = None, stderr_tail: str = ""
) -> EngineError | EngineStopped | None:
    """The exception for an exit status (negative = killed by that signal); None for 0.

    `message` is the engine's own one-line error event, if it sent one; known failure lines
    in `stderr_tail` turn crashes into a plain message with the next thing to try.
    """
    if code == EXIT_OK:
        return None
    if code == EXIT_SUSPENDED:
        return Suspended(message)
    if code == EXIT_CANCELLED:
        return Cancelled(message)

    cls = _CLASS_FOR_EXIT.get(code)
    fix: str | None = None
    values: dict[str, object] = {}
    missing = _NO_SUCH_DEVICE.search(message or "")
    if missing:  # a device problem with its fix, not a bug: no engine text, list or variable
        return DeviceError(
            _NO_SUCH_DEVICE_MESSAGE,
            exit_code=code,
            stderr_tail=stderr_tail,
            fix=_NO_SUCH_DEVICE_FIX,
            values={"device": missing.group(1)},
        )
    if message:
        values["engine"] = _one_line(message)
        message = ENGINE_REPORTED
    if _OOM.search(stderr_tail) and cls in (None, EngineCrashed, EngineOutOfMemory):
        # ggml aborts (SIGABRT) on many failed allocations instead of returning an error.
        cls = EngineOutOfMemory
        message = message or EngineOutOfMemory.default_message
    elif _DEVICE_LOST.search(stderr_tail) and cls in (None, EngineCrashed):
        cls, message, fix = DeviceError, message or _DEVICE_LOST_MESSAGE, _DEVICE_LOST_FIX
    elif _NO_VULKAN.search(stderr_tail) and cls in (None, EngineCrashed):
        cls, message, fix = DeviceError, message or _NO_VULKAN_MESSAGE, _NO_VULKAN_FIX
    elif cls in (None, EngineCrashed, ModelLoadError, BadInputError) and not message:
        opened = _OPEN_FAILED.search(stderr_tail)
        if opened:
            message = "The engine could not open a file: {opened}"
            values["opened"] = opened.group(0).strip()

    if cls is None:
        cls = EngineCrashed
        if not message:
            message, values = _describe_unknown_exit(code)
    return cls(message, exit_code=code, stderr_tail=stderr_tail, fix=fix, values=values)


def _describe_unknown_exit(code: int) -> tuple[str, dict[str, object]]:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return "The engine was stopped by {signal}.", {"signal": name}
    return "The engine exited with the unknown status {code}.", {"code": code}


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    if len(line) > MAX_MESSAGE_CHARS:
        line = line[: MAX_MESSAGE_CHARS - 1] + "…"
    return line
