from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from app.engine import locate
from app.engine.errors import EngineError
from app.engine.locate import ENGINE_ENV, EngineNotFound, build_engine, find_sd_stage


def _executable(path: Path) -> Path:
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_explicit_path_wins(tmp_path: Path) -> None:
    exe = _executable(tmp_path / "sd-stage")
    assert find_sd_stage(exe, environ={ENGINE_ENV: "/nowhere"}) == exe


def test_environment_variable(tmp_path: Path) -> None:
    exe = _executable(tmp_path / "sd-stage")
    assert find_sd_stage(environ={ENGINE_ENV: str(exe)}) == exe


@pytest.mark.skipif(sys.platform == "win32", reason="Windows has no execute bit")
def test_missing_or_not_executable_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(EngineNotFound, match="native/build.py"):
        find_sd_stage(tmp_path / "nope")
    plain = tmp_path / "plain"
    plain.write_text("")
    plain.chmod(0o644)
    with pytest.raises(EngineNotFound, match="not executable"):
        find_sd_stage(plain)


def test_falls_back_to_the_build_scripts_path(tmp_path: Path, monkeypatch) -> None:
    exe = _executable(tmp_path / "sd-stage")
    script = tmp_path / "build.py"
    script.write_text(
        "import sys\n"
        "assert sys.argv[1:] == ['--print-path'], sys.argv\n"
        f"print('noise'); print({str(exe)!r})\n"
    )
    monkeypatch.setattr(locate, "build_script", lambda: script)
    assert find_sd_stage(environ={}) == exe


def test_not_built_says_how_to_build(tmp_path: Path, monkeypatch) -> None:
    script = tmp_path / "build.py"
    script.write_text("import sys; sys.exit(1)\n")
    monkeypatch.setattr(locate, "build_script", lambda: script)
    with pytest.raises(EngineNotFound) as info:
        find_sd_stage(environ={})
    assert "python native/build.py" in str(info.value)
    assert ENGINE_ENV in str(info.value)


def test_build_engine_streams_output_and_returns_the_last_line(tmp_path: Path, monkeypatch):
    exe = _executable(tmp_path / "sd-stage")
    script = tmp_path / "build.py"
    script.write_text(
        "import sys\n"
        "print('compiling', file=sys.stderr)\n"
        "print('vulkan' if '--vulkan' in sys.argv else 'cpu')\n"
        f"print({str(exe)!r})\n"
    )
    monkeypatch.setattr(locate, "build_script", lambda: script)
    lines: list[str] = []
    log = tmp_path / "build.log"
    assert build_engine(vulkan=True, log_path=log, on_line=lines.append) == exe
    assert "compiling" in lines and "vulkan" in lines
    assert "compiling" in log.read_text()


def test_failed_build_raises(tmp_path: Path, monkeypatch) -> None:
    script = tmp_path / "build.py"
    script.write_text("import sys; print('error: no cmake'); sys.exit(1)\n")
    monkeypatch.setattr(locate, "build_script", lambda: script)
    with pytest.raises(EngineError, match="exited with 1"):
        build_engine()


def test_build_uses_this_interpreter(tmp_path: Path, monkeypatch) -> None:
    exe = _executable(tmp_path / "sd-stage")
    script = tmp_path / "build.py"
    script.write_text(f"import sys; print(sys.executable); print({str(exe)!r})\n")
    monkeypatch.setattr(locate, "build_script", lambda: script)
    lines: list[str] = []
    build_engine(on_line=lines.append)
    assert Path(lines[0]).resolve() == Path(sys.executable).resolve()
