"""Finding (and, for developers, building) the sd-stage binary."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from app.core import platform
from app.engine.errors import EngineError

ENGINE_ENV = "STEPWISE_SD_STAGE"
BINARY_NAME = platform.executable_name("sd-stage")
PRINT_PATH_TIMEOUT_S = 60.0
BUILD_TIMEOUT_S = 3600.0  # a first Vulkan build on 2 cores takes several minutes
BUILD_FIX = "Build it with: python native/build.py"


class EngineNotFound(EngineError):
    """No usable sd-stage binary."""

    default_message = "The engine sd-stage was not found."
    default_fix = BUILD_FIX


def repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def build_script() -> Path:
    return repo_root() / "native" / "build.py"


def find_sd_stage(explicit: Path | None = None, environ: dict[str, str] | None = None) -> Path:
    """The sd-stage to run: `explicit`, else $STEPWISE_SD_STAGE, else the bundled or built one."""
    env = os.environ if environ is None else environ
    if explicit is not None:
        return _usable(Path(explicit), "The engine path given")
    if env.get(ENGINE_ENV):
        return _usable(Path(env[ENGINE_ENV]), f"The engine in {ENGINE_ENV}")
    for candidate in _bundled_candidates():
        if _is_executable(candidate):
            return candidate
    built = _built_path()
    if built is not None and _is_executable(built):
        return built
    raise EngineNotFound(
        "The engine sd-stage was not found: it is not bundled and has not been built yet.",
        fix=f"{BUILD_FIX} (or set {ENGINE_ENV} to its path).",
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
        raise EngineNotFound(f"The build script {script} is missing.", fix=None)
    argv = [sys.executable, str(script)] + (["--vulkan"] if vulkan else [])
    log_file = open(log_path, "a", encoding="utf-8") if log_path else None  # noqa: SIM115
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
        raise EngineError(f"Building the engine took longer than {timeout_s:g} s.", path=log_path)
    if code != 0:
        raise EngineError(
            f"Building the engine failed (native/build.py exited with {code}).",
            exit_code=code,
            path=log_path,
            fix="Read the build log; the README lists the compilers and packages it needs.",
        )
    return _usable(Path(last_line), "native/build.py printed a path, but it")


def _bundled_candidates() -> list[Path]:
    # A frozen (PyInstaller) app ships sd-stage beside the executable or in its data folder.
    if not getattr(sys, "frozen", False):
        return []
    folders = [Path(sys.executable).parent]
    meipass = getattr(sys, "_MEIPASS", None)
    if meipass:
        folders.append(Path(meipass))
    return [folder / BINARY_NAME for folder in folders]


def _built_path() -> Path | None:
    """Ask native/build.py where its build lives, without building (never in a bundle: there
    sys.executable is Stepwise itself, not a Python that could run the script)."""
    if getattr(sys, "frozen", False):
        return None
    script = build_script()
    if not script.is_file():
        return None
    try:
        result = subprocess.run(
            [sys.executable, str(script), "--print-path"],
            cwd=repo_root(),
            capture_output=True,
            text=True,
            timeout=PRINT_PATH_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = result.stdout.strip().splitlines()
    if result.returncode != 0 or not lines:
        return None
    return Path(lines[-1].strip())


def _usable(path: Path, what: str) -> Path:
    if not path.is_file():
        raise EngineNotFound(f"{what} ({path}) does not exist.", path=path)
    if not _is_executable(path):
        raise EngineNotFound(f"{what} ({path}) is not executable.", path=path)
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
