"""The status JSON of a run (`python -m app status --json`): one owner for its shape."""

from __future__ import annotations

from typing import Any

from app.core.errors import StepwiseError
from app.pipeline.api import RunSnapshot
from app.pipeline.job.spec import values_from_spec
from app.pipeline.run.folder import open_run


def memory_records(run: RunSnapshot) -> dict[str, dict[str, Any]]:
    """Per engine stage: the memory settings it ran with and what fitting or a retry changed
    (run.json; app/pipeline/execute/fit.py). Empty when the run folder cannot be read now."""
    try:
        stored = open_run(run.dir)
    except (StepwiseError, OSError):
        return {}
    out = {}
    for s in run.stages:
        rec = stored.stage(s.name)
        if rec.memory is not None or rec.memory_changes:
            out[s.name] = {"settings": rec.memory, "changes": rec.memory_changes}
    return out


def status_json(run: RunSnapshot) -> dict[str, Any]:
    """`status --json`: the stages, the steps, the result, what the engine was given
    (model_input), every parameter of the run by its table name (params) and, per engine
    stage, the memory settings and the changes fitting or an out-of-memory retry made."""
    mi = run.model_input
    memory = memory_records(run)
    failure = run.failure
    return {
        "run_dir": str(run.dir),
        "id": run.id,
        "stages": [
            {
                "name": s.name,
                "state": s.state,
                "cached": s.cached,
                "seconds": s.seconds,
                "device": s.device,
                "memory": memory.get(s.name),
            }
            for s in run.stages
        ],
        "steps": run.steps,
        "last_completed_step": run.last_completed_step,
        "accepted_step": run.accepted_step,  # finished early from this step, else null
        "checkpoints": list(run.checkpoints),
        "result": None if run.result is None else str(run.result),
        "model_input": None
        if mi is None
        else {
            "width": mi.width,
            "height": mi.height,
            "region": None if mi.region is None else list(mi.region),
        },
        "failure": None
        if failure is None
        else {
            "kind": str(failure.kind),
            "stage": failure.stage,
            "detail": failure.detail,  # English; message/fix: its templates, filled from values
            "message": failure.message,
            "values": dict(failure.values),
            "fix": failure.fix,
        },
        "params": values_from_spec(run.spec),
        "inputs": {"image": run.spec.image, "mask": run.spec.mask, "refs": list(run.spec.refs)},
    }
