"""app/core/platform.py: each Windows branch with the platform faked (a fake kernel32), each
POSIX branch for real."""

from __future__ import annotations

import ctypes
import errno
import io
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.core import atomic, platform


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "WINDOWS", True)
    monkeypatch.setattr(platform, "_job_handle", None)


class FakeKernel32:
    """The three job-object calls, recording what they were given."""

    def __init__(self, *, create: int = 0x44, set_ok: bool = True, assign_ok: bool = True) -> None:
        self.create, self.set_ok, self.assign_ok = create, set_ok, assign_ok
        self.calls: list[tuple[str, tuple[Any, ...]]] = []
        self.limit_flags: int | None = None
        self.info_size: int | None = None

    def CreateJobObjectW(self, attrs: object, name: object) -> int:  # Win32 name
        self.calls.append(("create", (attrs, name)))
        return self.create

    def SetInformationJobObject(self, job: int, cls: int, info: Any, size: int) -> bool:
        limits = ctypes.cast(info, ctypes.POINTER(platform.JobLimits)).contents
        self.limit_flags = limits.BasicLimitInformation.LimitFlags
        self.info_size = size
        self.calls.append(("set", (job, cls)))
        return self.set_ok

    def AssignProcessToJobObject(self, job: int, process: int) -> bool:
        self.calls.append(("assign", (job, process)))
        return self.assign_ok


class FakeProc:
    pid = 4242
    _handle = 0x1F0

    def __init__(self) -> None:
        self.killed = 0
        self.returncode: int | None = None

    def poll(self) -> int | None:
        return self.returncode

    def kill(self) -> None:
        self.killed += 1


def test_posix_child_gets_its_own_session() -> None:
    if platform.WINDOWS:
        pytest.skip("POSIX branch")
    assert platform.child_popen_kwargs() == {"start_new_session": True}
    assert platform.executable_name("sd-stage") == "sd-stage"


def test_windows_child_has_no_console_and_its_own_group(windows: None) -> None:
    kwargs = platform.child_popen_kwargs()
    assert kwargs == {"creationflags": 0x08000000 | 0x00000200}
    assert "start_new_session" not in kwargs
    assert platform.executable_name("sd-stage") == "sd-stage.exe"
    if hasattr(subprocess, "CREATE_NO_WINDOW"):  # on Windows: the real constants
        assert platform.CREATE_NO_WINDOW == subprocess.CREATE_NO_WINDOW
        assert platform.CREATE_NEW_PROCESS_GROUP == subprocess.CREATE_NEW_PROCESS_GROUP


def test_job_limits_structure_has_the_win32_layout() -> None:
    if ctypes.sizeof(ctypes.c_void_p) == 8:
        assert ctypes.sizeof(platform.JobLimits) == 144  # JOBOBJECT_EXTENDED_LIMIT_INFORMATION
        assert platform.JobLimits.IoInfo.offset == 64


def test_windows_child_joins_one_kill_on_close_job(
    windows: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    k32 = FakeKernel32()
    monkeypatch.setattr(platform, "_kernel32", lambda: k32)
    assert platform.contain_child(FakeProc()) is True  # type: ignore[arg-type]
    assert platform.contain_child(FakeProc()) is True  # type: ignore[arg-type]
    assert [c[0] for c in k32.calls] == ["create", "set", "assign", "assign"]  # one job
    assert k32.calls[1][1] == (0x44, 9)  # JobObjectExtendedLimitInformation
    assert k32.limit_flags == platform.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE == 0x2000
    assert k32.info_size == ctypes.sizeof(platform.JobLimits)
    assert k32.calls[2][1] == (0x44, 0x1F0)  # the job, the child's process handle


@pytest.mark.parametrize(
    ("k32", "calls"),
    [
        (FakeKernel32(create=0), ["create"]),
        (FakeKernel32(set_ok=False), ["create", "set"]),
        (FakeKernel32(assign_ok=False), ["create", "set", "assign"]),
    ],
    ids=["create-fails", "set-fails", "assign-fails"],
)
def test_a_failing_job_object_is_reported_not_raised(
    windows: None, monkeypatch: pytest.MonkeyPatch, k32: FakeKernel32, calls: list[str]
) -> None:
    monkeypatch.setattr(platform, "_kernel32", lambda: k32)
    assert platform.contain_child(FakeProc()) is False  # type: ignore[arg-type]
    assert [c[0] for c in k32.calls] == calls


def test_posix_has_no_job_object(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "WINDOWS", False)

    def boom() -> None:
        raise AssertionError("kernel32 on POSIX")

    monkeypatch.setattr(platform, "_kernel32", boom)
    assert platform.contain_child(FakeProc()) is False  # type: ignore[arg-type]


def test_windows_stop_is_terminate_process(windows: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_killpg(*args: object) -> None:
        raise AssertionError("killpg on Windows")

    monkeypatch.setattr(os, "killpg", no_killpg, raising=False)
    proc = FakeProc()
    platform.signal_child(proc, terminate=True)  # type: ignore[arg-type]
    platform.signal_child(proc, terminate=False)  # type: ignore[arg-type]
    assert proc.killed == 2
    proc.returncode = 1  # reaped: never signalled again
    platform.signal_child(proc, terminate=False)  # type: ignore[arg-type]
    assert proc.killed == 2


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups")
def test_posix_signal_reaches_the_group() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], **platform.child_popen_kwargs()
    )
    try:
        assert os.getpgid(proc.pid) == proc.pid
        platform.signal_child(proc, terminate=True)
        assert proc.wait(10) == -15
    finally:
        if proc.poll() is None:
            proc.kill()


def test_process_identity_is_pid_and_creation_time() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        info = platform.process_info(proc.pid)
        assert info is not None and info.pid == proc.pid
        assert info.argv[1:] == ("-c", "import time; time.sleep(60)")
        assert platform.process_started(proc.pid) == info.started
        assert platform.same_start(info.started, info.started + 0.5)
        assert not platform.same_start(info.started, info.started - 3600)
        platform.kill_process(proc.pid)
        assert platform.wait_gone(proc.pid, 10)
        assert platform.process_info(proc.pid) is None
    finally:
        if proc.poll() is None:
            proc.kill()


def _flaky_replace(failures: int, exc: OSError) -> tuple[list[tuple[str, str]], Any]:
    calls: list[tuple[str, str]] = []
    real = os.replace

    def replace(src: str, dst: str) -> None:
        calls.append((src, dst))
        if len(calls) <= failures:
            raise exc
        real(src, dst)

    return calls, replace


def _sharing_violation() -> OSError:
    exc = PermissionError(errno.EACCES, "The process cannot access the file")
    exc.winerror = 32  # type: ignore[attr-defined]
    return exc


def test_windows_replace_retries_while_the_file_is_open(
    windows: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls, replace = _flaky_replace(3, _sharing_violation())
    sleeps: list[float] = []
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(platform.time, "sleep", sleeps.append)
    target = tmp_path / "result.png"
    target.write_bytes(b"old")
    atomic.write_bytes_atomic(target, b"new")  # through atomic.py, as every writer does
    assert target.read_bytes() == b"new"
    assert len(calls) == 4
    assert sleeps == list(platform.REPLACE_DELAYS_S[:3])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.png"]


def test_windows_replace_gives_up_with_a_clear_error(
    windows: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls, replace = _flaky_replace(1000, _sharing_violation())
    monkeypatch.setattr(os, "replace", replace)
    monkeypatch.setattr(platform.time, "sleep", lambda s: None)
    target = tmp_path / "result.png"
    target.write_bytes(b"old")
    with pytest.raises(atomic.OutputError, match="Cannot write"):
        atomic.write_bytes_atomic(target, b"new")
    assert len(calls) == len(platform.REPLACE_DELAYS_S) + 1
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["result.png"]  # temp removed


def test_windows_replace_does_not_retry_other_errors(
    windows: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls, replace = _flaky_replace(1000, FileNotFoundError(errno.ENOENT, "gone"))
    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(FileNotFoundError):
        platform.replace_file(tmp_path / "a", tmp_path / "b")
    assert len(calls) == 1


def test_posix_replace_never_retries(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(platform, "WINDOWS", False)
    calls, replace = _flaky_replace(1000, PermissionError(errno.EACCES, "denied"))
    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(PermissionError):
        platform.replace_file(tmp_path / "a", tmp_path / "b")
    assert len(calls) == 1


def test_windows_skips_directory_fsync(windows: None, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_open(*args: object) -> int:
        raise AssertionError("a folder opened on Windows")

    monkeypatch.setattr(os, "open", no_open)
    platform.fsync_dir(Path("C:/Users/x"))


def test_long_windows_paths_get_the_extended_prefix(windows: None) -> None:
    short = "C:\\Users\\李\\AppData\\Local\\Stepwise\\runs\\a"
    assert platform.long_path(short) == short
    deep = "C:\\Users\\李\\runs\\" + "\\".join(["模型-é" * 10] * 6) + "\\x_t-0001.bin"
    assert len(deep) > 260
    assert platform.long_path(deep) == "\\\\?\\" + deep
    slashed = deep.replace("\\", "/")
    assert platform.long_path(slashed) == "\\\\?\\" + deep  # normalised: \\?\ turns that off
    unc = "\\\\nas\\share\\" + "d" * 300
    assert platform.long_path(unc) == "\\\\?\\UNC\\nas\\share\\" + "d" * 300
    assert platform.long_path("\\\\?\\" + deep) == "\\\\?\\" + deep


def test_posix_paths_are_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "WINDOWS", False)
    deep = "/home/李/" + "/".join(["模型-é" * 10] * 6)
    assert platform.long_path(Path(deep)) == deep


def test_run_lock_is_exclusive_and_released(tmp_path: Path) -> None:
    path = tmp_path / ".lock"
    first = os.open(path, os.O_RDWR | os.O_CREAT)
    second = os.open(path, os.O_RDWR)
    try:
        platform.lock_fd(first)
        with pytest.raises(OSError):
            platform.lock_fd(second)
        platform.unlock_fd(first)
        platform.lock_fd(second)
    finally:
        os.close(first)
        os.close(second)


def test_platform_is_read_only_in_the_platform_module() -> None:
    root = Path(__file__).resolve().parents[2] / "app"
    offenders = []
    for path in root.rglob("*.py"):
        if path.name == "platform.py" and path.parent.name == "core":
            continue
        text = path.read_text(encoding="utf-8")
        for needle in ("sys.platform", "os.name ==", "os.name !=", "/proc/", "os.killpg"):
            if needle in text:
                offenders.append(f"{path.relative_to(root)}: {needle}")
    assert offenders == []


def test_non_ascii_and_deep_run_folders_work(tmp_path: Path) -> None:
    # a Chinese user profile, a model folder with an accent, a run folder nested past 260 chars
    deep = tmp_path / "用户-李" / "uni-模型-é"
    for i in range(8):
        deep = deep / f"運行-{i:02d}-{'é' * 20}"
    target = deep / "x_t-0001.bin"
    assert len(str(target)) > 260
    atomic.write_bytes_atomic(platform.long_path(target), b"latent")
    assert target.read_bytes() == b"latent"
    fd = os.open(platform.long_path(deep / ".lock"), os.O_RDWR | os.O_CREAT)
    try:
        platform.lock_fd(fd)
        platform.unlock_fd(fd)
    finally:
        os.close(fd)


def test_every_engine_child_is_contained_and_identified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.engine.process import StageProcess

    contained: list[int] = []

    def contain(proc: subprocess.Popen[bytes]) -> bool:
        contained.append(proc.pid)
        return True

    monkeypatch.setattr(platform, "contain_child", contain)
    argv = [sys.executable, "-c", "import sys; sys.stdin.readline()"]  # ends on "cancel"
    with StageProcess(argv, log_path=tmp_path / "stage.log") as proc:
        assert contained == [proc.pid]
        assert proc.contained is True
        assert proc.started is not None and proc.started == platform.process_started(proc.pid)
    assert proc.returncode is not None


def test_lower_child_priority_puts_a_child_and_its_threads_at_nice_19() -> None:
    import subprocess
    import sys

    import psutil

    from app.core import platform as plat

    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        assert plat.lower_child_priority(child.pid) is True
        proc = psutil.Process(child.pid)
        assert proc.nice() == 19
        assert all(psutil.Process(t.id).nice() == 19 for t in proc.threads())
    finally:
        child.kill()
        child.wait()
    assert plat.lower_child_priority(child.pid) is False  # gone: no exception, just False


class _Stream(io.TextIOWrapper):
    def __init__(self, encoding: str, *, tty: bool) -> None:
        super().__init__(io.BytesIO(), encoding=encoding)
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


def test_a_redirected_stream_in_the_ansi_code_page_writes_utf8(
    windows: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("stdout", "stderr"):
        monkeypatch.setattr(sys, name, _Stream("cp936", tty=False))
    platform.utf8_output()
    print("模型 é ▸", file=sys.stdout)
    sys.stdout.flush()
    assert sys.stdout.buffer.getvalue().decode("utf-8") == "模型 é ▸\n"  # type: ignore[attr-defined]
    assert sys.stderr.encoding == "utf-8"


def test_a_console_keeps_its_encoding(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", _Stream("cp1252", tty=True))
    monkeypatch.setattr(sys, "stderr", _Stream("cp1252", tty=True))
    platform.utf8_output()
    assert sys.stdout.encoding == "cp1252"


def test_no_streams_under_pythonw_write_nowhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """The GUI under pythonw.exe has sys.stdout and sys.stderr None: print, logging and
    faulthandler must find a stream, not fail."""
    import faulthandler
    import logging

    monkeypatch.setattr(sys, "stdout", None)
    monkeypatch.setattr(sys, "stderr", None)
    platform.utf8_output()
    print("模型 é")
    handler = logging.StreamHandler()
    handler.handleError = lambda record: pytest.fail("logging failed")  # type: ignore[method-assign]
    handler.emit(logging.LogRecord("x", logging.WARNING, __file__, 1, "模型 é", None, None))
    faulthandler.enable()
    faulthandler.disable()
    sys.stdout.close()
    sys.stderr.close()
