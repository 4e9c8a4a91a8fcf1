"""The engine build that runs now, as data for whoever shows it (the status bar, the CLI's wait):
its stage, compile k/N, the time elapsed and the time left — each rendered in the user's
language by the UI, never native/build.py's English line.

The numbers are native/build_progress.py's, read from its progress file with its own reader
(`running_build`), and aged to the moment they are read: the build writes the file only when a
line of the compiler's arrives, and one file (ggml-vulkan.cpp) compiles for many minutes, so
the estimate it wrote counts down by the time passed since (then: "longer than estimated")
instead of standing still. scripts/setup_env.py starts the app's build in the background and
leaves a note (BUILD_NOTE: its pid, its log) so the seconds before the build's first stage and
a build that died are seen too. All of it asks processes and files: call it off the UI thread.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from app.core import platform, safe_files
from app.core.errors import StepwiseError
from app.engine import locate

# scripts/setup_env.py BACKGROUND_NOTE: beside the venv the app runs in (sys.prefix).
BUILD_NOTE_NAME = "engine-build.json"
NOTE_LIMIT_BYTES = 64 * 1024


@dataclass(frozen=True)
class BuildRunning:
    """A build that runs now: `stage` one of native/build_progress.py's STAGES ("" before the
    first), compile `done` of `total` (total 100 from make: a percent), `left_s` the build's own
    estimate aged to now (<= 0: past it), None before it has one."""

    stage: str
    done: int
    total: int
    elapsed_s: float
    left_s: float | None


@dataclass(frozen=True)
class EngineBuildState:
    """What the window needs to know of the engine build: the one that runs (or None), whether
    a finished engine works meanwhile, the log of the build setup_env started (or None), and
    once none runs whether that build's engine is there (False: it failed; None: not known)."""

    running: BuildRunning | None
    engine_ready: bool
    log: Path | None
    built: bool | None = None


def build_note_path() -> Path:
    return Path(sys.prefix) / BUILD_NOTE_NAME


@functools.cache
def _native_build(script: Path) -> ModuleType | None:
    """native/build.py loaded by its path, for its cache folder and its progress reader; None in
    an installed Stepwise (no native/). build.py puts native/ on sys.path: taken back here."""
    if not script.is_file():
        return None
    saved = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location("stepwise_native_build", script)
        if spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except (Exception, SystemExit):  # a broken checkout: no numbers, still "being built"
        return None
    finally:
        sys.path[:] = saved
    return module


def read_progress(now: float | None = None) -> BuildRunning | None:
    """The progress native/build.py writes while it builds, aged to `now` (the wall clock)."""
    build: Any = _native_build(locate.build_script())
    progress: Any = getattr(build, "build_progress", None)
    if progress is None or not hasattr(build, "cache_root"):
        return None  # not the build.py this reads
    folder = build.cache_root() / "build"
    data = progress.running_build(folder)
    if data is None:
        return None
    try:
        written = (folder / progress.PROGRESS_FILE).stat().st_mtime
    except OSError:
        return None
    age = max(0.0, (time.time() if now is None else now) - written)
    return running_from(data, age, progress.STAGES)


def running_from(data: dict[str, Any], age_s: float, stages: tuple[str, ...]) -> BuildRunning:
    """One progress file's numbers `age_s` seconds after it was written (`stages`: the build's
    own stage names)."""

    def number(key: str) -> float:
        value = data.get(key)
        return float(value) if isinstance(value, int | float) else 0.0

    stage = data.get("stage")
    eta = data.get("eta_s")
    return BuildRunning(
        stage=stage if stage in stages else "",
        done=int(number("done")),
        total=int(number("total")),
        elapsed_s=number("elapsed_s") + age_s,
        left_s=float(eta) - age_s if isinstance(eta, int | float) else None,
    )


@dataclass(frozen=True)
class _Note:
    running: BuildRunning | None  # the noted build while it runs ("starting": no stage yet)
    log: Path
    options: tuple[str, ...]  # its build.py options (--vulkan)


def _noted_build(note: Path) -> _Note | None:
    """setup_env's note of the build it started; None without one."""
    try:
        data = json.loads(safe_files.read_bytes(note, limit=NOTE_LIMIT_BYTES))
        pid, log = int(data["pid"]), Path(str(data["log"]))
        options = tuple(str(option) for option in data.get("options", []))
    except (StepwiseError, OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    info = platform.process_info(pid)
    if info is None or not any(arg.endswith("build.py") for arg in info.argv):
        return _Note(None, log, options)
    return _Note(BuildRunning("", 0, 0, max(0.0, time.time() - info.started), None), log, options)


def engine_build_state(note: Path | None = None) -> EngineBuildState:
    """Asks native/build.py whether an engine is built and a build runs (its --print-path),
    then the build's progress file, then setup_env's note."""
    result = locate.print_path()
    engine_ready = result is not None and result.returncode == 0
    running: BuildRunning | None = None
    if result is not None and locate.BUILDING_PREFIX in result.stderr:
        running = read_progress() or BuildRunning("", 0, 0, 0.0, None)
    noted = _noted_build(build_note_path() if note is None else note)
    if noted is None:
        return EngineBuildState(running, engine_ready, None)
    running = running or noted.running
    built: bool | None = None
    if running is None and engine_ready:  # which engine: the noted build's (the faster one)?
        wanted = locate.print_path(noted.options) if noted.options else result
        built = wanted is not None and wanted.returncode == 0
    elif running is None:
        built = False
    return EngineBuildState(running, engine_ready, noted.log, built)
