"""A tiny scripted stand-in for the pipeline's event generator (unit tests of jobs/ and ui/).

It yields the pipeline's own event classes (app/pipeline/events.py), honours a
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

from app.pipeline.events import (
    CheckpointSaved,
    LogLine,
    Paused,
    PreviewSaved,
    Resumed,
    RunCancelled,
    RunFailed,
    RunFinished,
    RunSuspended,
    StageFinished,
    StageStarted,
    StepProgressed,
)
from app.pipeline.failures import FailureKind


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


def scripted_run(
    run_dir: Path,
    control: ScriptedControl,
    *,
    steps: int = 4,
    start_step: int = 0,
    step_s: float = 0.01,
    fail_at: int | None = None,
    raise_at: int | None = None,
    no_terminal: bool = False,
    cached: tuple[str, ...] = (),
) -> Iterator[object]:
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
            yield RunFailed(
                "diffuse",
                FailureKind.ENGINE_CRASHED,
                "The engine stopped unexpectedly.",
                run_dir / "diffuse.log",
            )
            return
        yield CheckpointSaved(step, run_dir / f"step_{step:03d}.bin")
        png = write_png(
            run_dir / "previews" / f"preview_{step:03d}.png", (step * 40 % 256, 80, 200)
        )
        yield PreviewSaved(step, png)
        yield StepProgressed(step, steps, step_s, step_s * (steps - step))
    if no_terminal:
        return
    yield StageFinished("diffuse", step_s * steps, False)
    for stage in ("vae-decode", "composite"):
        yield StageStarted(stage, run_dir)
        yield StageFinished(stage, 0.01, False)
    yield RunFinished(write_png(run_dir / "result.png", (10, 200, 10)))


# ---- a scripted Pipeline (unit tests of the panel; integration tests use the real one) ---------

STAGES = ("prepare", "vae-encode", "llm-encode", "diffuse", "vae-decode", "composite")


@dataclass
class ScriptedStageState:
    name: str
    state: str
    cached: bool
    seconds: float | None
    device: str | None = None


class ScriptedRun:
    def __init__(self, run_dir: Path, spec: object) -> None:
        self.dir = run_dir
        self.spec = spec
        self.states = {s: "pending" for s in STAGES}
        self.seconds: dict[str, float | None] = {s: None for s in STAGES}
        self.last_completed_step = 0
        self.steps = getattr(spec, "steps", 4)
        self.result: Path | None = None

    def stages(self) -> list[ScriptedStageState]:
        return [
            ScriptedStageState(s, self.states[s], self.states[s] == "cached", self.seconds[s])
            for s in STAGES
        ]

    @property
    def finished(self) -> bool:
        return self.result is not None


class ScriptedPipeline:
    """create_run / open_run / execute / decode_step / branch / unfinished_runs / devices."""

    def __init__(self, root: Path, *, step_s: float = 0.01) -> None:
        self.root = root
        self.step_s = step_s
        self.runs: dict[Path, ScriptedRun] = {}
        self.encoded_prompts: set[str] = set()
        self.fail_next_at: int | None = None

    def devices(self) -> list[tuple[str, str]]:
        return [("cpu", "CPU"), ("vulkan0", "Scripted GPU")]

    def create_run(self, spec: object) -> ScriptedRun:
        run_dir = self.root / f"run-{len(self.runs) + 1:03d}"
        run_dir.mkdir(parents=True)
        run = ScriptedRun(run_dir, spec)
        self.runs[run_dir] = run
        return run

    def open_run(self, run_dir: Path) -> ScriptedRun:
        return self.runs[Path(run_dir)]

    def unfinished_runs(self) -> list[dict]:
        return [
            {
                "run_dir": r.dir,
                "prompt": getattr(r.spec, "prompt", ""),
                "last_completed_step": r.last_completed_step,
                "steps": r.steps,
            }
            for r in self.runs.values()
            if not r.finished and r.last_completed_step
        ]

    def branch(self, run: ScriptedRun, from_step: int, **changes: object) -> ScriptedRun:
        import dataclasses

        new = self.create_run(dataclasses.replace(run.spec, **changes))
        for stage in ("prepare", "vae-encode", "llm-encode"):
            new.states[stage] = run.states[stage]
        new.last_completed_step = from_step
        new.states["diffuse"] = "pending"
        return new

    def execute(
        self, run: ScriptedRun, control: ScriptedControl, *, only: str | None = None
    ) -> Iterator[object]:
        if getattr(run.spec, "image", None) is None and not getattr(run.spec, "refs", ()):
            run.states["vae-encode"] = "skipped"  # like the real pipeline: nothing to encode
        for stage in STAGES:
            if run.states[stage] in ("done", "cached", "skipped"):
                continue
            if only is not None and stage != only:
                continue
            yield StageStarted(stage, run.dir)
            run.states[stage] = "running"
            if stage == "diffuse":
                for step in range(run.last_completed_step + 1, run.steps + 1):
                    if control.paused:
                        yield Paused(step - 1)
                        while control.paused:
                            control.wait_while_paused(0.05)
                        yield Resumed(step - 1)
                    if control.suspend_requested or control.cancel_requested:
                        run.states[stage] = "pending"
                        if control.suspend_requested:
                            yield RunSuspended(step - 1)
                        else:
                            yield RunCancelled(step - 1)
                        return
                    time.sleep(self.step_s)
                    if self.fail_next_at == step:
                        self.fail_next_at = None
                        run.states[stage] = "failed"
                        log = run.dir / "diffuse.log"
                        log.write_text("scripted engine log\nkilled\n")
                        yield RunFailed(
                            stage,
                            FailureKind.ENGINE_CRASHED,
                            "The engine stopped unexpectedly (killed).",
                            log,
                        )
                        return
                    run.last_completed_step = step
                    png = write_png(
                        run.dir / "checkpoints" / f"preview_{step:03d}.png",
                        (step * 50 % 256, 90, 180),
                        (32, 32),
                    )
                    yield CheckpointSaved(step, run.dir / f"step_{step:03d}.bin")
                    yield PreviewSaved(step, png)
                    left = run.steps - step
                    yield StepProgressed(step, run.steps, self.step_s, self.step_s * left)
            cached = (
                stage == "llm-encode" and getattr(run.spec, "prompt", "") in self.encoded_prompts
            )
            if stage == "llm-encode":
                self.encoded_prompts.add(getattr(run.spec, "prompt", ""))
            run.states[stage] = "cached" if cached else "done"
            run.seconds[stage] = 0.0 if cached else 0.01
            yield StageFinished(stage, run.seconds[stage] or 0.0, cached)
            if stage == "composite":
                run.result = write_png(run.dir / "result.png", (20, 200, 20), (64, 64))
        if run.result is not None and (only is None or only == "composite"):
            yield RunFinished(run.result)
        elif only is not None:
            yield RunFinished(run.dir / "stage-done")
        else:
            yield RunFailed("", FailureKind.ORDER, "nothing to do", None)

    def decode_step(self, run: ScriptedRun, step: int, control: object) -> Iterator[object]:
        yield StageStarted("vae-decode", run.dir)
        path = write_png(run.dir / f"decoded_{step:03d}.png", (200, 20, 20), (64, 64))
        yield StageFinished("vae-decode", 0.01, False)
        yield RunFinished(path)
