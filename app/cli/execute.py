"""Running a run in the terminal: Ctrl+C suspends, the events are printed, one exit code."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TextIO

from app.cli.exits import Exit
from app.cli.texts import failure_text
from app.core.program import typed
from app.pipeline import events as ev
from app.pipeline.api import PipelineAPI
from app.pipeline.control import RunControl
from app.pipeline.failures import FailureKind


@contextmanager
def ctrl_c_suspends(control: RunControl) -> Iterator[None]:
    """First Ctrl+C: suspend after the current step; second: stop at once."""
    presses = 0

    def handler(_signum: int, frame: FrameType | None) -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            print(
                "\nsuspending after the current step… (Ctrl+C again to stop now)",
                file=sys.stderr,
                flush=True,
            )
            control.suspend()
        else:
            control.cancel()
            raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def print_event(event: ev.Event, run_dir: Path, out: TextIO) -> Exit | None:
    """Prints one event; the exit code when it is the terminal one."""

    def say(text: str, err: bool = False) -> None:
        print(text, file=sys.stderr if err else out, flush=True)

    match event:
        case ev.StageStarted(stage=stage):
            say(f"[{stage}] started")
        case ev.StageFinished(stage=stage, seconds=seconds, cached=cached, device=device):
            how = "cached" if cached else f"done in {seconds:.2f} s"
            on = f" on {device}" if device and not cached else ""
            say(f"[{stage}] {how}{on}")
        case ev.StepProgressed(step=step, steps=steps, seconds_per_step=sps, eta_s=eta):
            say(f"[diffuse] step {step}/{steps}  {sps:.2f} s/step  eta {eta:.0f} s")
        case ev.CheckpointSaved(step=step):
            say(f"[diffuse] checkpoint {step}")
        case ev.LogLine(stage=stage, text=text):
            say(f"[{stage}] {text}")
        case ev.RunFinished(result_path=path):
            say(f"result: {path}")
            return Exit.OK
        case ev.RunFailed(stage=stage, kind=kind, message=message, log_path=log_path):
            say(f"failed in {stage}: {failure_text(kind)}", err=True)
            if message:
                say(f"  {message}", err=True)
            if log_path:
                say(f"engine log: {log_path}", err=True)
            if kind in (FailureKind.ENGINE_CRASHED, FailureKind.ENGINE_HUNG):  # the run folder
                say(f"continue from its last checkpoint: {typed('resume', run_dir)}", err=True)
            return Exit.FAILED
        case ev.RunSuspended(step=step):
            say(f"suspended after step {step}; continue with: {typed('resume', run_dir)}")
            return Exit.SUSPENDED
        case ev.RunCancelled(step=step):
            say(f"cancelled after step {step}")
            return Exit.CANCELLED
        case _:
            pass
    return None


def execute(
    pipeline: PipelineAPI,
    run_dir: Path,
    out: TextIO | None = None,
    on_event: Callable[[ev.Event], None] | None = None,
    events_of: Callable[[RunControl], ev.EventStream] | None = None,
) -> Exit:
    """Runs what is left of the run in `run_dir` (or `events_of(control)`'s events: accept
    at a step), printing its progress."""
    out = out or sys.stdout
    control = RunControl()
    code = Exit.FAILED
    with ctrl_c_suspends(control):
        events = events_of(control) if events_of else pipeline.execute(run_dir, control)
        try:
            for event in events:
                if on_event is not None:
                    on_event(event)
                terminal = print_event(event, run_dir, out)
                if terminal is not None:
                    code = terminal
        except KeyboardInterrupt:
            print("stopped", file=sys.stderr)
            code = Exit.CANCELLED
        finally:
            events.close()  # stops an engine process still running
    return code
