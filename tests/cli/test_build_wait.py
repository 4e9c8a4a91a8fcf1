"""The first ./run.sh builds the engine in the background (issue 41 item 10): a command that
runs the engine waits for that build with its progress on stderr; the others do not wait."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from app import cli
from app.cli import build_wait
from app.pipeline.engine_info import BuildRunning, EngineBuildState, wait_for_engine_build

COMPILING = BuildRunning("compile", 120, 340, 250.0, 460.0)


def test_the_wait_lasts_while_a_build_runs_and_no_engine_is_there(monkeypatch) -> None:
    monkeypatch.delenv("STEPWISE_SD_STAGE", raising=False)
    states = [
        EngineBuildState(BuildRunning("", 0, 0, 1.0, None), False, None),
        EngineBuildState(COMPILING, False, None),
        EngineBuildState(None, True, None),
    ]
    seen: list[BuildRunning] = []
    slept: list[float] = []
    ended = wait_for_engine_build(
        seen.append, ask=lambda: states.pop(0), sleep=slept.append, poll_s=2.0
    )
    assert ended == EngineBuildState(None, True, None) and seen == [
        BuildRunning("", 0, 0, 1.0, None),
        COMPILING,
    ]
    assert slept == [2.0, 2.0] and states == []
    # An engine there already (the faster one builds beside it), or one given: no wait.
    beside = [EngineBuildState(COMPILING, True, None)]
    assert wait_for_engine_build(seen.append, ask=lambda: beside[0], sleep=slept.append) is None
    assert wait_for_engine_build(seen.append, Path("/opt/sd-stage"), ask=pytest.fail) is None
    monkeypatch.setenv("STEPWISE_SD_STAGE", "/opt/sd-stage")
    assert wait_for_engine_build(seen.append, ask=pytest.fail) is None


def test_run_waits_with_the_builds_progress_on_stderr(capsys) -> None:
    looks = [
        BuildRunning("configure", 0, 0, 50.0, None),
        COMPILING,
        BuildRunning("compile", 130, 340, 260.0, 450.0),  # same stage within 30 s: not said
        BuildRunning("compile", 97, 100, 1900.0, -480.0),  # a new look 30 s on: said
    ]
    now = iter([0.0, 5.0, 10.0, 40.0])

    def wait(report, given) -> EngineBuildState:
        assert given is None
        for look in looks:
            report(look)
        return EngineBuildState(None, True, None)

    args = argparse.Namespace(handler="run", engine=None)
    build_wait.wait_for_engine(args, wait=wait, clock_s=lambda: next(now))
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("The engine sd-stage is being built (the first start")
    assert err[1:] == [
        "engine build: configuring, 0:50 elapsed, no estimate yet",
        "engine build: compiling 120/340, 4:10 elapsed, about 7:40 left",
        "engine build: compiling 97 %, 31:40 elapsed, taking longer than estimated",
        "engine build: done",
    ]


def test_commands_that_need_no_engine_do_not_wait(monkeypatch) -> None:
    for handler in ("status", "prepare", "queue_list", "queue_add"):
        build_wait.wait_for_engine(argparse.Namespace(handler=handler), wait=pytest.fail)
    given: list[object] = []
    build_wait.wait_for_engine(
        argparse.Namespace(handler="selftest", engine="/opt/sd-stage"),
        wait=lambda report, engine: given.append(engine),
    )
    assert given == [Path("/opt/sd-stage")]
    # cli.main asks before the handler runs.
    order: list[str] = []
    monkeypatch.setattr(cli, "wait_for_engine", lambda args: order.append("wait"))
    monkeypatch.setattr(cli, "_handler", lambda name: lambda args: order.append(name) or 0)
    assert cli.main(["status", "/nowhere"]) == 0
    assert order == ["wait", "status"]


def test_a_build_that_ends_without_an_engine_is_not_done(capsys) -> None:
    log = Path("/checkout/.venv/engine-build.log")
    args = argparse.Namespace(handler="run", engine=None)
    build_wait.wait_for_engine(
        args, wait=lambda report, given: EngineBuildState(None, False, log, built=False)
    )
    assert capsys.readouterr().err == f"engine build: stopped without an engine (its log: {log})\n"
