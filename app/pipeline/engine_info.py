"""What the windows may know of the engine binary itself — its version line (pin and patch
series) and whether native/build.py is building it right now — by way of the pipeline layer
(the UI does not import app.engine). Both ask processes: call them off the UI thread."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.core.errors import StepwiseError
from app.engine.locate import BuildRunning as BuildRunning
from app.engine.locate import build_running, engine_version, find_sd_stage


@dataclass(frozen=True)
class EngineInfo:
    """The engine in use: its path and `sd-stage --version` line, or why there is none."""

    path: Path | None
    version: str  # "sd-stage 0.1.0 (stable-diffusion.cpp master-596-90e87bc, patches ...)"
    error: StepwiseError | None = None


def engine_info(explicit: Path | None = None) -> EngineInfo:
    """The engine Stepwise would run (`explicit`: the one chosen in Settings)."""
    try:
        path = find_sd_stage(explicit)
    except StepwiseError as exc:
        return EngineInfo(None, "", exc)
    return EngineInfo(path, engine_version(path))


def engine_build_progress() -> BuildRunning | None:
    """An engine build that runs now (its progress line; whether an engine works meanwhile),
    or None."""
    return build_running()
