"""The stage watchdog (issue 38, item 8): an engine that stops sending events is ended, its job
left interrupted with the reason, and `queue run` goes on to the next job; the next worker
resumes the job from its last checkpoint. The test build's SD_STAGE_TEST_PAUSE_AT_STEP holds
diffuse after step 1 (a pause nobody asked for: the engine makes no progress), and
STEPWISE_STAGE_WATCHDOG_S makes the watchdog's floor small."""

from __future__ import annotations

import json

import pytest

from tests.cli.conftest import run_cli
from tests.engine.pause_hook import PAUSE_AT_STEP_ENV


def _states() -> list[tuple[str, int]]:
    listed = run_cli("queue", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    return [(j["state"], j["last_completed_step"]) for j in json.loads(listed.stdout)]


def test_a_held_stage_is_ended_and_the_queue_goes_on(
    model_args: list[str], sd_stage, monkeypatch: pytest.MonkeyPatch
) -> None:
    size = ["--steps", "3", "-W", "64", "-H", "64", "-t", "1"]
    added = run_cli("queue", "add", *model_args, "-p", "a red house", *size, "--variations", "2")
    assert added.returncode == 0, added.stderr
    monkeypatch.setenv(PAUSE_AT_STEP_ENV, "1")  # every engine holds after step 1
    monkeypatch.setenv("STEPWISE_STAGE_WATCHDOG_S", "20")
    held = run_cli("queue", "run", "--engine", sd_stage)
    said = held.stdout + held.stderr
    assert "Traceback" not in said, said
    assert said.count("The engine sent nothing for 20 s in the diffuse stage") == 2, (
        said
    )  # each job's held stage, said
    assert "0 finished, 0 failed, 2 interrupted" in said, said
    assert _states() == [("interrupted", 1), ("interrupted", 1)]
    monkeypatch.delenv(PAUSE_AT_STEP_ENV)
    again = run_cli("queue", "run", "--engine", sd_stage)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "2 finished, 0 failed" in again.stdout
    assert _states() == [("done", 3), ("done", 3)]
