"""The pipeline: a job's way from its parameters to a finished picture, one floor per step.

    queue/ | measure/ | selftest   many jobs one after another; measure this computer
    runner.py                the Pipeline: PipelineAPI over the floors below
    execute/                 the stages run: scheduler, stages, engine stage, memory fit, accept
    cache/                   stage keys and the content-addressed stage cache
    run/                     the run folder on disk: run.json, records, inputs, checkpoints
    api.py                   the seam: PipelineAPI, RunSnapshot (events, control, work_policy)
    job/                     what a job is: the parameter table, JobSpec, preflight, presets
    failures.py              what can go wrong, in words every floor shares

A floor imports only the floors under it (pyproject.toml, the "pipeline floors" contract).

Above the pipeline (ui/, jobs/, cli/) the public surface is: this package's names (below),
the seam modules `api`, `events`, `failures`, `control`, `work_policy`, the `job` floor, and
the modules that stand beside the top floor (`measure`, `selftest`, `demo`, `engine_info`).
Everything else is reached through the names this face hands out (the "pipeline surface"
contract in pyproject.toml). They are imported when first asked for, so
`import app.pipeline.failures` stays light.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the one list of the names handed out; __getattr__ reads it
    from app.pipeline.execute.failure_kinds import failure_for as failure_for
    from app.pipeline.execute.fit import CPU as CPU
    from app.pipeline.execute.fit import WHY_BAD_DECODE as WHY_BAD_DECODE
    from app.pipeline.execute.fit import WHY_NOTHING_FITS as WHY_NOTHING_FITS
    from app.pipeline.execute.fit import WHY_OUT_OF_MEMORY as WHY_OUT_OF_MEMORY
    from app.pipeline.execute.fit import WHY_PLAN as WHY_PLAN
    from app.pipeline.execute.fit import Fit as Fit
    from app.pipeline.execute.fit import StageSettings as StageSettings
    from app.pipeline.execute.fit_guard import Unfit as Unfit
    from app.pipeline.execute.fit_guard import plan_for_files as plan_for_files
    from app.pipeline.execute.fit_guard import unfit_of as unfit_of
    from app.pipeline.execute.job_plan import JobPlan as JobPlan
    from app.pipeline.execute.job_plan import engine_job_plan as engine_job_plan
    from app.pipeline.execute.preview_decoder import DECODER_THREADS as DECODER_THREADS
    from app.pipeline.execute.preview_decoder import DecodedPreview as DecodedPreview
    from app.pipeline.execute.preview_decoder import PreviewDecoder as PreviewDecoder
    from app.pipeline.execute.preview_decoder import decoder_threads as decoder_threads
    from app.pipeline.execute.preview_decoder import decoder_wanted as decoder_wanted
    from app.pipeline.queue.jobs import JobQueue as JobQueue
    from app.pipeline.queue.jobs import JobView as JobView
    from app.pipeline.queue.jobs import ListedView as ListedView
    from app.pipeline.queue.jobs import QueuedJob as QueuedJob
    from app.pipeline.queue.variations import MAX_VARIATIONS as MAX_VARIATIONS
    from app.pipeline.queue.variations import prompt_lines as prompt_lines
    from app.pipeline.queue.variations import used_seeds as used_seeds
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
    from app.pipeline.run.records import PREVIEWS_DIR as PREVIEWS_DIR
    from app.pipeline.run.records import RESULT_FILE as RESULT_FILE
    from app.pipeline.run.records import STEPS_DIR as STEPS_DIR
    from app.pipeline.run.records import preview_file as preview_file
    from app.pipeline.run.records import preview_step as preview_step
    from app.pipeline.run.status import status_json as status_json
    from app.pipeline.runner import Pipeline as Pipeline


def handed_out() -> dict[str, str]:
    """Each name this face hands out → the module that defines it (read from the block above)."""
    import ast

    tree = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom) and imp.module:
                    found.update((a.asname or a.name, imp.module) for a in imp.names)
    return found


_HANDED_OUT: dict[str, str] | None = None


def __getattr__(name: str) -> Any:
    global _HANDED_OUT
    if _HANDED_OUT is None:
        _HANDED_OUT = handed_out()
    module = _HANDED_OUT.get(name)
    if module is None:  # a submodule (`from app.pipeline import events`) or a wrong name
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
