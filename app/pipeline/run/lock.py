"""One process at a time per run directory, and no engine left over from a crashed one."""

from __future__ import annotations

import errno
import os
from pathlib import Path

from app.core import platform
from app.core.errors import DamagedFileError, OutputError, StepwiseError
from app.core.file_lock import FileLock, LockBusy
from app.core.safe_files import SafeFileError

LOCK_FILE = ".lock"
ORPHAN_WAIT_S = 5.0


class RunBusy(LockBusy):
    """Another Stepwise process is executing this run."""


class RunLock(FileLock):
    """The one file lock (core/file_lock) on RUN/.lock, its messages naming the run."""

    def __init__(self, run_dir: Path) -> None:
        super().__init__(Path(run_dir) / LOCK_FILE)

    def __enter__(self) -> RunLock:
        super().__enter__()
        return self

    def _refused(self, exc: SafeFileError) -> StepwiseError:
        # A linked .lock must not create or touch its target (issue 17, 7); a FIFO, a device or
        # a second name of another file is refused too (issue 29).
        if os.path.islink(self.path) or os.path.isdir(self.path):
            return _open_error(self.path, exc)
        return exc

    def _open_error(self, exc: OSError) -> StepwiseError:
        return _open_error(self.path, exc)

    def _busy(self) -> StepwiseError:
        return RunBusy(
            "The run {path} is being executed by another Stepwise process.",
            path=self.path.parent,
            fix="Wait for it to finish or stop it first.",
        )


def _open_error(path: Path, exc: OSError | SafeFileError) -> StepwiseError:
    """Why RUN/.lock cannot be opened, as a message (a read-only place, a folder, a link)."""
    if path.is_symlink():
        return DamagedFileError(
            "The run's {entry} is a link ({path}); Stepwise never writes through links in a "
            "run folder.",
            path=path,
            fix="Remove the link (the run does not need it) and try again.",
            values={"entry": LOCK_FILE},
        )
    if path.is_dir():
        return DamagedFileError(
            "The run's {entry} is a folder ({path}), not the lock file.",
            path=path,
            fix="Remove that folder (it is not part of a run) and try again.",
            values={"entry": LOCK_FILE},
        )
    if isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return OutputError(
            "The run folder {folder} cannot be written (read-only): its lock {path} cannot be "
            "made.",
            path=path,
            fix="Copy the run folder to a writable place and resume it there.",
            values={"folder": path.parent},
        )
    return OutputError(
        "The run's lock {path} cannot be opened: {reason}.",
        path=path,
        fix="Check that the run folder exists and is writable.",
        values={"reason": exc.strerror if isinstance(exc, OSError) else exc},
    )


def stop_orphan_engine(pid: int | None, run_dir: Path, started: float | None = None) -> bool:
    """Kills an sd-stage that a crashed Stepwise left writing into `run_dir`; True if it did.

    A process is touched only if it is that engine: pid `pid` (and, when the run recorded it,
    created at `started`: a reused pid is someone else), an executable named sd-stage, and a
    path argument inside `run_dir` itself (a sibling folder whose name merely starts the same,
    `out` vs `out2`, does not count). Works wherever psutil does (Linux, Windows, macOS).
    """
    if not pid:
        return False
    info = platform.process_info(pid)
    if info is None or not _is_engine(info):
        return False
    if started is not None and not platform.same_start(info.started, started):
        return False
    if not _works_in(info, Path(run_dir)):
        return False
    platform.kill_process(pid)
    platform.wait_gone(pid, ORPHAN_WAIT_S)
    return True


def _is_engine(info: platform.ProcessInfo) -> bool:
    names = [info.name] + ([Path(info.argv[0]).name] if info.argv else [])
    return any(name.lower().startswith("sd-stage") for name in names)


def _works_in(info: platform.ProcessInfo, run_dir: Path) -> bool:
    run = _resolved(run_dir)
    for arg in info.argv[1:]:
        if not arg or arg.startswith("-"):
            continue
        path = Path(arg)
        if not path.is_absolute():
            if info.cwd is None:
                continue
            path = Path(info.cwd) / path
        here = _resolved(path)
        if here == run or run in here.parents:
            return True
    return False


def _resolved(path: Path) -> Path:
    try:
        return path.resolve(strict=False)
    except (OSError, RuntimeError, ValueError):
        return Path(os.path.abspath(path))
