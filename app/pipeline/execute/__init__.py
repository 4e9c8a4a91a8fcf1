"""Running a job's stages.

- `scheduler.py`: one `execute()` (which stages, pause between stages, exactly one terminal
  event); `memory_retry.py`: an engine stage fitted (plan first; an out-of-memory or a
  one-colour decode retried with the next setting); `stages.py`: one object per stage
  (`StageStep`);
  `engine_stage.py`: one sd-stage process and its events.
- `stage_args.py`: the one builder of every stage's command line, for a run, its plan, `measure`
  and "Decode this step".
- `fit.py`: the ladder of memory savers per stage and what "fits" means; `job_plan.py`: the
  whole job's plan (the Devices pane, `measure`); `fit_guard.py`: the plan's verdict and the
  offers (only masked, a smaller size) the GUI's Run all / Add to queue and `run` (exit 3,
  `--force`) stop on.
- `failure_kinds.py`: the exception → `FailureKind` table; `decode_check.py`; `accept.py`:
  accept at step k; `preview_decoder.py`: decoded x0 previews in a low-priority child.
"""
