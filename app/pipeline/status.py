"""The status JSON of a run (`python -m app status --json`): one owner for its shape."""

from __future__ import annotations

from typing import Any

from app.pipeline.api import RunSnapshot
from app.pipeline.params import values_from_spec


def status_json(run: RunSnapshot) -> dict[str, Any]:
    """`status --json`: the stages, the steps, the result, what the engine was given
    (model_input) and every parameter of the run by its table name (params)."""
    mi = run.model_input
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
            }
            for s in run.stages
        ],
        "steps": run.steps,
        "last_completed_step": run.last_completed_step,
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
        else {"kind": str(failure.kind), "stage": failure.stage, "detail": failure.detail},
        "params": values_from_spec(run.spec),
        "inputs": {"image": run.spec.image, "mask": run.spec.mask, "refs": list(run.spec.refs)},
    }
