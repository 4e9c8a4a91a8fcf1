"""A guard for Qt tests: fail a test that leaves a StageRunner thread or a child process running.

Use `leak_guard` as an autouse fixture (tests/jobs/conftest.py does; ui test modules import it).
Leftovers are cleaned up after the failure is recorded, so one leak doesn't cascade.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

GRACE_S = 3.0


def child_pids(root: int | None = None) -> list[int]:
    """Live (non-zombie) descendants of this process, from /proc (Linux)."""
    root = os.getpid() if root is None else root
    parents: dict[int, int] = {}
    states: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ..." — comm may contain spaces, so split after the last ')'
        rest = stat[stat.rfind(")") + 2 :].split()
        parents[int(entry.name)] = int(rest[1])
        states[int(entry.name)] = rest[0]
    found: list[int] = []
    frontier = [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent:
                frontier.append(pid)
                if states.get(pid) != "Z":
                    found.append(pid)
    return found


def _python_threads() -> set[int]:
    return {t.ident for t in threading.enumerate() if t.ident is not None}


@pytest.fixture
def leak_guard() -> Iterator[None]:
    from app.jobs.stage_runner import live_runners

    threads_before = _python_threads()
    children_before = set(child_pids())
    yield
    deadline = time.monotonic() + GRACE_S
    while time.monotonic() < deadline:
        runners = live_runners()
        children = [p for p in child_pids() if p not in children_before]
        threads = [
            t
            for t in threading.enumerate()
            if t.ident not in threads_before and t.is_alive() and not t.daemon
        ]
        if not runners and not children and not threads:
            return
        time.sleep(0.05)
    problems = []
    for runner in runners:
        problems.append(f"thread {runner.objectName()} still running")
        runner.cancel()
        runner.wait(5000)
    for pid in children:
        problems.append(f"child process {pid} still running")
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    for thread in threads:
        problems.append(f"Python thread {thread.name} still running")
    pytest.fail("; ".join(problems))
