"""engine/children.py: the owner of a worker stops and reaps every engine child the worker
started (issue 20: a `--plan` child left running when its window closed). The wedged engine is
tests/engine/fake_stage.py's `hang` (it ignores SIGTERM: only a kill ends it)."""

from __future__ import annotations

import os
import stat
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from app.engine.children import ChildGroup, WorkerStopped
from app.engine.listing import run_engine_once

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="a POSIX shell wrapper"),
    pytest.mark.timeout(120),  # without the mechanism the call waits for its 600 s timeout
]

FAKE = Path(__file__).resolve().parent / "fake_stage.py"
CEILING_S = 60.0


def wedged_engine(folder: Path, scenario: str = "hang") -> Path:
    """An 'engine' executable that never answers (a fault injected into the real call path)."""
    script = folder / "sd-stage-wedged"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" {scenario}\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + CEILING_S
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_stop_ends_and_reaps_the_child_and_the_call_says_stopped(tmp_path: Path) -> None:
    engine = wedged_engine(tmp_path)
    group = ChildGroup("test")
    outcome: list[BaseException | None] = []

    def worker() -> None:
        with group.scope():
            try:
                run_engine_once(engine, ["--plan"], "memory plan", timeout_s=600)
                outcome.append(None)
            except BaseException as exc:  # recorded for the assertion
                outcome.append(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    _wait_for(lambda: group.running(), "the engine child to start")
    (pid,) = group.running()
    group.stop()
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    thread.join(CEILING_S)
    assert not thread.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], WorkerStopped)
    assert group.running() == []
    assert pid not in [c.pid for c in psutil.Process(os.getpid()).children(recursive=True)]


def test_a_stopped_group_starts_nothing(tmp_path: Path) -> None:
    engine = wedged_engine(tmp_path)
    group = ChildGroup("test")
    group.stop()
    before = {c.pid for c in psutil.Process(os.getpid()).children(recursive=True)}
    with group.scope(), pytest.raises(WorkerStopped):
        run_engine_once(engine, ["--plan"], "memory plan", timeout_s=600)
    after = {c.pid for c in psutil.Process(os.getpid()).children(recursive=True)}
    assert after <= before


def test_outside_a_worker_nothing_changes(tmp_path: Path) -> None:
    """No group on this thread: the call runs to its end as before."""
    engine = wedged_engine(tmp_path, "exit_status")
    done = run_engine_once(engine, [], "exit status", timeout_s=CEILING_S)
    assert done.returncode == 42 and b"hello" in done.stdout
