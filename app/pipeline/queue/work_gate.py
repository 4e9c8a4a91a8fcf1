"""The work policy applied to a running queue worker (app/pipeline/queue/worker.py).

`WorkGate.wait` holds the worker before it takes a job until the policy allows; `watching`
watches while a job runs and, when the policy stops allowing it (the user came back, the hours
ended, the mains went), suspends the job through its RunControl (`by=POLICY`, with a short
deadline: the step in progress ends at its boundary, or the engine is ended when a step takes
longer; the run resumes from its last checkpoint, bit-exactly); `took_back` then clears that
suspend so the worker waits and runs the job again. A suspend or cancel by the user still ends
the worker.

The worker's state (its policy and why it waits) is also written to `queue/worker.json` for
`queue list` in another process (`read_status`; a dead worker's file is ignored).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from app.core import platform, platform_idle
from app.core.atomic import write_text_atomic
from app.core.platform_idle import IdleSource
from app.pipeline.control import POLICY, USER, RunControl
from app.pipeline.work_policy import ALWAYS, GO, Verdict, WorkPolicy, verdict

log = logging.getLogger(__name__)

POLL_S = 1.0  # how often the policy is asked while waiting and while a job runs
STOP_AFTER_S = 5.0  # the engine is ended when its step does not end this soon after a policy stop
STATUS_FILE = "worker.json"


@dataclass
class Sources:
    """What the policy reads: the idle time, the battery and the clock (tests give fakes)."""

    idle: IdleSource | None = None
    battery: Callable[[], bool | None] = platform_idle.on_battery
    clock: Callable[[], dt.datetime] = dt.datetime.now

    @classmethod
    def system(cls) -> Sources:
        return cls(idle=platform_idle.system_idle_source())


@dataclass
class WorkGate:
    policy: WorkPolicy = field(default_factory=WorkPolicy)
    sources: Sources = field(default_factory=Sources)
    poll_s: float = POLL_S
    stop_after_s: float = STOP_AFTER_S
    on_state: Callable[[Verdict], None] | None = None  # waiting (why) / working
    status_dir: Path | None = None  # the queue folder: worker.json for `queue list`
    last: Verdict | None = None
    _stopped: bool = False  # the policy suspended the job in hand
    _wake: threading.Event = field(default_factory=threading.Event)

    def check(self) -> Verdict:
        now = GO
        if not self.always:
            src = self.sources
            idle = src.idle.idle_seconds() if src.idle is not None else None
            battery = src.battery() if self.policy.not_on_battery else None
            now = verdict(self.policy, src.clock(), idle, battery)
        return now

    def _state(self, now: Verdict) -> None:
        """Says the worker's state (waiting and why, or working) when it changes."""
        if now != self.last:
            self.last = now
            self._publish(now)

    @property
    def always(self) -> bool:
        return self.policy.mode == ALWAYS and not self.policy.not_on_battery

    def poke(self) -> None:
        """Ask the policy now, not at the next poll (a fake source that changed, the UI)."""
        self._wake.set()

    def _sleep(self) -> None:
        self._wake.wait(self.poll_s)
        self._wake.clear()

    def wait(self, control: RunControl) -> bool:
        """Blocks until the policy allows work (True), or the user suspends or cancels
        (False)."""
        while not (control.cancel_requested or USER in control.suspended_by):
            now = self.check()
            self._state(now)
            if now.work:
                return True
            self._sleep()
        return False

    @contextlib.contextmanager
    def watching(self, control: RunControl) -> Iterator[None]:
        """While the block runs, a policy that stops allowing work suspends it."""
        if self.always:
            yield
            return
        done = threading.Event()
        self._stopped = False

        def watch() -> None:
            while not done.is_set():
                now = self.check()
                if not now.work:
                    log.info("the work policy suspends the job in hand: %s", now.reason)
                    self._stopped = True
                    control.suspend(by=POLICY, deadline_s=self.stop_after_s)
                    return
                self._sleep()

        thread = threading.Thread(target=watch, name="work-policy", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            self._wake.set()
            thread.join()
            self._wake.clear()
            control.withdraw_suspend(POLICY)  # done with, whatever ended the run

    def took_back(self, control: RunControl) -> bool:
        """After a suspended run: True when the policy suspended it and nothing else asks the
        worker to stop (the worker then waits and runs the job again)."""
        return self._stopped and not (control.suspend_requested or control.cancel_requested)

    def _publish(self, now: Verdict) -> None:
        if self.status_dir is not None:
            write_status(self.status_dir, self.policy, now)
        if self.on_state is not None:
            self.on_state(now)

    def close(self) -> None:
        if self.status_dir is not None:
            with contextlib.suppress(OSError):
                (self.status_dir / STATUS_FILE).unlink()


def write_status(folder: Path, policy: WorkPolicy, now: Verdict) -> None:
    pid = os.getpid()
    data = {
        "pid": pid,
        "started": platform.process_started(pid),
        "policy": policy.to_json(),
        "waiting": None if now.work else now.reason,
        "until": now.until,
    }
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_text_atomic(folder / STATUS_FILE, json.dumps(data))
    except OSError as exc:  # `queue list` then says less; the worker goes on
        log.warning("cannot write the worker's state: %s", exc)


@dataclass(frozen=True)
class WorkerStatus:
    policy: dict[str, object]
    waiting: Verdict


def read_status(folder: Path) -> WorkerStatus | None:
    """The live worker's policy and verdict, or None (no worker, or its file is stale)."""
    try:
        data = json.loads((folder / STATUS_FILE).read_text(encoding="utf-8"))
        pid, started = int(data["pid"]), data["started"]
        policy, reason, until = dict(data["policy"]), data["waiting"], str(data["until"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    alive = platform.process_started(pid)
    if alive is None or started is None or not platform.same_start(alive, float(started)):
        return None
    return WorkerStatus(policy, GO if reason is None else Verdict(False, str(reason), until))
