"""The fake diffusion loop of tests/fakes/fake_pipeline.py: steps paced by `step_s`, the
pipeline's own events (app/pipeline/events.py), the real RunControl honoured between steps
(pause holds, suspend and cancel end the stream), previews written as real PNGs. Like the test
engine it honours SD_STAGE_TEST_PAUSE_AT_STEP (tests/engine/pause_hook.py): it pauses by itself
after that step, so a test that stops a run at a step does so the same way with either."""

from __future__ import annotations

import io
import os
import time
from collections.abc import Callable, Generator
from pathlib import Path

from PIL import Image

from app.core.atomic import write_bytes_atomic
from app.pipeline import events as ev
from app.pipeline.control import RunControl
from tests.engine.pause_hook import PAUSE_AT_STEP_ENV

# Writes the preview of `step` to `path` (the bench swaps in one that copies large PNGs).
PreviewWriter = Callable[[Path, int], None]
PREVIEW_PX = 64


def write_preview_png(path: Path, step: int) -> None:
    """A real PREVIEW_PX square PNG whose colour depends on the step."""
    buf = io.BytesIO()
    Image.new("RGB", (PREVIEW_PX, PREVIEW_PX), (step * 40 % 256, 80, 200)).save(buf, "PNG")
    write_bytes_atomic(path, buf.getvalue())


def diffuse_steps(
    run_dir: Path,
    control: RunControl,
    *,
    steps: int,
    start_step: int = 0,
    step_s: float = 0.0,
    raise_at: int | None = None,
    preview: PreviewWriter | None = None,
    on_checkpoint: Callable[[int], None] = lambda step: None,
) -> Generator[ev.Event, None, ev.Event | None]:
    """Steps start_step + 1 .. steps; returns RunSuspended / RunCancelled if control ended the
    loop, None when every step is done. `raise_at` raises inside that step (a pipeline bug)."""
    hold_at = int(os.environ.get(PAUSE_AT_STEP_ENV) or 0)
    for step in range(start_step + 1, steps + 1):
        if step - 1 == hold_at and hold_at > start_step:
            control.pause()  # as the test engine: as if a pause was read after that checkpoint
        done = step - 1
        if control.paused and not (control.cancel_requested or control.suspend_requested):
            yield ev.Paused(done)
            control.wait_while_paused()
            if not (control.cancel_requested or control.suspend_requested):
                yield ev.Resumed(done)
        if control.cancel_requested:
            return ev.RunCancelled(done)
        if control.suspend_requested:
            return ev.RunSuspended(done)
        time.sleep(step_s)
        if raise_at == step:
            raise RuntimeError(f"fake crash in step {step}")
        yield ev.StepProgressed(step, steps, step_s, (steps - step) * step_s)
        on_checkpoint(step)
        yield ev.CheckpointSaved(step, run_dir / "checkpoints" / f"step_{step:03d}.bin")
        if preview is not None:
            path = run_dir / "checkpoints" / f"preview_{step:03d}.png"
            preview(path, step)
            yield ev.PreviewSaved(step, path)
    return None
