"""scripts/setup_env.py fails fast and clearly (issue 27): when the system packages cannot be
installed (apt-get fails, or another package manager holds the lock past the wait) or CMake / a
C++ compiler is missing, test mode stops before any build with one line naming the command to
run; app mode says so and carries on. Fake dpkg-query / apt-get on PATH, the real code path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

import psutil
import pytest

from tests.script_module import load_script

ROOT = Path(__file__).resolve().parents[2]
LOCK_LINE = (
    "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)"
)

LOG_ARGS = 'echo "$@" >> "${0%/*}/apt.log"; '


def _setup_env() -> ModuleType:
    return load_script("setup_env")


def _tool(folder: Path, name: str, body: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


@pytest.fixture
def fake_system(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Debian where no package is installed, run as root, with cmake and g++ on PATH; apt-get
    logs its arguments to apt.log and fails (each test writes its own apt-get)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _tool(bin_dir, "dpkg-query", "echo 'unknown ok not-installed'")
    _tool(bin_dir, "cmake", "exit 0")
    _tool(bin_dir, "g++", "exit 0")
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    return bin_dir


pytestmark = pytest.mark.skipif(os.name != "posix", reason="the Debian set-up path")


@pytest.mark.parametrize(
    "apt_get",
    [
        LOG_ARGS + "echo 'E: Unable to locate package glslc' >&2; exit 100",
        LOG_ARGS + f"echo '{LOCK_LINE}' >&2; exit 100",
    ],
    ids=["install-fails", "lock-held"],
)
def test_test_mode_stops_before_the_build_with_one_line(
    fake_system: Path, apt_get: str, capfd: pytest.CaptureFixture[str]
) -> None:
    _tool(fake_system, "apt-get", apt_get)
    setup = _setup_env()
    assert setup.system_ready("test") is False
    err = capfd.readouterr().err
    # the wait for the lock is said before apt-get waits, and apt-get is told to wait
    assert f"waits up to {setup.APT_LOCK_WAIT_S} s" in err
    log = (fake_system / "apt.log").read_text()
    assert f"DPkg::Lock::Timeout={setup.APT_LOCK_WAIT_S}" in log
    stop = [line for line in err.splitlines() if "cannot set up the tests" in line]
    assert len(stop) == 1
    assert "run: sudo apt-get install -y " in stop[0] and "libvulkan-dev glslc" in stop[0]
    assert "cmake" not in stop[0]  # on PATH already (the fake one): not missing


def test_a_user_who_is_not_root_is_told_the_command(
    fake_system: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert _setup_env().system_ready("test") is False
    (line,) = [x for x in capfd.readouterr().err.splitlines() if x.strip()]
    assert "cannot set up the tests" in line and "sudo apt-get install -y " in line


@pytest.mark.parametrize("remove", [["cmake"], ["g++"], ["cmake", "g++"]])
def test_a_missing_toolchain_stops_test_mode(
    fake_system: Path, remove: list[str], capfd: pytest.CaptureFixture[str]
) -> None:
    _tool(fake_system, "dpkg-query", "echo 'install ok installed'")
    for name in remove:
        (fake_system / name).unlink()
    assert _setup_env().system_ready("test") is False
    (line,) = [x for x in capfd.readouterr().err.splitlines() if x.strip()]
    assert "cannot set up the tests" in line
    assert "sudo apt-get install -y cmake g++" in line
    assert ("CMake" in line) == ("cmake" in remove)
    assert ("C++ compiler" in line) == ("g++" in remove)


def test_app_mode_says_why_and_carries_on(
    fake_system: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    _tool(fake_system, "apt-get", "exit 100")
    setup = _setup_env()
    assert setup.system_ready("app") is True  # the packages are the window's; the build goes on
    assert "carrying on without them" in capfd.readouterr().err
    _tool(fake_system, "dpkg-query", "echo 'install ok installed'")
    (fake_system / "cmake").unlink()
    assert setup.system_ready("app") is False
    assert "The engine cannot be built" in capfd.readouterr().err


def test_all_there_is_ready(fake_system: Path, capfd: pytest.CaptureFixture[str]) -> None:
    _tool(fake_system, "dpkg-query", "echo 'install ok installed'")
    assert _setup_env().system_ready("test") is True
    assert capfd.readouterr().err == ""


def _app_setup_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, build_py: str) -> ModuleType:
    """setup_env in app mode in `tmp_path`, over a native/build.py of the test's (`build_py`),
    the venv, the install and the system packages taken as done."""
    setup = _setup_env()
    fake_build = tmp_path / "native" / "build.py"
    fake_build.parent.mkdir()
    fake_build.write_text(build_py)
    monkeypatch.setattr(setup, "ROOT", tmp_path)
    monkeypatch.setattr(setup, "ensure_venv", lambda: Path(sys.executable))
    monkeypatch.setattr(setup, "install", lambda py, mode: None)
    monkeypatch.setattr(setup, "system_ready", lambda mode: True)
    monkeypatch.setattr(setup, "BACKGROUND_LOG", tmp_path / ".venv" / "engine-build.log")
    monkeypatch.setattr(setup, "BACKGROUND_NOTE", tmp_path / ".venv" / "engine-build.json")
    monkeypatch.setattr(sys, "argv", ["setup_env.py", "app"])
    return setup


# A build.py that is not built yet (--print-path exits 1), whose build writes `started` (its
# arguments), waits for `release` (at most 20 s), then prints its path and writes `built`.
SLOW_BUILD = (
    "import pathlib, sys, time\n"
    "here = pathlib.Path(sys.argv[0]).parent\n"
    "if '--print-path' in sys.argv: sys.exit(1)\n"
    "(here / 'started').write_text(' '.join(sys.argv[1:]))\n"
    "deadline = time.monotonic() + 20\n"
    "while not (here / 'release').exists() and time.monotonic() < deadline:\n"
    "    time.sleep(0.05)\n"
    "print('[100%] Built target sd-stage')\n"
    "print('/cache/build/vulkan-0123/bin/sd-stage')\n"
    "(here / 'built').write_text('yes')\n"
)


def _wait_for(path: Path, seconds: float = 60) -> bool:
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:  # a detached child's outcome
        time.sleep(0.05)
    return path.exists()


def test_the_first_start_opens_at_once_while_the_engine_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Issue 41 item 10: the first ./run.sh built the Vulkan engine (34 minutes) before the
    window opened. Now setup_env starts the build detached and returns while it runs, so run.sh
    opens the window; the build's note (pid, log) lets the window follow it from its first
    second. Stdout stays the command's (`./run.sh queue list --json`, issue 30 item 12)."""
    setup = _app_setup_over(tmp_path, monkeypatch, SLOW_BUILD)
    monkeypatch.setenv("VULKAN_SDK", str(tmp_path))  # the Vulkan tools are there
    native = tmp_path / "native"
    try:
        assert setup.main() == 0
        assert not (native / "built").exists()  # returned while the build runs
        assert _wait_for(native / "started")
        assert (native / "started").read_text() == "--vulkan"
        note = json.loads((tmp_path / ".venv" / "engine-build.json").read_text())
        assert note["log"] == str(tmp_path / ".venv" / "engine-build.log")
        assert note["options"] == ["--vulkan"]
        assert psutil.Process(note["pid"]).cmdline()[-2:] == [str(native / "build.py"), "--vulkan"]
    finally:
        (native / "release").write_text("go")
    out, err = capfd.readouterr()
    assert out == ""
    assert "first start" in err and "in the background" in err and "engine-build.log" in err
    assert _wait_for(native / "built")
    log = (tmp_path / ".venv" / "engine-build.log").read_text()
    assert "/cache/build/vulkan-0123/bin/sd-stage" in log  # its output went to the log


def test_test_mode_still_builds_before_the_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """./test.sh is unchanged: the test build runs in the foreground, before pytest."""
    setup = _app_setup_over(tmp_path, monkeypatch, SLOW_BUILD.replace("+ 20", "+ 0"))
    monkeypatch.setattr(sys, "argv", ["setup_env.py", "test"])
    monkeypatch.setenv("VULKAN_SDK", str(tmp_path))
    assert setup.main() == 0
    assert (tmp_path / "native" / "built").exists()  # done before main returned
    assert (tmp_path / "native" / "started").read_text() == "--vulkan --test-hooks"
    assert not (tmp_path / ".venv" / "engine-build.json").exists()
    out, err = capfd.readouterr()
    assert out == "" and "/cache/build/vulkan-0123/bin/sd-stage" in err


def test_the_note_is_the_one_the_window_reads() -> None:
    from app.engine.build_state import BUILD_NOTE_NAME

    assert _setup_env().BACKGROUND_NOTE.name == BUILD_NOTE_NAME


def _fake_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cpu_line: str) -> ModuleType:
    """setup_env over a native/build.py that has the CPU engine but not the Vulkan one (the
    Vulkan tools came after the first start); its real Vulkan build writes vulkan-built."""
    setup = _app_setup_over(
        tmp_path,
        monkeypatch,
        "import sys, pathlib\n"
        "vulkan = '--vulkan' in sys.argv\n"
        "if '--print-path' in sys.argv:\n"
        f"    print({cpu_line!r}, file=sys.stderr)\n"  # said whichever engine is asked for
        "    if vulkan: sys.exit(3 if 'building now' in "
        f"{cpu_line!r} else 1)\n"
        "    print('/cache/build/cpu-0123/bin/sd-stage'); sys.exit(0)\n"
        "pathlib.Path(sys.argv[0]).with_name('vulkan-built').write_text(' '.join(sys.argv[1:]))\n",
    )
    monkeypatch.setenv("VULKAN_SDK", str(tmp_path))  # the Vulkan tools are there now
    return setup


def test_a_missing_faster_engine_is_built_in_the_background(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Issue 30 item 12: with the Vulkan tools installed after the first start, ./run.sh was a
    silent 10-30 minute build with no window although the CPU engine worked. The app opens at
    once; the Vulkan build runs detached, its output in the log."""
    setup = _fake_builds(tmp_path, monkeypatch, "")
    assert setup.main() == 0
    out, err = capfd.readouterr()
    assert out == "" and "built in the background" in err and "engine-build.log" in err
    built = tmp_path / "native" / "vulkan-built"
    deadline = time.monotonic() + 60
    while not built.exists() and time.monotonic() < deadline:  # the detached child's outcome
        time.sleep(0.05)
    assert built.read_text() == "--vulkan"
    assert (tmp_path / ".venv" / "engine-build.log").exists()


def test_a_background_build_under_way_is_not_started_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    setup = _fake_builds(tmp_path, monkeypatch, "build.py: building now: compile 40 %")
    started: list[list[str]] = []
    monkeypatch.setattr(setup, "spawn_detached", lambda argv, log: started.append(argv) or 1)
    assert setup.main() == 0
    assert started == []
    assert "built in the background" in capfd.readouterr().err


@pytest.mark.parametrize("lacking", ["venv", "ensurepip"])
def test_a_python_that_cannot_make_a_venv_says_so_in_one_line(
    lacking: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """python.org's embeddable Python (and Debian's without python3-venv) has no venv or
    ensurepip: run.cmd stopped at "No module named 'venv'" (issue 37, bug 6). One line says
    so and points at the setup .exe; nothing is created."""

    def no_child(*args: object, **kwargs: object) -> None:
        pytest.fail(f"ran {args[0]!r}")  # no venv made, no pip run

    monkeypatch.setitem(sys.modules, lacking, None)  # `import venv` raises ImportError
    monkeypatch.setattr(subprocess, "run", no_child)
    monkeypatch.setattr(subprocess, "check_output", no_child)
    monkeypatch.setattr(subprocess, "check_call", no_child)
    setup = _setup_env()
    monkeypatch.setattr(setup, "VENV", tmp_path / ".venv")
    monkeypatch.setattr(sys, "argv", ["setup_env.py", "app"])
    assert setup.main() == 1
    err = capfd.readouterr().err
    assert len(err.splitlines()) == 1, err
    assert "cannot make a virtual environment" in err and lacking in err
    assert "setup .exe" in err and "python installer/build.py windows" in err
    assert not (tmp_path / ".venv").exists()
