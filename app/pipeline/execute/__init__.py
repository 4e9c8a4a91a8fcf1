"""Running a job's stages.

- `scheduler.py`: one `execute()` (which stages, pause between stages, exactly one terminal
  event); `memory_retry.py`: an engine stage fitted (plan first; an out-of-memory or a
  one-colour decode retried with the next setting); `stages.py`: one object per stage
  (`StageStep`);
  `engine_stage.py`: one sd-stage process and its events.
- `stage_args.py`: the one builder of every stage's command line, for a run, its plan, `measure`
  and "Decode this step" (a row's `engine_flag` needs no code: `row_flags`).
- `fit.py`: the ladder of memory savers per stage and what "fits" means; `job_plan.py`: the
  whole job's plan (the Devices pane, `measure`); `fit_guard.py`: the plan at the size the
  model gets from the job's files (PipelineAPI.plan; the verdict is app/pipeline/plans.py's).
- `failure_kinds.py`: the exception → `FailureKind` table; `decode_check.py`; `decode.py`:
  "Decode this step"; `accept.py`: accept at step k; `preview_decoder.py`: decoded x0
  previews in a low-priority child.
"""
