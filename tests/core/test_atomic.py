from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from app.core.atomic import atomic_open, write_bytes_atomic
from app.core.errors import OutputError


def test_replaces_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "a.bin"
    target.write_bytes(b"old")
    write_bytes_atomic(target, b"new contents")
    assert target.read_bytes() == b"new contents"
    assert [p.name for p in tmp_path.iterdir()] == ["a.bin"]


def test_failure_keeps_old_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "a.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), atomic_open(target) as handle:
        handle.write(b"half")
        raise RuntimeError("boom")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.bin"]


def test_disk_full_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    target = tmp_path / "out.png"
    with pytest.raises(OutputError, match="disk is full"):
        write_bytes_atomic(target, b"x" * 100)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="root can write anywhere")
def test_unwritable_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    with pytest.raises(OutputError, match="Cannot write"):
        write_bytes_atomic(folder / "x", b"1")


@pytest.mark.skipif(os.name == "nt", reason="POSIX permissions")
def test_written_files_are_readable_like_plain_files(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        write_bytes_atomic(tmp_path / "a.png", b"x")
    finally:
        os.umask(old)
    assert (tmp_path / "a.png").stat().st_mode & 0o777 == 0o644
