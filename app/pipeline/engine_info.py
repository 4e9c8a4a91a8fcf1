"""What the windows may know of the engine binary itself — its version line (pin and patch
series) and whether native/build.py is building it right now — by way of the pipeline layer
(the UI does not import app.engine), and a wait for that build for the commands that need the
engine. They ask processes: call them off the UI thread."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.core.errors import StepwiseError
from app.engine.build_state import BuildRunning as BuildRunning
from app.engine.build_state import EngineBuildState as EngineBuildState
from app.engine.build_state import engine_build_state as engine_build_state
from app.engine.locate import ENGINE_ENV, engine_version, find_sd_stage

BUILD_WAIT_POLL_S = 5.0


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


def wait_for_engine_build(
    report: Callable[[BuildRunning], None],
    explicit: Path | None = None,
    *,
    poll_s: float = BUILD_WAIT_POLL_S,
    ask: Callable[[], EngineBuildState] = engine_build_state,
    sleep: Callable[[float], None] = time.sleep,
) -> EngineBuildState | None:
    """While native/build.py builds the engine and none is finished yet (the first ./run.sh
    builds it in the background), waits, `report`ing each look at the build; not for an engine
    given (`explicit`, $STEPWISE_SD_STAGE). The state it ended with when it waited, else None
    (the command then finds the engine, or says why there is none)."""
    if explicit is not None or os.environ.get(ENGINE_ENV):
        return None
    waited = False
    while True:
        state = ask()
        if state.running is None or state.engine_ready:
            return state if waited else None
        waited = True
        report(state.running)
        sleep(poll_s)
