"""Decode this step: a checkpoint's latent x_t through vae-decode to steps/step_NNN.png, beside
the run (the run itself is not changed; accept.py is the step that finishes a run from it)."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from app.core.errors import DamagedFileError, InputError
from app.engine.errors import Cancelled, Suspended
from app.engine.stage import Stage
from app.engine.tensorfile import read_tensors, write_tensors
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from app.pipeline.execute.engine_stage import log_path, run_engine
from app.pipeline.execute.failure_kinds import failure_for
from app.pipeline.execute.stage_args import vae_decode_args
from app.pipeline.run import checkpoints
from app.pipeline.run.folder import STEPS_DIR, Run, open_run

log = logging.getLogger(__name__)


def decode_step(
    run_dir: Path, step: int, control: RunControl, engine_binary: Callable[[], Path]
) -> ev.EventStream:
    """Decodes the checkpoint after `step` (Pipeline.decode_step); exactly one terminal event,
    RunFinished(result_path=the PNG)."""
    stage = Stage.VAE_DECODE
    name = f"decode-step-{step}"
    run: Run | None = None
    try:
        run = open_run(run_dir)
        engine = engine_binary()
        checkpoint = checkpoints.valid_checkpoints(run.dir).get(step)
        if checkpoint is None:
            raise InputError("There is no valid checkpoint for step {step}.", values={"step": step})
        out = run.dir / STEPS_DIR / f"step_{step:03d}.png"
        out.parent.mkdir(parents=True, exist_ok=True)
        # Checkpoints hold x_t under the name "x_t"; vae-decode reads "latent".
        tensors = read_tensors(checkpoint)
        if "x_t" not in tensors:
            raise DamagedFileError("The checkpoint {path} holds no x_t tensor.", path=checkpoint)
        latent = out.with_suffix(".latent.bin")
        write_tensors(latent, {"latent": tensors["x_t"]})
        yield ev.StageStarted(stage, run.dir)
        started = time.monotonic()
        args = vae_decode_args(run.spec, None, latent, out)
        yield from run_engine(run, control, engine, args, name, record=False)
        yield ev.StageFinished(stage, time.monotonic() - started, False)
        yield ev.RunFinished(out)
    except Suspended as exc:
        yield ev.RunSuspended(exc.step or 0)
    except Cancelled as exc:
        yield ev.RunCancelled(exc.step or 0)
    except Exception as exc:  # typed below; exactly one terminal event
        if not isinstance(exc, InputError | DamagedFileError):
            log.exception("decoding step %s of %s failed", step, run_dir)
        logged = log_path(run, name) if run is not None else None
        failure = failure_for(exc, stage, logged if logged and logged.exists() else None)
        yield ev.RunFailed.of(failure)
