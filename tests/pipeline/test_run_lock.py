"""The leftover-engine check (issue 9 item 10): only the engine that worked in THIS run folder,
identified by pid + creation time, is ever stopped."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core import platform
from app.pipeline.run.lock import stop_orphan_engine

SLEEPER = "import sys, time; time.sleep(60)"


def _fake_engine(tmp_path: Path, *args: str) -> list[str]:
    """argv of a process that looks like sd-stage: a link named sd-stage to the interpreter."""
    link = tmp_path / "bin" / platform.executable_name("sd-stage")
    link.parent.mkdir(exist_ok=True)
    if not link.exists():
        try:
            link.symlink_to(os.path.realpath(sys.executable))
        except OSError:
            pytest.skip("cannot make a symbolic link here")
    return [str(link), "-I", "-c", SLEEPER, *args]


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[object]:
    procs: list[subprocess.Popen[bytes]] = []

    def start(argv: list[str]) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, **platform.child_popen_kwargs())
        procs.append(proc)
        deadline_ok = platform.wait_gone(proc.pid, 0.3)  # let it exec; it must NOT be gone
        assert not deadline_ok, "the stand-in engine exited at once"
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(5)


def test_engine_of_a_sibling_run_is_not_killed(tmp_path: Path, spawn) -> None:  # type: ignore[no-untyped-def]
    # resuming …/out must not kill a live engine working in …/out2 (a substring of it)
    out, out2 = tmp_path / "out", tmp_path / "out2"
    out.mkdir()
    out2.mkdir()
    proc = spawn(_fake_engine(tmp_path, "--checkpoint-dir", str(out2 / "checkpoints")))
    assert stop_orphan_engine(proc.pid, out) is False
    assert proc.poll() is None
    assert stop_orphan_engine(proc.pid, out2) is True
    assert proc.wait(5) is not None


def test_pid_reused_by_another_engine_is_not_killed(tmp_path: Path, spawn) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    out.mkdir()
    proc = spawn(_fake_engine(tmp_path, "--save-latent", str(out / "init.bin")))
    started = platform.process_started(proc.pid)
    assert started is not None
    # the recorded engine started an hour earlier: same pid, another process
    assert stop_orphan_engine(proc.pid, out, started=started - 3600) is False
    assert proc.poll() is None
    assert stop_orphan_engine(proc.pid, out, started=started) is True
    assert proc.wait(5) is not None


def test_a_process_that_is_not_an_engine_is_not_killed(tmp_path: Path, spawn) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    out.mkdir()
    proc = spawn([sys.executable, "-I", "-c", SLEEPER, str(out / "x.bin")])
    assert stop_orphan_engine(proc.pid, out) is False
    assert proc.poll() is None


def test_no_pid_or_a_dead_pid_is_nothing_to_do(tmp_path: Path) -> None:
    assert stop_orphan_engine(None, tmp_path) is False
    done = subprocess.run([sys.executable, "-c", "pass"], check=True)
    assert done.returncode == 0
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait(10)
    assert stop_orphan_engine(dead.pid, tmp_path) is False
