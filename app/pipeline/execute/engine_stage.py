"""The engine-stage adapter: spawns one sd-stage process and translates its events."""

from __future__ import annotations

import logging
import threading
from collections.abc import Generator, Iterator
from pathlib import Path

from app.engine import events as engine_events
from app.engine.argv import CommonArgs, Placement, StageArgs, build_argv
from app.engine.errors import Cancelled, EngineError, EngineStopped, Suspended
from app.engine.events import path_inside
from app.engine.process import StageProcess, engine_environment
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.execute.fit import MIB, StageSettings, job_settings
from app.pipeline.job.spec import JobSpec
from app.pipeline.run.folder import LOG_DIR, Run

log = logging.getLogger(__name__)

ENGINE_EXIT_WAIT_S = 120.0
WATCH_INTERVAL_S = 0.1
# The model whose load event tells the device a stage runs on (not diffuse's preview VAE).
STAGE_MODEL = {
    "vae-encode": "vae",
    "llm-encode": "llm",
    "diffuse": "diffusion",
    "vae-decode": "vae",
}


def log_path(run: Run, name: str) -> Path:
    return run.dir / LOG_DIR / f"{name}.log"


def common_args(spec: JobSpec, module: str, settings: StageSettings | None = None) -> CommonArgs:
    """The engine switches of one model ("te", "diffusion" or "vae"): the memory settings the
    stage runs with (app/pipeline/execute/fit.py; None: the job's devices as they are)."""
    d = spec.devices
    if settings is None:
        stage = {"te": "llm-encode", "diffusion": "diffuse", "vae": "vae-decode"}[module]
        settings = job_settings(stage, d)
    return CommonArgs(
        threads=d.threads if d.threads > 0 else None,
        placement=Placement(**{module: settings.device}),
        params_backend="cpu" if settings.weights_on_cpu else None,
        mmap=d.mmap,
        flash_attention=settings.flash_attention and module == "diffusion",
        vae_tiling=settings.vae_tiling and module == "vae",
        vae_tile_size=settings.vae_tile_size if settings.vae_tiling and module == "vae" else None,
        max_vram_gib=settings.max_vram_gib if settings.weights_on_cpu else None,
        max_alloc_bytes=d.max_alloc_mb * MIB if d.max_alloc_mb > 0 else None,
    )


def run_engine(
    run: Run, control: RunControl, engine: Path, args: StageArgs, name: str, record: bool = True
) -> Generator[ev.Event, None, None]:
    """One sd-stage process, its events translated; raises on any outcome but done.

    record=False (decode a step): nothing about the process goes into the stage's record."""
    stage = args.stage
    log = log_path(run, name)
    argv = build_argv(engine, args)
    env = engine_environment(args.common.environment())
    with StageProcess(argv, log_path=log, env=env, cwd=run.dir) as proc:
        yield ev.LogLine(stage, f"sd-stage pid {proc.pid}: {' '.join(argv[1:4])} …")
        run.engine_pid = proc.pid
        run.engine_started = proc.started
        run.save()
        control.attach(proc)
        watchdog = StopWatchdog(proc, control)
        try:
            for event in proc.events():
                yield from _translate(run, stage, event, record)
            try:
                done = proc.result(ENGINE_EXIT_WAIT_S)
            except EngineError:
                if watchdog.forced:  # it ignored the request: still the stop the user asked
                    raise watchdog.stopped() from None
                raise
        finally:
            watchdog.close()
            control.detach()
            run.engine_pid = None
            run.engine_started = None
    for out in done.outputs.values():
        if not path_inside(out, run.dir):
            raise EngineError(
                "The engine reported an output outside the run folder: {output}",
                path=log,
                values={"output": out},
            )


class StopWatchdog:
    """Gives a suspend/cancel its deadline: once control.stop_overdue(), the engine is
    terminated, then killed (StageProcess.stop's ladder), so stopping never waits forever."""

    def __init__(self, proc: StageProcess, control: RunControl) -> None:
        self.proc = proc
        self.control = control
        self.forced = False
        self._done = threading.Event()
        self._thread = threading.Thread(
            target=self._watch, name=f"sd-stage-{proc.pid}-watchdog", daemon=True
        )
        self._thread.start()

    def _watch(self) -> None:
        while not self._done.wait(WATCH_INTERVAL_S):
            if self.proc.returncode is not None:
                return
            if self.control.stop_overdue():
                log.warning(
                    "sd-stage %s did not stop within %g s of the request; forcing it",
                    self.proc.pid,
                    self.control.stop_deadline_s,
                )
                self.forced = True
                self.proc.stop(grace_s=0)  # terminate, then kill
                return

    def stopped(self) -> EngineStopped:
        """The stop the user asked for, at the last step the engine saved."""
        step = self.proc.last_checkpoint.step if self.proc.last_checkpoint else None
        if self.control.cancel_requested:
            return Cancelled(step=step)
        return Suspended(step=step)

    def close(self) -> None:
        self._done.set()
        self._thread.join(timeout=5.0)


def _translate(
    run: Run, stage: str, event: engine_events.Event, record: bool
) -> Iterator[ev.Event]:
    rec = run.stage(stage)
    if isinstance(event, engine_events.Hello):
        if record:
            rec.device = event.device
            run.set_engine_hello(event.version, event.pin)
        yield ev.DeviceReported(stage, event.device)
        yield ev.LogLine(stage, f"engine {event.version} on {event.device}")
    elif isinstance(event, engine_events.Load):
        if event.model == STAGE_MODEL.get(stage):
            if record:
                rec.device = event.device
            yield ev.DeviceReported(stage, event.device)
        yield ev.LogLine(
            stage, f"loaded the {event.model} model on {event.device} in {event.seconds:.1f} s"
        )
    elif isinstance(event, engine_events.Progress):
        if record and stage == "diffuse":
            run.steps = event.steps
        eta = max(event.steps - event.step, 0) * event.seconds_per_step
        yield ev.StepProgressed(event.step, event.steps, event.seconds_per_step, eta)
    elif isinstance(event, engine_events.Checkpoint):
        path = inside(run, event.path)
        if record:
            run.last_completed_step = event.step
            run.save()
        yield ev.CheckpointSaved(event.step, path)
    elif isinstance(event, engine_events.Preview):
        yield ev.PreviewSaved(event.step, inside(run, event.path))
    elif isinstance(event, engine_events.Paused):
        yield ev.Paused(event.step)
    elif isinstance(event, engine_events.Resumed):
        yield ev.Resumed(event.step)
    elif isinstance(event, engine_events.ErrorEvent):
        yield ev.LogLine(stage, f"engine error {event.code}: {event.message}")


def inside(run: Run, path: str) -> Path:
    """A path the engine reported, refused unless it lies inside the run folder."""
    if not path_inside(path, run.dir):
        raise EngineError(
            "The engine reported a file outside the run folder: {output}",
            values={"output": path},
        )
    candidate = Path(path)
    return candidate if candidate.is_absolute() else run.dir / candidate
