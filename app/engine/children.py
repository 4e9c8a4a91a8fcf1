"""Engine children per worker: the one mechanism that lets the owner of a worker thread stop
and reap every engine process the worker started, before the worker is destroyed (a memory
plan in flight when a window closes, a device probe at shutdown).

A worker runs its work inside `ChildGroup.scope()`; every engine process started on that thread
(engine/listing.py: devices, samplers, `--plan`, `--version`; engine/process.py: the stages)
joins the group. `ChildGroup.stop()`, from any thread, refuses new children, ends the running
ones (terminate, then kill after a grace) and reaps them; the worker's engine call then fails
with `WorkerStopped`, which its owner ignores.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Protocol

from app.core import platform
from app.engine.errors import EngineError

STOP_GRACE_S = 1.0  # terminate → kill
REAP_TIMEOUT_S = 10.0  # a killed child is gone long before this


class _Child(Protocol):
    pid: int

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...


class WorkerStopped(EngineError):
    """The worker's owner stopped it (shutdown, a window closed): not a failure to show."""

    default_message = "The engine call was stopped because its window closed."


class ChildGroup:
    """The engine children of one worker. Thread-safe; stop() is final."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self._lock = threading.Lock()
        self._children: list[_Child] = []
        self._stopped = False

    @property
    def stopped(self) -> bool:
        return self._stopped

    @contextlib.contextmanager
    def scope(self) -> Iterator[ChildGroup]:
        """Engine processes started on this thread inside the block join this group."""
        previous = getattr(_current, "group", None)
        _current.group = self
        try:
            yield self
        finally:
            _current.group = previous

    def add(self, child: _Child) -> None:
        """Registers a started child; one started after stop() is ended at once."""
        with self._lock:
            if not self._stopped:
                self._children = [c for c in self._children if c.poll() is None]
                self._children.append(child)
                return
        _end(child)
        raise WorkerStopped()

    def check(self) -> None:
        """WorkerStopped when the group has been stopped (before starting a child)."""
        if self._stopped:
            raise WorkerStopped()

    def running(self) -> list[int]:
        """The pids of the children still running."""
        with self._lock:
            return [c.pid for c in self._children if c.poll() is None]

    def stop(self) -> None:
        """Refuses new children, ends and reaps the running ones; returns when they are gone."""
        with self._lock:
            self._stopped = True
            children, self._children = self._children, []
        for child in children:
            _end(child)


def current_group() -> ChildGroup | None:
    """The group of the worker running on this thread, if any."""
    return getattr(_current, "group", None)


def register(child: _Child) -> None:
    """Puts a just-started child into this thread's group (nothing outside a worker)."""
    group = current_group()
    if group is not None:
        group.add(child)


def refuse_if_stopped() -> None:
    group = current_group()
    if group is not None:
        group.check()


def _end(child: _Child) -> None:
    if child.poll() is not None:
        return
    platform.signal_child(child, terminate=True)  # type: ignore[arg-type]
    try:
        child.wait(STOP_GRACE_S)
        return
    except Exception:  # subprocess.TimeoutExpired: kill it
        pass
    platform.signal_child(child, terminate=False)  # type: ignore[arg-type]
    with contextlib.suppress(Exception):
        child.wait(REAP_TIMEOUT_S)


_current = threading.local()
