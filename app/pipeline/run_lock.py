"""One process at a time per run directory, and no engine left over from a crashed one."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path
from types import TracebackType

from app.core.errors import StepwiseError

LOCK_FILE = ".lock"
ORPHAN_WAIT_S = 5.0


class RunBusy(StepwiseError):
    """Another Stepwise process is executing this run."""


class RunLock:
    """An exclusive advisory lock on RUN/.lock, released when the process ends (even by a crash)."""

    def __init__(self, run_dir: Path) -> None:
        self.path = Path(run_dir) / LOCK_FILE
        self._fd: int | None = None

    def __enter__(self) -> RunLock:
        self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            _lock(self._fd)
        except OSError as exc:
            os.close(self._fd)
            self._fd = None
            raise RunBusy(f"The run {self.path.parent} is being executed by another Stepwise "
                          "process.", fix="Wait for it to finish or stop it first.") from exc
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                _unlock(self._fd)
            os.close(self._fd)
            self._fd = None


if os.name == "nt":  # pragma: no cover - Windows
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def stop_orphan_engine(pid: int | None, run_dir: Path) -> bool:
    """Kills an sd-stage that a crashed Stepwise left writing into `run_dir`; True if it did.

    Only a process whose command line names both sd-stage and this run folder is touched
    (Linux /proc; elsewhere the engine dies with its parent's pipes on its next event).
    """
    if not pid or os.name != "posix":
        return False
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    text = [part.decode("utf-8", "replace") for part in cmdline]
    if not text or "sd-stage" not in Path(text[0]).name:
        return False
    if not any(str(run_dir) in part for part in text):
        return False
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    deadline = time.monotonic() + ORPHAN_WAIT_S
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(pid, os.WNOHANG)
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split()[2]
        except (OSError, IndexError):
            break
        if state == "Z":
            break
        time.sleep(0.05)
    return True
