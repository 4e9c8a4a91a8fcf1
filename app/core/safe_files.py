"""One safe way to open the files Stepwise owns (run folders, the queue, the cache, settings).

Rules (the table of entries is app/pipeline/run/owned_entries.py):
- a file Stepwise reads is a regular file: a FIFO, a device, a socket, a folder or a link where
  a file belongs is refused with a message naming it, never opened in a way that can block
  (O_NONBLOCK, then fstat of what was opened: the check and the read are one file);
- a file written in place (appended logs, lock files) is a regular file with one name: a hard
  link would write through to the user's file elsewhere, a symlink to its target;
- a file written whole is made anew and renamed over (app/core/atomic.py).
O_NONBLOCK and O_NOFOLLOW are used where the OS has them (POSIX; Windows has no FIFOs in a
folder and its links are refused by the lstat checks), found by feature, not by platform.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from app.core.errors import DamagedFileError

NO_BLOCK = getattr(os, "O_NONBLOCK", 0)  # opening a FIFO or device returns at once
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)  # a link as the last part of the path is refused


def _blocking_again(fd: int) -> None:
    if NO_BLOCK:  # a regular file: reads and writes block as usual
        os.set_blocking(fd, True)


class SafeFileError(DamagedFileError):
    """An entry Stepwise owns is not the regular file it wrote (or cannot be opened)."""


FOLDER_REFUSED = "{path} is {what}, where Stepwise keeps a folder of its own."
MOVE_AWAY_FIX = "Move it away (Stepwise did not make it there) and try again."


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISLNK(mode):
        return "a link"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def refused(path: Path, what: str) -> SafeFileError:
    return SafeFileError(
        "{path} is {what}, where Stepwise keeps a file of its own.",
        path=path,
        fix=MOVE_AWAY_FIX,
        values={"what": what},
    )


def check_entry(path: Path, *, in_place: bool = False, missing_ok: bool = True) -> bool:
    """True when `path` is a regular file (one name when written in place); False when missing
    and `missing_ok`; SafeFileError otherwise. Never follows a link, never opens the file."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        if missing_ok:
            return False
        raise refused(path, "missing") from None
    except OSError as exc:
        raise unreadable(path, exc) from exc
    if not stat.S_ISREG(st.st_mode):
        raise refused(path, kind_of(st.st_mode))
    if in_place and st.st_nlink > 1:
        raise refused(path, "a hard link with another name")
    return True


def check_folder(path: Path) -> bool:
    """True when `path` is a folder (not a link to one), False when missing; SafeFileError
    when a file or anything else is there, where Stepwise makes a folder of its own."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError as exc:
        raise unreadable(path, exc) from exc
    if not stat.S_ISDIR(st.st_mode):
        what = "a file" if stat.S_ISREG(st.st_mode) else kind_of(st.st_mode)
        raise SafeFileError(
            FOLDER_REFUSED,
            path=path,
            fix=MOVE_AWAY_FIX,
            values={"what": what},
        )
    return True


def unreadable(path: Path, exc: OSError) -> SafeFileError:
    return SafeFileError(
        "{path} cannot be read: {reason}.",
        path=path,
        fix="Check its permissions, or move it away and try again.",
        values={"reason": exc.strerror or exc},
    )


@contextlib.contextmanager
def open_read(path: Path | str) -> Iterator[BinaryIO]:
    """A regular file opened for reading; the open cannot block (a FIFO is refused)."""
    path = Path(path)
    flags = os.O_RDONLY | NO_BLOCK
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if os.path.islink(path) or os.path.isdir(path):
            raise refused(path, "a link" if os.path.islink(path) else "a folder") from exc
        raise unreadable(path, exc) from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise refused(path, kind_of(st.st_mode))
        _blocking_again(fd)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle


def read_bytes(path: Path | str, *, limit: int | None = None) -> bytes:
    """The whole of a regular file (SafeFileError over `limit` bytes or not a regular file)."""
    with open_read(path) as handle:
        data = handle.read() if limit is None else handle.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise SafeFileError(
            "{path} is larger than any file of its kind Stepwise writes.",
            path=Path(path),
            fix=MOVE_AWAY_FIX,
        )
    return data


def open_in_place(path: Path, flags: int, mode: int = 0o644) -> int:
    """A file descriptor for a file written in place (a lock, an appended log): never through a
    link (O_NOFOLLOW), never a FIFO or device (O_NONBLOCK + fstat), never a second name."""
    try:
        fd = os.open(path, flags | NO_FOLLOW | NO_BLOCK, mode)
    except OSError as exc:
        try:
            st = os.lstat(path)
        except OSError:
            raise exc from None
        if not stat.S_ISREG(st.st_mode):  # a link, a folder, a FIFO with no reader (ENXIO)
            raise refused(path, kind_of(st.st_mode)) from exc
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise refused(path, kind_of(st.st_mode))
        if st.st_nlink > 1:
            raise refused(path, "a hard link with another name")
        _blocking_again(fd)
    except BaseException:
        os.close(fd)
        raise
    return fd
