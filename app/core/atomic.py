"""Atomic file writes: temporary file in the same folder, flush, fsync, rename."""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

from app.core import platform
from app.core.errors import DiskFullError, OutputError


def _explain(exc: OSError, path: Path) -> OutputError:
    if exc.errno == errno.ENOSPC:
        return DiskFullError(
            "The disk is full while writing {path}.",
            path=path,
            fix="Free some space or choose another folder, then try again.",
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return OutputError(
            "Cannot write to {folder}.",
            path=path,
            fix="Choose a folder you can write to.",
            values={"folder": path.parent},
        )
    return OutputError(
        "Could not write {path}: {reason}.",
        path=path,
        fix="Check the folder exists and is writable.",
        values={"reason": exc.strerror or exc},
    )


def _create_temp(path: Path) -> tuple[int, Path]:
    """A new file beside `path`, with the permissions a plain open() would give (umask applies;
    tempfile.mkstemp would make it owner-only)."""
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary name", str(path))


@contextlib.contextmanager
def atomic_open(path: Path | str) -> Iterator[BinaryIO]:
    """Yields a binary file; on success it replaces `path` whole, on any failure nothing changes."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = _create_temp(path)
    except OSError as exc:
        raise _explain(exc, path) from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        # Windows refuses for a moment while a viewer or an indexer has `path` open.
        platform.replace_file(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise _explain(exc, path) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    platform.fsync_dir(path.parent)


def fsync_file(path: Path | str) -> None:
    """Makes a file that a library wrote by its path (gguf, safetensors, shutil) durable.

    Opened for writing: Windows' FlushFileBuffers refuses a read-only handle (PermissionError),
    so fsync of a file opened "rb" works on POSIX only."""
    fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_bytes_atomic(path: Path | str, data: bytes) -> None:
    with atomic_open(path) as handle:
        handle.write(data)


def write_text_atomic(path: Path | str, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


def write_with_atomic(path: Path | str, writer: Callable[[BinaryIO], None]) -> None:
    """Lets a library that writes to a file object (PIL, numpy) write atomically."""
    with atomic_open(path) as handle:
        writer(handle)
