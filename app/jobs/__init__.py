"""The generation model and its workers (QtCore/QtGui; no widgets).

- `generation.py`: `GenerationModel` over the job form (generated from the parameter table), the
  job's inputs, the run state and the actions; `run_session.py`: the pipeline, the current run's
  snapshot and the active `CallRunner` (a worker thread that runs one pipeline call: execute,
  decode a step, accept).
- `model_input.py`: the one owner of the size the model gets; `memory_plan.py`: the Devices
  pane's debounced plan; `job_notes.py`; `values.carried_values`: a saved job's settings into
  the form (never devices, model files only where they exist).
- `preview_decoding.py` + `preview_follow.py`: background-decoded x0 previews; `background.py`
  (`LatestOnly`: only the newest request's result delivered); `run_history.py`;
  `queue_model.py`: the queue for the GUI.
- Threads: every QThread derives from `workers.AppThread` (no Qt parent; a registry keeps it
  alive until `finished` is delivered); one that spawns sd-stage from `workers.EngineWorker`,
  whose children are ended and reaped by `stop()`. Quitting with a run in hand is
  `workers.suspend_and_wait`; the exit stops every app thread (`workers.stop_every_app_thread`).
"""
