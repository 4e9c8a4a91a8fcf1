"""A tiny scripted stand-in for the pipeline's event generator (unit tests of jobs/ and ui/).

It yields objects whose class names and fields follow app/pipeline/API.md, honours a
RunControl-like object (pause, resume, suspend, cancel) between steps, and writes real preview
PNGs, so the runner's decoding and coalescing run for real. Integration tests use the real
pipeline and engine instead.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from PIL import Image


@dataclass(frozen=True)
class StageStarted:
    stage: str
    run_dir: Path


@dataclass(frozen=True)
class StageFinished:
    stage: str
    seconds: float
    cached: bool


@dataclass(frozen=True)
class StepProgressed:
    step: int
    steps: int
    seconds_per_step: float
    eta_s: float


@dataclass(frozen=True)
class PreviewSaved:
    step: int
    path: Path


@dataclass(frozen=True)
class CheckpointSaved:
    step: int
    path: Path


@dataclass(frozen=True)
class Paused:
    step: int


@dataclass(frozen=True)
class Resumed:
    step: int


@dataclass(frozen=True)
class LogLine:
    stage: str
    text: str


@dataclass(frozen=True)
class RunFinished:
    result_path: Path


@dataclass(frozen=True)
class RunFailed:
    stage: str
    message: str
    log_path: Path | None


@dataclass(frozen=True)
class RunSuspended:
    step: int


@dataclass(frozen=True)
class RunCancelled:
    step: int


class ScriptedControl:
    """Thread-safe like RunControl: flags the UI thread sets and the generator reads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._resume = threading.Event()
        self._resume.set()
        self.suspend_requested = False
        self.cancel_requested = False

    def pause(self) -> None:
        self._resume.clear()

    def resume(self) -> None:
        self._resume.set()

    def suspend(self) -> None:
        with self._lock:
            self.suspend_requested = True
        self._resume.set()

    def cancel(self) -> None:
        with self._lock:
            self.cancel_requested = True
        self._resume.set()

    @property
    def paused(self) -> bool:
        return not self._resume.is_set()

    def wait_while_paused(self, timeout_s: float) -> None:
        self._resume.wait(timeout_s)


def write_png(path: Path, color: tuple[int, int, int], size: tuple[int, int] = (64, 64)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, color).save(path)
    return path


def scripted_run(run_dir: Path, control: ScriptedControl, *, steps: int = 4,
                 start_step: int = 0, step_s: float = 0.01, fail_at: int | None = None,
                 raise_at: int | None = None, no_terminal: bool = False,
                 cached: tuple[str, ...] = ()) -> Iterator[object]:
    """The event sequence of one full run, honouring pause/suspend/cancel between steps."""
    for stage in ("prepare", "vae-encode", "llm-encode"):
        yield StageStarted(stage, run_dir)
        yield StageFinished(stage, 0.0 if stage in cached else 0.01, stage in cached)
    yield StageStarted("diffuse", run_dir)
    yield LogLine("diffuse", "loading model")
    for step in range(start_step + 1, steps + 1):
        if control.paused:
            yield Paused(step - 1)
            while control.paused:
                control.wait_while_paused(0.05)
            yield Resumed(step - 1)
        if control.suspend_requested:
            yield RunSuspended(step - 1)
            return
        if control.cancel_requested:
            yield RunCancelled(step - 1)
            return
        time.sleep(step_s)
        if raise_at == step:
            raise RuntimeError("scripted crash")
        if fail_at == step:
            yield RunFailed("diffuse", "The engine stopped unexpectedly.", run_dir / "diffuse.log")
            return
        yield CheckpointSaved(step, run_dir / f"step_{step:03d}.bin")
        png = write_png(run_dir / "previews" / f"preview_{step:03d}.png",
                        (step * 40 % 256, 80, 200))
        yield PreviewSaved(step, png)
        yield StepProgressed(step, steps, step_s, step_s * (steps - step))
    if no_terminal:
        return
    yield StageFinished("diffuse", step_s * steps, False)
    for stage in ("vae-decode", "composite"):
        yield StageStarted(stage, run_dir)
        yield StageFinished(stage, 0.01, False)
    yield RunFinished(write_png(run_dir / "result.png", (10, 200, 10)))
