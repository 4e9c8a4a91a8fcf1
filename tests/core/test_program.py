"""The program named in hints is the one the user typed (app/core/program.py), on Linux and,
with the platform faked, on Windows (cmd.exe's quoting; the installed stepwise-cli.exe)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from app.core import platform, program


def test_the_launcher_script_names_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(program.PROGRAM_VARIABLE, "./run.sh")
    assert program.typed("resume", "/tmp/my runs/a") == "./run.sh resume '/tmp/my runs/a'"


def test_a_checkout_without_a_launcher_says_python_m_app(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(program.PROGRAM_VARIABLE, raising=False)
    assert program.typed("queue", "run") == "python -m app queue run"


def test_the_installed_layout_names_stepwise_cli(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(program.PROGRAM_VARIABLE, raising=False)
    monkeypatch.setattr(platform, "WINDOWS", True)
    (tmp_path / "python").mkdir()
    (tmp_path / "stepwise-cli.exe").write_bytes(b"MZ")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python" / "python.exe"))
    words = program.typed("resume", "C:\\Users\\me\\my runs\\a")
    assert words == 'stepwise-cli.exe resume "C:\\Users\\me\\my runs\\a"'  # cmd.exe's quotes
