"""What the Run tab (run_view.py) says when the run's state changes: the progress bar's line
and the status line, worked out from the state and the run alone (no widget here)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from app.jobs.run_state import RunState
from app.pipeline.api import RunSnapshot
from app.pipeline.plans import CPU
from app.ui.generation.stages import stage_title


def _tr(text: str) -> str:
    return QCoreApplication.translate("GenerationPanel", text)


def gpu_used(run: RunSnapshot) -> bool:
    """A stage of the run was loaded on a GPU (its record names a device other than the CPU;
    diffuse stopped part-way: the device it ran on): only then does a stop free one."""
    devices = {s.device for s in run.stages if s.device}
    if run.last_completed_step > 0:
        diffuse = next((s for s in run.stages if s.name == "diffuse"), None)
        devices.add(diffuse.device if diffuse and diffuse.device else run.spec.devices.diffusion)
    return any(d != CPU for d in devices)


def state_texts() -> dict[RunState, str]:
    """The one line a state says, where it says one line."""
    return {
        RunState.PREPARING: _tr("Preparing the inputs…"),
        RunState.PAUSING: _tr("Pausing after the current step…"),
        RunState.SUSPENDING: _tr("Suspending after the current step…"),
        RunState.CANCELLING: _tr("Cancelling…"),
        RunState.FINISHED: _tr("Done. The result is saved in the run folder with its settings."),
    }


def decode_ended(step: int | None, state: RunState) -> str:
    """The progress line when a decode of one step ends (its "Decoding step k…" must go)."""
    if state is RunState.FAILED:
        return _tr("Failed")
    return _tr("Step {step} decoded").format(step=step)


def suspended(run: RunSnapshot) -> tuple[str, str]:
    """(progress line, status line) of a suspended run: the step it reached, and whether the
    GPU is free now."""
    step = run.last_completed_step
    progress = _tr("Suspended at step {step} of {steps}").format(step=step, steps=run.steps or "?")
    status = (
        _tr(
            "Suspended after step {step}; the GPU is free. Resume continues "
            "from there, even after a restart."
        )
        if gpu_used(run)
        else _tr("Suspended after step {step}. Resume continues from there, even after a restart.")
    ).format(step=step)
    return progress, status


def cancelled(run: RunSnapshot) -> tuple[str, str]:
    """(progress line, status line) of a cancelled run: the step it reached stays in view;
    before its first step nothing says "step 0"."""
    step = run.last_completed_step
    if step <= 0:
        return _tr("Cancelled"), _tr(
            "Cancelled before the first step. Run all continues with the stages that are done."
        )
    return (
        _tr("Cancelled at step {step} of {steps}").format(step=step, steps=run.steps or "?"),
        _tr("Cancelled after step {step}. Run all continues from there.").format(step=step),
    )


def stage_done(stage: str) -> tuple[str, str]:
    """(progress line, status line) when one stage run alone (Run next stage) is done."""
    title = stage_title(stage)
    return (
        _tr("{stage}: done").format(stage=title),
        _tr("{stage} is done. Run next stage continues.").format(stage=title),
    )
