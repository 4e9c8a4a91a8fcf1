from __future__ import annotations

import signal
import sys

import pytest

from app.core.errors import StepwiseError
from app.engine.errors import (
    BadInputError,
    Cancelled,
    DeviceError,
    EngineCrashed,
    EngineError,
    EngineOutOfMemory,
    ModelLoadError,
    Suspended,
    UsageError,
    WriteFailedError,
    error_for_exit,
)


@pytest.mark.parametrize(
    ("code", "cls"),
    [
        (1, EngineCrashed),
        (2, UsageError),
        (3, ModelLoadError),
        (4, EngineOutOfMemory),
        (5, BadInputError),
        (8, WriteFailedError),
        (9, EngineCrashed),
        (-signal.SIGSEGV, EngineCrashed),
        (3221225477, EngineCrashed),  # Windows access violation
    ],
)
def test_exit_codes_map_to_classes(code: int, cls: type[EngineError]) -> None:
    error = error_for_exit(code, None, "")
    assert type(error) is cls
    assert isinstance(error, StepwiseError)
    assert error.exit_code == code
    assert error.fix  # always says what to try next
    assert "\n" not in str(error)


def test_success_is_not_an_error() -> None:
    assert error_for_exit(0) is None


def test_stops_on_request_are_outcomes_not_failures() -> None:
    assert isinstance(error_for_exit(6), Suspended)
    assert isinstance(error_for_exit(7), Cancelled)
    assert not isinstance(error_for_exit(6), EngineError)


def test_engine_message_is_used_and_kept_to_one_line() -> None:
    error = error_for_exit(5, "--load-latent x.bin: truncated\n(run vae-encode again)", "")
    assert isinstance(error, BadInputError)
    # The engine's own line is a value in a template, so the sentence around it translates.
    assert error.values["engine"] == "--load-latent x.bin: truncated (run vae-encode again)"
    assert error.message == "The engine reported: {engine}"
    assert str(error).startswith(
        "The engine reported: --load-latent x.bin: truncated (run vae-encode again)"
    )


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no SIGKILL")
def test_signal_names_the_signal() -> None:
    assert "SIGKILL" in str(error_for_exit(-signal.SIGKILL))


@pytest.mark.parametrize(
    "stderr",
    [
        "ggml_vulkan: vk::Device::allocateMemory: ErrorOutOfDeviceMemory",
        "CUDA error: out of memory",
        "terminate called after throwing an instance of 'std::bad_alloc'",
        "ggml_gallocr_reserve_n: failed to allocate CPU buffer of size 123",
    ],
)
def test_out_of_memory_crash_is_recognised(stderr: str) -> None:
    error = error_for_exit(-signal.SIGABRT, None, "log line\n" + stderr + "\n")
    assert isinstance(error, EngineOutOfMemory)
    assert "memory" in str(error)
    assert "VAE tiling" in str(error)


def test_device_lost_gets_a_plain_message() -> None:
    error = error_for_exit(-signal.SIGABRT, None, "terminate called: vk::DeviceLostError")
    assert isinstance(error, DeviceError) and isinstance(error, EngineCrashed)
    assert "device lost" in str(error)
    assert "driver" in str(error)


def test_failed_to_open_names_the_file() -> None:
    error = error_for_exit(3, None, "[ERROR] failed to open '/models/x.gguf'\n")
    assert isinstance(error, ModelLoadError)
    assert "/models/x.gguf" in str(error)


def test_known_exit_class_is_not_overridden_by_stderr() -> None:
    error = error_for_exit(5, "bad mask", "ErrorOutOfDeviceMemory")
    assert isinstance(error, BadInputError)
