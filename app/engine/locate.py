"""Finding (and, for developers, building) the sd-stage binary."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from app.core import platform
from app.engine.errors import EngineError

ENGINE_ENV = "STEPWISE_SD_STAGE"
BINARY_NAME = platform.executable_name("sd-stage")
BUNDLED_ENGINE_DIR = "engine"  # installer/windows_bundle.py ENGINE_FOLDER: the installed engine
PRINT_PATH_TIMEOUT_S = 60.0
BUILD_TIMEOUT_S = 3600.0  # a first Vulkan build on 2 cores takes several minutes
EXIT_BUILDING = 3  # build.py --print-path: not built yet, but a build runs now
BUILDING_PREFIX = "build.py: building now: "
VERSION_TIMEOUT_S = 10.0


def _with_values[E: EngineError](exc: E, values: Mapping[str, object]) -> E:
    """`exc` with its template's values (EngineError takes no values= of its own yet)."""
    exc.values = dict(values)
    exc.args = (exc.user_message(),)
    return exc


class EngineNotFound(EngineError):
    """No usable sd-stage binary."""

    default_message = "The engine sd-stage was not found."
    default_fix = "Build it with: python native/build.py"


class EngineBuilding(EngineNotFound):
    """No sd-stage yet because native/build.py is building it right now (its progress, as
    data: app/engine/build_state.py)."""

    def __init__(self) -> None:
        super().__init__(
            "The engine sd-stage is being built right now; generating works when it is done.",
            fix="The status bar shows the build's progress; Stepwise uses the engine as soon "
            "as it is there.",
        )


def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def build_script() -> Path:
    return repo_root() / "native" / "build.py"


def find_sd_stage(explicit: Path | None = None, environ: dict[str, str] | None = None) -> Path:
    """The sd-stage to run: `explicit`, else $STEPWISE_SD_STAGE, else the bundled or built one."""
    env = os.environ if environ is None else environ
    if explicit is not None:
        return _usable(Path(explicit), "given")
    if env.get(ENGINE_ENV):
        return _usable(Path(env[ENGINE_ENV]), "environment")
    for candidate in _bundled_candidates():
        if _is_executable(candidate):
            return candidate
    built = _built_path()
    if built is not None and _is_executable(built):
        return built
    raise _with_values(
        EngineNotFound(
            "The engine sd-stage was not found: it is not bundled and has not been built yet.",
            fix="Build it with: python native/build.py (or set {variable} to its path).",
        ),
        {"variable": ENGINE_ENV},
    )


def build_engine(
    vulkan: bool = False,
    *,
    log_path: Path | None = None,
    on_line: Callable[[str], None] | None = None,
    timeout_s: float = BUILD_TIMEOUT_S,
) -> Path:
    """Run native/build.py with this interpreter; its output goes to `log_path` / `on_line`.

    Returns the path build.py prints on its last line.
    """
    script = build_script()
    if not script.is_file():
        raise EngineNotFound("The build script {path} is missing.", path=script, fix=None)
    argv = [sys.executable, str(script)] + (["--vulkan"] if vulkan else [])
    log_file = open(log_path, "a", encoding="utf-8") if log_path else None
    last_line = ""
    try:
        proc = subprocess.Popen(
            argv,
            cwd=repo_root(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            encoding="utf-8",
            errors="replace",
        )
        assert proc.stdout is not None
        timer = _Deadline(proc, timeout_s)
        for line in proc.stdout:
            if log_file:
                log_file.write(line)
                log_file.flush()
            if on_line:
                on_line(line.rstrip("\n"))
            if line.strip():
                last_line = line.strip()
        code = proc.wait()
        timer.cancel()
    finally:
        if log_file:
            log_file.close()
    if timer.expired:
        raise _with_values(
            EngineError("Building the engine took longer than {seconds} s.", path=log_path),
            {"seconds": f"{timeout_s:g}"},
        )
    if code != 0:
        raise _with_values(
            EngineError(
                "Building the engine failed (native/build.py exited with {code}).",
                exit_code=code,
                path=log_path,
                fix="Read the build log; the README lists the compilers and packages it needs.",
            ),
            {"code": code},
        )
    return _usable(Path(last_line), "built")


def _bundled_candidates() -> list[Path]:
    """The installed app's engine: the Windows setup puts sd-stage.exe in engine/ beside app/
    (installer/windows_bundle.py); a checkout has no such folder."""
    return [repo_root() / BUNDLED_ENGINE_DIR / BINARY_NAME]


def print_path(options: Sequence[str] = ()) -> subprocess.CompletedProcess[str] | None:
    """`native/build.py --print-path [options]`: where its build lives, without building (an
    installed Stepwise has no native/ and finds its engine in engine/)."""
    script = build_script()
    if not script.is_file():
        return None
    try:
        return subprocess.run(
            [sys.executable, str(script), "--print-path", *options],
            cwd=repo_root(),
            capture_output=True,
            text=True,
            timeout=PRINT_PATH_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


def _built_path() -> Path | None:
    """The finished build's path (EngineBuilding while none is finished but one runs)."""
    result = print_path()
    if result is None:
        return None
    if result.returncode == EXIT_BUILDING:
        raise EngineBuilding()
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        return None
    return Path(lines[-1].strip())


def engine_version(path: Path) -> str:
    """`sd-stage --version`: one line, e.g. "sd-stage 0.1.0 (stable-diffusion.cpp
    master-596-90e87bc, patches 897fd0f57862)"; "" when the binary does not answer."""
    try:
        result = subprocess.run(
            [str(path), "--version"],
            capture_output=True,
            text=True,
            timeout=VERSION_TIMEOUT_S,
            **platform.child_popen_kwargs(),
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    lines = result.stdout.strip().splitlines()
    return lines[0].strip() if result.returncode == 0 and lines else ""


def _usable(path: Path, origin: str) -> Path:
    """`path` is an executable file; else EngineNotFound saying where the path came from
    ("given": Settings or --engine, "environment": $STEPWISE_SD_STAGE, "built": build.py)."""
    values = {"variable": ENGINE_ENV}
    if not path.is_file():
        if origin == "environment":
            error = EngineNotFound("The engine in {variable} ({path}) does not exist.", path=path)
        elif origin == "built":
            error = EngineNotFound(
                "native/build.py printed a path, but it ({path}) does not exist.", path=path
            )
        else:
            error = EngineNotFound("The engine path given ({path}) does not exist.", path=path)
        raise _with_values(error, values)
    if not _is_executable(path):
        if origin == "environment":
            error = EngineNotFound(
                "The engine in {variable} ({path}) is not executable.", path=path
            )
        elif origin == "built":
            error = EngineNotFound(
                "native/build.py printed a path, but it ({path}) is not executable.", path=path
            )
        else:
            error = EngineNotFound("The engine path given ({path}) is not executable.", path=path)
        raise _with_values(error, values)
    return path


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


class _Deadline:
    """Kills a build that runs past its time limit (reading its output would block forever)."""

    def __init__(self, proc: subprocess.Popen[str], timeout_s: float) -> None:
        import threading

        self.expired = False
        self._proc = proc
        self._timer = threading.Timer(timeout_s, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _expire(self) -> None:
        self.expired = True
        self._proc.kill()

    def cancel(self) -> None:
        self._timer.cancel()
