"""The pipeline: a job's way from its parameters to a finished picture, one floor per step.

    queue/ | measure/ | selftest   many jobs one after another; measure this computer
    runner.py                the Pipeline: PipelineAPI over the floors below
    execute/                 the stages run: scheduler, stages, engine stage, memory fit, accept
    cache/                   stage keys and the content-addressed stage cache
    run/                     the run folder on disk: run.json, records, inputs, checkpoints
    api.py & plans.py       the seam: PipelineAPI, RunSnapshot, JobPlan (events, control beside)
    job/                     what a job is: the parameter table, JobSpec, preflight, presets
    failures.py              what can go wrong, in words every floor shares

A floor imports only the floors under it (pyproject.toml, the "pipeline floors" contract).

Above the pipeline (ui/, jobs/, cli/) the public surface is: this package's names (below),
the seam modules `api`, `plans`, `events`, `failures`, `control`, `work_policy`, the `job`
floor, and the modules that stand beside the top floor (`measure`, `selftest`, `demo`,
`engine_info`). What the UI needs of execute/ (the memory plan, the background preview
decoder) it asks of PipelineAPI (`plan`, `preview_decoder`), so the fake stands in for it.
Everything else is reached through the names this face hands out (the "pipeline surface"
contract in pyproject.toml). They are imported when first asked for, so
`import app.pipeline.failures` stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names handed out, for the type checker; _HANDED_OUT below lists them
    from app.pipeline.execute.failure_kinds import failure_for as failure_for
    from app.pipeline.queue.jobs import JobQueue as JobQueue
    from app.pipeline.queue.jobs import QueuedJob as QueuedJob
    from app.pipeline.queue.records import JobView as JobView
    from app.pipeline.queue.records import ListedView as ListedView
    from app.pipeline.queue.records import QueueRest as QueueRest
    from app.pipeline.queue.variations import MAX_VARIATIONS as MAX_VARIATIONS
    from app.pipeline.queue.variations import prompt_lines as prompt_lines
    from app.pipeline.queue.variations import variations as variations
    from app.pipeline.queue.work_gate import Sources as Sources
    from app.pipeline.queue.work_gate import WorkGate as WorkGate
    from app.pipeline.queue.work_gate import read_status as read_status
    from app.pipeline.queue.worker import BLOCKED as BLOCKED
    from app.pipeline.queue.worker import CANCELLED as CANCELLED
    from app.pipeline.queue.worker import NO_ROOM as NO_ROOM
    from app.pipeline.queue.worker import PAUSED as PAUSED
    from app.pipeline.queue.worker import SUSPENDED as SUSPENDED
    from app.pipeline.queue.worker import run_queue as run_queue
    from app.pipeline.run.folder import STAGES as STAGES
    from app.pipeline.run.inputs import check_new_jobs as check_new_jobs
    from app.pipeline.run.inputs import copy_atomic as copy_atomic
    from app.pipeline.run.records import CHECKPOINT_DIR as CHECKPOINT_DIR
    from app.pipeline.run.records import DECODED as DECODED
    from app.pipeline.run.records import LOG_DIR as LOG_DIR
    from app.pipeline.run.records import PREPARED_DIR as PREPARED_DIR
    from app.pipeline.run.records import RESULT_FILE as RESULT_FILE
    from app.pipeline.run.records import STEPS_DIR as STEPS_DIR
    from app.pipeline.run.records import preview_file as preview_file
    from app.pipeline.run.records import preview_step as preview_step
    from app.pipeline.run.status import status_json as status_json
    from app.pipeline.runner import Pipeline as Pipeline


# Each name this face hands out → the module that defines it: the same list as the block
# above (tests/test_architecture.py checks), written out because a frozen or embedded app may
# carry only .pyc files, so the face cannot read its own source at run time.
_HANDED_OUT: dict[str, str] = {
    "failure_for": "app.pipeline.execute.failure_kinds",
    "JobQueue": "app.pipeline.queue.jobs",
    "ListedView": "app.pipeline.queue.records",
    "JobView": "app.pipeline.queue.records",
    "QueueRest": "app.pipeline.queue.records",
    "QueuedJob": "app.pipeline.queue.jobs",
    "MAX_VARIATIONS": "app.pipeline.queue.variations",
    "prompt_lines": "app.pipeline.queue.variations",
    "variations": "app.pipeline.queue.variations",
    "Sources": "app.pipeline.queue.work_gate",
    "WorkGate": "app.pipeline.queue.work_gate",
    "read_status": "app.pipeline.queue.work_gate",
    "BLOCKED": "app.pipeline.queue.worker",
    "CANCELLED": "app.pipeline.queue.worker",
    "NO_ROOM": "app.pipeline.queue.worker",
    "PAUSED": "app.pipeline.queue.worker",
    "SUSPENDED": "app.pipeline.queue.worker",
    "run_queue": "app.pipeline.queue.worker",
    "STAGES": "app.pipeline.run.folder",
    "check_new_jobs": "app.pipeline.run.inputs",
    "copy_atomic": "app.pipeline.run.inputs",
    "CHECKPOINT_DIR": "app.pipeline.run.records",
    "DECODED": "app.pipeline.run.records",
    "LOG_DIR": "app.pipeline.run.records",
    "PREPARED_DIR": "app.pipeline.run.records",
    "RESULT_FILE": "app.pipeline.run.records",
    "STEPS_DIR": "app.pipeline.run.records",
    "preview_file": "app.pipeline.run.records",
    "preview_step": "app.pipeline.run.records",
    "status_json": "app.pipeline.run.status",
    "Pipeline": "app.pipeline.runner",
}


def handed_out() -> dict[str, str]:
    """Each name this face hands out → the module that defines it."""
    return dict(_HANDED_OUT)


def __getattr__(name: str) -> Any:
    module = _HANDED_OUT.get(name)
    if module is None:  # a submodule (`from app.pipeline import events`) or a wrong name
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
