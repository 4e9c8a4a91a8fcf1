"""The one file lock of Stepwise (issue 28; issue 29, defect 8): an exclusive advisory lock on
a file the OS drops when the process ends (even by a crash). Hardened: the lock file is opened
in place through core/safe_files (never through a link: a link's target is neither created nor
touched; a folder, a FIFO, a device or a second name of another file is refused), each refusal
a message naming the entry. The run lock (pipeline/run/lock.RunLock) is one; the queue locks
through SQLite, whose files its store checks the same way (core/safe_files.check_entry)."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path
from types import TracebackType

from app.core import platform
from app.core.errors import OutputError, StepwiseError
from app.core.safe_files import SafeFileError, open_in_place

BUSY_MESSAGE = "The lock {path} is held by another Stepwise process."
BUSY_FIX = "Wait for it to finish or stop it first."


class LockBusy(StepwiseError):
    """Another process holds the lock."""


class FileLock:
    """An exclusive lock on `path` while held (`with`). A subclass words its messages its own
    way (_refused, _open_error, _busy: the run lock names the run)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None

    def __enter__(self) -> FileLock:
        try:
            fd = open_in_place(self.path, os.O_RDWR | os.O_CREAT)
        except SafeFileError as exc:
            raise self._refused(exc) from exc
        except OSError as exc:
            raise self._open_error(exc) from exc
        try:
            platform.lock_fd(fd)
        except OSError as exc:
            os.close(fd)
            raise self._busy() from exc
        self._fd = fd
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release()

    def release(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                platform.unlock_fd(self._fd)
            os.close(self._fd)
            self._fd = None

    # --- the messages
    def _refused(self, exc: SafeFileError) -> StepwiseError:
        """A link, a folder, a FIFO, a device or a second name at the lock path."""
        return exc

    def _open_error(self, exc: OSError) -> StepwiseError:
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return OutputError(
                "The lock {path} cannot be made (a read-only place).",
                path=self.path,
                fix="Check that its folder is writable.",
            )
        return OutputError(
            "The lock {path} cannot be opened: {reason}.",
            path=self.path,
            fix="Check that its folder exists and is writable.",
            values={"reason": exc.strerror or exc},
        )

    def _busy(self) -> StepwiseError:
        return LockBusy(BUSY_MESSAGE, path=self.path, fix=BUSY_FIX)
