"""Accept at step k: finish a run from step k without running the steps after it.

The latent is step k's x0 prediction (`checkpoints/x0_NNN.bin`, which the engine keeps for its
newest 4 steps; native/PROTOCOL.md "x0 latents"); when that file is gone, step k's checkpoint
latent x_t, as "Decode this step" decodes it (Pipeline.decode_step). It becomes the run's
final latent; vae-decode and composite then run as in any run (fitted to memory), and run.json
records `"accepted": {"step": k, "diffuse_key": ...}` (run/folder.py). Diffuse is recorded done
under a key of its own (the real key + k), so a branch or the cache never takes the early latent
for the full diffusion, and a later `resume` of the run without --accept-step would run the
remaining steps (from checkpoint k on) and the run is then no longer "accepted".
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from app.core.errors import DamagedFileError, InputError, StepwiseError
from app.engine.errors import Cancelled, Suspended
from app.engine.stage import Stage
from app.engine.tensorfile import read_tensors, write_tensors
from app.pipeline import events as ev
from app.pipeline.cache.store import cache_key
from app.pipeline.control import RunControl
from app.pipeline.execute.failure_kinds import failure_for
from app.pipeline.execute.memory_retry import run_fitted
from app.pipeline.execute.scheduler import (
    DevicesOnce,
    Resources,
    engine_log_of,
    mark,
    record_failure,
)
from app.pipeline.execute.stages import STAGE_OBJECTS, StageContext, record_outputs
from app.pipeline.run import checkpoints
from app.pipeline.run.folder import CHECKPOINT_DIR, FINAL_LATENT, RESULT_FILE, Run, open_run
from app.pipeline.run.lock import RunBusy, RunLock, stop_orphan_engine

log = logging.getLogger(__name__)

FINISHING = (Stage.VAE_DECODE, Stage.COMPOSITE)


def x0_file(run_dir: Path, step: int) -> Path:
    return Path(run_dir) / CHECKPOINT_DIR / f"x0_{step:03d}.bin"


def accepted_key(diffuse_key: str, step: int) -> str:
    return cache_key("diffuse-accepted", {"diffuse": diffuse_key, "step": step})


def step_latent(run_dir: Path, step: int) -> tuple[dict[str, object], str]:
    """The latent to finish with and where it came from ("x0" or "checkpoint")."""
    valid = checkpoints.valid_checkpoints(run_dir)
    if step not in valid:
        have = ", ".join(str(k) for k in sorted(valid)) or "none"
        raise InputError(
            "The run {path} has no valid checkpoint for step {step} (valid: {have}).",
            path=run_dir,
            fix="Accept a step that has a checkpoint, or resume the run.",
            values={"step": step, "have": have},
        )
    x0 = x0_file(run_dir, step)
    if x0.is_file():
        try:
            tensors = read_tensors(x0)
            if "latent" in tensors:
                return {"latent": tensors["latent"]}, "x0"
        except (OSError, StepwiseError):
            log.warning("%s cannot be read; decoding step %s's checkpoint instead", x0, step)
    tensors = read_tensors(valid[step])
    if "x_t" not in tensors:
        raise DamagedFileError(
            "The checkpoint {path} holds no x_t tensor.",
            path=valid[step],
            fix="Resume the run instead; this checkpoint cannot be used.",
        )
    return {"latent": tensors["x_t"]}, "checkpoint"


def accept_step(res: Resources, run_dir: Path, step: int, control: RunControl) -> ev.EventStream:
    """Finishes the run from step `step`; exactly one terminal event last."""
    lock = RunLock(Path(run_dir))
    try:
        lock.__enter__()
    except RunBusy as exc:
        failure = failure_for(exc, Stage.VAE_DECODE)
        yield ev.RunFailed.of(failure)
        return
    try:
        yield from _accept_locked(res, Path(run_dir), step, control)
    finally:
        lock.__exit__(None, None, None)


def _accept_locked(res: Resources, run_dir: Path, step: int, control: RunControl) -> ev.EventStream:
    stage = Stage.DIFFUSE
    run: Run | None = None
    try:
        run = open_run(run_dir)
        if stop_orphan_engine(run.engine_pid, run.dir, started=run.engine_started):
            yield ev.LogLine(stage, "Stopped an engine left running by a crashed Stepwise process.")
        engine = res.engine_binary()
        keys = res.stage_keys(run, engine)
        diffuse_key = keys[Stage.DIFFUSE]
        if diffuse_key is None or run.stage(Stage.DIFFUSE).checkpoint_key != diffuse_key:
            raise InputError(
                "The run {path} has no checkpoints of its current job to accept.",
                path=run.dir,
                fix="Resume the run first; accept a step once it has run.",
            )
        tensors, source = step_latent(run.dir, step)
        yield ev.LogLine(stage, f"Accepting step {step}: decoding its {source} latent.")
        write_tensors(run.dir / FINAL_LATENT, tensors)  # type: ignore[arg-type]
        key = accepted_key(diffuse_key, step)
        record_outputs(run, stage, {FINAL_LATENT: FINAL_LATENT})
        run.stage(stage).mark("done", key=key, seconds=0.0, cached=False)
        run.stage(Stage.DIFFUSE).checkpoint_key = diffuse_key  # the checkpoints stay resumable
        run.last_completed_step = step
        run.set_accepted(step, key)
        run.set_result(None)
        run.failure = None
        for later in FINISHING:
            run.stage(later).mark("pending", key=None, seconds=None, cached=False)
        run.set_engine(str(engine), res.engine_version(engine))
        run.save()
        devices = DevicesOnce(res)
        stage_key = key
        for obj in STAGE_OBJECTS:
            if obj.name not in FINISHING:
                continue
            stage = obj.name
            stage_key = cache_key(f"{stage}-accepted", {"after": stage_key})
            yield ev.StageStarted(stage, run.dir)
            started = time.monotonic()
            mark(run, stage, "running", key=None, seconds=None, cached=False)
            ctx = StageContext(run, control, engine, stage_key, res.cache)
            yield from run_fitted(obj, ctx, devices)
            seconds = time.monotonic() - started
            mark(run, stage, "done", key=stage_key, seconds=round(seconds, 3), cached=False)
            yield ev.StageFinished(stage, seconds, False, run.stage(stage).device or "")
        run.set_result(RESULT_FILE)
        run.save()
        yield ev.RunFinished(run.dir / RESULT_FILE)
    except (Suspended, Cancelled) as exc:
        if run is not None:
            run.stage(stage).mark("pending", key=None, seconds=None, cached=False)
            run.save()
        step_now = run.last_completed_step if run is not None else 0
        yield ev.RunSuspended(step_now) if isinstance(exc, Suspended) else ev.RunCancelled(step_now)
    except Exception as exc:  # typed below; exactly one terminal event
        if not isinstance(exc, StepwiseError):
            log.exception("accepting step %s of %s failed", step, run_dir)
        logged = engine_log_of(run, stage, exc) if run is not None else None
        failure = failure_for(exc, stage, logged)
        if run is not None and not isinstance(exc, InputError):
            record_failure(run, failure)
        yield ev.RunFailed.of(failure)
