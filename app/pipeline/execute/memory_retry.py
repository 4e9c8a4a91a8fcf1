"""One engine stage run to fit its device: planned first, retried on out-of-memory.

`run_fitted` wraps a stage's run (app/pipeline/execute/stages.py):

1. Fit before run (fit_memory on): the stage is planned with `sd-stage … --plan` on each
   setting of its ladder (app/pipeline/execute/fit.py) until one fits; that one runs. A plan that
   cannot be made (an engine without --plan, a device without memory facts) leaves the job's
   settings. A ladder of one setting is not planned: its one setting runs either way.
2. Retry: a run that fails with out of memory (EngineOutOfMemory) or decodes to one colour
   (BadDecodeError with retry) runs again with the next setting of the ladder not tried yet —
   at most once per setting, then the failure stands. Diffuse resumes from its newest valid
   checkpoint (DiffuseStage.run does that: no step before it is computed again).

Every change is recorded in the stage's run.json record ("memory": the settings it runs with,
"memory_changes": what changed, from, to and why; run/records.py) and said in the log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import replace

from app.core.errors import StepwiseError
from app.engine.errors import EngineOutOfMemory
from app.engine.plan import StagePlan, plan_stage
from app.engine.process import engine_environment
from app.pipeline import events as ev
from app.pipeline.api import DeviceInfo
from app.pipeline.execute import fit
from app.pipeline.execute.decode_check import BadDecodeError
from app.pipeline.execute.fit import Change, StageSettings
from app.pipeline.execute.stages import StageContext, StageRun, StageStep
from app.pipeline.run.folder import ENGINE_STAGES, Run

log = logging.getLogger(__name__)

WHAT_TEXT = {
    "device": "device",
    "flash_attention": "flash attention",
    "vae_tiling": "VAE tiling",
    "vae_tile_size": "VAE tile size",
    "weights_on_cpu": "weights in RAM (graph cut)",
    "max_vram_gib": "graph cut budget (GiB)",
}
WHY_TEXT = {
    fit.WHY_PLAN: "the plan did not fit the device",
    fit.WHY_NOTHING_FITS: "no setting fits the plan; trying the most frugal",
    fit.WHY_OUT_OF_MEMORY: "the stage ran out of memory",
    fit.WHY_BAD_DECODE: "the decode came out one colour",
}


def change_text(c: Change) -> str:
    """The English log line of one change (run.json keeps the change as data; nothing reads
    it back into words yet)."""
    return (
        f"{c.stage}: {WHAT_TEXT.get(c.what, c.what)} {c.old} → {c.new} "
        f"({WHY_TEXT.get(c.why, c.why)})"
    )


def engine_planner(ctx: StageContext, obj: StageStep) -> Callable[[StageSettings], StagePlan]:
    """Plans `obj` with the given settings: its real arguments plus --plan."""

    def plan(settings: StageSettings) -> StagePlan:
        args = obj.args(ctx.run, settings)  # type: ignore[attr-defined]
        env = engine_environment(args.common.environment())
        return plan_stage(ctx.engine, args.to_argv(), env)

    return plan


def record(run: Run, stage: str, settings: StageSettings, changes: list[Change]) -> None:
    rec = run.stage(stage)
    rec.memory = settings.to_json()
    rec.memory_changes = [*rec.memory_changes, *(c.to_json() for c in changes)]
    run.save()


def run_fitted(
    obj: StageStep,
    ctx: StageContext,
    devices: Callable[[], Mapping[str, DeviceInfo]],
    planner: Callable[[StageContext, StageStep], Callable[[StageSettings], StagePlan]] = (
        engine_planner
    ),
) -> StageRun:
    """Runs `obj` with fitted settings, retrying out-of-memory with the next setting."""
    stage = obj.name
    if stage not in ENGINE_STAGES:
        return (yield from obj.run(ctx))
    run = ctx.run
    spec = run.spec
    user = fit.job_settings(stage, spec.devices)
    run.stage(stage).memory_changes = []  # this run of the stage starts from the job again
    infos: Mapping[str, DeviceInfo] = {}
    settings = user
    changes: list[Change] = []
    # A ladder of one setting (llm-encode on the CPU, diffuse with flash attention on the CPU):
    # fit_stage would return the job's settings whatever the plan says, so no plan is made.
    if spec.devices.fit_memory and len(fit.ladder(stage, user)) > 1:
        try:
            infos = devices()
            chosen = fit.fit_stage(stage, user, planner(ctx, obj), infos, spec.devices.max_alloc_mb)
            settings, changes = chosen.settings, list(chosen.changes)
        except Exception as exc:  # a plan that fails must not fail the run
            if not isinstance(exc, StepwiseError | NotImplementedError | OSError):
                log.warning("planning %s failed", stage, exc_info=True)
            yield ev.LogLine(stage, f"No memory plan ({exc}); the job's settings are used.")
    record(run, stage, settings, changes)
    for c in changes:
        yield ev.LogLine(stage, change_text(c))
    tried = {settings}
    while True:
        try:
            return (yield from obj.run(replace(ctx, settings=settings)))
        except (EngineOutOfMemory, BadDecodeError) as exc:
            if isinstance(exc, BadDecodeError) and not exc.retry:
                raise
            nxt = fit.next_setting(stage, user, settings, tried, infos)
            if nxt is None:
                raise
            why = fit.WHY_BAD_DECODE if isinstance(exc, BadDecodeError) else fit.WHY_OUT_OF_MEMORY
            changes = fit.changes_between(stage, settings, nxt, why)
            record(run, stage, nxt, changes)
            yield ev.LogLine(stage, f"{exc.user_message()} Retrying with other settings.")
            for c in changes:
                yield ev.LogLine(stage, change_text(c))
            settings = nxt
            tried.add(nxt)
