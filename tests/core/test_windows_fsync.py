"""Windows' FlushFileBuffers refuses a handle opened read-only (PermissionError, errno 13), so
`os.fsync` of a file opened "rb" breaks selftest and the stage cache on Windows (issue 37,
bug 1). Faked here: os.fsync raises as Windows does when the descriptor is read-only."""

from __future__ import annotations

import ast
import errno
import fcntl
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from app.core import atomic, platform
from app.engine.tiny_models import TinySpec, generate_models
from app.pipeline.cache.store import StageCache, cache_key

ROOT = Path(__file__).resolve().parents[2]
# The modules that may call os.fsync: the atomic writer and its helper, and the folder fsync.
FSYNC_OWNERS = {"app/core/atomic.py", "app/core/platform.py"}


def _windows_fsync(real: Callable[[int], None]) -> Callable[[int], None]:
    def fsync(fd: int) -> None:
        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_RDONLY:
            raise PermissionError(errno.EACCES, "Access is denied")
        real(fd)

    return fsync


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "WINDOWS", True)
    monkeypatch.setattr(os, "fsync", _windows_fsync(os.fsync))


def test_the_fake_refuses_a_read_only_handle(tmp_path: Path, windows: None) -> None:
    path = tmp_path / "a.bin"
    path.write_bytes(b"x")
    with open(path, "rb") as f, pytest.raises(PermissionError):
        os.fsync(f.fileno())
    with open(path, "r+b") as f:
        os.fsync(f.fileno())


def test_fsync_file_opens_the_file_writable(tmp_path: Path, windows: None) -> None:
    path = tmp_path / "模型 é.bin"
    path.write_bytes(b"data")
    atomic.fsync_file(path)
    assert path.read_bytes() == b"data"


def test_selftest_models_are_written_on_windows(tmp_path: Path, windows: None) -> None:
    models = generate_models(tmp_path / "模型 é", TinySpec())
    assert models.diffusion.stat().st_size > 0 and models.vae.is_file()


def test_the_stage_cache_stores_on_windows(tmp_path: Path, windows: None) -> None:
    src = tmp_path / "c.bin"
    src.write_bytes(b"x" * 100)
    cache = StageCache(tmp_path / "cache", 10_000_000)
    key = cache_key("llm-encode", {"prompt": "a cat"})
    cache.put(key, "llm-encode", {"conditioning.bin": src})
    out = tmp_path / "out" / "c.bin"
    assert cache.get(key, {"conditioning.bin": out})
    assert out.read_bytes() == b"x" * 100


def _fsync_calls() -> list[str]:
    found = []
    for folder in ("app", "scripts", "installer"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            where = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and node.attr == "fsync":
                    found.append(f"{where}:{node.lineno}")
    return found


def test_only_the_atomic_writer_and_platform_call_fsync() -> None:
    """One owner: a file is made durable through app/core/atomic.py (which opens it writable,
    as Windows needs), a folder through platform.fsync_dir (POSIX only)."""
    strays = [f for f in _fsync_calls() if f.split(":")[0] not in FSYNC_OWNERS]
    assert strays == [], f"use app.core.atomic.fsync_file or atomic_open: {strays}"
