"""`queue run --when` and `queue list` in separate processes: a worker outside its hours waits
and says until when, `queue list` says the live worker's policy and why it waits, Ctrl+C ends
the waiting worker; a bad policy is a message naming the value. In process: the flags over
the Settings' policy, and "when idle" refused where no idle source answers."""

from __future__ import annotations

import argparse
import datetime as dt
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import queue_commands
from app.core import platform_idle
from app.core.errors import InputError
from app.core.paths import app_paths
from app.core.settings import Settings, WorkSettings, save_settings
from app.pipeline.queue.jobs import JobQueue
from app.pipeline.queue.work_gate import read_status
from app.pipeline.work_policy import policy_of
from tests.cli.conftest import REPO_ROOT, cli_here, run_cli
from tests.fakes.fake_idle import FakeIdle

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT to a child")


def test_bad_policies_are_messages() -> None:
    done = cli_here("queue", "run", "--when", "25:00-01:00")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert '"25:00-01:00" is not a work policy for the queue' in done.stderr, done.stderr
    done = cli_here("queue", "run", "--when", "idle", "--idle-minutes", "0")
    assert done.returncode != 0 and "from 1 to 1440 minutes, not 0" in done.stderr, done.stderr


def _flags(when: str | None = None, idle_minutes: int | None = None, battery: bool = False):
    return argparse.Namespace(when=when, idle_minutes=idle_minutes, not_on_battery=battery)


def test_run_flags_over_the_settings_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = app_paths().ensure()
    work = WorkSettings(mode="idle", idle_minutes=7, hours="22:00-05:00")
    save_settings(paths.settings_file, Settings(work=work))
    monkeypatch.setattr(platform_idle, "system_idle_source", lambda: FakeIdle(0.0))
    queue = JobQueue(paths)
    cases = [
        (_flags(), policy_of("idle", 7, "22:00-05:00")),  # the Settings' policy
        (_flags(battery=True), policy_of("idle", 7, "22:00-05:00", not_on_battery=True)),
        (_flags("idle", 3), policy_of("idle", 3, "22:00-05:00")),
        (_flags("01:00-07:00"), policy_of("hours", 7, "01:00-07:00")),
        (_flags("always"), policy_of("always", 7, "22:00-05:00")),
    ]
    for flags, policy in cases:
        gate = queue_commands.work_gate(flags, queue)
        gate.close()
        assert gate.policy == policy, flags


def test_when_idle_without_an_idle_source_is_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform_idle, "system_idle_source", lambda: None)
    with pytest.raises(InputError) as raised:
        queue_commands.work_gate(_flags("idle"), JobQueue(app_paths().ensure()))
    assert str(raised.value).startswith("This computer cannot tell how long it has been idle")
    hours = queue_commands.work_gate(_flags("01:00-07:00"), JobQueue(app_paths()))  # no idle
    hours.close()
    assert hours.policy.mode == "hours"


def test_list_says_the_policy_without_a_worker() -> None:
    done = cli_here("queue", "list")
    assert done.returncode == 0, done.stderr
    assert "policy: always (no worker running)" in done.stdout


def test_a_worker_outside_its_hours_waits_and_list_says_why(model_args: list[str]) -> None:
    added = run_cli("queue", "add", *model_args, "--steps", "2", "-W", "64", "-H", "64")
    assert added.returncode == 0, added.stderr
    now = dt.datetime.now()
    start, end = now + dt.timedelta(hours=2), now + dt.timedelta(hours=3)
    hours = f"{start:%H:%M}-{end:%H:%M}"
    worker = subprocess.Popen(
        [sys.executable, "-m", "app", "queue", "run", "--when", hours],
        cwd=REPO_ROOT,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert worker.stdout is not None
        line = worker.stdout.readline()  # the worker says its state before anything else
        assert line.strip() == f"queue worker (in hours {hours}): waiting until {start:%H:%M}"
        assert read_status(Path(app_paths().data_dir) / "queue") is not None
        listed = run_cli("queue", "list")
        assert f"policy: in hours {hours}; worker: waiting until {start:%H:%M}" in listed.stdout
        assert " queued " in listed.stdout  # the job was not taken
        worker.send_signal(signal.SIGINT)
        out, err = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert worker.returncode == 6, (out, err)  # Exit.SUSPENDED: `queue run` continues
    assert "0 finished, 0 failed" in out
    assert read_status(Path(app_paths().data_dir) / "queue") is None
