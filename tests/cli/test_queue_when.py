"""`queue run --when` and `queue list` in separate processes: a worker outside its hours waits
and says until when, `queue list` says the live worker's policy and why it waits, Ctrl+C ends
the waiting worker; a bad policy is a message naming the value."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.core.paths import app_paths
from app.pipeline.queue.work_gate import read_status
from tests.cli.conftest import REPO_ROOT, run_cli

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGINT to a child")


def test_bad_policies_are_messages() -> None:
    done = run_cli("queue", "run", "--when", "25:00-01:00")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert '"25:00-01:00" is not a work policy for the queue' in done.stderr, done.stderr
    done = run_cli("queue", "run", "--when", "idle", "--idle-minutes", "0")
    assert done.returncode != 0 and "from 1 to 1440 minutes, not 0" in done.stderr, done.stderr


def test_list_says_the_policy_without_a_worker() -> None:
    done = run_cli("queue", "list")
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
