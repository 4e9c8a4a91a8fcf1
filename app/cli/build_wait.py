"""The commands that run the engine wait for its first build: the first ./run.sh starts it in
the background (scripts/setup_env.py) and opens at once, so `./run.sh run …` may come before
the engine. The build's progress goes to stderr in the CLI's English, from the same data the
status bar renders in the window's language."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from app.pipeline.engine_info import BuildRunning, EngineBuildState, wait_for_engine_build

# The handlers that start sd-stage (the others read or write files only).
ENGINE_HANDLERS = frozenset({"run", "resume", "selftest", "measure", "queue_run"})
REPORT_EVERY_S = 30.0
STAGE_WORDS = {
    "download": "downloading the source",
    "patch": "applying the patches",
    "configure": "configuring",
    "compile": "compiling",
}


def clock(seconds: float) -> str:
    total = max(0, int(round(seconds)))
    return f"{total // 60}:{total % 60:02d}"


def build_line(build: BuildRunning) -> str:
    """'compiling 120/340, 4:10 elapsed, about 7:40 left' (English: the CLI's language)."""
    what = STAGE_WORDS.get(build.stage, "starting")
    if build.stage == "compile" and build.total == 100:
        what += f" {build.done} %"
    elif build.stage == "compile" and build.total:
        what += f" {build.done}/{build.total}"
    text = f"{what}, {clock(build.elapsed_s)} elapsed"
    if build.left_s is None:
        return text + ", no estimate yet"
    if build.left_s < 1:
        return text + ", taking longer than estimated"
    return text + f", about {clock(build.left_s)} left"


def wait_for_engine(
    args: argparse.Namespace,
    *,
    wait: Callable[..., EngineBuildState | None] = wait_for_engine_build,
    clock_s: Callable[[], float] = time.monotonic,
) -> None:
    """Waits for an engine build that runs now when the command needs the engine and none
    is given; says so at once and then every REPORT_EVERY_S seconds or at a new stage."""
    if getattr(args, "handler", None) not in ENGINE_HANDLERS:
        return
    given = getattr(args, "engine", None)
    said: dict[str, float | str] = {}

    def report(build: BuildRunning) -> None:
        now = clock_s()
        last = said.get("at")
        if said.get("stage") == build.stage and isinstance(last, float):
            if now - last < REPORT_EVERY_S:
                return
        if not said:
            print(
                "The engine sd-stage is being built (the first start builds it once); this "
                "command starts when it is done. Ctrl+C stops waiting, not the build.",
                file=sys.stderr,
                flush=True,
            )
        said.update(at=now, stage=build.stage)
        print(f"engine build: {build_line(build)}", file=sys.stderr, flush=True)

    ended = wait(report, Path(given) if given else None)
    if ended is not None and ended.engine_ready:
        print("engine build: done", file=sys.stderr, flush=True)
    elif ended is not None:
        where = f" (its log: {ended.log})" if ended.log is not None else ""
        print(f"engine build: stopped without an engine{where}", file=sys.stderr, flush=True)
