"""Every difference between Windows and POSIX that Stepwise cares about, in one place.

`sys.platform` is read here and nowhere else in app/. Each function branches on the module
switch `WINDOWS` at call time, so tests fake the platform with
`monkeypatch.setattr(platform, "WINDOWS", True)` and fake the Win32 layer by replacing
`_kernel32` (no Windows Python is needed to exercise the Windows branches).

What lives here: how a child engine is started and contained (own process group; on Windows no
console window and a kill-on-close job object, so no engine outlives the app), how it is
signalled, process identity (pid + creation time, via psutil) for leftover engines, the file
lock on a run folder, `os.replace` that retries while Windows refuses (a viewer, an indexer or
an antivirus has the file open), directory fsync, and long (> 260 character) paths.
"""

from __future__ import annotations

import codecs
import contextlib
import ctypes
import errno
import logging
import ntpath
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

log = logging.getLogger(__name__)

WINDOWS: bool = sys.platform == "win32"
MACOS: bool = sys.platform == "darwin"

# Win32 process creation flags (subprocess only defines them on Windows).
CREATE_NEW_PROCESS_GROUP = 0x00000200
CREATE_NO_WINDOW = 0x08000000

# Win32 job objects.
JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS = 9
JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x00002000

# Windows errors for "another process has the file open": access denied, sharing violation,
# lock violation. os.replace fails with these for a moment while an indexer reads the file.
_BUSY_WINERRORS = frozenset({5, 32, 33})
REPLACE_DELAYS_S: tuple[float, ...] = (0.01, 0.02, 0.05, 0.1, 0.2, 0.4, 0.8)

MAX_PATH = 260
START_TIME_TOLERANCE_S = 1.0  # psutil's creation times agree to well under a second


def is_windows() -> bool:
    return WINDOWS


def executable_name(stem: str) -> str:
    """`sd-stage` → `sd-stage.exe` on Windows."""
    return f"{stem}.exe" if WINDOWS else stem


# -- starting and containing a child -----------------------------------------------------------


def child_popen_kwargs() -> dict[str, Any]:
    """Popen arguments for an engine child.

    POSIX: its own session (= process group), so signals reach the whole group and a Ctrl+C in
    our terminal does not reach it behind our back. Windows: no console window flashing up and
    its own process group (a console Ctrl+C is not delivered to it).
    """
    if WINDOWS:
        return {"creationflags": CREATE_NO_WINDOW | CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


class _BasicLimits(ctypes.Structure):
    _fields_ = [
        ("PerProcessUserTimeLimit", ctypes.c_int64),
        ("PerJobUserTimeLimit", ctypes.c_int64),
        ("LimitFlags", ctypes.c_uint32),
        ("MinimumWorkingSetSize", ctypes.c_size_t),
        ("MaximumWorkingSetSize", ctypes.c_size_t),
        ("ActiveProcessLimit", ctypes.c_uint32),
        ("Affinity", ctypes.c_size_t),
        ("PriorityClass", ctypes.c_uint32),
        ("SchedulingClass", ctypes.c_uint32),
    ]


class _IoCounters(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_uint64)
        for name in (
            "ReadOperationCount",
            "WriteOperationCount",
            "OtherOperationCount",
            "ReadTransferCount",
            "WriteTransferCount",
            "OtherTransferCount",
        )
    ]


class JobLimits(ctypes.Structure):
    """JOBOBJECT_EXTENDED_LIMIT_INFORMATION."""

    _fields_ = [
        ("BasicLimitInformation", _BasicLimits),
        ("IoInfo", _IoCounters),
        ("ProcessMemoryLimit", ctypes.c_size_t),
        ("JobMemoryLimit", ctypes.c_size_t),
        ("PeakProcessMemoryUsed", ctypes.c_size_t),
        ("PeakJobMemoryUsed", ctypes.c_size_t),
    ]


def _kernel32() -> Any:  # pragma: no cover - Windows only; tests replace it
    from ctypes import wintypes

    k32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    k32.CreateJobObjectW.restype = wintypes.HANDLE
    k32.CreateJobObjectW.argtypes = [ctypes.c_void_p, wintypes.LPCWSTR]
    k32.SetInformationJobObject.restype = wintypes.BOOL
    k32.SetInformationJobObject.argtypes = [
        wintypes.HANDLE,
        ctypes.c_int,
        ctypes.c_void_p,
        wintypes.DWORD,
    ]
    k32.AssignProcessToJobObject.restype = wintypes.BOOL
    k32.AssignProcessToJobObject.argtypes = [wintypes.HANDLE, wintypes.HANDLE]
    return k32


def _last_error() -> int:
    return int(getattr(ctypes, "get_last_error", lambda: 0)())


_job_handle: int | None = None  # one job for the app's lifetime; the OS closes it when we die


def _app_job(k32: Any) -> int | None:
    """The app's kill-on-close job object, created on first use."""
    global _job_handle
    if _job_handle is not None:
        return _job_handle
    job = k32.CreateJobObjectW(None, None)
    if not job:
        log.warning("CreateJobObjectW failed (error %s)", _last_error())
        return None
    limits = JobLimits()
    limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
    ok = k32.SetInformationJobObject(
        job,
        JOB_OBJECT_EXTENDED_LIMIT_INFORMATION_CLASS,
        ctypes.byref(limits),
        ctypes.sizeof(limits),
    )
    if not ok:
        log.warning("SetInformationJobObject failed (error %s)", _last_error())
        return None
    _job_handle = int(job)
    return _job_handle


def contain_child(proc: subprocess.Popen[bytes]) -> bool:
    """Ties a started child's life to ours; True when that is guaranteed by the OS.

    Windows: the child joins the app's job object with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, so
    when the app exits or crashes the OS kills it. POSIX has no such thing: the engine sees end
    of input on stdin when we die and stops by itself (PROTOCOL.md), so this returns False.
    """
    if not WINDOWS:
        return False
    k32 = _kernel32()
    job = _app_job(k32)
    if job is None:
        return False
    handle = int(getattr(proc, "_handle", 0) or 0)
    if not k32.AssignProcessToJobObject(job, handle):
        log.warning("AssignProcessToJobObject(pid %s) failed (error %s)", proc.pid, _last_error())
        return False
    return True


def signal_child(proc: subprocess.Popen[bytes], *, terminate: bool) -> None:
    """Terminates (politely where the OS has a polite way) or kills a child we started.

    POSIX signals its whole process group (SIGTERM / SIGKILL). Windows has no SIGTERM: both are
    TerminateProcess; the polite request is the engine's `cancel` command on stdin.
    """
    if proc.poll() is not None:  # reaped: its pid may belong to someone else by now
        return
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if WINDOWS:
            proc.kill()
        else:
            os.killpg(proc.pid, signal.SIGTERM if terminate else signal.SIGKILL)


# -- process identity (leftover engines) -------------------------------------------------------


@dataclass(frozen=True)
class ProcessInfo:
    pid: int
    started: float  # creation time, seconds since the epoch
    name: str
    argv: tuple[str, ...]
    cwd: str | None


def process_info(pid: int) -> ProcessInfo | None:
    """What the OS says about a live process, or None (gone, a zombie, or not ours to see)."""
    try:
        proc = psutil.Process(pid)
        with proc.oneshot():
            if proc.status() == psutil.STATUS_ZOMBIE:
                return None
            started = proc.create_time()
            name = proc.name()
            argv = tuple(proc.cmdline())
            cwd: str | None
            try:
                cwd = proc.cwd()
            except (psutil.AccessDenied, psutil.ZombieProcess, OSError):
                cwd = None
    except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied, OSError):
        return None
    return ProcessInfo(pid, started, name, argv, cwd)


def process_started(pid: int) -> float | None:
    """The creation time of a live process (with its pid, that is its identity)."""
    info = process_info(pid)
    return info.started if info is not None else None


def same_start(a: float, b: float) -> bool:
    return abs(a - b) <= START_TIME_TOLERANCE_S


def kill_process(pid: int) -> None:
    """Kills a process that is not (necessarily) our child, and its group where it leads one."""
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError, psutil.Error):
        if not WINDOWS and os.getpgid(pid) == pid:
            os.killpg(pid, signal.SIGKILL)
        else:
            psutil.Process(pid).kill()


def lower_child_priority(pid: int) -> bool:
    """Puts a child we started (background work) below normal priority; True if it took.
    Linux: nice is per thread, and a child leading its own session has its own autogroup."""
    try:
        proc = psutil.Process(pid)
        proc.nice(psutil.IDLE_PRIORITY_CLASS if WINDOWS else 19)  # type: ignore[attr-defined,unused-ignore]
        for thread in [] if WINDOWS else proc.threads():
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, thread.id, 19)  # type: ignore[attr-defined,unused-ignore]
        with contextlib.suppress(OSError), open(f"/proc/{pid}/autogroup", "w") as group:
            group.write("19")
    except (psutil.Error, OSError):
        return False
    return True


def wait_gone(pid: int, timeout_s: float) -> bool:
    """Waits until `pid` has exited (a child of ours is reaped); True if it did in time."""
    try:
        psutil.Process(pid).wait(timeout=timeout_s)
    except psutil.NoSuchProcess:
        return True
    except psutil.TimeoutExpired:
        return process_info(pid) is None
    return True


# -- files ------------------------------------------------------------------------------------


def _busy(exc: OSError) -> bool:
    winerror = getattr(exc, "winerror", None)
    if winerror is not None:
        return winerror in _BUSY_WINERRORS
    return isinstance(exc, PermissionError) or exc.errno in (errno.EACCES, errno.EBUSY)


def replace_file(src: Path | str, dst: Path | str) -> None:
    """os.replace; on Windows retried with a short back-off while another process holds `dst`
    open (about 1.6 s in all), then the last error is raised."""
    for delay in (*REPLACE_DELAYS_S, None) if WINDOWS else (None,):
        try:
            os.replace(src, dst)
            return
        except OSError as exc:
            if delay is None or not _busy(exc):
                raise
            time.sleep(delay)


def fsync_dir(folder: Path) -> None:
    """Makes a rename in `folder` durable; POSIX only (Windows cannot open a folder)."""
    if WINDOWS:
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def lock_fd(fd: int) -> None:
    """An exclusive, non-blocking lock the OS releases when the process dies; OSError if busy."""
    if WINDOWS:  # pragma: no cover - Windows
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def unlock_fd(fd: int) -> None:
    if WINDOWS:  # pragma: no cover - Windows
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)  # type: ignore[attr-defined]
    else:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_UN)


def long_path(path: Path | str) -> str:
    """A path string the OS accepts at any length.

    Windows refuses paths of MAX_PATH (260) characters or more unless they carry the `\\\\?\\`
    prefix (which turns off normalisation, so the path is made absolute and normalised first).
    Elsewhere, and for short paths, the path is returned unchanged.
    """
    text = os.fspath(path)
    if not WINDOWS or len(text) < MAX_PATH - 12 or text.startswith("\\\\?\\"):
        return text
    full = ntpath.normpath(ntpath.abspath(text) if _on_windows_host() else text)
    if full.startswith("\\\\"):  # \\server\share\... → \\?\UNC\server\share\...
        return "\\\\?\\UNC\\" + full[2:]
    return "\\\\?\\" + full


def folder_opener(folder: Path | str) -> list[str] | None:
    """The command that shows `folder` in the desktop's file manager (None on Windows, where
    os.startfile does it)."""
    if WINDOWS:
        return None
    return ["open" if MACOS else "xdg-open", os.fspath(folder)]


def open_folder(folder: Path | str) -> None:
    """Shows `folder` in the file manager, creating it first; returns at once (the file
    manager is not waited for). Raises OSError when there is no way to open it."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    command = folder_opener(path)
    if command is None:
        os.startfile(os.fspath(path))  # type: ignore[attr-defined]  # (Windows)
        return
    proc = subprocess.Popen(  # a fixed opener and our own folder
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    # xdg-open / open hand over and exit; reaped in the background so no zombie is left.
    threading.Thread(target=proc.wait, name="open-folder", daemon=True).start()


# -- standard streams -------------------------------------------------------------------------


def utf8_output() -> None:
    """Makes sys.stdout and sys.stderr take any text; called once at start-up (app/__main__.py).

    A stream that goes to a pipe or a file is encoded in the ANSI code page on Windows (cp1252;
    cp936 on a Chinese Windows), which cannot write 模型 or é: print raised UnicodeEncodeError.
    Such a stream is switched to UTF-8, what a reader of our output expects (a no-op where it is
    UTF-8 already, as on POSIX). A console keeps its encoding: Windows' console writes Unicode
    itself, a POSIX terminal wants its locale's. Under pythonw.exe (the GUI) there are no
    streams at all: they become os.devnull, so print, logging and faulthandler find one.
    """
    for name, errors in (("stdout", "replace"), ("stderr", "backslashreplace")):
        stream = getattr(sys, name)
        if stream is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8", errors=errors))
            continue
        try:
            if stream.isatty() or codecs.lookup(stream.encoding).name == "utf-8":
                continue
            stream.reconfigure(encoding="utf-8", errors=errors)
        except (AttributeError, LookupError, OSError, TypeError, ValueError):
            continue  # not a text file we can change (a test's capture, a closed stream)


def _on_windows_host() -> bool:
    # ntpath.abspath needs the real Windows API; with the platform faked, paths are absolute.
    return sys.platform == "win32"


__all__ = [
    "CREATE_NEW_PROCESS_GROUP",
    "CREATE_NO_WINDOW",
    "JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE",
    "MACOS",
    "WINDOWS",
    "JobLimits",
    "ProcessInfo",
    "child_popen_kwargs",
    "contain_child",
    "executable_name",
    "folder_opener",
    "fsync_dir",
    "is_windows",
    "kill_process",
    "lock_fd",
    "long_path",
    "open_folder",
    "process_info",
    "process_started",
    "replace_file",
    "same_start",
    "signal_child",
    "unlock_fd",
    "utf8_output",
    "wait_gone",
]
