"""An idle source the test sets by hand (app/core/platform_idle.IdleSource): the seconds since
the last input, changed when the test says so, with no clock and no desktop behind it."""

from __future__ import annotations

import threading


class FakeIdle:
    name = "fake"

    def __init__(self, idle_s: float | None = 3600.0) -> None:
        self._lock = threading.Lock()
        self._idle_s = idle_s
        self.asked = 0

    def set(self, idle_s: float | None) -> None:
        with self._lock:
            self._idle_s = idle_s

    def idle_seconds(self) -> float | None:
        with self._lock:
            self.asked += 1
            return self._idle_s
